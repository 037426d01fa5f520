"""Stored timing results (chapter 11): read the files of `python -m attnlib.bench --out`, fit slopes, compare runs.

A results file is JSON with three parts: "system" (the hardware and software that made the
numbers, and the date), "settings" (the workload) and "results" (one row per size n and
implementation, as `attnlib.bench.run_sweep` returns them). Every function here reads those
rows; none of them measures anything, so everything here is deterministic.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np

DATA_DIR = Path(__file__).resolve().parents[1] / "chapters" / "data"
FIT_FROM = 256  # fit slopes on n >= 256 only: below it, fixed costs per call hide the n² growth


def load_results(folder: str | Path = DATA_DIR) -> list[dict]:
    """Every results file (*.json with system, settings, results) in `folder`, sorted by file name (chapter 11).

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
    """The sizes n and median seconds of one implementation's measured (not skipped) rows, by n (chapter 11)."""
    pairs = sorted((r["n"], r["median_s"]) for r in rows
                   if r["impl"] == impl and not r.get("skipped") and r.get("median_s") is not None)
    n = np.array([p[0] for p in pairs], dtype=int)
    t = np.array([p[1] for p in pairs], dtype=float)
    return n, t


def implementations(rows: Sequence[dict]) -> list[str]:
    """The implementations in the rows, in the order they first appear (chapter 11)."""
    return list(dict.fromkeys(r["impl"] for r in rows))


def curves(rows: Sequence[dict]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{implementation: (n, seconds)} for every implementation with a measured row: what plot.timings draws (chapter 11)."""
    out = {impl: measured(rows, impl) for impl in implementations(rows)}
    return {impl: nt for impl, nt in out.items() if len(nt[0])}


def fit_slope(n: Sequence[float], t: Sequence[float]) -> float:
    """Least-squares slope of log t against log n: the p in t ≈ c·nᵖ (chapter 11)."""
    x, y = np.asarray(n, dtype=float), np.asarray(t, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"fit_slope: n and t must be two lists of the same length, "
                         f"but they have shapes {x.shape} and {y.shape}")
    if not (np.all(x > 0) and np.all(y > 0)):
        raise ValueError("fit_slope: every n and every time must be positive to take logarithms")
    if len(np.unique(x)) < 2:
        raise ValueError(f"fit_slope: need at least two different n to fit a slope, got {len(np.unique(x))}")
    lx, ly = np.log(x), np.log(y)
    lx, ly = lx - lx.mean(), ly - ly.mean()
    return float((lx * ly).sum() / (lx * lx).sum())


def slopes(rows: Sequence[dict], fit_from: int = FIT_FROM) -> dict[str, float]:
    """Each implementation's fitted slope over its sizes n >= fit_from; nan when fewer than two (chapter 11)."""
    out = {}
    for impl, (n, t) in curves(rows).items():
        keep = n >= fit_from
        out[impl] = fit_slope(n[keep], t[keep]) if len(np.unique(n[keep])) >= 2 else math.nan
    return out


def crossover(n: Sequence[int], t_old: Sequence[float], t_new: Sequence[float]) -> int | None:
    """The smallest n from which t_new stays below t_old at every larger n; None if not below at the largest (chapter 11)."""
    if not len(n) == len(t_old) == len(t_new):
        raise ValueError(f"crossover: n, t_old and t_new must have one entry per size, "
                         f"but they have {len(n)}, {len(t_old)} and {len(t_new)}")
    order = np.argsort(np.asarray(n))
    since = None
    for i in order[::-1]:  # walk down from the largest n while the new one is still faster
        if not t_new[i] < t_old[i]:
            break
        since = int(n[i])
    return since


def _times_by_n(rows: Sequence[dict], impl: str) -> dict[int, float]:
    n, t = measured(rows, impl)
    return dict(zip(n.tolist(), t.tolist()))


def crossover_of(rows: Sequence[dict], old: str, new: str) -> int | None:
    """crossover() between two implementations of one run, on the sizes both measured (chapter 11)."""
    a, b = _times_by_n(rows, old), _times_by_n(rows, new)
    common = sorted(set(a) & set(b))
    return crossover(common, [a[k] for k in common], [b[k] for k in common])


def speedups(rows_a: Sequence[dict], rows_b: Sequence[dict]) -> list[dict]:
    """For each (implementation, n) measured in both runs: the times and the speed-up time_a / time_b (chapter 11)."""
    out = []
    for impl in implementations(rows_a):
        a, b = _times_by_n(rows_a, impl), _times_by_n(rows_b, impl)
        out += [{"impl": impl, "n": n, "a_s": a[n], "b_s": b[n], "speedup": a[n] / b[n]} for n in sorted(set(a) & set(b))]
    return out


def format_speedups(table: Sequence[dict], a: str = "CPU", b: str = "GPU") -> str:
    """The speed-up table as text, and for each implementation the n from which b stays faster (chapter 11)."""
    lines = [f"{'n':>6}  {'impl':<12}  {a + ' (ms)':>10}  {b + ' (ms)':>10}  {'speed-up':>9}"]
    lines += [f"{r['n']:>6}  {r['impl']:<12}  {r['a_s'] * 1e3:10.3f}  {r['b_s'] * 1e3:10.3f}  {r['speedup']:8.1f}×"
              for r in table]
    for impl in dict.fromkeys(r["impl"] for r in table):
        mine = sorted((r for r in table if r["impl"] == impl), key=lambda r: r["n"])
        since = crossover([r["n"] for r in mine], [r["a_s"] for r in mine], [r["b_s"] for r in mine])
        where = f"is faster from n = {since} on" if since is not None else "is not faster at the largest n measured"
        lines.append(f"{impl}: the {b} {where}")
    return "\n".join(lines)


def summary(rows: Sequence[dict], fit_from: int = FIT_FROM) -> str:
    """Per implementation: fitted slope, and GFLOP/s and % of the matmul peak at the largest n (chapter 11)."""
    fitted = slopes(rows, fit_from)
    lines = [f"{'impl':<12}  {f'slope (n >= {fit_from})':>17}  {'largest n':>9}  {'GFLOP/s':>8}  {'% of peak':>9}"]
    for impl in fitted:
        done = [r for r in rows if r["impl"] == impl and r.get("gflops") is not None]
        last = max(done, key=lambda r: r["n"])
        slope = "too few n" if math.isnan(fitted[impl]) else f"{fitted[impl]:.2f}"
        lines.append(f"{impl:<12}  {slope:>17}  {last['n']:>9}  {last['gflops']:8.1f}  {last['pct_of_peak']:8.1f}%")
    return "\n".join(lines)


def describe(system: dict[str, Any]) -> str:
    """Which machine and software made a run, and when: the label every measured number needs (chapter 11)."""
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
    lines = [f"hardware: {cpu}; {gpu}; {system.get('os')}",
             f"software: {software}",
             f"run on:   {system.get('date_utc')} (UTC), device {system.get('device')}"]
    if system.get("thread_env"):
        lines.append("threads:  " + ", ".join(f"{k}={v}" for k, v in system["thread_env"].items()))
    if load is not None:
        lines.append(f"load:     {load:.1f} at the start (1-minute load average, on {cores} cores)")
    return "\n".join(lines)
