"""A time model of attention: what each kernel should take, from its counts and
the machine's measured constants (the counting and timing and cpu vs gpu chapters).

A kernel runs as a list of **phases** (a matrix product, one pass over the scores, ...). Each phase
has four costs:

- its FLOPs at the matmul peak,
- its exponentials at the exponential rate,
- its bytes at the bandwidth of the memory level its array fits in (L2, L3 or main memory),
- its calls at the fixed cost of a call.

Within a phase the arithmetic and the memory traffic overlap, so the phase takes the larger of the
two (a roof); the phases of a kernel run one after the other, so their times add. On a CPU the
products and the exponentials share one core's vector units, so their times add too; on a GPU the
exponentials have units of their own (`units="separate"`), and the larger counts. Fresh memory,
pages the operating system must hand over on their first touch, is paid on top.

Everything here is arithmetic on the constants: nothing is measured in this module.
"""

from __future__ import annotations

import math

FRESH_FROM = 32 * 2**20  # glibc hands arrays this large straight back to the system: each is fresh memory
CALLS_PER_BLOCK = 13  # library calls of tiled_attention for one block of keys (products, passes, updates)
KINDS = {"plain": "plain", "naive": "naive", "tiled": "tiled", "sdpa": "fused"}


def phase(name: str, flops: float = 0, exps: float = 0, nbytes: float = 0, array_bytes: float = 0) -> dict:
    """One phase of a kernel: FLOPs, exponentials, bytes moved, and the size of the array it walks."""
    return {"name": name, "flops": flops, "exps": exps, "bytes": nbytes, "array_bytes": array_bytes}


def naive_phases(n: int, d: int, heads: int, nbytes: int = 4) -> list[dict]:
    """The naive kernel, per the byte count of counting.attention_bytes: QKᵀ writes the n×n scores,
    six passes read or write them 10 times, AV reads A once more: 12·n² numbers per head."""
    square = heads * n * n * nbytes  # one n×n array of every head
    rows = heads * n * d * nbytes
    passes = [("scale", 2, 0), ("row max", 1, 0), ("shift", 2, 0), ("exp", 2, 1), ("row sum", 1, 0), ("divide", 2, 0)]
    return [
        phase("QKᵀ", flops=2 * heads * n * n * d, nbytes=2 * rows + square, array_bytes=square),
        *(phase(name, exps=e * heads * n * n, nbytes=k * square, array_bytes=square) for name, k, e in passes),
        phase("AV", flops=2 * heads * n * n * d, nbytes=square + 2 * rows, array_bytes=square),
    ]


def tiled_phases(n: int, d: int, heads: int, block: int = 512, query_block: int | None = 512) -> list[dict]:
    """tiled_attention: for every chunk of queries and block of keys, the block's products and its
    passes (row max, shift, exp, row sum), all in float32 (4 bytes a number, whatever the input).
    On a CPU (query_block 512) the heads go one at a time and a block stays in the cache; on a GPU
    (query_block None) every head and query go at once, and each block's scores are one big array."""
    q, b = min(query_block or n, n), min(block, n)
    together = not query_block or heads * n * n <= query_block * block  # a GPU, or all scores in one block
    at_once = heads if together else 1  # heads in one block of scores
    blocks = heads // at_once * math.ceil(n / q) * math.ceil(n / b)
    tile = at_once * q * b * 4  # one block of float32 scores
    kv = at_once * 2 * b * d * 4  # the keys and values of one block, read again for every chunk
    flops = blocks * 2 * at_once * q * b * d
    return [
        phase("QKᵀ blocks", flops=flops, nbytes=blocks * (tile + kv / 2), array_bytes=tile),
        phase("row max", nbytes=blocks * tile, array_bytes=tile),  # each library call its own phase
        phase("shift", nbytes=blocks * 2 * tile, array_bytes=tile),
        phase("exp", exps=blocks * at_once * q * b, nbytes=blocks * 2 * tile, array_bytes=tile),
        phase("row sum", nbytes=blocks * tile, array_bytes=tile),
        phase("PV blocks", flops=flops, nbytes=blocks * (tile + kv / 2), array_bytes=tile),
    ]


