"""An honest stopwatch: timing a call, synchronising with a GPU, and which devices there are (the counting and timing and cpu vs gpu chapters).

A GPU runs asynchronously: a call returns as soon as the work is *queued*. So every
measured run is fenced by a synchronisation (CUDA events on NVIDIA GPUs), or we would
time the queueing, not the work. Needs only the standard library and (when present) torch.
The FLOPs and bytes of attention are counted in `attnlib.counting`, the machine's facts and
ceilings are in `attnlib.machine`, the sweep in `attnlib.sweep`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from .arrays import is_torch, loaded_torch


def _device_of(args: tuple) -> str:
    for a in args:
        if is_torch(a):
            return a.device.type
    return "cpu"


def synchronize(device: str) -> None:
    """Wait until every queued GPU kernel has finished (does nothing on the CPU)."""
    if device.startswith("cuda"):
        loaded_torch().cuda.synchronize()
    elif device.startswith("mps"):
        loaded_torch().mps.synchronize()


def time_fn(
    fn: Callable, *args: Any, warmup: int = 2, repeat: int = 7, device: str | None = None, events: bool = True
) -> dict:
    """Run fn(*args) `warmup` times unmeasured, then `repeat` times measured; seconds per run.

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
    """Seconds of one call fn(*args), fenced by synchronisation (CUDA events on NVIDIA GPUs)."""
    if device.startswith("cuda") and events:  # CUDA events time the work on the GPU itself
        torch = loaded_torch()
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


def available_devices() -> list[str]:
    """'cpu', plus 'cuda' and 'mps' when torch can reach such a GPU."""
    devices = ["cpu"]
    torch = loaded_torch()
    if torch is not None:
        if torch.cuda.is_available():
            devices.append("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            devices.append("mps")
    return devices
