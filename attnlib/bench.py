"""Timing attention on CPU and GPU: honest stopwatches, FLOP and byte counts, the machine's two ceilings, a sweep (chapter 15).

Needs only the standard library, numpy and (when present) torch, so it runs on a bare
GPU machine. From the repository root::

    PYTHONPATH=. python -m attnlib.bench --device cpu --dtype float32 --sizes 128,256,512
    PYTHONPATH=. python -m attnlib.bench --device cuda --dtype bfloat16 \\
        --sizes 1024,4096,16384 --out gpu.json

A GPU runs asynchronously: a call returns as soon as the work is *queued*. So every
measured run is fenced by a synchronisation (CUDA events on NVIDIA GPUs), or we would
time the queueing, not the work.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .core import attention, is_torch
from .fast import naive_attention
from .tiled import tiled_attention

IMPLEMENTATIONS = ["plain-numpy", "naive-numpy", "naive-torch", "tiled-numpy", "tiled-torch", "sdpa-torch"]
NUMPY_DTYPES = {"float32", "float64"}
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _torch() -> Any:
    """torch, or None when it is not installed (imported only when first needed)."""
    try:
        import torch
    except ImportError:
        return None
    return torch


# --- the stopwatch --------------------------------------------------------------


def _device_of(args: tuple) -> str:
    for a in args:
        if is_torch(a):
            return a.device.type
    return "cpu"


def synchronize(device: str) -> None:
    """Wait until every queued GPU kernel has finished (does nothing on the CPU) (chapter 15)."""
    if device.startswith("cuda"):
        _torch().cuda.synchronize()
    elif device.startswith("mps"):
        _torch().mps.synchronize()


def time_fn(
    fn: Callable, *args: Any, warmup: int = 2, repeat: int = 7, device: str | None = None, events: bool = True
) -> dict:
    """Run fn(*args) `warmup` times unmeasured, then `repeat` times measured; seconds per run (chapter 15).

    On an NVIDIA GPU each run is timed with CUDA events; events=False times it with
    perf_counter and synchronize instead (the two must agree).
    """
    if repeat < 1:
        raise ValueError(f"time_fn: repeat must be at least 1, not {repeat}")
    device = device or _device_of(args)
    for _ in range(warmup):
        fn(*args)
    synchronize(device)
    samples = [_time_once(fn, args, device, events) for _ in range(repeat)]
    return {"median_s": statistics.median(samples), "min_s": min(samples), "max_s": max(samples), "samples_s": samples}


def _time_once(fn: Callable, args: tuple, device: str, events: bool = True) -> float:
    if device.startswith("cuda") and events:  # CUDA events time the work on the GPU itself
        torch = _torch()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1000.0  # milliseconds -> seconds
    synchronize(device)
    t0 = time.perf_counter()
    fn(*args)
    synchronize(device)
    return time.perf_counter() - t0


# --- counting work and memory -------------------------------------------------------


def attention_flops(
    n: int, d_k: int, d_v: int | None = None, batch: int = 1, heads: int = 1, m: int | None = None
) -> int:
    """FLOPs of attention: 2·n·m·d_k for QKᵀ plus 2·n·m·d_v for AV, per head (chapter 15)."""
    d_v = d_k if d_v is None else d_v
    m = n if m is None else m
    return batch * heads * (2 * n * m * d_k + 2 * n * m * d_v)


def attention_matrix_bytes(n: int, m: int | None = None, batch: int = 1, heads: int = 1, dtype_bytes: int = 4) -> int:
    """Bytes of one n×m weight matrix A per head, for all heads and the whole batch (chapter 15)."""
    m = n if m is None else m
    return batch * heads * n * m * dtype_bytes


def attention_bytes(
    n: int, d: int, kind: str, dtype_bytes: int = 4, heads: int = 1, batch: int = 1, query_block: int | None = None
) -> int:
    """Bytes attention moves to and from memory, counted pass by pass (chapter 15).

    "naive": Q and K read, the n×n scores written, then six passes over them (scale,
    row max, shift, exp, row sum, divide: 9 reads or writes of n² numbers), A read again
    with V for Z = AV, and Z written: 12·n² + 4·n·d numbers per head. (Done out of place
    or in place, the count is the same; in place only reuses the memory.)
    "fused" (SDPA's kernel, ideally): Q, K, V read once and Z written once: 4·n·d.
    "tiled": the blocks of scores stay in the cache, but K and V are read again for every
    chunk of `query_block` queries: (2 + 2·n/query_block)·n·d.
    """
    if kind == "naive":
        numbers = 12 * n * n + 4 * n * d
    elif kind == "fused":
        numbers = 4 * n * d
    elif kind == "tiled":
        chunks = -(-n // (query_block or n))
        numbers = (2 + 2 * chunks) * n * d
    else:
        raise ValueError(f"attention_bytes: kind must be 'naive', 'tiled' or 'fused', not {kind!r}")
    return batch * heads * numbers * dtype_bytes


def matmul_bytes(side: int, dtype_bytes: int = 4) -> int:
    """Bytes a side×side matmul moves at least: two matrices read, one written (chapter 15)."""
    return 3 * side * side * dtype_bytes


def _dtype_bytes(dtype: str) -> int:
    return {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[dtype]


# --- the machine ----------------------------------------------------------------------


def available_devices() -> list[str]:
    """'cpu', plus 'cuda' and 'mps' when torch can reach such a GPU (chapter 15)."""
    devices = ["cpu"]
    torch = _torch()
    if torch is not None:
        if torch.cuda.is_available():
            devices.append("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            devices.append("mps")
    return devices


CPU_FEATURES = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "fma")  # the vector extensions that matter here


def cpu_details() -> dict:
    """The CPU as the operating system names it: model name, family/model/stepping, vector extensions (chapter 15)."""
    details: dict[str, Any] = {
        "model_name": None,
        "vendor": None,
        "family": None,
        "model": None,
        "stepping": None,
        "flags": {},
    }
    fields = {
        "model name": "model_name",
        "vendor_id": "vendor",
        "cpu family": "family",
        "model": "model",
        "stepping": "stepping",
    }
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = (part.strip() for part in line.partition(":"))
                if key in fields and details[fields[key]] is None:
                    details[fields[key]] = value
                elif key in ("flags", "Features") and not details["flags"]:
                    present = set(value.split())
                    details["flags"] = {name: name in present for name in CPU_FEATURES}
                elif not line.strip() and details["model_name"]:
                    break  # the first processor is enough: all of them are alike
    except OSError:
        pass
    if details["model_name"] is None and sys.platform == "darwin":
        import subprocess

        try:
            details["model_name"] = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=5, check=False
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    if not details["model_name"]:
        details["model_name"] = platform.processor() or platform.machine()
    return details


def _cpu_model(details: dict | None = None) -> str:
    """One line for the CPU, e.g. 'AMD EPYC (family 25, model 1; AVX2, no AVX-512)'."""
    details = details or cpu_details()
    parts = []
    if details.get("family") is not None:
        parts.append(f"family {details['family']}, model {details['model']}")
    flags = details.get("flags") or {}
    if flags:
        vector = ["AVX2" if flags.get("avx2") else "no AVX2", "AVX-512" if flags.get("avx512f") else "no AVX-512"]
        if flags.get("amx_bf16"):
            vector.append("AMX")
        parts.append(", ".join(vector))
    return f"{details['model_name']} ({'; '.join(parts)})" if parts else details["model_name"]


def thread_counts() -> dict:
    """The threads the libraries *report* they will use: numpy's BLAS, asked through its own
    function, and torch (chapter 15). None where a library cannot be asked."""
    return {"numpy_blas": _blas_threads(), "torch": _torch().get_num_threads() if _torch() else None}


def _blas_threads() -> int | None:
    """OpenBLAS's (or MKL's) own count, found among the libraries this process has loaded."""
    try:
        from threadpoolctl import threadpool_info

        counts = [p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"]
        if counts:
            return max(counts)
    except ImportError:
        pass
    import ctypes

    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "blas" in line.lower() or "mkl_rt" in line}
    except OSError:
        return None
    names = (
        "scipy_openblas_get_num_threads64_",
        "openblas_get_num_threads64_",
        "openblas_get_num_threads",
        "scipy_openblas_get_num_threads",
        "MKL_Get_Max_Threads",
    )
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in names:
            if hasattr(lib, name):
                return int(getattr(lib, name)())
    return None


def _numpy_blas() -> str | None:
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except (KeyError, TypeError, ValueError, AttributeError):  # show_config's layout differs by version
        return None


def system_info(device: str = "cpu") -> dict:
    """Hardware and software of this run: CPU and GPU model, threads, versions, date (UTC) (chapter 15)."""
    torch = _torch()
    cpu = cpu_details()
    info = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device,
        "os": f"{platform.system()} {platform.machine()}",
        "cpu_model": _cpu_model(cpu),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "threads_reported": thread_counts(),
        "thread_env": {v: os.environ[v] for v in THREAD_VARIABLES if v in os.environ},
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numpy_blas": _numpy_blas(),
        "torch": torch.__version__ if torch is not None else None,
        "cuda": None,
        "gpu": None,
        "gpu_memory_bytes": None,
        "load_average_1m": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,  # other work running?
    }
    if torch is not None and device.startswith("cuda") and torch.cuda.is_available():
        props = torch.cuda.get_device_properties(torch.device(device))
        info.update(
            cuda=torch.version.cuda,
            gpu=props.name,
            gpu_memory_bytes=int(props.total_memory),
            gpu_capability=f"{props.major}.{props.minor}",
            gpu_multiprocessors=int(props.multi_processor_count),
        )
    elif device.startswith("mps"):
        info["gpu"] = "Apple GPU (MPS)"
    return info


def matmul_peak(
    device: str = "cpu",
    dtype: str = "float32",
    size: int | None = None,
    library: str = "torch",
    repeat: int = 5,
    max_seconds: float = 2.0,
) -> float:
    """FLOP/s of a large square matmul, the median of `repeat` runs: our compute ceiling (chapter 15).

    Measured the way every kernel is (warm-up, then the median), so a kernel's "% of peak"
    compares like with like. With `size` given, s×s matrices of that size. Without it, the
    side doubles from 256 (up to 2048 on a CPU, 8192 on a GPU) while the next size still
    fits in `max_seconds`, and the best side's median counts.
    """
    if library == "numpy" and device != "cpu":
        raise ValueError(f"matmul_peak: numpy runs on the CPU only, not on {device!r}")
    if library != "numpy" and _torch() is None:
        raise RuntimeError("matmul_peak: torch is not installed; use library='numpy'")
    largest = 2048 if device == "cpu" else 8192
    sides = [size] if size else [s for s in (256, 512, 1024, 2048, 4096, 8192) if s <= largest]
    started, best = time.perf_counter(), 0.0
    for side in sides:
        a, b = _square_pair(library, device, dtype, side)
        multiply = np.matmul if library == "numpy" else _torch().matmul
        multiply(a, b)  # warm-up: library start-up stays out
        synchronize(device)
        one = max(_time_once(multiply, (a, b), device), 1e-9)
        runs = max(3, min(repeat, int(max_seconds / 4 / one)))
        median = time_fn(multiply, a, b, warmup=0, repeat=runs, device=device)["median_s"]
        best = max(best, 2 * side**3 / median)
        spent = time.perf_counter() - started
        if spent + 8 * median * (runs + 2) > max_seconds:  # the next side costs about 8 times as much
            break
    return best


def memory_bandwidth(device: str = "cpu", library: str = "numpy", mebibytes: int = 256, repeat: int = 5) -> float:
    """Bytes per second of copying one large array into another, the median of `repeat` copies:
    our memory ceiling (chapter 15).

    Each copy reads `mebibytes` MiB and writes as many, far more than any cache holds, so
    every byte travels to and from main memory; we count 2 × the array's size per copy.
    (A CPU usually also reads each destination line before writing it, so the true traffic
    is a little higher and this figure errs on the low side.)
    """
    count = mebibytes * 2**20 // 4
    if library == "numpy":
        if device != "cpu":
            raise ValueError(f"memory_bandwidth: numpy runs on the CPU only, not on {device!r}")
        src, dst = np.ones(count, dtype=np.float32), np.zeros(count, dtype=np.float32)
        copy = np.copyto
    else:
        torch = _torch()
        src = torch.ones(count, dtype=torch.float32, device=device)
        dst = torch.zeros(count, dtype=torch.float32, device=device)
        copy = torch.Tensor.copy_
    median = time_fn(copy, dst, src, warmup=1, repeat=repeat, device=device)["median_s"]
    return 2 * count * 4 / median


def _square_pair(library: str, device: str, dtype: str, side: int) -> tuple:
    if library == "numpy":
        rng = np.random.default_rng(0)
        return tuple(rng.standard_normal((side, side)).astype(dtype) for _ in range(2))
    torch = _torch()
    gen = torch.Generator().manual_seed(0)
    return tuple(
        torch.randn(side, side, generator=gen).to(device=device, dtype=getattr(torch, dtype)) for _ in range(2)
    )


# --- the sweep ---------------------------------------------------------------------


def memory_budget(device: str) -> int:
    """Bytes we allow a naive run to use: half the RAM (CPU) or 80% of the free GPU memory."""
    if device.startswith("cuda"):
        free, _ = _torch().cuda.mem_get_info()
        return int(0.8 * free)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 16 * 2**30
    return total // 2


def _skip_reason(impl: str, device: str, dtype: str, a_bytes: int, budget: int) -> str | None:
    library = impl.split("-")[1]
    if library == "numpy" and device != "cpu":
        return "numpy runs on the CPU only"
    if library == "numpy" and dtype not in NUMPY_DTYPES:
        return f"numpy has no {dtype}"
    if library == "torch" and _torch() is None:
        return "torch is not installed"
    if (
        impl.split("-")[0] in ("plain", "naive") and a_bytes > budget
    ):  # one n×n score array per head, overwritten in place
        return (
            f"naive attention would need about {a_bytes / 2**30:.1f} GiB "
            f"(an n×n array per head), over the budget of {budget / 2**30:.1f} GiB"
        )
    return None


def _inputs(library: str, device: str, dtype: str, shape: tuple[int, ...], seed: int = 0) -> tuple:
    if library == "numpy":
        rng = np.random.default_rng(seed)
        return tuple(rng.standard_normal(shape, dtype=np.float64).astype(dtype) for _ in range(3))
    torch = _torch()
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, generator=gen).to(device=device, dtype=getattr(torch, dtype)) for _ in range(3))


def _function(impl: str) -> Callable:
    kind = impl.split("-")[0]
    if kind == "plain":
        return lambda Q, K, V: attention(Q, K, V)[0]
    if kind == "naive":
        return lambda Q, K, V: naive_attention(Q, K, V)[0]
    if kind == "tiled":
        return tiled_attention
    return _torch().nn.functional.scaled_dot_product_attention


def interleaved(
    calls: dict[str, Callable[[], Any]], rounds: int, warmup: int = 1, device: str = "cpu", seed: int = 0
) -> dict[str, list[float]]:
    """Time every call once per round, in a new shuffled order each round (chapter 15).

    A slow spell of the machine then hits every call alike instead of one of them, and
    no call always runs first (or right after the same neighbour). Returns the seconds of
    each call, one list per name, round by round, and the load average before each round
    under "_load".
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
            samples[name].append(_time_once(calls[name], (), device))
    return samples


