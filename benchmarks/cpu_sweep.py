"""The stored CPU run of the counting and timing and cpu vs gpu chapters, one command (about 2.5 minutes on a quiet 2-core machine,
up to 11 on a loaded one; run it on a quiet machine):

    PYTHONPATH=. python -m benchmarks.cpu_sweep --require-quiet --out chapters/data/cpu_results.json

One thread (set here before numpy and torch load, and checked against what the libraries
report), float32, 8 heads, d = 64. It measures, each part in shuffled, interleaved rounds:

1. the roofline's ceilings, numpy and torch: the matmul peak (median of repeats, like every
   kernel), the bandwidth of a large copy, the rate of exponentials (and on -inf);
2. the sweep over n of the plain, in-place naive, tiled and SDPA attention (forward);
3. tiled_attention against SDPA at 8 × 2048 × 64 with a few block sizes, and the targets
   below (ratios within a round, median and min–max);
4. forward + backward and the causal case (benchmarks/parts.py), and which SDPA kernel ran;
5. the peak extra memory of one call of each, each in a fresh process;
6. bfloat16: each implementation's error against the same float64 reference;
7. 16 bits: the CPU's 16-bit units (from its flags), the torch matmul peak and SDPA in float32,
   bfloat16 and float16;
8. fresh memory: plain-numpy at n = 2048 call by call with its page faults, as run and with the
   allocator keeping its memory, each in a fresh process;
9. the same forward at n = 2048 with every core, in a child process, labelled as such.

The load average is read before every round and stored with each row. It counts the sweep's own
thread too, so the other programs' load is the load less 1 while the sweep measures (and all of it
before it starts); a run where theirs reached 1 anywhere is marked "quiet": false (the chapters
then say so). With --require-quiet the command refuses to start unless the load is below 1, and
to store unless the others' stayed below 1.
Nothing is asserted: targets are printed with a verdict (tests never check a timing).
"""

from __future__ import annotations

import os
import sys

THREADS = os.environ.get("CPU_SWEEP_THREADS", "1")
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = THREADS  # before numpy and torch load their thread pools

import argparse
import gc
import json
import resource
import subprocess
import time

import numpy as np
import torch
import torch.nn.functional as F

import attnlib
from attnlib import bench, counting, machine, sweep
from attnlib.tiled import tiled_attention
from benchmarks import parts
from benchmarks.store import write_json

HEADS, D, N = 8, 64, 2048
SIZES = [16, 32, 64, 128, 256, 512, 1024, 2048]
TARGETS = {"tiled-torch / sdpa": 1.3, "tiled-numpy / sdpa": 1.8, "tiled memory / naive memory": 0.10}
BLOCKS = [(512, 512), (256, 256), (1024, 256), (256, 1024)]  # (keys per block, queries per chunk)


def say(line: str) -> None:
    print(line, flush=True)


def load() -> float:
    return os.getloadavg()[0]


def ceilings(rounds: int) -> dict:
    """The roofline's ceilings, numpy and torch, each a median: the matmul peak, the bandwidth of a
    256 MiB copy, the rate of exponentials (on ordinary numbers and on -inf). The time model's
    constants are the phase run's (`--part phases`)."""
    libs = ("numpy", "torch")
    out = {"matmul_side": 2048, "copy_mebibytes": 256, "caches": machine.cache_sizes()}
    out["peak_flops"] = {
        lib: machine.matmul_peak("cpu", "float32", size=2048, library=lib, repeat=rounds) for lib in libs
    }
    out["bandwidth_bytes_per_s"] = {lib: machine.memory_bandwidth("cpu", library=lib, repeat=rounds) for lib in libs}
    out["exp_rate"] = {lib: machine.exp_rate(lib, repeat=rounds) for lib in libs}
    out["exp_rate_of_minus_inf"] = {lib: machine.exp_rate(lib, value=float("-inf"), repeat=rounds) for lib in libs}
    return out


