"""Stored timing results: read the files of `python -m benchmarks.sweep --out`, fit slopes, compare runs (the counting and timing and cpu vs gpu chapters).

A results file is JSON with three parts: "system" (the hardware and software that made the
numbers, and the date), "settings" (the workload) and "results" (one row per size n and
implementation, as `attnlib.sweep.run_sweep` returns them). Every function here reads those
rows; none of them measures anything, so everything here is deterministic.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

FIT_FROM = 256  # fit slopes on n >= 256 only: below it, fixed costs per call hide the n² growth


def load_results(folder: str | Path) -> list[dict]:
    """Every results file (*.json with system, settings, results) in `folder`, sorted by file name.

    The chapters pass their own folder of stored data (`data`, beside the notebooks).

    Each run gets its file name under "file". Other JSON files in the folder are skipped.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"load_results: there is no folder {folder.name!r} here")
    runs = []
    for path in sorted(folder.glob("*.json")):
        with open(path, encoding="utf-8") as f:
            run = json.load(f)
        if isinstance(run, dict) and {"system", "settings", "results"} <= set(run):
            runs.append({**run, "file": path.name})
    return runs


def measured(rows: Sequence[dict], impl: str) -> tuple[np.ndarray, np.ndarray]:
    """The sizes n and median seconds of one implementation's measured (not skipped) rows, by n."""
    pairs = sorted(
        (r["n"], r["median_s"])
        for r in rows
        if r["impl"] == impl and not r.get("skipped") and r.get("median_s") is not None
    )
    n = np.array([p[0] for p in pairs], dtype=int)
    t = np.array([p[1] for p in pairs], dtype=float)
    return n, t


def implementations(rows: Sequence[dict]) -> list[str]:
    """The implementations in the rows, in the order they first appear."""
    return list(dict.fromkeys(r["impl"] for r in rows))