def run_sweep(
    device: str = "cpu",
    dtype: str = "float32",
    sizes: list[int] = (128, 256, 512, 1024),
    d: int = 64,
    batch: int = 1,
    heads: int = 8,
    implementations: list[str] | None = None,
    repeat: int = 5,
    warmup: int = 2,
    peak_flops: float | None = None,
    budget_bytes: int | None = None,
    progress: Callable[[str], None] | None = print,
) -> list[dict]:
    """Time each implementation at each sequence length n in `repeat` shuffled, interleaved rounds;
    one row per (n, impl), skips included (chapter 15)."""
    implementations = list(implementations or IMPLEMENTATIONS)
    unknown = [i for i in implementations if i not in IMPLEMENTATIONS]
    if unknown:
        raise ValueError(f"run_sweep: unknown implementations {unknown}; choose from {IMPLEMENTATIONS}")
    if peak_flops is None:
        peak_flops = matmul_peak(device, dtype)
    budget = memory_budget(device) if budget_bytes is None else budget_bytes
    rows, calls = [], {}
    for n in sizes:
        a_bytes = attention_matrix_bytes(n, batch=batch, heads=heads, dtype_bytes=_dtype_bytes(dtype))
        for impl in implementations:
            row = {
                "impl": impl,
                "n": n,
                "d": d,
                "batch": batch,
                "heads": heads,
                "dtype": dtype,
                "device": device,
                "status": "measured",
                "median_s": None,
                "min_s": None,
                "max_s": None,
                "gflops": None,
                "pct_of_peak": None,
                "a_bytes": a_bytes,
                "skipped": _skip_reason(impl, device, dtype, a_bytes, budget),
            }
            rows.append(row)
            if row["skipped"] is None:
                row["skipped"] = _try_once(row, calls)
            if row["skipped"] is not None:
                row["status"] = "skipped" if row["status"] == "measured" else row["status"]
                if progress is not None:
                    progress(f"{_describe(row)}")
    torch = _torch() if any(r["impl"].endswith("torch") for r in rows) else None
    if progress is not None:
        progress(f"timing {len(calls)} points in {repeat} shuffled rounds")
    with torch.inference_mode() if torch is not None else _nothing():
        samples = interleaved(calls, repeat, warmup=max(warmup - 1, 0), device=device)
    for row in rows:
        key = (row["impl"], row["n"])
        if key not in calls:
            continue
        times = samples[key]
        flops = attention_flops(row["n"], d, batch=batch, heads=heads)
        row.update(
            median_s=statistics.median(times),
            min_s=min(times),
            max_s=max(times),
            samples_s=times,
            load_during=[min(samples["_load"]), max(samples["_load"])],
        )
        row["gflops"] = flops / row["median_s"] / 1e9
        row["pct_of_peak"] = 100 * flops / row["median_s"] / peak_flops
        if progress is not None:
            progress(_describe(row))
    return rows


