"""The sweep: every implementation at every sequence length n, timed in shuffled,
interleaved rounds, and the tables that show it (the counting and timing chapter).

The command line that runs a sweep and saves it is `benchmarks/sweep.py`. From the repository root::

    PYTHONPATH=. python -m benchmarks.sweep --device cpu --dtype float32 --sizes 128,256,512
    PYTHONPATH=. python -m benchmarks.sweep --device cuda --dtype bfloat16 \\
        --sizes 1024,4096,16384 --out gpu.json
"""

from __future__ import annotations

import contextlib
import math
import operator
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .arrays import empty, exp, exp_in_place, full, loaded_torch, max_along, maximum, sum_along
from .bench import synchronize, time_once
from .core import attention, swap_last_two
from .counting import attention_flops, attention_matrix_bytes, dtype_bytes
from .in_place import naive_attention
from .machine import matmul_peak, memory_budget
from .tiled import BLOCK, QUERY_BLOCK, tiled_attention

IMPLEMENTATIONS = ["plain-numpy", "naive-numpy", "naive-torch", "tiled-numpy", "tiled-torch", "sdpa-torch"]
NUMPY_DTYPES = {"float32", "float64"}


def _skip_reason(impl: str, device: str, dtype: str, a_bytes: int, budget: int) -> str | None:
    library = impl.split("-")[1]
    if library == "numpy" and device != "cpu":
        return "numpy runs on the CPU only"
    if library == "numpy" and dtype not in NUMPY_DTYPES:
        return f"numpy has no {dtype}"
    if library == "torch" and loaded_torch() is None:
        return "torch is not installed"
    if impl.split("-")[0] in ("plain", "naive") and a_bytes > budget:  # an n×n score array per head
        return (
            f"naive attention would need about {a_bytes / 2**30:.1f} GiB "
            f"(an n×n array per head), over the budget of {budget / 2**30:.1f} GiB"
        )
    return None


def _inputs(library: str, device: str, dtype: str, shape: tuple[int, ...], seed: int = 0) -> tuple:
    if library == "numpy":
        rng = np.random.default_rng(seed)
        return tuple(rng.standard_normal(shape, dtype=np.float64).astype(dtype) for _ in range(3))
    torch = loaded_torch()
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, generator=gen).to(device=device, dtype=getattr(torch, dtype)) for _ in range(3))


def kernel(impl: str) -> Callable:
    """The function an implementation name times: 'plain-numpy' -> attnlib.attention's Z, ...."""
    kind = impl.split("-")[0]
    if kind == "plain":
        return lambda Q, K, V: attention(Q, K, V)[0]
    if kind == "naive":
        return lambda Q, K, V: naive_attention(Q, K, V)[0]
    if kind == "tiled":
        return tiled_attention
    return loaded_torch().nn.functional.scaled_dot_product_attention


def interleaved(
    calls: dict[str, Callable[[], Any]],
    rounds: int,
    warmup: int = 1,
    device: str = "cpu",
    seed: int = 0,
    usage: dict | None = None,
) -> dict[str, list[float]]:
    """Time every call once per round, in a new shuffled order each round.

    A slow spell of the machine then hits every call alike instead of one of them, and
    no call always runs first (or right after the same neighbour). Returns the seconds of
    each call, one list per name, round by round, and the load average before each round
    under "_load". Given a dict `usage`, it also gets, per call name, the page faults and the
    system time (resource.getrusage, where there is one) of each sample.
    """
    import random

    order, shuffle = list(calls), random.Random(seed).shuffle
    for _ in range(warmup):
        for name in order:
            calls[name]()
    synchronize(device)
    samples: dict[str, list[float]] = {name: [] for name in order}
    samples["_load"] = []
    for _ in range(rounds):
        samples["_load"].append(os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan)
        shuffle(order)
        for name in order:
            before = _usage()
            samples[name].append(time_once(calls[name], (), device))
            if usage is not None and before is not None:
                after = _usage()
                usage.setdefault(name, {"page_faults": [], "system_s": []})
                usage[name]["page_faults"].append(after[0] - before[0])
                usage[name]["system_s"].append(after[1] - before[1])
    return samples


