"""Chapter 15's CPU targets (issue 13), measured side by side in one run: one command,

    PYTHONPATH=. python benchmarks/cpu_targets.py            # about two minutes; writes chapters/data/cpu_targets.json

One CPU thread, float32. It prints numbers and a verdict and asserts nothing (tests/ never checks a timing).

1. attnlib.attention, which overwrites its own score array, against the same algorithm written
   in place by hand (numpy) and against torch's one-liner softmax(QKᵀ/√d)V, at 8 × 1024 × 64.
   Targets: attention / hand-written ≤ 1.10 (numpy); attention / one-liner ≤ 1.00 (torch).
2. tiled_attention against the in-place naive attention (the hand-written one) and against
   attnlib.attention, at 8 × 2048 × 64, with each one's share of the measured matmul peak.
   Target: tiled / in-place naive ≤ 0.85 in time.
3. The peak extra memory of one call of each, in a fresh process per implementation.
   Target: tiled ≤ 10 % of the in-place naive peak.
4. The price of fresh memory: allocating and filling a new n×n array in numpy and in torch,
   which is what every out-of-place step of a naive attention pays.
5. bfloat16: the error of tiled_attention and of torch's SDPA against float64, at n = 2048 and 8192.
   Target: tiled's error ≤ SDPA's.

How it stays fair on a shared, noisy machine: the implementations run in rounds, each round
every implementation once, in the same order, so a slow spell hits all of them alike; each
ratio is taken within a round and we report the median ratio over the rounds with its min–max.

How memory is measured: each implementation runs in a fresh Python process, warmed up on a
tiny problem; we reset the kernel's high-water mark (writing 5 to /proc/self/clear_refs, Linux),
make one full-size call and report high-water mark − resident memory before the call. The
children run with MALLOC_MMAP_THRESHOLD_=65536, so glibc returns every array over 64 KiB to the
system when it is freed and the same call gives the same peak every time.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy and torch load their thread pools

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import attnlib  # noqa: E402
from attnlib import bench  # noqa: E402
from attnlib.tiled import tiled_attention  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "chapters" / "data" / "cpu_targets.json"
HEADS, D = 8, 64
TARGETS = {"attention_numpy": 1.10, "attention_torch": 1.00, "tiled_time": 0.85, "tiled_memory": 0.10}


def naive_in_place(Q, K, V):
    """The in-place naive attention, by hand: every step overwrites the one n×n array S."""
    if isinstance(Q, np.ndarray):
        S = Q @ K.swapaxes(-1, -2)
        S /= math.sqrt(Q.shape[-1])
        S -= S.max(axis=-1, keepdims=True)
        np.exp(S, out=S)
        S /= S.sum(axis=-1, keepdims=True)
        return S @ V
    S = Q @ K.transpose(-1, -2)
    S /= math.sqrt(Q.shape[-1])
    S -= S.amax(dim=-1, keepdim=True)
    S.exp_()
    S /= S.sum(dim=-1, keepdim=True)
    return S @ V


def torch_one_liner(Q, K, V):
    """What most people write in torch: a fresh tensor for every step."""
    return torch.softmax(Q @ K.transpose(-1, -2) / math.sqrt(Q.shape[-1]), dim=-1) @ V


def inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    arrays = tuple(rng.standard_normal((HEADS, n, D), dtype=np.float32) for _ in range(3))
    return arrays, tuple(torch.from_numpy(a) for a in arrays)


def rounds(runs: dict, count: int) -> dict[str, list[float]]:
    """Each round runs every implementation once, in order; seconds per call, one list per implementation."""
    samples = {name: [] for name in runs}
    with torch.inference_mode():
        for run in runs.values():
            run()  # warm-up
        for _ in range(count):
            for name, run in runs.items():
                start = time.perf_counter()
                run()
                samples[name].append(time.perf_counter() - start)
    return samples


def stats(times: list[float]) -> dict:
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times)}


def ratio(samples: dict, a: str, b: str) -> dict:
    """a / b within each round: median and min–max over the rounds."""
    per_round = [x / y for x, y in zip(samples[a], samples[b])]
    return {"median": statistics.median(per_round), "min": min(per_round), "max": max(per_round)}


def part_attention(count: int) -> dict:
    (Q, K, V), (Qt, Kt, Vt) = inputs(1024)
    samples = rounds({
        "naive in place, numpy (by hand)": lambda: naive_in_place(Q, K, V),
        "attnlib.attention, numpy": lambda: attnlib.attention(Q, K, V),
        "torch one-liner softmax(QKᵀ/√d)V": lambda: torch_one_liner(Qt, Kt, Vt),
        "naive in place, torch (by hand)": lambda: naive_in_place(Qt, Kt, Vt),
        "attnlib.attention, torch": lambda: attnlib.attention(Qt, Kt, Vt),
    }, count)
    return {"n": 1024, "times": {k: stats(v) for k, v in samples.items()},
            "attention_numpy": ratio(samples, "attnlib.attention, numpy", "naive in place, numpy (by hand)"),
            "attention_torch": ratio(samples, "attnlib.attention, torch", "torch one-liner softmax(QKᵀ/√d)V"),
            "torch_in_place_vs_numpy": ratio(samples, "naive in place, torch (by hand)",
                                             "naive in place, numpy (by hand)")}


def part_tiled(count: int) -> dict:
    n = 2048
    (Q, K, V), (Qt, Kt, Vt) = inputs(n)
    a, b = (np.random.default_rng(1).standard_normal((2048, 2048), dtype=np.float32) for _ in range(2))
    at, bt = torch.from_numpy(a), torch.from_numpy(b)
    samples = rounds({
        "naive in place, numpy (by hand)": lambda: naive_in_place(Q, K, V),
        "attnlib.attention, numpy": lambda: attnlib.attention(Q, K, V),
        "attnlib.attention, torch": lambda: attnlib.attention(Qt, Kt, Vt),
        "tiled, numpy": lambda: tiled_attention(Q, K, V),
        "tiled, torch": lambda: tiled_attention(Qt, Kt, Vt),
        # (1, 8, n, d): torch's fused CPU kernel needs 4-D inputs and falls back to a slower path for 3-D
        "sdpa, torch": lambda: F.scaled_dot_product_attention(Qt[None], Kt[None], Vt[None]),
        "matmul 2048², numpy": lambda: a @ b,
        "matmul 2048², torch": lambda: at @ bt,
    }, count)
    peak = max(2 * 2048**3 / min(samples[k]) for k in ("matmul 2048², numpy", "matmul 2048², torch"))
    flops = bench.attention_flops(n, D, heads=HEADS)
    times = {k: stats(v) for k, v in samples.items()}
    share = {k: 100 * flops / v["median_s"] / peak for k, v in times.items() if not k.startswith("matmul")}
    return {"n": n, "times": times, "peak_flops": peak, "attention_flops": flops, "pct_of_peak": share,
            "tiled_numpy_vs_in_place": ratio(samples, "tiled, numpy", "naive in place, numpy (by hand)"),
            "tiled_torch_vs_in_place": ratio(samples, "tiled, torch", "naive in place, numpy (by hand)"),
            "tiled_numpy_vs_attention": ratio(samples, "tiled, numpy", "attnlib.attention, numpy"),
            "tiled_torch_vs_attention": ratio(samples, "tiled, torch", "attnlib.attention, numpy"),
            "sdpa_vs_in_place": ratio(samples, "sdpa, torch", "naive in place, numpy (by hand)")}


CHILD = r"""
import gc, json, math, sys
import numpy as np, torch
torch.set_num_threads(1)
sys.path.insert(0, sys.argv[3])
import attnlib
from attnlib.tiled import tiled_attention
sys.path.insert(0, sys.argv[3] + "/benchmarks")
from cpu_targets import naive_in_place
impl, n = sys.argv[1], int(sys.argv[2])
fns = {"naive-in-place": naive_in_place, "attention": lambda Q, K, V: attnlib.attention(Q, K, V)[0],
       "tiled": tiled_attention, "sdpa": lambda Q, K, V: torch.nn.functional.scaled_dot_product_attention(Q[None], K[None], V[None])}