def _try_once(row: dict, calls: dict) -> str | None:
    """Make the inputs and run the call once (the first warm-up); register it, or say why it failed."""
    impl, device = row["impl"], row["device"]
    shape = (row["batch"], row["heads"], row["n"], row["d"])
    try:
        Q, K, V = _inputs(impl.split("-")[1], device, row["dtype"], shape)
        fn = _function(impl)
        torch = _torch() if impl.endswith("torch") else None
        with torch.inference_mode() if torch is not None else _nothing():
            fn(Q, K, V)
    except (RuntimeError, MemoryError) as exc:  # out of memory, or a dtype the device lacks
        row["status"] = "failed"
        _free_gpu_memory(device)
        return f"failed: {type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
    calls[(impl, row["n"])] = lambda: fn(Q, K, V)
    return None


def _nothing() -> Any:
    import contextlib

    return contextlib.nullcontext()


def _free_gpu_memory(device: str) -> None:
    if device.startswith("cuda"):
        _torch().cuda.empty_cache()


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
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return ""


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
    """The sweep as a table: n, implementation, median time and its min–max, GFLOP/s, % of peak, memory of A (chapter 15)."""
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


# --- the command line ------------------------------------------------------------

DTYPES = ("float32", "float64", "float16", "bfloat16")
SIXTEEN_BIT = {"float16", "bfloat16"}
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


