"""Checks before the GPU sweep of the cpu vs gpu chapter: are the numbers right, is the stopwatch right, what is the peak?

Run by benchmarks/gpu_run.sh; by hand, from the repository root:

    PYTHONPATH=. python3 benchmarks/gpu_checks.py --device cuda --out gpu_checks.json
    PYTHONPATH=. python3 benchmarks/gpu_checks.py --device cpu --n 64 --out /tmp/checks.json   # dry run

It needs only the standard library, numpy and torch, and measures three things:

1. errors: Z from attnlib.attention (naive), tiled_attention and torch's scaled_dot_product_attention,
   in float32 and in bfloat16, against float64 attention of the same (rounded) inputs computed on the
   same device: ‖Z − Z_ref‖ / ‖Z_ref‖. NaN counts as a failure.
2. clocks: the same calls timed with CUDA events and with perf_counter around synchronize();
   the medians must agree (within 10 %; on a CPU both are perf_counter).
3. the matmul peak in float32, bfloat16 and float16 (machine.matmul_peak), the bandwidth of a
   large device-to-device copy (bytes read plus bytes written), the two ceilings of the counting and timing chapter's roofline,
   and two more constants of the time model: the rate of exponentials and the cost of one tiny call.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import attnlib
from attnlib import bench, machine
from attnlib.tiled import tiled_attention
from benchmarks.store import write_json

IMPLEMENTATIONS = {
    "naive-torch": lambda Q, K, V: attnlib.attention(Q, K, V)[0],
    "tiled-torch": tiled_attention,
    "sdpa-torch": F.scaled_dot_product_attention,
}
AGREE = 0.10  # CUDA events and perf_counter + synchronize must give medians within 10 % of each other


def inputs(device: str, n: int, heads: int, d: int, seed: int) -> tuple:
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(1, heads, n, d, generator=gen).to(device) for _ in range(3))


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    return float((out.double() - ref).norm() / ref.norm())


def errors(device: str, n: int, heads: int, d: int) -> list[dict]:
    """Relative error of each implementation in float32 and bfloat16 against float64 on the same device."""
    rows = []
    for seed, dtype in enumerate(("float32", "bfloat16")):
        Q, K, V = (x.to(getattr(torch, dtype)) for x in inputs(device, n, heads, d, seed))
        with torch.inference_mode():
            reference = attnlib.attention(Q.double(), K.double(), V.double())[0]  # the same rounded inputs
            for name, fn in IMPLEMENTATIONS.items():
                Z = fn(Q, K, V)
                err = relative_error(Z, reference)
                rows.append(
                    {
                        "impl": name,
                        "dtype": dtype,
                        "n": n,
                        "heads": heads,
                        "d": d,
                        "out_dtype": str(Z.dtype).replace("torch.", ""),
                        "relative_error": err,
                        "finite": bool(torch.isfinite(Z).all()) and math.isfinite(err),
                    }
                )
            rounding = relative_error(reference.to(Q.dtype), reference)
        rows.append(
            {
                "impl": "float64 result rounded to " + dtype,
                "dtype": dtype,
                "n": n,
                "heads": heads,
                "d": d,
                "out_dtype": dtype,
                "relative_error": rounding,
                "finite": True,
            }
        )
    return rows


def clocks(device: str, n: int, heads: int, d: int, repeat: int) -> list[dict]:
    """Median of CUDA-event timings against perf_counter + synchronize, interleaved, for a few calls.

    On a GPU the calls are sized to take a millisecond or more (SDPA at 4n, naive at 2n, an 8192²
    product), so that the microseconds of launching and synchronizing cannot tell the clocks apart.
    """
    gpu = device.startswith("cuda")
    n_sdpa, n_naive, side = (4 * n, 2 * n, 8192) if gpu else (n, n, 256)
    Q16, K16, V16 = (x.bfloat16() for x in inputs(device, n_sdpa, heads, d, 7))
    Q32, K32, V32 = inputs(device, n_naive, heads, d, 8)
    a, b = (torch.randn(side, side, device=device, dtype=torch.bfloat16) for _ in range(2))
    calls = {
        f"sdpa-torch bfloat16, n = {n_sdpa}": (F.scaled_dot_product_attention, (Q16, K16, V16)),
        f"naive-torch float32, n = {n_naive}": (IMPLEMENTATIONS["naive-torch"], (Q32, K32, V32)),
        f"matmul bfloat16, {side}×{side}": (torch.matmul, (a, b)),
    }
    rows = []
    with torch.inference_mode():
        for name, (fn, args) in calls.items():
            events, counter = [], []
            bench.time_fn(fn, *args, warmup=3, repeat=1, device=device)
            for _ in range(repeat):  # interleaved, so a slow moment hits both clocks alike
                events += bench.time_fn(fn, *args, warmup=0, repeat=1, device=device)["samples_s"]
                counter += bench.time_fn(fn, *args, warmup=0, repeat=1, device=device, events=False)["samples_s"]
            e, c = statistics.median(events), statistics.median(counter)
            rows.append(
                {
                    "call": name,
                    "events_median_s": e,
                    "events_min_s": min(events),
                    "events_max_s": max(events),
                    "perf_counter_median_s": c,
                    "perf_counter_min_s": min(counter),
                    "perf_counter_max_s": max(counter),
                    "ratio": c / e,
                    "agree": abs(c / e - 1) <= AGREE if gpu else None,  # on a CPU both are perf_counter
                    "clock": "CUDA events" if device.startswith("cuda") else "perf_counter (no GPU)",
                }
            )
    return rows


def copy_bandwidth(device: str, gib: float) -> float:
    """Bytes per second of a large copy on the device (bytes read plus bytes written), a median like every timing."""
    return machine.memory_bandwidth(device, library="torch", mebibytes=max(1, int(gib * 1024)), repeat=10)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cuda")
    p.add_argument("--n", type=int, default=4096, help="sequence length of the checks (default 4096)")
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        sys.exit("gpu_checks: torch sees no CUDA GPU here; for a dry run use --device cpu")
    started = time.perf_counter()
    report = {
        "system": machine.system_info(args.device),
        "torch_settings": {
            "float32_matmul_precision": torch.get_float32_matmul_precision(),
            "cuda_matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
            "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
        },
    }
    report["errors"] = errors(args.device, args.n, args.heads, args.d)
    for row in report["errors"]:
        print(
            f"error  {row['dtype']:<9} {row['impl']:<32} {row['relative_error']:.2e}"
            f"{'' if row['finite'] else '  NOT FINITE'}",
            flush=True,
        )
    report["clocks"] = clocks(args.device, args.n, args.heads, args.d, args.repeat)
    for row in report["clocks"]:
        print(
            f"clock  {row['call']:<34} events {row['events_median_s'] * 1e3:9.3f} ms, perf_counter "
            f"{row['perf_counter_median_s'] * 1e3:9.3f} ms, ratio {row['ratio']:.3f} "
            f"{ {True: 'agree', False: 'DISAGREE', None: '(no GPU: both are perf_counter)'}[row['agree']] }",
            flush=True,
        )
    report["matmul_peak_flops"] = {
        dtype: machine.matmul_peak(args.device, dtype, repeat=20) for dtype in ("float32", "bfloat16", "float16")
    }
    for dtype, flops in report["matmul_peak_flops"].items():
        print(f"peak   matmul {dtype:<9} {flops / 1e9:10.1f} GFLOP/s", flush=True)
    report["copy_bytes_per_s"] = copy_bandwidth(args.device, 2.0 if args.device.startswith("cuda") else 0.0625)
    print(f"peak   copy {report['copy_bytes_per_s'] / 1e9:8.1f} GB/s (read + write)", flush=True)
    big = 2**24 if args.device.startswith("cuda") else 2**12  # exponentials enough to fill the GPU
    report["exp_rate"] = machine.exp_rate("torch", count=big, repeat=10, device=args.device)
    report["launch_overhead_s"] = machine.call_overhead("torch", repeat=10, device=args.device)
    print(
        f"exp    {report['exp_rate'] / 1e9:10.1f} G/s; one tiny call {report['launch_overhead_s'] * 1e6:.1f} µs",
        flush=True,
    )
    report["seconds"] = time.perf_counter() - started
    report["ok"] = all(r["finite"] for r in report["errors"]) and all(r["agree"] is not False for r in report["clocks"])
    write_json(args.out, report)
    print(f"checks {'passed' if report['ok'] else 'FAILED'} in {report['seconds']:.1f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