def sdpa_exp_rate(rounds: int, peak: float, d: int = 16) -> float:
    """Exponentials per second inside SDPA's own kernel (its own exponential, not torch.exp): SDPA at
    8 × 2048 × 16, where the products are 4 times fewer than at d = 64 and the n² exponentials are
    the same; what the products leave of its time, per exponential. (Below d = 16 SDPA's kernel slows
    down again, so a smaller d would not isolate the exponentials better.)"""
    Q, K, V = parts.inputs("cpu", "float32", N, HEADS, d)
    with torch.inference_mode():
        seconds = bench.time_fn(F.scaled_dot_product_attention, Q, K, V, warmup=1, repeat=rounds)["median_s"]
    products = counting.attention_flops(N, d, heads=HEADS) / peak
    return HEADS * N * N / max(seconds - products, 1e-9)


def call_costs(rounds: int) -> dict:
    """Each kernel's time at n = 1 (8 heads, d = 64): the fixed cost of one call, whatever its size."""
    numpy_inputs, torch_inputs = forward_inputs(1)
    costs = {}
    with torch.inference_mode():
        for impl in sweep.IMPLEMENTATIONS:
            fn, args = sweep.kernel(impl), torch_inputs if impl.endswith("torch") else numpy_inputs
            costs[impl] = machine.per_call(lambda fn=fn, args=args: fn(*args), 100, rounds)
    return costs


def sixteen_bit(rounds: int) -> dict:
    """What 16-bit numbers buy on this CPU: the torch matmul peak and SDPA at 8 × 2048 × 64 in float32,
    bfloat16 and float16, and the CPU's 16-bit units as its flags name them."""
    flags = machine.cpu_details()["flags"]
    dtypes = ("float32", "bfloat16", "float16")
    peaks = {dt: machine.matmul_peak("cpu", dt, library="torch", repeat=rounds) for dt in dtypes}
    calls = {}
    for dt in dtypes:
        Q, K, V = parts.inputs("cpu", dt, N, HEADS, D)
        calls[dt] = lambda Q=Q, K=K, V=V: F.scaled_dot_product_attention(Q, K, V)
    with torch.inference_mode():
        samples = sweep.interleaved(calls, rounds)
    return {
        "units": machine.sixteen_bit_units(flags),
        "flags": flags,
        "matmul_peak_flops": peaks,
        "sdpa": {
            "n": N,
            "heads": HEADS,
            "d": D,
            "load_during": [min(samples["_load"]), max(samples["_load"])],
            "times": {dt: parts.stats(samples[dt]) for dt in dtypes},
            "over_float32": {dt: parts.ratio(samples[dt], samples["float32"]) for dt in dtypes if dt != "float32"},
        },
    }


def fresh_memory(rounds: int) -> dict:
    """plain-numpy at 8 × 2048 × 64, call by call, with the page faults of each call: once as it runs
    (every n×n array is fresh memory from the system) and once with the allocator told to keep its
    memory (MALLOC_MMAP_THRESHOLD_), each in a fresh process."""
    keep = {"MALLOC_MMAP_THRESHOLD_": str(2**34), "MALLOC_TRIM_THRESHOLD_": str(2**34), "MALLOC_TOP_PAD_": str(2**30)}
    out = {"n": N, "heads": HEADS, "d": D, "calls": 2 * rounds}
    for name, extra in (("fresh memory (as run)", {}), ("memory kept by the allocator", keep)):
        run = subprocess.run(
            [sys.executable, "-m", "benchmarks.cpu_sweep", "--part", "fresh-memory", "--rounds", str(2 * rounds)],
            capture_output=True,
            text=True,
            env={**os.environ, **extra},
            timeout=300,
            check=False,
        )
        rows = json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else []
        out[name] = {"seconds": [r[0] for r in rows], "page_faults": [r[1] for r in rows]}
    return out


def fresh_memory_calls(calls: int) -> list[list[float]]:
    """`--part fresh-memory`, the child of fresh_memory: plain-numpy at 8 × 2048 × 64, once unmeasured
    and then `calls` times, each call's seconds and page faults ([seconds, faults] per call)."""
    (Q, K, V), _ = forward_inputs(N)
    attnlib.attention(Q, K, V)
    rows = []
    for _ in range(calls):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        attnlib.attention(Q, K, V)
        seconds = time.perf_counter() - start
        rows.append([seconds, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before])
    return rows


PHASE_SIZES = (1024, 2048)