def command_line(settings: dict, out: str | None = None) -> str:
    """The command that makes a sweep with these recorded settings (a results file's "settings") (chapter 15)."""
    s = {**DEFAULTS, **settings}
    parts = [
        "PYTHONPATH=. python -m attnlib.bench",
        f"--device {s['device']}",
        f"--dtype {s['dtype']}",
        "--sizes " + ",".join(str(n) for n in s["sizes"]),
        f"--d {s['d']}",
        f"--batch {s['batch']}",
        f"--heads {s['heads']}",
        f"--repeat {s['repeat']}",
        f"--warmup {s['warmup']}",
        f"--threads {s['threads']}",
        "--impls " + ",".join(s["implementations"]),
    ]
    if s.get("peak_size"):
        parts.append(f"--peak-size {s['peak_size']}")
    if out:
        parts.append(f"--out {out}")
    return " ".join(parts)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit status 2, no usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def _whole(text: str, least: int, what: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text.strip()!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} is too small: {what} must be at least {least}")
    return value


def _at_least(least: int, what: str) -> Callable[[str], int]:
    return lambda text: _whole(text, least, what)


def _sizes(text: str) -> list[int]:
    items = text.split(",")
    if not text.strip() or any(not item.strip() for item in items):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of sizes like 128,256,512")
    return [_whole(item, 1, "every size n") for item in items]


