"""Forward and backward, causal, and which SDPA kernel ran: the measurements of the counting and timing and cpu vs gpu chapters
that the sweep does not make. Used by benchmarks/cpu_sweep.py (CPU) and benchmarks/gpu_run.sh (GPU).

    PYTHONPATH=. python -m benchmarks.parts --device cuda --dtype bfloat16 --n 4096 --out parts.json

Needs only numpy and torch. Every timing is a median over shuffled, interleaved rounds
(attnlib.sweep.interleaved), with its min and max and the load average of each round.
"""

from __future__ import annotations

import argparse
import statistics
import sys

import torch
import torch.nn.functional as F

import attnlib
from attnlib import bench, counting, machine, sweep
from attnlib.in_place import naive_attention
from attnlib.tiled import tiled_attention
from benchmarks.store import write_json

BACKENDS = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")


def inputs(device: str, dtype: str, n: int, heads: int, d: int, grad: bool = False) -> tuple:
    gen = torch.Generator().manual_seed(0)
    return tuple(
        torch.randn(1, heads, n, d, generator=gen).to(device=device, dtype=getattr(torch, dtype)).requires_grad_(grad)
        for _ in range(3)
    )


def stats(times: list[float]) -> dict:
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times)}


def ratio(a: list[float], b: list[float]) -> dict:
    """a / b within each round: the median and the min–max over the rounds."""
    per_round = [x / y for x, y in zip(a, b)]
    return {"median": statistics.median(per_round), "min": min(per_round), "max": max(per_round)}


def forward_backward(device: str, dtype: str, n: int, heads: int, d: int, rounds: int) -> dict:
    """Forward alone and forward + backward (autograd) of the plain, the tiled and torch's attention."""
    Q, K, V = inputs(device, dtype, n, heads, d, grad=True)
    dZ = torch.ones(1, heads, n, d, device=device, dtype=Q.dtype)
    kernels = {
        "plain-torch": lambda: attnlib.attention(Q, K, V)[0],
        "tiled-torch": lambda: tiled_attention(Q, K, V),
        "sdpa-torch": lambda: F.scaled_dot_product_attention(Q, K, V),
    }

    def both(kernel):
        def run():
            Q.grad = K.grad = V.grad = None
            kernel().backward(dZ)

        return run

    calls = {}
    for name, kernel in kernels.items():
        calls[f"{name} forward"] = kernel
        calls[f"{name} forward+backward"] = both(kernel)
    samples = sweep.interleaved(calls, rounds, device=device)
    out = {
        **measured(samples, device, dtype, n, heads, d, rounds),
        "flops_forward": counting.attention_flops(n, d, heads=heads),
    }
    out["backward_over_forward"] = {
        name: ratio(samples[f"{name} forward+backward"], samples[f"{name} forward"]) for name in kernels
    }
    return out


def measured(samples: dict, device: str, dtype: str, n: int, heads: int, d: int, rounds: int) -> dict:
    """What every part records: the workload, the load during the rounds, and each call's times."""
    return {
        "n": n,
        "heads": heads,
        "d": d,
        "dtype": dtype,
        "device": device,
        "rounds": rounds,
        "load_during": [min(samples["_load"]), max(samples["_load"])],
        "times": {k: stats(v) for k, v in samples.items() if k != "_load"},
    }