def tiled_steps(n: int, heads: int, gpu: bool = False, block: int = 512) -> int:
    """How many blocks tiled_attention walks: on a GPU, n/block for all heads and queries at once; on a
    CPU, (n/block)² chunks and blocks, for every head unless one block holds the scores of all heads."""
    blocks = math.ceil(n / block)
    if gpu:
        return blocks
    return blocks * blocks * (1 if heads * n * n <= block * block else heads)


def fused_phases(n: int, d: int, heads: int, nbytes: int = 4) -> list[dict]:
    """A fused kernel (SDPA's flash kernel): one phase, Q, K, V read once and Z written once."""
    flops = 4 * heads * n * n * d
    return [phase("fused", flops=flops, exps=heads * n * n, nbytes=4 * heads * n * d * nbytes, array_bytes=0)]


def phases(kind: str, n: int, d: int = 64, heads: int = 8, nbytes: int = 4, gpu: bool = False) -> list[dict]:
    """The phases of a kernel: 'plain' and 'naive' (the same passes), 'tiled' or 'fused'."""
    if kind in ("plain", "naive"):
        return naive_phases(n, d, heads, nbytes)
    if kind == "tiled":
        return tiled_phases(n, d, heads, query_block=None if gpu else 512)
    if kind == "fused":
        return fused_phases(n, d, heads, nbytes)
    raise ValueError(f"phases: kind must be 'plain', 'naive', 'tiled' or 'fused', not {kind!r}")


def bandwidth_for(array_bytes: float, levels: dict) -> float:
    """The bandwidth of the smallest memory level that holds the array: levels is
    {"L2": [size, bytes/s], "L3": [...], "memory": [None, bytes/s]}."""
    for size, rate in sorted(levels.values(), key=lambda v: math.inf if v[0] is None else v[0]):
        if size is None or array_bytes <= size:
            return rate
    return list(levels.values())[-1][1]


def phase_times(ph: dict, constants: dict, units: str = "shared") -> dict:
    """The seconds of one phase: its compute, exponentials and memory terms, and the phase's time."""
    products = ph["flops"] / constants["peak"]
    exps = ph["exps"] / constants["exp_rate"]
    memory = ph["bytes"] / bandwidth_for(ph["array_bytes"], constants["bandwidth"]) if ph["bytes"] else 0.0
    compute = products + exps if units == "shared" else max(products, exps)
    return {"products": products, "exponentials": exps, "memory": memory, "time": max(compute, memory)}


def predict(impl: str, n: int, constants: dict, d: int = 64, heads: int = 8, nbytes: int = 4) -> dict:
    """The model's time for one implementation ('naive-numpy', 'tiled-torch', 'sdpa-torch', ...) at n.

    Returns the seconds, and how they split: "compute" (the products of phases bound by arithmetic),
    "exponentials" (theirs: on a CPU both terms of such a phase show, as they add), "bandwidth"
    (phases bound by their bytes), "fresh memory" and "overhead";
    "regime" names the largest. `constants` are one library's (see `constants_of`), or a GPU's
    (see `H200_SHEET`); on a GPU the tiled kernel's products run at the float32 peak.
    """
    kind = KINDS[impl.split("-")[0]]
    gpu = constants.get("units") == "separate"
    split = {"compute": 0.0, "exponentials": 0.0, "bandwidth": 0.0, "fresh memory": 0.0, "overhead": 0.0}
    for ph in phases(kind, n, d, heads, nbytes, gpu):
        peak = constants.get("float32_peak", constants["peak"]) if kind == "tiled" else constants["peak"]
        exp_rate = constants.get("fused_exp_rate", constants["exp_rate"]) if kind == "fused" else constants["exp_rate"]
        t = phase_times(ph, {**constants, "peak": peak, "exp_rate": exp_rate}, constants.get("units", "shared"))
        if t["memory"] >= t["time"] and t["memory"] > 0:
            split["bandwidth"] += t["time"]
        elif constants.get("units", "shared") == "shared":  # products and exponentials add: show both
            split["compute"] += t["products"]
            split["exponentials"] += t["exponentials"]
        elif t["products"] >= t["exponentials"]:  # separate units: the larger is the phase's time
            split["compute"] += t["time"]
        else:
            split["exponentials"] += t["time"]
    square = heads * n * n * nbytes
    fresh_arrays = {"plain": 5, "naive": 1}.get(kind, 0) if square >= FRESH_FROM and not gpu else 0
    split["fresh memory"] = fresh_arrays * square / constants["fresh_rate"] if fresh_arrays else 0.0
    split["overhead"] = constants["call_cost"].get(impl, 0.0)
    if kind == "tiled":
        blocks = tiled_steps(n, heads, gpu)
        split["overhead"] += (blocks - 1) * CALLS_PER_BLOCK * constants["op_overhead"]
    total = sum(split.values())
    return {"impl": impl, "n": n, "time_s": total, "split": split, "regime": max(split, key=split.get)}