def _impls(text: str) -> list[str]:
    names = [item.strip() for item in text.split(",")]
    for name in names:
        if name not in IMPLEMENTATIONS:
            raise argparse.ArgumentTypeError(
                f"unknown implementation {name!r}; choose from {', '.join(IMPLEMENTATIONS)}"
            )
    return names


def _device(text: str) -> str:
    kind, _, index = text.partition(":")
    if kind not in ("cpu", "cuda", "mps") or (index and (kind != "cuda" or not index.isdigit())):
        raise argparse.ArgumentTypeError(f"unknown device {text!r}; choose cpu, cuda, cuda:N or mps")
    return text


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = _Parser(prog="python -m attnlib.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--device", type=_device, default="cpu", help="cpu, cuda, cuda:N or mps (default cpu)")
    p.add_argument("--dtype", default="float32", choices=DTYPES)
    p.add_argument("--sizes", type=_sizes, default=DEFAULTS["sizes"], help="sequence lengths n, comma separated")
    p.add_argument("--d", type=_at_least(1, "d"), default=64, help="d_k = d_v per head (default 64)")
    p.add_argument("--batch", type=_at_least(1, "the batch"), default=1)
    p.add_argument("--heads", type=_at_least(1, "the number of heads"), default=8)
    p.add_argument(
        "--repeat",
        type=_at_least(1, "the number of measured runs"),
        default=5,
        help="measured runs per point (default 5)",
    )
    p.add_argument(
        "--warmup", type=_at_least(0, "the number of warm-up runs"), default=2, help="unmeasured runs first (default 2)"
    )
    p.add_argument(
        "--threads",
        type=_at_least(1, "the number of threads"),
        default=1,
        help="CPU threads for torch and numpy's BLAS (default 1)",
    )
    p.add_argument("--impls", type=_impls, default=list(IMPLEMENTATIONS), help="implementations, comma separated")
    p.add_argument(
        "--peak-size",
        type=_at_least(16, "the side of the peak matmul"),
        default=None,
        help="side of the matmul that measures the peak (default: grows while it stays quick)",
    )
    p.add_argument("--out", default=None, help="write system info and results to this JSON file")
    return p.parse_args(argv)


