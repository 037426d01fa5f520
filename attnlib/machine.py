"""The machine a timing runs on: its CPU, the threads the libraries report, and the
constants of the time model: the matmul peak (FLOP/s, in each dtype), the bandwidth of memory and
of the cache (bytes per second), the rate of exponentials, the fixed cost of one library call and
the cost of fresh memory (the counting and timing chapter).

Needs only the standard library, numpy and (when present) torch, so it runs on a bare GPU machine.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from .arrays import loaded_torch, maximum
from .bench import synchronize, time_fn, time_once

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


# The vector extensions that matter here: AVX2/FMA and AVX-512 for float32, and the 16-bit units
# (AVX-512 BF16 and FP16 dot products; AMX, Intel's matrix tiles, much like a GPU's tensor cores).
CPU_FEATURES = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_fp16")


def cpu_details() -> dict:
    """The CPU as the operating system names it: model name, family/model/stepping, vector extensions."""
    fields = {
        "model name": "model_name",
        "vendor_id": "vendor",
        "cpu family": "family",
        "model": "model",
        "stepping": "stepping",
    }
    details: dict[str, Any] = {**dict.fromkeys(fields.values()), "flags": {}}
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
        try:
            details["model_name"] = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=5, check=False
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    if not details["model_name"]:
        details["model_name"] = platform.processor() or platform.machine()
    return details


def sixteen_bit_units(flags: dict) -> str:
    """What the CPU's flags offer 16-bit matrix products, in words, e.g. 'AVX-512 BF16 (no AMX)'."""
    units = {
        "amx_bf16": "AMX bfloat16",
        "amx_fp16": "AMX float16",
        "avx512_bf16": "AVX-512 BF16",
        "avx512_fp16": "AVX-512 FP16",
    }
    found = [label for flag, label in units.items() if flags.get(flag)]
    if not found:
        return "none (16-bit numbers go through the float32 units)"
    return ", ".join(found) + ("" if flags.get("amx_tile") else " (no AMX)")


def cache_sizes() -> dict[str, int]:
    """Bytes of each data cache one core sees, e.g. {'L1': 32768, 'L2': 1048576, 'L3': 33554432} (Linux; else {})."""
    sizes = {}
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if (index / "type").read_text().strip() == "Instruction":
                continue
            text = (index / "size").read_text().strip()
            level = (index / "level").read_text().strip()
        except OSError:
            continue
        factor = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
        sizes[f"L{level}"] = int(text.rstrip("KMG")) * factor
    return sizes


def _cpu_model(details: dict) -> str:
    """One line for the CPU (`cpu_details`), e.g. 'AMD EPYC (family 25, model 1; AVX2, no AVX-512)'."""
    parts = []
    if details.get("family") is not None:
        parts.append(f"family {details['family']}, model {details['model']}")
    flags = details.get("flags") or {}
    if flags:
        vector = ["AVX2" if flags.get("avx2") else "no AVX2", "AVX-512" if flags.get("avx512f") else "no AVX-512"]
        if flags.get("avx512_bf16"):
            vector.append("AVX-512 BF16")
        if flags.get("amx_bf16"):
            vector.append("AMX")
        parts.append(", ".join(vector))
    return f"{details['model_name']} ({'; '.join(parts)})" if parts else details["model_name"]