def phases(rounds: int) -> dict:
    """`--part phases`: the constants of the time model (attnlib.timemodel): the rate of every kind
    of traffic (machine.traffic_rates), SDPA's exponentials (fitted on SDPA) and each kernel's time
    at n = 1; then the plain, naive and tiled kernels in numpy and torch at n = 1024 and 2048, one library call at a time
    (sweep.timed_steps), in shuffled interleaved rounds after a warm-up. Every clock is this thread's
    CPU time (time.thread_time), so another program's load delays a call without adding to its time;
    each sample also keeps its wall time, its page faults and its system time (getrusage)."""
    import random

    clock = time.thread_time
    say("phases: the rate of each kind of traffic, numpy and torch, and each kernel's cost at n = 1")
    rates = {lib: machine.traffic_rates(lib, rounds, clock) for lib in ("numpy", "torch")}
    rates["torch"]["rates"]["fused exp"] = sdpa_exp_rate(rounds, rates["torch"]["rates"]["square product"])
    rates["torch"]["measured_on"]["fused exp"] = "fitted: SDPA, d = 16"
    kernel_calls = call_costs(rounds)
    inputs = {n: forward_inputs(n) for n in PHASE_SIZES}
    kinds = ("plain", "naive", "tiled")
    kernels = [(kind, lib, n) for kind in kinds for lib in ("numpy", "torch") for n in PHASE_SIZES]
    samples: dict = {k: [] for k in kernels}
    loads = []
    with torch.inference_mode():
        for kind, lib, n in kernels:  # warm-up
            sweep.timed_steps(kind, *inputs[n][lib == "torch"], clock=clock)
        order, shuffle = list(kernels), random.Random(0).shuffle
        for r in range(rounds):
            loads.append(load())
            shuffle(order)
            for kind, lib, n in order:
                before, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
                _, steps = sweep.timed_steps(kind, *inputs[n][lib == "torch"], clock=clock)
                wall, after = time.perf_counter() - wall, resource.getrusage(resource.RUSAGE_SELF)
                extra = {"wall_s": wall, "page_faults": after.ru_minflt - before.ru_minflt}
                extra["system_s"] = after.ru_stime - before.ru_stime
                samples[(kind, lib, n)].append({**steps, **extra})
            say(f"phases: round {r + 1} of {rounds}, load {loads[-1]:.2f}")
    rows = []
    for (kind, lib, n), got in samples.items():
        names = [k for k in got[0] if k not in ("wall_s", "page_faults", "system_s")]
        steps = {name: parts.stats([g[name] for g in got]) for name in names}
        rows.append(
            {
                "kind": kind,
                "library": lib,
                "n": n,
                "heads": HEADS,
                "d": D,
                "steps_s": steps,
                "sum_of_steps_s": parts.stats([sum(g[name] for name in names) for g in got]),
                "wall_s": parts.stats([g["wall_s"] for g in got]),
                "page_faults": [g["page_faults"] for g in got],
                "system_s": [g["system_s"] for g in got],
            }
        )
    return {"rates": rates, "kernel_call_s": kernel_calls, "kernels": rows, "load_during": [min(loads), max(loads)]}


CONTEXTS = (32, 128, 511)  # tokens already in the cache; one more makes 512, the course's limit