def _refusal(args: argparse.Namespace) -> str | None:
    """Why these arguments cannot run here (checked before anything is measured), or None."""
    torch = _torch()
    if args.dtype in SIXTEEN_BIT and torch is None:
        return f"--dtype {args.dtype} needs torch (numpy has no such format), and torch is not installed here"
    kind, _, index = args.device.partition(":")
    if kind != "cpu" and torch is None:
        return f"device {args.device!r} needs torch, and torch is not installed here"
    if kind not in available_devices():
        return f"device {args.device!r} is not available here: torch sees no such GPU; available: " + ", ".join(
            available_devices()
        )
    if index and int(index) >= torch.cuda.device_count():
        return f"device {args.device!r} is not available here: torch sees {torch.cuda.device_count()} CUDA GPU(s)"
    if kind != "cpu" and not any(i.endswith("torch") for i in args.impls):
        return f"device {args.device!r}: every implementation chosen runs on numpy, which runs on the CPU only"
    if args.out:
        folder = os.path.dirname(os.path.abspath(args.out))
        if os.path.exists(folder) and not os.path.isdir(folder):
            return f"--out {args.out}: {folder!r} is not a folder"
    return None


def _set_threads(threads: int, may_restart: bool) -> None:
    """Use `threads` CPU threads. numpy's BLAS reads its thread count only when it loads,
    so from the command line we start ourselves again with the variables set."""
    if may_restart and any(os.environ.get(v) != str(threads) for v in THREAD_VARIABLES):
        os.environ.update({v: str(threads) for v in THREAD_VARIABLES})
        os.execv(sys.executable, [sys.executable, "-m", "attnlib.bench", *sys.argv[1:]])
    torch = _torch()
    if torch is not None:
        torch.set_num_threads(threads)