kind, library = impl.rsplit("-", 1)
def make(n):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((8, n, 64), dtype=np.float32) for _ in range(3)]
    return [torch.from_numpy(x) for x in arrays] if library == "torch" else arrays
with torch.inference_mode():
    fns[kind](*make(64))
Q, K, V = make(n)
gc.collect()
def status_kib(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status_kib("VmRSS")
with torch.inference_mode():
    Z = fns[kind](Q, K, V)
print(json.dumps({"impl": impl, "peak_extra_bytes": (status_kib("VmHWM") - before) * 1024}))
"""

MEMORY = ["naive-in-place-numpy", "attention-numpy", "attention-torch", "tiled-numpy", "tiled-torch", "sdpa-torch"]


def part_memory(n: int = 2048) -> dict:
    out = {}
    for impl in MEMORY:
        run = subprocess.run([sys.executable, "-c", CHILD, impl, str(n), str(ROOT)], capture_output=True, text=True,
                             check=True, env={**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536"}, timeout=300)
        out[impl] = json.loads(run.stdout.strip().splitlines()[-1])["peak_extra_bytes"]
    return {"n": n, "method": "VmHWM after - VmRSS before (peak reset), fresh process each",
            "peak_extra_bytes": out, "a_bytes": bench.attention_matrix_bytes(n, heads=HEADS)}


def part_fresh_memory(count: int) -> dict:
    """Seconds to get a fresh n×n float32 array per head (8 × 1024², 32 MiB) and write it once."""
    shape = (HEADS, 1024, 1024)
    existing_np, existing_t = np.zeros(shape, dtype=np.float32), torch.zeros(shape)
    samples = rounds({
        "numpy: new array, filled": lambda: np.empty(shape, dtype=np.float32).fill(1.0),
        "torch: new tensor, filled": lambda: torch.empty(shape).fill_(1.0),
        "numpy: existing array, filled": lambda: existing_np.fill(1.0),
        "torch: existing tensor, filled": lambda: existing_t.fill_(1.0),
    }, count)
    return {"shape": list(shape), "bytes": int(np.prod(shape)) * 4, "times": {k: stats(v) for k, v in samples.items()}}


def part_bf16() -> list[dict]:
    rows = []
    for n, heads in ((2048, 2), (8192, 1)):
        gen = torch.Generator().manual_seed(0)
        Q, K, V = (torch.randn(1, heads, n, D, generator=gen).bfloat16() for _ in range(3))
        with torch.inference_mode():
            ref = attnlib.attention(Q.double(), K.double(), V.double())[0]
            err = {name: float((fn().double() - ref).norm() / ref.norm()) for name, fn in {
                "tiled": lambda: tiled_attention(Q, K, V), "sdpa": lambda: F.scaled_dot_product_attention(Q, K, V),
                "float64 rounded to bfloat16": lambda: ref.bfloat16()}.items()}
        rows.append({"n": n, "heads": heads, "relative_error": err})
    return rows


def ms(s: float) -> str:
    return f"{s * 1e3:.1f}"


def report(r: dict) -> None:
    a, t, m = r["attention"], r["tiled"], r["memory"]
    print(f"\n1. attnlib.attention at {HEADS}×{a['n']}×{D}, float32, 1 thread (median of {r['rounds']} rounds, min–max)")
    for name, s in a["times"].items():
        print(f"   {name:<36} {ms(s['median_s']):>7} ms  ({ms(s['min_s'])}–{ms(s['max_s'])})")
    for key, label in (("attention_numpy", "attention / by-hand in place, numpy"),
                       ("attention_torch", "attention / torch one-liner")):
        x = a[key]
        ok = x["median"] <= TARGETS[key]
        print(f"   {label:<40} × {x['median']:.2f} ({x['min']:.2f}–{x['max']:.2f})  target ≤ {TARGETS[key]:.2f}: "
              f"{'PASS' if ok else 'FAIL'}")
    print(f"\n2. tiled_attention at {HEADS}×{t['n']}×{D} (matmul peak {t['peak_flops'] / 1e9:.1f} GFLOP/s)")
    for name, s in t["times"].items():
        share = t["pct_of_peak"].get(name)
        extra = f"  {share:5.1f}% of peak" if share is not None else ""
        print(f"   {name:<36} {ms(s['median_s']):>7} ms  ({ms(s['min_s'])}–{ms(s['max_s'])}){extra}")
    for key in ("tiled_numpy_vs_in_place", "tiled_torch_vs_in_place", "tiled_numpy_vs_attention",
                "tiled_torch_vs_attention", "sdpa_vs_in_place"):
        x = t[key]
        verdict = ""
        if key.endswith("vs_in_place") and key.startswith("tiled"):
            verdict = f"  target ≤ {TARGETS['tiled_time']:.2f}: {'PASS' if x['median'] <= TARGETS['tiled_time'] else 'FAIL'}"
        print(f"   {key:<28} × {x['median']:.2f} ({x['min']:.2f}–{x['max']:.2f}){verdict}")
    base = m["peak_extra_bytes"]["naive-in-place-numpy"]
    print(f"\n3. peak extra memory of one call, n = {m['n']} (one A for 8 heads: {m['a_bytes'] / 2**20:.0f} MiB)")
    for impl, b in m["peak_extra_bytes"].items():
        verdict = ""
        if impl.startswith("tiled"):
            verdict = f"  target ≤ 10%: {'PASS' if b / base <= TARGETS['tiled_memory'] else 'FAIL'}"
        print(f"   {impl:<22} {b / 2**20:7.1f} MiB  = {100 * b / base:5.1f}% of in-place naive{verdict}")
    print(f"\n4. a fresh {r['fresh']['bytes'] / 2**20:.0f} MiB array, allocated and written once")
    for name, s in r["fresh"]["times"].items():
        print(f"   {name:<36} {ms(s['median_s']):>7} ms  ({ms(s['min_s'])}–{ms(s['max_s'])})")
    print("\n5. bfloat16 relative error against float64")
    for row in r["bf16"]:
        e = row["relative_error"]
        print(f"   n = {row['n']:>5}, {row['heads']} head(s): tiled {e['tiled']:.2e}, sdpa {e['sdpa']:.2e}, "
              f"rounding alone {e['float64 rounded to bfloat16']:.2e}: "
              f"{'PASS' if e['tiled'] <= e['sdpa'] else 'FAIL'}")


def main() -> None:
    p = argparse.ArgumentParser(description="Chapter 15's CPU targets, measured side by side.")
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args()
    torch.set_num_threads(1)
    system = bench.system_info("cpu")
    print(f"{system['cpu_model']}, {system['cpu_count']} cores, 1 thread; torch {system['torch']}, numpy "
          f"{system['numpy']}; load {system['load_average_1m']:.1f}", flush=True)
    r = {"system": system, "rounds": args.rounds, "targets": TARGETS,
         "command": "PYTHONPATH=. python benchmarks/cpu_targets.py"}
    r["attention"] = part_attention(args.rounds)
    r["tiled"] = part_tiled(args.rounds)
    r["memory"] = part_memory()
    r["fresh"] = part_fresh_memory(args.rounds)
    r["bf16"] = part_bf16()
    r["load_average_1m_at_end"] = os.getloadavg()[0]
    report(r)
    with open(args.out, "w") as f:
        json.dump(r, f, indent=2)
        f.write("\n")
    print(f"\nwrote {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