def generation(rounds: int) -> dict | None:
    """The real causal model (attnlib.causal_lm, SmolLM2-135M in float32) writing one token after a
    context of t tokens, one thread: with the K/V cache (the step reads the cache and adds one
    token) and without (the whole text again), shuffled interleaved rounds after a warm-up, each
    step timed by this thread's CPU time. None when the model's wheel is not installed."""
    import random

    from attnlib import causal_lm as lm

    try:
        model = lm.load()
    except (ImportError, FileNotFoundError, ModuleNotFoundError) as e:
        say(f"generation: skipped ({e})")
        return None
    ids = lm.encode("The cat sat on the mat. " * 73)[0][: max(CONTEXTS) + 1]  # 512 tokens
    caches = {}
    for t in CONTEXTS:
        caches[t] = lm.Cache()
        lm.step(ids[:t], caches[t], last=True)

    def cached(t: int) -> None:
        lm.step([ids[t]], lm.Cache(K=list(caches[t].K), V=list(caches[t].V)), last=True)  # the cache kept as it was

    def uncached(t: int) -> None:
        lm.step(ids[: t + 1], lm.Cache(), last=True)

    calls = {(kind, t): (cached if kind == "cached" else uncached) for kind in ("cached", "uncached") for t in CONTEXTS}
    for (_, t), call in calls.items():
        call(t)  # warm-up
    samples: dict = {key: [] for key in calls}
    order, shuffle, loads = list(calls), random.Random(0).shuffle, []
    for _ in range(rounds):
        loads.append(load())
        shuffle(order)
        for key in order:
            start = time.thread_time()
            calls[key](key[1])
            samples[key].append(time.thread_time() - start)
    weights = sum(
        w.nbytes
        for layer in model.layers
        for w in (layer.W_Q, layer.W_K, layer.W_V, layer.W_O, layer.W_gate, layer.W_up, layer.W_down)
    )
    return {
        "model": lm.FILE,
        "dtype": "float32",
        "layers": lm.LAYERS,
        "kv_heads": lm.KV_HEADS,
        "d_k": lm.D_K,
        "trained_context": lm.CONTEXT,
        "weight_bytes": weights + model.embedding.nbytes,  # the layers' matrices and the token table (the logits)
        "contexts": list(CONTEXTS),
        "times": {f"{kind} {t}": parts.stats(v) for (kind, t), v in samples.items()},
        "load_during": [min(loads), max(loads)],
    }


def forward_inputs(n: int) -> tuple:
    rng = np.random.default_rng(0)
    arrays = tuple(rng.standard_normal((1, HEADS, n, D), dtype=np.float32) for _ in range(3))
    return arrays, tuple(torch.from_numpy(a) for a in arrays)


def blocks(rounds: int) -> dict:
    """tiled_attention with a few block sizes, against SDPA, at 8 × 2048 × 64: ratios within each round."""
    (Q, K, V), (Qt, Kt, Vt) = forward_inputs(N)
    calls = {"sdpa-torch": lambda: F.scaled_dot_product_attention(Qt, Kt, Vt)}
    for b, qb in BLOCKS:
        calls[f"tiled-numpy {b}x{qb}"] = lambda b=b, qb=qb: tiled_attention(Q, K, V, block=b, query_block=qb)
        calls[f"tiled-torch {b}x{qb}"] = lambda b=b, qb=qb: tiled_attention(Qt, Kt, Vt, block=b, query_block=qb)
    with torch.inference_mode():
        samples = sweep.interleaved(calls, rounds)
    sdpa = samples["sdpa-torch"]
    return {
        "n": N,
        "rounds": rounds,
        "load_during": [min(samples["_load"]), max(samples["_load"])],
        "times": {k: parts.stats(v) for k, v in samples.items() if k != "_load"},
        "over_sdpa": {k: parts.ratio(v, sdpa) for k, v in samples.items() if k.startswith("tiled")},
        "default": f"{attnlib.tiled.BLOCK}x{attnlib.tiled.QUERY_BLOCK}",
    }


def ratios(rows: list[dict], n: int) -> dict:
    """Each implementation's time over SDPA's at size n, within each round (the sweep's rows)."""
    at = {r["impl"]: r["samples_s"] for r in rows if r["n"] == n and r.get("samples_s")}
    return {impl: parts.ratio(t, at["sdpa-torch"]) for impl, t in at.items() if impl != "sdpa-torch"}


def peak_memory_of_one_call(impl: str, n: int) -> dict:
    """`--part peak-memory`, the child of memory: the high-water mark of one call of `impl` (a name of
    sweep.kernel) at 8 × n × 64, less the resident memory before it (Linux: VmHWM after a reset)."""
    torch.set_num_threads(1)
    fn, library = sweep.kernel(impl), impl.split("-")[1]

    def make(size: int) -> tuple:
        numpy_inputs, torch_inputs = forward_inputs(size)
        return torch_inputs if library == "torch" else numpy_inputs

    with torch.inference_mode():
        fn(*make(64))  # the library's start-up stays out
    Q, K, V = make(n)
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the high-water mark to what is resident now
    before = _status_kib("VmRSS")
    with torch.inference_mode():
        fn(Q, K, V)
    return {"impl": impl, "peak_extra_bytes": (_status_kib("VmHWM") - before) * 1024}