def _usage() -> tuple[int, float] | None:
    """This process's page faults (minor) and system seconds so far, or None without getrusage."""
    try:
        import resource
    except ImportError:  # not on Windows
        return None
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_minflt, used.ru_stime


# The sweep's defaults, the one home of them: run_sweep's and `python -m benchmarks.sweep`'s.
DEFAULTS = {
    "device": "cpu",
    "dtype": "float32",
    "sizes": [128, 256, 512, 1024, 2048],
    "d": 64,
    "batch": 1,
    "heads": 8,
    "repeat": 5,
    "warmup": 2,
    "threads": 1,
    "implementations": list(IMPLEMENTATIONS),
    "peak_size": None,
}


def run_sweep(
    device: str = DEFAULTS["device"],
    dtype: str = DEFAULTS["dtype"],
    sizes: list[int] | None = None,
    d: int = DEFAULTS["d"],
    batch: int = DEFAULTS["batch"],
    heads: int = DEFAULTS["heads"],
    implementations: list[str] | None = None,
    repeat: int = DEFAULTS["repeat"],
    warmup: int = DEFAULTS["warmup"],
    peak_flops: float | None = None,
    budget_bytes: int | None = None,
    progress: Callable[[str], None] | None = print,
) -> list[dict]:
    """Time each implementation at each sequence length n in `repeat` shuffled, interleaved rounds;
    one row per (n, impl), skips and failures included."""
    implementations = list(implementations or DEFAULTS["implementations"])
    unknown = [i for i in implementations if i not in IMPLEMENTATIONS]
    if unknown:
        raise ValueError(f"run_sweep: unknown implementations {unknown}; choose from {IMPLEMENTATIONS}")
    peak_flops = matmul_peak(device, dtype) if peak_flops is None else peak_flops
    budget = memory_budget(device) if budget_bytes is None else budget_bytes
    say = progress or (lambda line: None)
    rows = [
        _row(impl, n, d, batch, heads, dtype, device, budget)
        for n in sizes or DEFAULTS["sizes"]
        for impl in implementations
    ]
    calls = {}
    for row in rows:
        if row["status"] == "measured":
            call, failure = _prepared(row)
            if failure is None:
                calls[(row["impl"], row["n"])] = call
            else:
                row.update(status="failed", skipped=failure)
        if row["skipped"]:
            say(_describe(row))
    say(f"timing {len(calls)} points in {repeat} shuffled rounds")
    torch = loaded_torch() if any(impl.endswith("torch") for impl, _ in calls) else None
    with torch.inference_mode() if torch is not None else contextlib.nullcontext():
        usage: dict = {}
        samples = interleaved(calls, repeat, warmup=max(warmup - 1, 0), device=device, usage=usage)
    for row in rows:
        if (row["impl"], row["n"]) in calls:
            row.update(_timed(samples[(row["impl"], row["n"])], samples["_load"], row, peak_flops))
            row.update(usage.get((row["impl"], row["n"]), {}))  # page faults and system seconds per sample
            say(_describe(row))
    return rows


def _row(impl: str, n: int, d: int, batch: int, heads: int, dtype: str, device: str, budget: int) -> dict:
    """One point of the sweep before it is timed: its workload, and why it is skipped (or None)."""
    a_bytes = attention_matrix_bytes(n, batch=batch, heads=heads, dtype_bytes=dtype_bytes(dtype))
    skipped = _skip_reason(impl, device, dtype, a_bytes, budget)
    return {
        "impl": impl,
        "n": n,
        "d": d,
        "batch": batch,
        "heads": heads,
        "dtype": dtype,
        "device": device,
        "status": "skipped" if skipped else "measured",
        **dict.fromkeys(("median_s", "min_s", "max_s", "gflops", "pct_of_peak")),  # None until timed
        "a_bytes": a_bytes,
        "skipped": skipped,
    }