def thread_counts() -> dict:
    """The threads the libraries *report* they will use: numpy's BLAS, asked through its own
    function, and torch. None where a library cannot be asked."""
    return {"numpy_blas": _blas_threads(), "torch": loaded_torch().get_num_threads() if loaded_torch() else None}


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
    """Hardware and software of this run: CPU and GPU model, threads, versions, date (UTC)."""
    torch = loaded_torch()
    cpu = cpu_details()
    info = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device,
        "os": f"{platform.system()} {platform.machine()}",
        "cpu_model": _cpu_model(cpu),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "caches": cache_sizes(),
        "sixteen_bit_units": sixteen_bit_units(cpu["flags"]),
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
    """FLOP/s of a large square matmul, the median of `repeat` runs: our compute ceiling.

    Measured the way every kernel is (warm-up, then the median), so a kernel's "% of peak"
    compares like with like. With `size` given, s×s matrices of that size. Without it, the
    side doubles from 256 (up to 2048 on a CPU, 8192 on a GPU) while the next size still
    fits in `max_seconds`, and the best side's median counts.
    """
    if library == "numpy" and device != "cpu":
        raise ValueError(f"matmul_peak: numpy runs on the CPU only, not on {device!r}")
    if library != "numpy" and loaded_torch() is None:
        raise RuntimeError("matmul_peak: torch is not installed; use library='numpy'")
    largest = 2048 if device == "cpu" else 8192
    sides = [size] if size else [s for s in (256, 512, 1024, 2048, 4096, 8192) if s <= largest]
    started, best = time.perf_counter(), 0.0
    for side in sides:
        a, b = _square_pair(library, device, dtype, side)
        multiply = np.matmul if library == "numpy" else loaded_torch().matmul
        multiply(a, b)  # warm-up: library start-up stays out
        synchronize(device)
        one = max(time_once(multiply, (a, b), device), 1e-9)
        runs = max(3, min(repeat, int(max_seconds / 4 / one)))
        median = time_fn(multiply, a, b, warmup=0, repeat=runs, device=device)["median_s"]
        best = max(best, 2 * side**3 / median)
        spent = time.perf_counter() - started
        if spent + 8 * median * (runs + 2) > max_seconds:  # the next side costs about 8 times as much
            break
    return best