# --- phase by phase: one library call, one phase, one kind of traffic --------------------------

CALLS_PER_BLOCK_STEP = 5  # the small calls of one block in sweep.timed_steps: max, μ difference, its exp, ℓ's two
CALLS_PER_CHUNK = 5  # and of one chunk of queries: scale q, three new running arrays, the final divide


def step_phases(kind: str, n: int, d: int = 64, heads: int = 8, cache_bytes: int = 2 * 2**20) -> list[dict]:
    """The phases `sweep.timed_steps` times, each one library call (summed over blocks for tiled),
    with its kind of traffic (a key of `machine.traffic_rates`) and how much of it: FLOPs for
    products, bytes for passes, exponentials for exp, calls for the small updates. An array that
    fits in `cache_bytes` (one core's L2) is charged the cache's rate, a larger one memory's."""

    def one(name: str, traffic: str, amount: float) -> dict:
        return {"name": name, "traffic": traffic, "amount": amount}

    if kind == "naive":
        square = heads * n * n * 4
        where = "cache" if square <= cache_bytes else "memory"
        product = 2 * heads * n * n * d
        return [
            one("QKᵀ", "thin product", product),
            one("scale", f"in place ({where})", 2 * square),
            one("row max", f"read ({where})", square),
            one("shift", f"by row ({where})", 2 * square),
            one("exp", f"exp ({where})", heads * n * n),
            one("row sum", f"read ({where})", square),
            one("divide", f"by row ({where})", 2 * square),
            one("AV", "thin product", product),
        ]
    if kind != "tiled":
        raise ValueError(f"step_phases: kind must be 'naive' or 'tiled', not {kind!r}")
    q = b = 512
    chunks = heads * math.ceil(n / q)
    blocks = chunks * math.ceil(n / b)
    tile = q * b * 4
    where = "cache" if tile <= cache_bytes else "memory"
    return [
        one("QKᵀ blocks", "thin product", blocks * 2 * q * b * d),
        one("row max", f"read ({where})", blocks * tile),
        one("shift", f"by row ({where})", blocks * 2 * tile),
        one("exp", f"exp ({where})", blocks * q * b),
        one("row sum", f"read ({where})", blocks * tile),
        one("rescale Z", f"by row ({where})", blocks * 2 * q * d * 4),
        one("PV blocks", "thin product", blocks * 2 * q * b * d),
        one("add PV", f"in place ({where})", blocks * 3 * q * d * 4),
        one("updates", "call", blocks * CALLS_PER_BLOCK_STEP + chunks * CALLS_PER_CHUNK),
    ]


def step_time(ph: dict, rates: dict) -> float:
    """Seconds of one phase: its amount at its traffic's rate (calls times the cost of one call)."""
    rate = rates[ph["traffic"]]
    return ph["amount"] * rate if ph["traffic"] == "call" else ph["amount"] / rate


