"""Issue 5's measurement: tiled_attention against the naive attention, in time and in peak memory.

One CPU thread, float32, batch × heads = 8, n = 2048, d = 64. Run from the repository root:

    PYTHONPATH=. python benchmarks/tiled_vs_naive.py

The targets: tiled_attention is no slower than the naive numpy `attnlib.attention`,
and its peak memory is under 10% of the naive one's.

How memory is measured (and why it is honest):
each implementation runs in a fresh Python process of its own, so nothing left over
from another implementation can hide or inflate its peak. In that process we build
the inputs, warm the code up on a tiny problem, then record the resident memory (RSS)
and reset the kernel's high-water mark (writing 5 to /proc/self/clear_refs, Linux).
After one full-size call, "peak extra memory" = high-water mark - RSS before the call:
every byte the call had in use at its worst moment, whoever allocated it (numpy,
torch, BLAS), and nothing it did not touch. Where the reset is not allowed we fall
back to the getrusage ru_maxrss delta, which can only under-count if the process
had already peaked higher before the call (the warm-up is tiny to make that unlikely).
For numpy we also report tracemalloc's peak, which counts exactly the bytes numpy
asked for (numpy registers its array buffers with tracemalloc), as a cross-check.

One more setting makes the numbers about the algorithm, not about the allocator:
the child processes run with MALLOC_MMAP_THRESHOLD_=65536, so glibc hands every
array over 64 KiB straight back to the system when it is freed. With glibc's default
(a threshold that moves as the program runs) freed blocks may be kept and reused,
and the measured peak of the same call varied between runs (28 to 60 MiB for
tiled-torch); with the fixed threshold it is the same every time, for every
implementation alike.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy and torch load their thread pools

import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

BATCH_HEADS, N, D = 8, 2048, 64
IMPLEMENTATIONS = ["naive-numpy", "tiled-numpy", "tiled-torch"]

CHILD = r"""
import gc, json, resource, sys, tracemalloc
import numpy as np, torch
import attnlib
from attnlib.tiled import tiled_attention
torch.set_num_threads(1)
impl, batch_heads, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def make(n):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((batch_heads, n, d), dtype=np.float32) for _ in range(3)]
    return [torch.from_numpy(a) for a in arrays] if impl.endswith("torch") else arrays

fn = (lambda Q, K, V: attnlib.attention(Q, K, V)[0]) if impl.startswith("naive") else tiled_attention
fn(*make(64))                                     # warm-up: load BLAS and torch kernels
Q, K, V = make(n)
gc.collect()

def status_kib(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))

try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")                              # reset the peak RSS (VmHWM) to the current RSS
    method, before = "VmHWM after - VmRSS before (peak reset)", status_kib("VmRSS")
except OSError:
    method, before = "ru_maxrss delta", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with torch.inference_mode():
    Z = fn(Q, K, V)
after = status_kib("VmHWM") if method.startswith("VmHWM") else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
del Z
result = {"impl": impl, "peak_extra_bytes": (after - before) * 1024, "method": method}
if impl.endswith("numpy"):
    gc.collect()
    tracemalloc.start()
    Z = fn(Q, K, V)
    result["tracemalloc_peak_bytes"] = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
print(json.dumps(result))
"""


def peak_memory(impl: str) -> dict:
    """Run one implementation once in a fresh process and return its peak extra memory."""
    out = subprocess.run([sys.executable, "-c", CHILD, impl, str(BATCH_HEADS), str(N), str(D)],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def timings(repeat: int = 7) -> dict[str, dict]:
    """Median time of each implementation (plus torch's own SDPA for reference), one thread."""
    import numpy as np
    import torch

    import attnlib
    from attnlib.bench import time_fn
    from attnlib.tiled import tiled_attention

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((BATCH_HEADS, N, D), dtype=np.float32) for _ in range(3))
    Qt, Kt, Vt = (torch.from_numpy(x) for x in (Q, K, V))
    runs = {
        "naive-numpy": (lambda: attnlib.attention(Q, K, V)[0]),
        "tiled-numpy": (lambda: tiled_attention(Q, K, V)),
        "tiled-torch": (lambda: tiled_attention(Qt, Kt, Vt)),
        # (1, 8, n, d), not (8, n, d): torch's fused CPU kernel needs 4-D inputs and
        # silently falls back to its slower unfused path for 3-D ones.
        "sdpa-torch (reference)": (lambda: torch.nn.functional.scaled_dot_product_attention(
            Qt[None], Kt[None], Vt[None])),
    }
    # Rounds, not blocks: each round runs every implementation once, so a slow spell of
    # this (shared, virtual) machine hurts all of them alike instead of one of them.
    samples: dict[str, list[float]] = {name: [] for name in runs}
    with torch.inference_mode():
        for run in runs.values():
            run()  # warm-up
        for _ in range(repeat):
            for name, run in runs.items():
                samples[name] += time_fn(run, warmup=0, repeat=1)["samples_s"]
    results = {}
    for name, times in samples.items():
        results[name] = {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times)}
        print(f"  {name:<24} median {results[name]['median_s'] * 1e3:8.1f} ms "
              f"(min {results[name]['min_s'] * 1e3:.1f}, max {results[name]['max_s'] * 1e3:.1f})", flush=True)
    return results


def main() -> None:
    print(f"tiled_attention vs naive attention: 1 thread, float32, batch×heads={BATCH_HEADS}, "
          f"n={N}, d={D}\n\ntime (median of 7 rounds):", flush=True)
    times = timings()
    print("\npeak extra memory of one call (fresh process each):", flush=True)
    memory = {}
    for impl in IMPLEMENTATIONS:
        memory[impl] = peak_memory(impl)
        line = f"  {impl:<24} {memory[impl]['peak_extra_bytes'] / 2**20:8.1f} MiB"
        if "tracemalloc_peak_bytes" in memory[impl]:
            line += f"   (tracemalloc: {memory[impl]['tracemalloc_peak_bytes'] / 2**20:.1f} MiB)"
        print(line, flush=True)
    print(f"  (method: {memory['naive-numpy']['method']})")

    naive = times["naive-numpy"]
    naive_memory = memory["naive-numpy"]["peak_extra_bytes"]
    print("\nverdict (against naive numpy attention; 'no slower' must hold for the medians and the best runs):")
    all_ok = True
    for impl in ("tiled-numpy", "tiled-torch"):
        median_ratio = times[impl]["median_s"] / naive["median_s"]
        best_ratio = times[impl]["min_s"] / naive["min_s"]
        memory_ratio = memory[impl]["peak_extra_bytes"] / naive_memory
        fast = median_ratio <= 1.0 and best_ratio <= 1.0
        ok = fast and memory_ratio < 0.10
        all_ok &= ok
        print(f"  {impl:<12} time × {median_ratio:.2f} (median), × {best_ratio:.2f} (best): "
              f"{'no slower' if fast else 'SLOWER'};  memory × {memory_ratio:.3f} "
              f"({'under' if memory_ratio < 0.1 else 'NOT under'} 10%)  -> {'PASS' if ok else 'FAIL'}")
    print("\nall targets met" if all_ok else "\nsome target missed")


if __name__ == "__main__":
    main()