def curves(rows: Sequence[dict]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{implementation: (n, seconds)} for every implementation with a measured row: what plot.timings draws."""
    out = {impl: measured(rows, impl) for impl in implementations(rows)}
    return {impl: nt for impl, nt in out.items() if len(nt[0])}


def fit_slope(n: Sequence[float], t: Sequence[float]) -> float:
    """Least-squares slope of log t against log n: the p in t ≈ c·nᵖ."""
    x, y = np.asarray(n, dtype=float), np.asarray(t, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(
            f"fit_slope: n and t must be two lists of the same length, but they have shapes {x.shape} and {y.shape}"
        )
    if not (np.all(x > 0) and np.all(y > 0)):
        raise ValueError("fit_slope: every n and every time must be positive to take logarithms")
    if len(np.unique(x)) < 2:
        raise ValueError(f"fit_slope: need at least two different n to fit a slope, got {len(np.unique(x))}")
    lx, ly = np.log(x), np.log(y)
    lx, ly = lx - lx.mean(), ly - ly.mean()
    return float((lx * ly).sum() / (lx * lx).sum())


def slopes(rows: Sequence[dict], fit_from: int = FIT_FROM) -> dict[str, float]:
    """Each implementation's fitted slope over its sizes n >= fit_from; nan when fewer than two."""
    out = {}
    for impl, (n, t) in curves(rows).items():
        keep = n >= fit_from
        out[impl] = fit_slope(n[keep], t[keep]) if len(np.unique(n[keep])) >= 2 else math.nan
    return out


def crossover(n: Sequence[int], t_old: Sequence[float], t_new: Sequence[float]) -> int | None:
    """The smallest n from which t_new stays below t_old at every larger n; None if not below at the largest."""
    if not len(n) == len(t_old) == len(t_new):
        raise ValueError(
            f"crossover: n, t_old and t_new must have one entry per size, "
            f"but they have {len(n)}, {len(t_old)} and {len(t_new)}"
        )
    order = np.argsort(np.asarray(n))
    since = None
    for i in order[::-1]:  # walk down from the largest n while the new one is still faster
        if not t_new[i] < t_old[i]:
            break
        since = int(n[i])
    return since


WORKLOAD = ("dtype", "heads", "batch", "d")  # rows are comparable only when all of these agree


def _measured_rows(rows: Sequence[dict]) -> list[dict]:
    return [r for r in rows if not r.get("skipped") and r.get("median_s") is not None]


def speedups(rows_a: Sequence[dict], rows_b: Sequence[dict]) -> dict[str, list]:
    """Speed-up time_a / time_b for each (implementation, n) that both runs measured on the same
    workload (same dtype, heads, batch and d); "refused" says which pairs were not compared, and why.

    Returns {"rows": [{"impl", "n", "dtype", "heads", "batch", "d", "a_s", "a_min_s", "a_max_s",
    "b_s", "b_min_s", "b_max_s", "a_pct", "b_pct", "speedup"}, ...], "refused": ["...", ...]};
    a_pct and b_pct are each run's % of its own matmul peak.
    """
    a_rows, b_rows = _measured_rows(rows_a), _measured_rows(rows_b)
    out, refused = [], []
    for a in a_rows:
        same_point = [b for b in b_rows if b["impl"] == a["impl"] and b["n"] == a["n"]]
        alike = [b for b in same_point if all(b.get(k) == a.get(k) for k in WORKLOAD)]
        if alike:
            b = alike[0]
            out.append(
                {
                    "impl": a["impl"],
                    "n": a["n"],
                    **{k: a.get(k) for k in WORKLOAD},
                    "a_s": a["median_s"],
                    "a_min_s": a.get("min_s"),
                    "a_max_s": a.get("max_s"),
                    "b_s": b["median_s"],
                    "b_min_s": b.get("min_s"),
                    "b_max_s": b.get("max_s"),
                    "a_pct": a.get("pct_of_peak"),
                    "b_pct": b.get("pct_of_peak"),
                    "speedup": a["median_s"] / b["median_s"],
                }
            )
        elif same_point:
            b = same_point[0]
            differ = ", ".join(f"{k} {a.get(k)} against {b.get(k)}" for k in WORKLOAD if a.get(k) != b.get(k))
            refused.append(f"{a['impl']} at n = {a['n']}: not the same workload ({differ})")
    out.sort(key=lambda r: (list(dict.fromkeys(x["impl"] for x in a_rows)).index(r["impl"]), r["n"]))
    return {"rows": out, "refused": _shorten(refused)}


def _shorten(refused: list[str]) -> list[str]:
    """One line per kind of mismatch rather than one per n: 'naive-torch at n = 64, 128: ...'."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for line in refused:
        head, why = line.split(": not the same workload ")
        impl, n = head.split(" at n = ")
        grouped.setdefault((impl, why), []).append(n)
    return [f"{impl} at n = {', '.join(ns)}: not the same workload {why}" for (impl, why), ns in grouped.items()]


def _spread(lo: float | None, hi: float | None) -> str:
    return "" if lo is None or hi is None else f"{lo * 1e3:.3f}–{hi * 1e3:.3f}"


def format_speedups(table: dict[str, list], a: str = "CPU", b: str = "GPU") -> str:
    """The speed-up table as text (medians, min–max beside them), for each implementation the n from
    which b stays faster, and what was refused."""
    rows = table["rows"]
    lines = []
    if rows:
        kinds = {tuple(r[k] for k in WORKLOAD) for r in rows}
        lines.append(
            "workload: "
            + "; ".join(
                f"{dtype}, batch {batch} × {heads} heads, d = {d}" for dtype, heads, batch, d in sorted(kinds, key=str)
            )
        )
        lines.append(
            f"{'n':>6}  {'impl':<12}  {a + ' median (ms)':>16}  {'min–max':>19}  "
            f"{b + ' median (ms)':>16}  {'min–max':>19}  {'speed-up':>9}"
        )
        lines += [
            f"{r['n']:>6}  {r['impl']:<12}  {r['a_s'] * 1e3:16.3f}  {_spread(r['a_min_s'], r['a_max_s']):>19}  "
            f"{r['b_s'] * 1e3:16.3f}  {_spread(r['b_min_s'], r['b_max_s']):>19}  {r['speedup']:8.1f}×"
            for r in rows
        ]
        for impl in dict.fromkeys(r["impl"] for r in rows):
            mine = sorted((r for r in rows if r["impl"] == impl), key=lambda r: r["n"])
            since = crossover([r["n"] for r in mine], [r["a_s"] for r in mine], [r["b_s"] for r in mine])
            where = f"is faster from n = {since} on" if since is not None else "is not faster at the largest n measured"
            lines.append(f"{impl}: the {b} {where}")
    else:
        lines.append("no (implementation, n) measured in both on the same workload")
    lines += [f"not compared: {line}" for line in table["refused"]]
    return "\n".join(lines)


def side_by_side(cpu_run: dict, gpu_runs: Sequence[dict]) -> str:
    """The stored CPU run beside each stored GPU run of the same workload, 36 characters wide: per
    implementation and n, each median in ms and its % of its own machine's matmul peak, then the n
    from which the GPU stays faster (the crossover); "no GPU run stored" when there is none."""
    if not gpu_runs:
        return "no GPU run stored"
    lines = []
    for gpu_run in gpu_runs:
        table = speedups(cpu_run["results"], gpu_run["results"])
        lines.append(f"{gpu_run.get('file', 'GPU run')}:")
        if not table["rows"]:
            settings = gpu_run.get("settings", {})
            lines.append(f"  another workload ({settings.get('dtype')})")
            continue
        for impl in dict.fromkeys(r["impl"] for r in table["rows"]):
            mine = sorted((r for r in table["rows"] if r["impl"] == impl), key=lambda r: r["n"])
            lines += [impl, f"{'n':>6} {'CPU ms':>9} {'%pk':>3} {'GPU ms':>9} {'%pk':>3}"]
            lines += [
                f"{r['n']:>6} {r['a_s'] * 1e3:9.2f} {r['a_pct'] or 0:3.0f} {r['b_s'] * 1e3:9.3f} {r['b_pct'] or 0:3.0f}"
                for r in mine
            ]
            since = crossover([r["n"] for r in mine], [r["a_s"] for r in mine], [r["b_s"] for r in mine])
            lines.append(
                f"  GPU faster from n = {since} on" if since is not None else "  GPU not faster at the largest n"
            )
    return "\n".join(lines)


def summary(rows: Sequence[dict], fit_from: int = FIT_FROM) -> str:
    """Per implementation: fitted slope over n >= fit_from, GFLOP/s and % of the matmul peak at the
    largest n; 36 characters wide, to fit a phone."""
    fitted = slopes(rows, fit_from)
    largest = max((r["n"] for r in rows if r.get("gflops") is not None), default=None)
    lines = [
        f"slope n >= {fit_from}; speed at n = {largest}",
        f"{'impl':<11}  {'slope':>5}  {'GFLOP/s':>7}  {'%peak':>5}",
    ]
    for impl in fitted:
        done = [r for r in rows if r["impl"] == impl and r.get("gflops") is not None]
        last = max(done, key=lambda r: r["n"])
        slope = "  -" if math.isnan(fitted[impl]) else f"{fitted[impl]:.2f}"
        lines.append(f"{impl:<11}  {slope:>5}  {last['gflops']:7.1f}  {last['pct_of_peak']:5.0f}")
    return "\n".join(lines)


def short_table(rows: Sequence[dict]) -> str:
    """The sweep as a table 36 characters wide (to fit a phone): n, implementation, median
    milliseconds, % of the matmul peak."""
    lines = [f"{'n':>5}  {'impl':<11}  {'ms':>7}  {'%peak':>5}"]
    for r in rows:
        if r.get("median_s") is None:
            lines.append(f"{r['n']:>5}  {r['impl']:<11}  {r.get('status', 'skipped'):>14}")
        else:
            lines.append(f"{r['n']:>5}  {r['impl']:<11}  {r['median_s'] * 1e3:7.2f}  {r['pct_of_peak']:5.0f}")
    return "\n".join(lines)


def describe(system: dict[str, Any]) -> str:
    """Which machine and software made a run, and when: the label every measured number needs."""
    threads = system.get("torch_threads")
    cores = system.get("cpu_count")
    cpu = f"{system.get('cpu_model') or 'unknown CPU'} ({cores} cores"
    cpu += f", {threads} torch thread{'s' if threads != 1 else ''})" if threads else ")"
    gpu = system.get("gpu") or "no GPU"
    if system.get("gpu_memory_bytes"):
        gpu += f" ({system['gpu_memory_bytes'] / 2**30:.0f} GiB)"
    blas = f" ({system['numpy_blas']})" if system.get("numpy_blas") else ""
    software = f"Python {system.get('python')}, numpy {system.get('numpy')}{blas}, torch {system.get('torch')}"
    if system.get("cuda"):
        software += f", CUDA {system['cuda']}"
    load = system.get("load_average_1m")
    if system.get("gpu_capability"):
        gpu = gpu[:-1] + f", compute capability {system['gpu_capability']})" if gpu.endswith(")") else gpu
    lines = [
        f"hardware: {cpu}; {gpu}; {system.get('os')}",
        f"software: {software}",
        f"run on:   {system.get('date_utc')} (UTC), device {system.get('device')}",
    ]
    if system.get("thread_env"):
        lines.append("threads:  " + ", ".join(f"{k}={v}" for k, v in system["thread_env"].items()))
    if load is not None:
        lines.append(f"load:     {load:.1f} at the start (1-minute load average, on {cores} cores)")
    return "\n".join(lines)


def title(run: dict) -> str:
    """A short label for a stored run: file, machine, dtype, heads, threads, date."""
    system, settings = run["system"], run["settings"]
    machine = system.get("gpu") or (system.get("cpu_model") or "unknown CPU").split(" (")[0]
    rows = run.get("results") or [{}]
    heads = settings.get("heads", rows[0].get("heads"))
    dtype = settings.get("dtype", rows[0].get("dtype"))
    where = "" if system.get("gpu") else f", {settings.get('threads') or system.get('torch_threads')} thread(s)"
    return f"{run.get('file', 'run')}: {machine}, {dtype}, {heads} heads{where}, {str(system.get('date_utc'))[:10]}"


def command(run: dict, folder: str = ".") -> str:
    """The command line that made a stored run, rebuilt from its recorded settings, writing into `folder`."""
    from .sweep import command_line

    return command_line(run["settings"], out=f"{folder.rstrip('/')}/{run['file']}" if run.get("file") else None)