def _matmul_peaks(device: str, dtype: str, size: int | None) -> dict[str, float]:
    """The matmul peak of torch, and of numpy too on the CPU."""
    peaks = {}
    if _torch() is not None:
        peaks["torch"] = matmul_peak(device, dtype, size)
    if device == "cpu" and dtype in NUMPY_DTYPES:
        peaks["numpy"] = matmul_peak("cpu", dtype, size, library="numpy")
    return peaks


def say(line: str) -> None:
    """Print one line at once, so progress shows while a long sweep runs."""
    print(line, flush=True)


def main(argv: list[str] | None = None) -> None:
    """Check the arguments, measure the matmul peak once, run the sweep, print a table, save JSON (chapter 15)."""
    args = _parse(argv)
    refusal = _refusal(args)
    if refusal:
        print(f"python -m attnlib.bench: error: {refusal}", file=sys.stderr)
        sys.exit(2)
    _set_threads(args.threads, may_restart=argv is None)

    system = system_info(args.device)
    say(
        f"{system['cpu_model']} | {system['gpu'] or 'no GPU'} | torch {system['torch']} | numpy {system['numpy']}"
        f" | {args.threads} thread{'s' if args.threads != 1 else ''}"
    )
    peaks = _matmul_peaks(args.device, args.dtype, args.peak_size)
    peak = max(peaks.values())  # one peak for the whole run: progress lines and table use the same
    say(
        "matmul peak: "
        + ", ".join(f"{lib} {f / 1e9:.1f} GFLOP/s" for lib, f in peaks.items())
        + f"; % of peak below is of {peak / 1e9:.1f} GFLOP/s"
    )
    rows = run_sweep(
        args.device,
        args.dtype,
        args.sizes,
        d=args.d,
        batch=args.batch,
        heads=args.heads,
        implementations=args.impls,
        repeat=args.repeat,
        warmup=args.warmup,
        peak_flops=peak,
        progress=say,
    )
    say("")
    say(format_table(rows))
    say(
        f"(% peak: of the measured {args.dtype} matmul, {peak / 1e9:.1f} GFLOP/s; "
        f"A: one n×n weight matrix per head, batch {args.batch} × {args.heads} heads)"
    )
    if args.out:
        settings = {
            k: getattr(args, k)
            for k in ("device", "dtype", "d", "batch", "heads", "repeat", "warmup", "threads", "peak_size")
        }
        settings.update(sizes=args.sizes, implementations=args.impls)
        report = {
            "system": system,
            "settings": settings,
            "command": command_line(settings, out=args.out),
            "peak_flops": peak,
            "peak_flops_by_library": peaks,
            "results": rows,
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        say(f"wrote {args.out}")


if __name__ == "__main__":
    main()