def causal(device: str, dtype: str, n: int, heads: int, d: int, rounds: int, numpy_too: bool) -> dict:
    """Full and causal attention, each kernel named by its library: the naive one masks (all the work,
    then hide half), tiled and SDPA skip blocks."""
    Q, K, V = inputs(device, dtype, n, heads, d)
    mask = attnlib.causal_mask(n, like=Q)
    calls = {
        "naive-torch full": lambda: naive_attention(Q, K, V),
        "naive-torch causal": lambda: naive_attention(Q, K, V, mask),
        "tiled-torch full": lambda: tiled_attention(Q, K, V),
        "tiled-torch causal": lambda: tiled_attention(Q, K, V, causal=True),
        "sdpa-torch full": lambda: F.scaled_dot_product_attention(Q, K, V),
        "sdpa-torch causal": lambda: F.scaled_dot_product_attention(Q, K, V, is_causal=True),
    }
    if numpy_too:
        Qn, Kn, Vn = (x.float().numpy() for x in (Q, K, V))
        calls["tiled-numpy full"] = lambda: tiled_attention(Qn, Kn, Vn)
        calls["tiled-numpy causal"] = lambda: tiled_attention(Qn, Kn, Vn, causal=True)
    with torch.inference_mode():
        samples = sweep.interleaved(calls, rounds, device=device)
    out = measured(samples, device, dtype, n, heads, d, rounds)
    kinds = sorted({k.rsplit(" ", 1)[0] for k in calls})
    out["causal_over_full"] = {kind: ratio(samples[f"{kind} causal"], samples[f"{kind} full"]) for kind in kinds}
    return out


def sdpa_kernel_used(
    device: str, dtype: str, n: int = 1024, heads: int = 8, d: int = 64, is_causal: bool = False
) -> str:
    """The name of the kernel torch's SDPA dispatched to, read from the profiler's record of one call."""
    from torch.profiler import profile

    Q, K, V = inputs(device, dtype, n, heads, d)
    with torch.inference_mode(), profile() as prof:
        F.scaled_dot_product_attention(Q, K, V, is_causal=is_causal)
        bench.synchronize(device)
    names = [
        e.name
        for e in prof.events()
        if e.name.startswith("aten::_scaled_dot_product")
        or e.name.startswith("aten::_efficient_attention")
        or e.name.startswith("aten::_flash_attention")
    ]
    return names[0] if names else "math (no fused kernel: softmax and matmuls, op by op)"


def backends(device: str, dtype: str, n: int, heads: int, d: int, rounds: int) -> dict:
    """SDPA with each backend pinned in turn (those this device has), timed side by side."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    Q, K, V = inputs(device, dtype, n, heads, d)
    calls, refused = {}, {}
    for name in BACKENDS:
        backend = getattr(SDPBackend, name, None)
        if backend is None:
            continue

        def run(backend=backend):
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(Q, K, V)

        try:
            with torch.inference_mode():
                run()
        except RuntimeError as exc:
            refused[name] = (str(exc).splitlines() or [""])[0][:160]
        else:
            calls[name] = run
    with torch.inference_mode():
        samples = sweep.interleaved(calls, rounds, device=device) if calls else {"_load": [float("nan")]}
    return {
        **measured(samples, device, dtype, n, heads, d, rounds),
        "default_kernel": sdpa_kernel_used(device, dtype, n, heads, d),
        "default_kernel_causal": sdpa_kernel_used(device, dtype, n, heads, d, is_causal=True),
        "unavailable": refused,
    }


def measure(device: str, dtype: str, n: int, heads: int, d: int, rounds: int) -> dict:
    return {
        "system": machine.system_info(device),
        "forward_backward": forward_backward(device, dtype, n, heads, d, rounds),
        "causal": causal(device, dtype, n, heads, d, rounds, numpy_too=device == "cpu"),
        "sdpa_backends": backends(device, dtype, n, heads, d, rounds),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cuda")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        sys.exit(f"benchmarks.parts: error: device {args.device!r} is not available here")
    result = measure(args.device, args.dtype, args.n, args.heads, args.d, args.rounds)
    for name, r in result["forward_backward"]["backward_over_forward"].items():
        print(f"{name:6s} forward+backward / forward  ×{r['median']:.2f} ({r['min']:.2f}–{r['max']:.2f})")
    for name, r in result["causal"]["causal_over_full"].items():
        print(f"{name:12s} causal / full  ×{r['median']:.2f} ({r['min']:.2f}–{r['max']:.2f})")
    print("SDPA ran:", result["sdpa_backends"]["default_kernel"])
    write_json(args.out, result)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