def _timed(times: list[float], loads: list[float], row: dict, peak_flops: float) -> dict:
    """What a measured row gains: the median and spread of its samples, its speed and its share of the peak."""
    flops = attention_flops(row["n"], row["d"], batch=row["batch"], heads=row["heads"])
    median = statistics.median(times)
    return {
        "median_s": median,
        "min_s": min(times),
        "max_s": max(times),
        "samples_s": times,
        "load_during": [min(loads), max(loads)],
        "gflops": flops / median / 1e9,
        "pct_of_peak": 100 * flops / median / peak_flops,
    }


def _prepared(row: dict) -> tuple[Callable[[], Any] | None, str | None]:
    """Make the inputs and run the call once (the first warm-up): (the call, None), or (None, why it failed)."""
    impl, device = row["impl"], row["device"]
    shape = (row["batch"], row["heads"], row["n"], row["d"])
    try:
        Q, K, V = _inputs(impl.split("-")[1], device, row["dtype"], shape)
        fn = kernel(impl)
        torch = loaded_torch() if impl.endswith("torch") else None
        with torch.inference_mode() if torch is not None else contextlib.nullcontext():
            fn(Q, K, V)
    except (RuntimeError, MemoryError) as exc:  # out of memory, or a dtype the device lacks
        if device.startswith("cuda"):
            loaded_torch().cuda.empty_cache()
        return None, f"failed: {type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
    return (lambda: fn(Q, K, V)), None


def _describe(row: dict) -> str:
    head = f"n={row['n']:<6d} {row['impl']:<12s}"
    if row["skipped"]:
        return f"{head} skipped: {row['skipped']}"
    return (
        f"{head} {row['median_s'] * 1e3:10.3f} ms (min {row['min_s'] * 1e3:.3f}, max {row['max_s'] * 1e3:.3f}) "
        f"{row['gflops']:9.2f} GFLOP/s {row['pct_of_peak']:6.1f}% of peak"
    )