def steps_against_measured(kind: str, n: int, measured: dict, rates: dict, **shape) -> list[dict]:
    """For every phase: the model's seconds, the measured seconds (`measured`: name -> seconds) and
    measured / model; a last row "total" for the sum of the phases."""
    rows = []
    for ph in step_phases(kind, n, **shape):
        model = step_time(ph, rates)
        rows.append({**ph, "model_s": model, "measured_s": measured[ph["name"]], "ratio": measured[ph["name"]] / model})
    model, found = sum(r["model_s"] for r in rows), sum(r["measured_s"] for r in rows)
    rows.append(
        {"name": "total", "traffic": "", "amount": 0, "model_s": model, "measured_s": found, "ratio": found / model}
    )
    return rows


# --- generating one token: every weight and the whole K/V cache read once --------------------


def token_bytes(context: int, weight_bytes: int, layers: int, kv_heads: int, d_k: int, nbytes: int = 4) -> dict:
    """The bytes one generated token must read with a K/V cache of `context` tokens: every weight
    once, and every layer's cached keys and values once (kv_heads × context × d_k numbers each)."""
    return {"weights": weight_bytes, "cache": 2 * layers * kv_heads * context * d_k * nbytes}


def cache_crossover(weight_bytes: int, layers: int, kv_heads: int, d_k: int, nbytes: int = 4) -> float:
    """The context at which the cache's reads per token equal the weights': beyond it, the cache weighs more."""
    return weight_bytes / (2 * layers * kv_heads * d_k * nbytes)


# The H200 (SXM) as NVIDIA's data sheet gives it, plus what the sheet leaves out (marked): the
# constants of the same model, for predictions before any GPU run is stored.
H200_SHEET = {
    "peak": 989e12,  # bfloat16 dense tensor-core FLOP/s (the sheet's 1,979 assumes sparse matrices)
    "float32_peak": 67e12,  # float32 without tensor cores
    "bandwidth": {"memory": [None, 4.8e12]},  # HBM3e bytes per second
    "exp_rate": 3.9e12,  # exponentials per second of the special-function units (FlashAttention-3, H100 SXM)
    "units": "separate",  # tensor cores and exponential units work at the same time
    "op_overhead": 5e-6,  # assumed: a typical kernel launch from PyTorch, not on the sheet
    "call_cost": {"naive-torch": 8 * 5e-6, "tiled-torch": 6 * 5e-6, "sdpa-torch": 5e-6},  # launches × 5 µs
    "fresh_rate": math.inf,  # PyTorch's GPU allocator keeps its memory
}

# The H100 (SXM5, 80 GB): the H200's chip, so the same compute, with HBM3 at 3.35 TB/s instead of 4.8.
H100_SHEET = {**H200_SHEET, "bandwidth": {"memory": [None, 3.35e12]}}


def constants_of(ceilings: dict, library: str) -> dict:
    """One library's constants from a stored run's "ceilings"."""
    caches = ceilings["cache_bandwidth"][library]
    levels = {name: [c["bytes"], c["bytes_per_s"]] for name, c in caches.items()}
    levels["memory"] = [None, ceilings["bandwidth_bytes_per_s"][library]]
    return {
        "peak": ceilings["peak_flops"][library],
        "bandwidth": levels,
        "exp_rate": ceilings["exp_rate"][library],
        "fused_exp_rate": ceilings.get("sdpa_exp_rate", ceilings["exp_rate"][library]),
        "fresh_rate": ceilings["fresh_memory_bytes_per_s"][library],
        "op_overhead": ceilings["op_overhead_s"][library],
        "call_cost": ceilings["call_cost_s"],
    }


def predicted_against_measured(rows: list[dict], ceilings: dict) -> list[dict]:
    """For every measured row of a sweep: the model's time, the measured median and their ratio."""
    out = []
    for r in rows:
        if r.get("median_s") is None:
            continue
        library = r["impl"].split("-")[1]
        p = predict(r["impl"], r["n"], constants_of(ceilings, library), r["d"], r["heads"])
        out.append({**p, "measured_s": r["median_s"], "ratio": r["median_s"] / p["time_s"]})
    return out