def _status_kib(key: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))


def memory(n: int = N) -> dict:
    """Peak extra memory of one call, each implementation in a fresh process (Linux: VmHWM after a reset)."""
    out = {}
    for impl in sweep.IMPLEMENTATIONS:
        run = subprocess.run(
            [sys.executable, "-m", "benchmarks.cpu_sweep", "--part", "peak-memory", "--impl", impl, "--n", str(n)],
            capture_output=True,
            text=True,
            env={**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536"},
            timeout=300,
            check=False,
        )
        if run.returncode == 0:
            out[impl] = json.loads(run.stdout.strip().splitlines()[-1])["peak_extra_bytes"]
    return {
        "n": n,
        "method": "high-water mark after one call minus resident memory before it, fresh process each",
        "peak_extra_bytes": out,
        "a_bytes": counting.attention_matrix_bytes(n, heads=HEADS),
    }


def bfloat16_errors(n: int = N, heads: int = 2) -> dict:
    """Relative error of Z against float64 attention of the same bfloat16-rounded inputs."""
    gen = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(1, heads, n, D, generator=gen).bfloat16() for _ in range(3))
    with torch.inference_mode():
        ref = attnlib.attention(Q.double(), K.double(), V.double())[0]
        found = {kind: sweep.kernel(f"{kind}-torch")(Q, K, V) for kind in ("tiled", "naive", "sdpa")}
        found["float64, rounded to bfloat16"] = ref.bfloat16()
        err = {k: float((z.double() - ref).norm() / ref.norm()) for k, z in found.items()}
    return {"n": n, "heads": heads, "relative_error": err}