def _human_bytes(b: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or unit == "TiB":
            break
        b /= 1024
    return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"


def workload(rows: list[dict]) -> str:
    """What the rows measured, e.g. 'float32, batch 1 × 8 heads, d = 64, cpu' (several values joined by '/')."""

    def values(key: str) -> str:
        return "/".join(str(v) for v in dict.fromkeys(r[key] for r in rows))

    heads = values("heads")
    return (
        f"{values('dtype')}, batch {values('batch')} × {heads} head{'' if heads == '1' else 's'}, "
        f"d = {values('d')}, {values('device')}"
    )


def format_table(rows: list[dict]) -> str:
    """The sweep as a table: n, implementation, median time and its min–max, GFLOP/s, % of peak, memory of A."""
    lines = [
        f"workload: {workload(rows)}" if rows else "no rows",
        (
            f"{'n':>6}  {'impl':<12}  {'median (ms)':>11}  {'min–max (ms)':>19}  {'GFLOP/s':>9}  "
            f"{'% peak':>7}  {'A (memory)':>10}"
        ),
    ]
    for r in rows:
        if r["skipped"]:
            cells = f"{'failed' if r.get('status') == 'failed' else 'skipped':>11}  {'':>19}  {'':>9}  {'':>7}"
        else:
            spread = f"{r['min_s'] * 1e3:.3f}–{r['max_s'] * 1e3:.3f}"
            cells = f"{r['median_s'] * 1e3:11.3f}  {spread:>19}  {r['gflops']:9.2f}  {r['pct_of_peak']:6.1f}%"
        lines.append(f"{r['n']:>6}  {r['impl']:<12}  {cells}  {_human_bytes(r['a_bytes']):>10}")
    return "\n".join(lines)


def command_line(settings: dict, out: str | None = None) -> str:
    """The command that makes a sweep with these recorded settings (a results file's "settings")."""
    s = {**DEFAULTS, **settings}
    parts = ["PYTHONPATH=. python -m benchmarks.sweep", f"--device {s['device']}", f"--dtype {s['dtype']}"]
    parts.append("--sizes " + ",".join(str(n) for n in s["sizes"]))
    parts += [f"--{key} {s[key]}" for key in ("d", "batch", "heads", "repeat", "warmup", "threads")]
    parts.append("--impls " + ",".join(s["implementations"]))
    if s.get("peak_size"):
        parts.append(f"--peak-size {s['peak_size']}")
    if out:
        parts.append(f"--out {out}")
    return " ".join(parts)


# --- one library call at a time: the phases of a kernel, each timed on its own ----------------


def timed_steps(
    kind: str, Q: Any, K: Any, V: Any, clock: Callable[[], float] = time.perf_counter
) -> tuple[Any, dict[str, float]]:
    """Run one kernel ('plain', 'naive' or 'tiled', unmasked, forward) one library call at a time:
    its Z, and the seconds of each phase (a tiled phase summed over its blocks), in the order they
    first run: the calls of `core.attention`, `in_place.naive_attention` and `tiled.tiled_attention`
    (CPU, heads one at a time, default blocks), with a stopwatch around each call.
    """
    seconds: dict[str, float] = {}

    def step(name: str, call: Callable, *args: Any) -> Any:
        start = clock()
        out = call(*args)
        seconds[name] = seconds.get(name, 0.0) + clock() - start
        return out

    if kind in ("plain", "naive"):
        S = step("QKᵀ", operator.matmul, Q, swap_last_two(K))
        new = kind == "plain"  # plain makes a new array at every step, naive overwrites S
        S = step("scale", operator.truediv if new else operator.itruediv, S, math.sqrt(Q.shape[-1]))
        top = step("row max", max_along, S)
        S = step("shift", operator.sub if new else operator.isub, S, top)
        S = step("exp", exp if new else exp_in_place, S)
        total = step("row sum", sum_along, S)
        S = step("divide", operator.truediv if new else operator.itruediv, S, total)
        return step("AV", operator.matmul, S, V), seconds
    if kind != "tiled":
        raise ValueError(f"timed_steps: kind must be 'plain', 'naive' or 'tiled', not {kind!r}")
    n, m, scale = Q.shape[-2], K.shape[-2], 1 / math.sqrt(Q.shape[-1])
    out = empty(tuple(Q.shape[:-1]) + (V.shape[-1],), like=Q)
    for head in np.ndindex(*Q.shape[:-2]):
        for start in range(0, n, QUERY_BLOCK):
            q = step("updates", operator.mul, Q[head][start : start + QUERY_BLOCK], scale)
            mu = step("updates", full, (q.shape[0], 1), -math.inf, q)
            ell = step("updates", full, (q.shape[0], 1), 0.0, q)
            Z = step("updates", full, (q.shape[0], V.shape[-1]), 0.0, q)
            for first in range(0, m, BLOCK):
                Kb, Vb = K[head][first : first + BLOCK], V[head][first : first + BLOCK]
                S = step("QKᵀ blocks", operator.matmul, q, swap_last_two(Kb))
                top = step("row max", max_along, S)
                mu_new = step("updates", maximum, mu, top)
                c = step("updates", exp, step("updates", operator.sub, mu, mu_new))
                step("shift", S.__isub__, mu_new)
                step("exp", exp_in_place, S)
                total = step("row sum", sum_along, S)
                step("updates", ell.__imul__, c)
                step("updates", ell.__iadd__, total)
                step("rescale Z", Z.__imul__, c)
                PV = step("PV blocks", operator.matmul, S, Vb)
                step("add PV", Z.__iadd__, PV)
                mu = mu_new
            step("updates", Z.__itruediv__, ell)
            out[head][start : start + QUERY_BLOCK] = Z
    return out, seconds
