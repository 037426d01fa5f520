"""The timing lesson (the counting and timing chapter): an honest stopwatch, synchronising with a GPU, and counting
the FLOPs and bytes of attention.

A GPU runs asynchronously: a call returns as soon as the work is *queued*. So every
measured run is fenced by a synchronisation (CUDA events on NVIDIA GPUs), or we would
time the queueing, not the work. Needs only the standard library and (when present) torch.
The machine's facts and ceilings are in `attnlib.machine`, the sweep in `attnlib.sweep`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from .arrays import is_torch


def torch_or_none() -> Any:
    """torch, or None when it is not installed (imported only when first needed) (the counting and timing chapter)."""
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
    """Wait until every queued GPU kernel has finished (does nothing on the CPU) (the counting and timing chapter)."""
    if device.startswith("cuda"):
        torch_or_none().cuda.synchronize()
    elif device.startswith("mps"):
        torch_or_none().mps.synchronize()


def time_fn(
    fn: Callable, *args: Any, warmup: int = 2, repeat: int = 7, device: str | None = None, events: bool = True
) -> dict:
    """Run fn(*args) `warmup` times unmeasured, then `repeat` times measured; seconds per run (the counting and timing chapter).

    On an NVIDIA GPU each run is timed with CUDA events; events=False times it with
    perf_counter and synchronize instead (the two must agree).
    """
    if repeat < 1:
        raise ValueError(f"time_fn: repeat must be at least 1, not {repeat}")
    device = device or _device_of(args)
    for _ in range(warmup):
        fn(*args)
    synchronize(device)
    samples = [time_once(fn, args, device, events) for _ in range(repeat)]
    return {"median_s": statistics.median(samples), "min_s": min(samples), "max_s": max(samples), "samples_s": samples}


def time_once(fn: Callable, args: tuple, device: str, events: bool = True) -> float:
    """Seconds of one call fn(*args), fenced by synchronisation (CUDA events on NVIDIA GPUs) (the counting and timing chapter)."""
    if device.startswith("cuda") and events:  # CUDA events time the work on the GPU itself
        torch = torch_or_none()
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
    """FLOPs of attention: 2·n·m·d_k for QKᵀ plus 2·n·m·d_v for AV, per head (the counting and timing chapter)."""
    d_v = d_k if d_v is None else d_v
    m = n if m is None else m
    return batch * heads * (2 * n * m * d_k + 2 * n * m * d_v)


def attention_matrix_bytes(n: int, m: int | None = None, batch: int = 1, heads: int = 1, dtype_bytes: int = 4) -> int:
    """Bytes of one n×m weight matrix A per head, for all heads and the whole batch (the counting and timing chapter)."""
    m = n if m is None else m
    return batch * heads * n * m * dtype_bytes


def attention_bytes(
    n: int, d: int, kind: str, dtype_bytes: int = 4, heads: int = 1, batch: int = 1, query_block: int | None = None
) -> int:
    """Bytes attention moves to and from memory, counted pass by pass (the counting and timing chapter).

    "naive": Q and K read, the n×n scores written, then six passes over them (scale,
    row max, shift, exp, row sum, divide: 10 reads or writes of n² numbers), A read again
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
    """Bytes a side×side matmul moves at least: two matrices read, one written (the counting and timing chapter)."""
    return 3 * side * side * dtype_bytes


def dtype_bytes(dtype: str) -> int:
    """Bytes of one number of this dtype ('float32' -> 4) (the counting and timing chapter)."""
    return {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[dtype]


def available_devices() -> list[str]:
    """'cpu', plus 'cuda' and 'mps' when torch can reach such a GPU (the counting and timing chapter)."""
    devices = ["cpu"]
    torch = torch_or_none()
    if torch is not None:
        if torch.cuda.is_available():
            devices.append("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            devices.append("mps")
    return devices
