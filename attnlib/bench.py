"""Timing attention on CPU and GPU: honest stopwatches, FLOP counts and a sweep (chapter 11).

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
import os
import platform
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np

from .core import attention, is_torch
from .tiled import tiled_attention

IMPLEMENTATIONS = ["naive-numpy", "naive-torch", "tiled-numpy", "tiled-torch", "sdpa-torch"]
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
    """Wait until every queued GPU kernel has finished (does nothing on the CPU) (chapter 11)."""
    if device.startswith("cuda"):
        _torch().cuda.synchronize()
    elif device.startswith("mps"):
        _torch().mps.synchronize()


def time_fn(fn: Callable, *args: Any, warmup: int = 2, repeat: int = 7, device: str | None = None) -> dict:
    """Run fn(*args) `warmup` times unmeasured, then `repeat` times measured; seconds per run (chapter 11)."""
    if repeat < 1:
        raise ValueError(f"time_fn: repeat must be at least 1, not {repeat}")
    device = device or _device_of(args)
    for _ in range(warmup):
        fn(*args)
    synchronize(device)
    samples = [_time_once(fn, args, device) for _ in range(repeat)]
    return {"median_s": statistics.median(samples), "min_s": min(samples), "max_s": max(samples),
            "samples_s": samples}


def _time_once(fn: Callable, args: tuple, device: str) -> float:
    if device.startswith("cuda"):  # CUDA events time the work on the GPU itself
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

def attention_flops(n: int, d_k: int, d_v: int | None = None, batch: int = 1, heads: int = 1,
                    m: int | None = None) -> int:
    """FLOPs of attention: 2·n·m·d_k for QKᵀ plus 2·n·m·d_v for AV, per head (chapter 11)."""
    d_v = d_k if d_v is None else d_v
    m = n if m is None else m
    return batch * heads * (2 * n * m * d_k + 2 * n * m * d_v)


def attention_matrix_bytes(n: int, m: int | None = None, batch: int = 1, heads: int = 1,
                           dtype_bytes: int = 4) -> int:
    """Bytes of one n×m weight matrix A per head, for all heads and the whole batch (chapter 11)."""
    m = n if m is None else m
    return batch * heads * n * m * dtype_bytes


def _dtype_bytes(dtype: str) -> int:
    return {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[dtype]


# --- the machine ----------------------------------------------------------------------

def available_devices() -> list[str]:
    """'cpu', plus 'cuda' and 'mps' when torch can reach such a GPU (chapter 11)."""
    devices = ["cpu"]
    torch = _torch()
    if torch is not None:
        if torch.cuda.is_available():
            devices.append("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            devices.append("mps")
    return devices


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        import subprocess
        try:
            return subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                                  text=True, timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine()


def _numpy_blas() -> str | None:
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except Exception:  # the layout of show_config differs between numpy versions
        return None


def system_info(device: str = "cpu") -> dict:
    """Hardware and software of this run: CPU and GPU model, threads, versions, date (UTC) (chapter 11)."""
    torch = _torch()
    info = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device,
        "os": f"{platform.system()} {platform.machine()}",
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads() if torch is not None else None,
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
        props = torch.cuda.get_device_properties(0)
        info.update(cuda=torch.version.cuda, gpu=props.name, gpu_memory_bytes=int(props.total_memory))
    elif device.startswith("mps"):
        info["gpu"] = "Apple GPU (MPS)"
    return info


def matmul_peak(device: str = "cpu", dtype: str = "float32", size: int | None = None,
                library: str = "torch", repeat: int = 5) -> float:
    """Measured FLOP/s of one large square matmul: the best this machine does, our yardstick (chapter 11)."""
    if size is None:
        size = 2048 if device == "cpu" else 8192
    if library == "numpy":
        if device != "cpu":
            raise ValueError(f"matmul_peak: numpy runs on the CPU only, not on {device!r}")
        rng = np.random.default_rng(0)
        a, b = (rng.standard_normal((size, size)).astype(dtype) for _ in range(2))
        best = time_fn(np.matmul, a, b, warmup=1, repeat=repeat)["min_s"]
    else:
        torch = _torch()
        if torch is None:
            raise RuntimeError("matmul_peak: torch is not installed; use library='numpy'")
        a, b = (torch.randn(size, size, device=device, dtype=getattr(torch, dtype)) for _ in range(2))
        best = time_fn(torch.matmul, a, b, warmup=1, repeat=repeat, device=device)["min_s"]
    return 2 * size ** 3 / best


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
    if impl.startswith("naive") and 5 * a_bytes > budget:  # scores, scaled, shifted, exp, A
        return (f"naive attention would need about {5 * a_bytes / 2**30:.1f} GiB "
                f"(5 n×n arrays), over the budget of {budget / 2**30:.1f} GiB")
    return None


def _inputs(library: str, device: str, dtype: str, shape: tuple[int, ...], seed: int = 0) -> tuple:
    if library == "numpy":
        rng = np.random.default_rng(seed)
        return tuple(rng.standard_normal(shape, dtype=np.float64).astype(dtype) for _ in range(3))
    torch = _torch()
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, generator=gen).to(device=device, dtype=getattr(torch, dtype))
                 for _ in range(3))


def _function(impl: str) -> Callable:
    kind = impl.split("-")[0]
    if kind == "naive":
        return lambda Q, K, V: attention(Q, K, V)[0]
    if kind == "tiled":
        return tiled_attention
    return _torch().nn.functional.scaled_dot_product_attention


def run_sweep(device: str = "cpu", dtype: str = "float32", sizes: list[int] = (128, 256, 512, 1024),
              d: int = 64, batch: int = 1, heads: int = 8, implementations: list[str] | None = None,
              repeat: int = 5, warmup: int = 2, peak_flops: float | None = None,
              budget_bytes: int | None = None, progress: Callable[[str], None] | None = print) -> list[dict]:
    """Time each implementation at each sequence length n; one row per (n, impl), skips included (chapter 11)."""
    implementations = list(implementations or IMPLEMENTATIONS)
    unknown = [i for i in implementations if i not in IMPLEMENTATIONS]
    if unknown:
        raise ValueError(f"run_sweep: unknown implementations {unknown}; choose from {IMPLEMENTATIONS}")
    if peak_flops is None:
        peak_flops = matmul_peak(device, dtype)
    budget = memory_budget(device) if budget_bytes is None else budget_bytes
    rows, total = [], len(sizes) * len(implementations)
    for n in sizes:
        flops = attention_flops(n, d, batch=batch, heads=heads)
        a_bytes = attention_matrix_bytes(n, batch=batch, heads=heads, dtype_bytes=_dtype_bytes(dtype))
        for impl in implementations:
            row = {"impl": impl, "n": n, "d": d, "batch": batch, "heads": heads, "dtype": dtype,
                   "device": device, "median_s": None, "min_s": None, "max_s": None, "gflops": None,
                   "pct_of_peak": None, "a_bytes": a_bytes, "skipped": None}
            row["skipped"] = _skip_reason(impl, device, dtype, a_bytes, budget)
            if row["skipped"] is None:
                try:
                    Q, K, V = _inputs(impl.split("-")[1], device, dtype, (batch, heads, n, d))
                    timing = _timed(_function(impl), Q, K, V, warmup=warmup, repeat=repeat, device=device)
                except (RuntimeError, MemoryError) as exc:  # out of memory, or a dtype the device lacks
                    row["skipped"] = f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
                    _free_gpu_memory(device)
                else:
                    row.update({k: timing[k] for k in ("median_s", "min_s", "max_s")})
                    row["gflops"] = flops / timing["median_s"] / 1e9
                    row["pct_of_peak"] = 100 * flops / timing["median_s"] / peak_flops
                Q = K = V = None
            rows.append(row)
            if progress is not None:
                progress(f"[{len(rows):>{len(str(total))}}/{total}] {_describe(row)}")
    return rows


def _free_gpu_memory(device: str) -> None:
    if device.startswith("cuda"):
        _torch().cuda.empty_cache()


def _timed(fn: Callable, *args: Any, **kwargs: Any) -> dict:
    """time_fn without autograd bookkeeping when torch is in play."""
    torch = _torch() if any(is_torch(a) for a in args) else None
    if torch is None:
        return time_fn(fn, *args, **kwargs)
    with torch.inference_mode():
        return time_fn(fn, *args, **kwargs)


def _describe(row: dict) -> str:
    head = f"n={row['n']:<6d} {row['impl']:<12s}"
    if row["skipped"]:
        return f"{head} skipped: {row['skipped']}"
    return (f"{head} {row['median_s'] * 1e3:10.3f} ms {row['gflops']:9.2f} GFLOP/s "
            f"{row['pct_of_peak']:6.1f}% of peak")


def _human_bytes(b: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or unit == "TiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return ""


def format_table(rows: list[dict]) -> str:
    """The sweep as a plain-text table: n, implementation, time, GFLOP/s, % of peak, memory of A (chapter 11)."""
    lines = [f"{'n':>6}  {'impl':<12}  {'time (ms)':>10}  {'GFLOP/s':>9}  {'% peak':>7}  {'A (memory)':>10}"]
    for r in rows:
        if r["skipped"]:
            cells = f"{'skipped':>10}  {'':>9}  {'':>7}"
        else:
            cells = f"{r['median_s'] * 1e3:10.3f}  {r['gflops']:9.2f}  {r['pct_of_peak']:6.1f}%"
        lines.append(f"{r['n']:>6}  {r['impl']:<12}  {cells}  {_human_bytes(r['a_bytes']):>10}")
    return "\n".join(lines)


# --- the command line ------------------------------------------------------------

def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m attnlib.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cpu", help="cpu, cuda or mps (default cpu)")
    p.add_argument("--dtype", default="float32", choices=["float32", "float64", "float16", "bfloat16"])
    p.add_argument("--sizes", default="128,256,512,1024,2048", help="sequence lengths n, comma separated")
    p.add_argument("--d", type=int, default=64, help="d_k = d_v per head (default 64)")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--repeat", type=int, default=5, help="measured runs per point (default 5)")
    p.add_argument("--warmup", type=int, default=2, help="unmeasured runs first (default 2)")
    p.add_argument("--threads", type=int, default=None, help="CPU threads for torch and numpy's BLAS")
    p.add_argument("--impls", default=",".join(IMPLEMENTATIONS), help="implementations, comma separated")
    p.add_argument("--peak-size", type=int, default=None, help="side of the matmul that measures the peak")
    p.add_argument("--out", default=None, help="write system info and results to this JSON file")
    return p.parse_args(argv)


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
    """Measure the matmul peak, run the sweep, print a table and optionally save JSON (chapter 11)."""
    args = _parse(argv)
    if args.threads is not None:
        _set_threads(args.threads, may_restart=argv is None)
    if args.device.split(":")[0] not in available_devices():
        sys.exit(f"attnlib.bench: device {args.device!r} is not available here; "
                 f"available: {', '.join(available_devices())}")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    implementations = [s.strip() for s in args.impls.split(",") if s.strip()]

    system = system_info(args.device)
    say(f"{system['cpu_model']} | {system['gpu'] or 'no GPU'} | torch {system['torch']} | numpy {system['numpy']}")
    peaks = _matmul_peaks(args.device, args.dtype, args.peak_size)
    say("matmul peak: " + ", ".join(f"{lib} {f / 1e9:.1f} GFLOP/s" for lib, f in peaks.items()))
    rows = run_sweep(args.device, args.dtype, sizes, d=args.d, batch=args.batch, heads=args.heads,
                     implementations=implementations, repeat=args.repeat, warmup=args.warmup,
                     peak_flops=max(peaks.values()), progress=say)
    # Measure the peak again at the end and keep the best of the two, so one slow moment
    # of the machine during the first measurement cannot inflate every percentage.
    again = _matmul_peaks(args.device, args.dtype, args.peak_size)
    peaks = {lib: max(f, again[lib]) for lib, f in peaks.items()}
    peak = max(peaks.values())
    for row in rows:
        if row["gflops"] is not None:
            row["pct_of_peak"] = 100 * row["gflops"] * 1e9 / peak
    say("matmul peak (best of start and end): "
        + ", ".join(f"{lib} {f / 1e9:.1f} GFLOP/s" for lib, f in peaks.items()))
    say("")
    say(format_table(rows))
    say(f"(% peak: of the best measured {args.dtype} matmul, {peak / 1e9:.1f} GFLOP/s; "
        f"A: one n×n weight matrix per head, batch {args.batch} × {args.heads} heads)")
    if args.out:
        settings = {k: getattr(args, k) for k in ("device", "dtype", "d", "batch", "heads", "repeat",
                                                    "warmup", "threads")}
        settings.update(sizes=sizes, implementations=implementations)
        report = {"system": system, "settings": settings, "peak_flops": peak,
                  "peak_flops_by_library": peaks, "results": rows}
        directory = os.path.dirname(os.path.abspath(args.out))
        os.makedirs(directory, exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        say(f"wrote {args.out}")


if __name__ == "__main__":
    main()