def all_cores(rounds: int) -> dict | None:
    """The forward at n = 2048 with every core, run in a child process that starts with that many threads."""
    cores = os.cpu_count() or 1
    env = {**os.environ, "CPU_SWEEP_THREADS": str(cores)}
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.cpu_sweep", "--part", "forward-once", "--rounds", str(rounds)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    if run.returncode != 0:
        return {"error": (run.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(run.stdout.strip().splitlines()[-1])


def forward_once(rounds: int) -> dict:
    torch.set_num_threads(int(THREADS))
    rows = sweep.run_sweep(
        "cpu",
        "float32",
        [N],
        d=D,
        heads=HEADS,
        repeat=rounds,
        peak_flops=1.0,
        implementations=["naive-numpy", "naive-torch", "tiled-numpy", "tiled-torch", "sdpa-torch"],
        progress=None,
    )
    for r in rows:
        r.pop("pct_of_peak", None)
        r.pop("samples_s", None)
    return {"threads_reported": machine.thread_counts(), "rows": rows}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=None, help="the JSON file to write (e.g. chapters/data/cpu_results.json)")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--sizes", default=",".join(map(str, SIZES)))
    p.add_argument("--require-quiet", action="store_true", help="refuse unless the other programs' load stays below 1")
    p.add_argument(
        "--part",
        default="all",
        choices=["all", "phases", "forward-once", "fresh-memory", "peak-memory"],
        help="all; phases (the phase-by-phase run, its own file: --out chapters/data/cpu_phases.json); "
        "or one child part that the run starts in a fresh process (it prints one line of JSON)",
    )
    p.add_argument("--impl", default="plain-numpy", help="--part peak-memory: the implementation (sweep.kernel)")
    p.add_argument("--n", type=int, default=N, help="--part peak-memory: the sequence length")
    args = p.parse_args(argv)
    children = {
        "forward-once": lambda: forward_once(args.rounds),
        "fresh-memory": lambda: fresh_memory_calls(args.rounds),
        "peak-memory": lambda: peak_memory_of_one_call(args.impl, args.n),
    }
    if args.part in children:
        print(json.dumps(children[args.part]()))
        return
    torch.set_num_threads(1)
    threads = machine.thread_counts()
    if threads["numpy_blas"] not in (1, None) or threads["torch"] != 1:
        sys.exit(f"benchmarks.cpu_sweep: error: the libraries report {threads}, not one thread each")
    start = load() if not args.require_quiet else settled_load()
    if args.require_quiet and start >= 1:
        sys.exit(f"benchmarks.cpu_sweep: the load is {start:.2f} (≥ 1); run again when the machine is quiet")
    system = machine.system_info("cpu")
    say(f"{system['cpu_model']}; threads reported {threads}; load {start:.2f}")
    command = " ".join(["PYTHONPATH=. python -m benchmarks.cpu_sweep", *sys.argv[1:]])
    if args.part == "phases":
        store_phases(args, system, threads, command, start)
        return
    result: dict = {"system": system, "command": command, "rounds": args.rounds, "targets": TARGETS}
    result["ceilings"] = ceilings(args.rounds)
    say_ceilings(result["ceilings"])
    result.update(the_sweep(args.rounds, [int(x) for x in args.sizes.split(",")], result["ceilings"]))
    result.update(the_parts(args.rounds))
    result["load"] = load_record(result, start)  # before the all-cores part, whose own threads raise the load
    result["all_cores"] = all_cores(args.rounds)
    verdicts(result)
    if args.require_quiet and not result["load"]["quiet"]:
        sys.exit(
            f"benchmarks.cpu_sweep: other programs' load reached {result['load']['others']:.2f} (≥ 1); "
            "nothing stored, run again"
        )
    if args.out:
        write_json(args.out, result)
        say(f"wrote {args.out}")


def settled_load(wait_s: float = 180.0) -> float:
    """The load once it falls below 1, or after wait_s: the 1-minute average still counts a run that
    just ended (cpu_run.sh starts the phase part right after the sweep), and decays within a minute or two."""
    deadline = time.monotonic() + wait_s
    while load() >= 1 and time.monotonic() < deadline:
        time.sleep(10)
    return load()


def store_phases(args: argparse.Namespace, system: dict, threads: dict, command: str, start: float) -> None:
    """The phase-by-phase run: measure, judge the load as the whole run does, and write its own file."""
    began = time.perf_counter()
    result = {"system": system, "threads_reported": threads, "command": command, "rounds": args.rounds}
    result["caches"] = machine.cache_sizes()
    result["clock"] = "time.thread_time: this thread's own CPU time"
    result.update(phases(args.rounds))
    result["generation"] = generation(args.rounds)
    during = max(result.pop("load_during")[1], load())
    if result["generation"]:
        during = max(during, result["generation"]["load_during"][1])
    others = max(start, during - int(THREADS))
    result["load"] = {"start": start, "max": max(start, during), "others": others, "quiet": others < 1}
    result["minutes"] = round((time.perf_counter() - began) / 60, 1)
    for row in result["kernels"]:
        say(
            f"{row['kind']}-{row['library']} n = {row['n']}: "
            + ", ".join(f"{k} {v['median_s'] * 1e3:.1f}" for k, v in row["steps_s"].items())
            + " ms"
        )
    say(
        f"load: {start:.2f} at the start, {result['load']['max']:.2f} at most, other programs' "
        f"{others:.2f}: {'quiet' if others < 1 else 'NOT quiet (≥ 1): these numbers are provisional'}"
    )
    if args.require_quiet and others >= 1:
        sys.exit(f"benchmarks.cpu_sweep: other programs' load reached {others:.2f} (≥ 1); nothing stored, run again")
    if args.out:
        write_json(args.out, result)
        say(f"wrote {args.out}")


def say_ceilings(c: dict) -> None:
    say(
        "matmul peak (median): "
        + ", ".join(f"{k} {v / 1e9:.1f} GFLOP/s" for k, v in c["peak_flops"].items())
        + "; copy: "
        + ", ".join(f"{k} {v / 1e9:.1f} GB/s" for k, v in c["bandwidth_bytes_per_s"].items())
        + "; exp: "
        + ", ".join(f"{k} {v / 1e9:.2f} G/s" for k, v in c["exp_rate"].items())
    )


def the_sweep(rounds: int, sizes: list[int], c: dict) -> dict:
    """The sweep over n (one peak for all its rows: the larger library's), its settings and the ratios to SDPA."""
    peak = max(c["peak_flops"].values())
    rows = sweep.run_sweep("cpu", "float32", sizes, d=D, heads=HEADS, repeat=rounds, peak_flops=peak, progress=say)
    settings = {
        **{k: sweep.DEFAULTS[k] for k in ("device", "dtype", "batch", "threads")},
        "sizes": sizes,
        "d": D,
        "heads": HEADS,
        "repeat": rounds,
        "warmup": 1,
        "implementations": list(sweep.IMPLEMENTATIONS),
        "peak_size": 2048,
    }
    over = ratios(rows, max(sizes))
    say("at the largest n, time / SDPA's: " + ", ".join(f"{k} ×{v['median']:.2f}" for k, v in over.items()))
    return {
        "settings": settings,
        "peak_flops": peak,
        "peak_flops_by_library": c["peak_flops"],
        "results": rows,
        "over_sdpa": over,
    }


def the_parts(rounds: int) -> dict:
    """Every one-thread part after the sweep: blocks, forward + backward, causal, SDPA's kernel, memory, 16 bits, fresh memory."""
    out = {"blocks": blocks(rounds)}
    say("blocks: " + ", ".join(f"{k} ×{v['median']:.2f}" for k, v in out["blocks"]["over_sdpa"].items()))
    out["forward_backward"] = parts.forward_backward("cpu", "float32", 1024, HEADS, D, rounds)
    out["causal"] = parts.causal("cpu", "float32", N, HEADS, D, rounds, numpy_too=True)
    out["sdpa_backends"] = parts.backends("cpu", "float32", N, HEADS, D, rounds)
    say(f"SDPA ran {out['sdpa_backends']['default_kernel']}")
    out["memory"] = memory()
    out["bfloat16"] = bfloat16_errors()
    out["sixteen_bit"] = sixteen_bit(rounds)
    peaks = out["sixteen_bit"]["matmul_peak_flops"]
    say(
        f"16-bit units: {out['sixteen_bit']['units']}; matmul peak "
        + ", ".join(f"{k} {v / 1e9:.1f}" for k, v in peaks.items())
        + " GFLOP/s"
    )
    out["fresh_memory"] = fresh_memory(rounds)
    return out


def load_record(result: dict, start: float) -> dict:
    """The load at the start, at the end and at most (over every one-thread part's rounds), and the
    load of the other programs: while the run measures, the load counts our own thread too (1 from
    us alone), so theirs is the load less ours; before the run started it was all theirs. Quiet if
    theirs stayed below 1 throughout: the other programs wanted less than one core between them and
    never needed ours. Read before the all-cores part, whose threads would raise the load by themselves."""
    during = [r["load_during"][1] for r in result["results"] if r.get("load_during")]
    during += [result[part]["load_during"][1] for part in ("blocks", "forward_backward", "causal")]
    during += [result["sixteen_bit"]["sdpa"]["load_during"][1], load()]
    others = max(start, max(during) - int(THREADS))
    return {"start": start, "end": during[-1], "max": max(start, *during), "others": others, "quiet": others < 1}


def verdicts(result: dict) -> None:
    """Print each target with its measured ratio (median and min–max over rounds) and a verdict."""
    o, m = result["over_sdpa"], result["memory"]["peak_extra_bytes"]
    found = {
        "tiled-torch / sdpa": o.get("tiled-torch", {}).get("median"),
        "tiled-numpy / sdpa": o.get("tiled-numpy", {}).get("median"),
    }
    if m.get("naive-numpy") and m.get("tiled-numpy"):
        found["tiled memory / naive memory"] = m["tiled-numpy"] / m["naive-numpy"]
    for name, target in TARGETS.items():
        value = found.get(name)
        verdict = "not measured" if value is None else f"×{value:.2f}: {'PASS' if value <= target else 'FAIL'}"
        say(f"target {name} ≤ {target}: {verdict}")
    say(
        f"load: {result['load']['start']:.2f} at the start, {result['load']['max']:.2f} at most, "
        f"other programs' load {result['load']['others']:.2f}, "
        f"{'quiet' if result['load']['quiet'] else 'NOT quiet (≥ 1): these numbers are provisional'}"
    )


if __name__ == "__main__":
    main()