def memory_bandwidth(device: str = "cpu", library: str = "numpy", mebibytes: int = 256, repeat: int = 5) -> float:
    """Bytes per second of copying one large array into another, the median of `repeat` copies:
    our memory ceiling.

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
        torch = loaded_torch()
        src = torch.ones(count, dtype=torch.float32, device=device)
        dst = torch.zeros(count, dtype=torch.float32, device=device)
        copy = torch.Tensor.copy_
    median = time_fn(copy, dst, src, warmup=1, repeat=repeat, device=device)["median_s"]
    return 2 * count * 4 / median


def per_call(call: Callable, times: int, repeat: int = 5, device: str = "cpu") -> float:
    """Median seconds of one call(), timed `times` calls at a time: for work too short to time alone."""

    def calls() -> None:
        for _ in range(times):
            call()

    return time_fn(calls, warmup=1, repeat=repeat, device=device)["median_s"] / times


def exp_rate(
    library: str = "numpy", value: float = 0.5, count: int = 2**16, repeat: int = 5, device: str = "cpu"
) -> float:
    """Exponentials per second, in float32, from one array of 256 KiB into another, both in the cache.

    `value` fills the array: -inf shows what a kernel pays for masked scores (exp(-inf) = 0).
    """
    if library == "numpy":
        x, y = np.full(count, value, dtype=np.float32), np.empty(count, dtype=np.float32)
        return count / per_call(lambda: np.exp(x, out=y), 50, repeat)
    torch = loaded_torch()
    x, y = torch.full((count,), value, device=device), torch.empty(count, device=device)
    return count / per_call(lambda: torch.exp(x, out=y), 50, repeat, device)


def call_overhead(library: str = "numpy", repeat: int = 5, device: str = "cpu") -> float:
    """Seconds of one library call that does almost nothing (adding two arrays of 8 numbers): the
    fixed cost that every call pays, whatever its size."""
    if library == "numpy":
        a, b, c = (np.ones(8, dtype=np.float32) for _ in range(3))
        return per_call(lambda: np.add(a, b, out=c), 1000, repeat)
    torch = loaded_torch()
    a, b, c = (torch.ones(8, device=device) for _ in range(3))
    return per_call(lambda: torch.add(a, b, out=c), 1000, repeat, device)


def _square_pair(library: str, device: str, dtype: str, side: int) -> tuple:
    if library == "numpy":
        rng = np.random.default_rng(0)
        return tuple(rng.standard_normal((side, side)).astype(dtype) for _ in range(2))
    torch = loaded_torch()
    gen = torch.Generator().manual_seed(0)
    return tuple(
        torch.randn(side, side, generator=gen).to(device=device, dtype=getattr(torch, dtype)) for _ in range(2)
    )


def memory_budget(device: str) -> int:
    """Bytes we allow a naive run to use: half the RAM (CPU) or 80% of the free GPU memory."""
    if device.startswith("cuda"):
        free, _ = loaded_torch().cuda.mem_get_info()
        return int(0.8 * free)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 16 * 2**30
    return total // 2


# --- one rate per kind of traffic: the constants of the phase-by-phase model -----------------


def non_temporal_threshold() -> int | None:
    """Bytes above which glibc's memcpy writes with non-temporal stores (skipping the cache and the
    read of each destination line), as `ld.so --list-diagnostics` reports it; None where unknown."""
    for loader in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "ld.so"):
        try:
            out = subprocess.run(
                [loader, "--list-diagnostics"], capture_output=True, text=True, timeout=10, check=False
            ).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        for line in out.splitlines():
            if "non_temporal_threshold" in line:
                return int(line.split("=")[-1].strip(), 0)
    return None


def median_seconds(
    call: Callable, repeat: int = 5, clock: Callable[[], float] = time.perf_counter, setup: Callable | None = None
) -> float:
    """Median seconds of one call() over `repeat` calls after one warm-up, read from `clock`
    (time.thread_time counts only this thread's own CPU time, so other programs' load stays out);
    `setup()`, untimed, runs before each call (to give an in-place call its input back)."""
    samples = []
    for i in range(repeat + 1):
        if setup:
            setup()
        start = clock()
        call()
        if i:  # the first call is the warm-up
            samples.append(clock() - start)
    return statistics.median(samples)


def traffic_rates(library: str, repeat: int = 5, clock: Callable[[], float] = time.perf_counter) -> dict:
    """One rate per kind of traffic, each measured on arrays of its own size (said in "measured_on"),
    every call timed alone by `clock`, as `sweep.timed_steps` times a phase:

    - "call": seconds of one tiny call that makes a new array (the larger of two 512 × 1 columns,
      through attnlib.arrays, as the kernels call it);
    - "copy below" / "copy above": bytes (read + written) per second of copying one array into
      another, 0.7× and 1.4× memcpy's non-temporal threshold (numpy's copy is memcpy; torch's is not);
    - "in place": bytes (read + written) per second of ``x *= 1``; "by row": the same for ``x -= c``, c one
      number per row (as softmax's shift and divide); "read": bytes read per second of a row max;
      "exp": exponentials per second, written over the array itself. Each "(memory)" over 64 MiB in
      rows of 1536 numbers, and "(cache)" over 256 KiB in rows of 512, less the cost of its call;
    - "fresh": bytes per second of what a new 64 MiB array costs beyond writing a kept one (the pages
      the system hands over on first touch);
    - "square product": FLOP/s of one 2048 × 2048 matmul (the peak); "thin product": of 8 × 256 × 64
      QKᵀ and AV (the products of attention at n = 256); "matrix-vector": bytes per second of one
      vector times a 64 MiB matrix (each weight read once, as in generating one token).
    """
    torch = loaded_torch() if library == "torch" else None
    rng = np.random.default_rng(0)

    def array(nbytes: int, rows: int = 512) -> Any:
        a = rng.standard_normal((nbytes // 4 // rows, rows)).astype(np.float32) - 4  # like shifted scores: < 0
        return a if torch is None else torch.from_numpy(a)

    def timed(call: Callable, samples: int = repeat, setup: Callable | None = None) -> float:
        return median_seconds(call, samples, clock, setup)

    column, other = array(512 * 4, rows=1).reshape(512, 1), array(512 * 4, rows=1).reshape(512, 1)
    rates, on = {"call": timed(partial(maximum, column, other), 50 * repeat)}, {"call": "a new 512 × 1 array"}
    threshold = non_temporal_threshold() or 3 * 2**27  # 384 MiB where unknown
    for name, size in (("copy below", int(0.7 * threshold)), ("copy above", int(1.4 * threshold))):
        size = size // 2**20 * 2**20
        src, dst = array(size), array(size)
        copy = partial(np.copyto, dst, src) if torch is None else partial(dst.copy_, src)
        rates[name], on[name] = 2 * size / timed(copy), f"{size // 2**20} MiB"
        del src, dst, copy
    for where, size, rows, samples in (("memory", 64 * 2**20, 1536, repeat), ("cache", 256 * 2**10, 512, 20 * repeat)):
        x = array(size, rows)
        keep = x.copy() if torch is None else x.clone()
        restore = partial(np.copyto, x, keep) if torch is None else partial(x.copy_, keep)
        passes = {
            "in place": (partial(x.__imul__, 1.0), 2 * size, None),
            "by row": (partial(x.__isub__, keep[:, :1] * 0), 2 * size, None),
            "read": (partial(x.max, axis=-1) if torch is None else partial(x.amax, dim=-1), size, None),
            "exp": (partial(np.exp, x, out=x) if torch is None else x.exp_, size // 4, restore),
        }
        less = rates["call"] if where == "cache" else 0.0
        for kind, (run, amount, setup) in passes.items():
            rates[f"{kind} ({where})"] = amount / (timed(run, samples, setup) - less)
            on[f"{kind} ({where})"] = (
                f"{size // 2**20 or size // 2**10} {'MiB' if size >= 2**20 else 'KiB'}, rows of {rows}"
            )
    fresh = 64 * 2**20
    kept = array(fresh)
    new = partial(np.ones, fresh // 4, dtype=np.float32) if torch is None else partial(torch.ones, fresh // 4)
    fill = partial(kept.fill, 1.0) if torch is None else partial(kept.fill_, 1.0)
    rates["fresh"], on["fresh"] = fresh / (timed(new) - timed(fill)), "new 64 MiB − a fill"
    Q, K, V = (array(8 * 256 * 64 * 4, rows=64).reshape(8, 256, 64) for _ in range(3))
    KT = K.swapaxes(-1, -2) if torch is None else K.transpose(-1, -2)
    S = Q @ KT
    seconds = timed(lambda: Q @ KT, 4 * repeat) + timed(lambda: S @ V, 4 * repeat)
    rates["thin product"], on["thin product"] = 2 * 2 * 8 * 256 * 256 * 64 / seconds, "8 × 256 × 64 QKᵀ, AV"
    A, B = array(2048 * 2048 * 4, rows=2048), array(2048 * 2048 * 4, rows=2048)
    rates["square product"], on["square product"] = 2 * 2048**3 / timed(lambda: A @ B), "2048 × 2048"
    W, x = array(64 * 2**20, rows=1024), array(1024 * 4, rows=1024)
    rates["matrix-vector"], on["matrix-vector"] = 64 * 2**20 / timed(lambda: x @ W.T), "64 MiB matrix"
    return {"rates": rates, "measured_on": on, "non_temporal_threshold": threshold}


def load_verdict(threads: int = 1) -> str:
    """The verdict a stored run gives its own load, for a live timing: while `threads` of ours run,
    the 1-minute load average counts them too, so the other programs' load is the rest; below 1 the
    machine is quiet enough to read the times, otherwise they are noise beside the stored run.
    Lines of at most 40 characters, for a phone."""
    if not hasattr(os, "getloadavg"):
        return "load unknown on this system:\ncompare with the stored run first"
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    if load - threads < 1:
        return f"load {load:.1f} on {cores} cores: quiet,\nthese times can be read"
    return f"load {load:.1f} on {cores} cores: busy;\nread these times as noise: the\nstored run is the chapter's"
