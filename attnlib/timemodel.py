"""A time model of attention: what each kernel should take, from its counts and the machine's
measured constants (the counting and timing and cpu vs gpu chapters).

A kernel runs as a list of **phases**, one library call each (a matrix product, one pass over the
scores, ...). On a CPU every phase is a few **terms**, each an amount of one kind of traffic at the
rate `machine.traffic_rates` measured for that kind: FLOPs of a product, bytes of a pass in place
or into a new array, bytes read by a reduction, exponentials, pages of fresh memory, and the fixed
cost of each call. On one core nothing overlaps: the terms of a phase add, and the phases add.

A GPU is modelled from its data sheet (`H200_SHEET`): there a phase takes the larger of its
arithmetic and its memory traffic (a roof), and with `units="separate"` its exponentials run
beside its products.

Everything here is arithmetic on the constants: nothing is measured in this module.
"""

from __future__ import annotations

import math

FRESH_FROM = 32 * 2**20  # glibc hands arrays this large straight back to the system: each is fresh memory
KINDS = {"plain": "plain", "naive": "naive", "tiled": "tiled", "sdpa": "fused"}
CALLS_PER_BLOCK = 5  # the small calls of one block of tiled_attention: new max, μ difference, its exp, ℓ's two
CALLS_PER_CHUNK = 5  # and of one chunk of queries: scale q, three new running arrays, the final divide
QUERIES = KEYS = 512  # tiled_attention's chunk of queries and block of keys on a CPU
TERMS = {  # which part of a split each kind of traffic belongs to
    "thin product": "products",
    "square product": "products",
    "exp": "exponentials",
    "fused exp": "exponentials",
    "fresh": "fresh memory",
    "call": "calls",
}


def step_phases(kind: str, n: int, d: int = 64, heads: int = 8, cache_bytes: int = 2 * 2**20) -> list[dict]:
    """The phases of a kernel on a CPU, one library call each (a tiled phase summed over its blocks),
    as `sweep.timed_steps` times them: {"name", "terms": {traffic: amount}, "calls"}. A traffic is a
    key of `machine.traffic_rates`; an array that fits in `cache_bytes` (one core's L2) is charged the
    cache's rate, a larger one memory's. Kinds: 'plain' (attnlib.attention: every step a new array),
    'naive' (in_place.naive_attention: one new array, then in place), 'tiled', 'fused' (SDPA)."""
    if kind == "tiled":
        return _tiled_steps(n, d, heads, cache_bytes)
    product = 2 * heads * n * n * d
    if kind == "fused":
        return [_phase("fused", 1, {"square product": 2 * product, "fused exp": heads * n * n})]
    if kind not in ("plain", "naive"):
        raise ValueError(f"step_phases: kind must be 'plain', 'naive', 'tiled' or 'fused', not {kind!r}")
    square = heads * n * n * 4  # one float32 n×n array of every head
    at = "cache" if square <= cache_bytes else "memory"
    fresh = {"fresh": square} if square >= FRESH_FROM else {}
    new = fresh if kind == "plain" else {}  # plain makes every step's array anew
    out_of_place = "copy below" if kind == "plain" else f"in place ({at})"
    return [
        _phase("QKᵀ", 1, {"thin product": product, f"in place ({at})": 2 * square, **fresh}),  # and writes S
        _phase("scale", 1, {out_of_place: 2 * square, **new}),
        _phase("row max", 1, {f"read ({at})": square}),
        _phase("shift", 1, {f"by row ({at})": 2 * square, **new}),
        _phase("exp", 1, {f"exp ({at})": heads * n * n, **new}),
        _phase("row sum", 1, {f"read ({at})": square}),
        _phase("divide", 1, {f"by row ({at})": 2 * square, **new}),
        _phase("AV", 1, {"thin product": product}),
    ]


def _phase(name: str, calls: int, terms: dict) -> dict:
    return {"name": name, "calls": calls, "terms": terms}


def _tiled_steps(n: int, d: int, heads: int, cache_bytes: int) -> list[dict]:
    """tiled_attention on a CPU: every head alone, chunks of 512 queries, blocks of 512 keys. A block's
    passes run in the cache only if all that one block step holds fits there: its scores, and the
    chunk's queries, the block's keys and values, Z and the block's PV (each 512 × d numbers)."""
    chunks = heads * math.ceil(n / QUERIES)
    blocks = chunks * math.ceil(n / KEYS)
    q, b = min(n, QUERIES), min(n, KEYS)
    tile, z = q * b * 4, q * d * 4  # a block of scores, and the chunk's Z
    at = "cache" if tile + 5 * z <= cache_bytes else "memory"
    product = blocks * 2 * q * b * d
    return [
        _phase("QKᵀ blocks", blocks, {"thin product": product}),
        _phase("row max", blocks, {f"read ({at})": blocks * tile}),
        _phase("shift", blocks, {f"by row ({at})": blocks * 2 * tile}),
        _phase("exp", blocks, {f"exp ({at})": blocks * q * b}),
        _phase("row sum", blocks, {f"read ({at})": blocks * tile}),
        _phase("rescale Z", blocks, {f"by row ({at})": blocks * 2 * z}),
        _phase("PV blocks", blocks, {"thin product": product}),
        _phase("add PV", blocks, {f"in place ({at})": blocks * 3 * z}),
        _phase("updates", blocks * CALLS_PER_BLOCK + chunks * CALLS_PER_CHUNK, {}),
    ]


def step_terms(ph: dict, rates: dict) -> dict:
    """The seconds of each term of one phase: its calls at the cost of one call, every other amount
    at its traffic's rate (a traffic "exp (memory)" is rate rates["exp (memory)"])."""
    seconds = {"call": ph["calls"] * rates["call"]}
    for traffic, amount in ph["terms"].items():
        seconds[traffic] = seconds.get(traffic, 0.0) + amount / rates[traffic]
    return seconds


def step_time(ph: dict, rates: dict) -> float:
    """Seconds of one phase on a CPU: its terms add."""
    return sum(step_terms(ph, rates).values())


def split_of(traffic: str) -> str:
    """The part of a split a traffic belongs to: products, exponentials, passes, fresh memory or calls."""
    return TERMS.get(traffic.split(" (")[0], "passes")


def steps_against_measured(kind: str, n: int, measured: dict, rates: dict, **shape) -> list[dict]:
    """For every phase: the model's seconds, the measured seconds (`measured`: name -> seconds) and
    measured / model; a last row "total" for the sum of the phases."""
    rows = []
    for ph in step_phases(kind, n, **shape):
        model = step_time(ph, rates)
        rows.append({**ph, "model_s": model, "measured_s": measured[ph["name"]], "ratio": measured[ph["name"]] / model})
    model, found = sum(r["model_s"] for r in rows), sum(r["measured_s"] for r in rows)
    rows.append({"name": "total", "model_s": model, "measured_s": found, "ratio": found / model})
    return rows


def predict(impl: str, n: int, constants: dict, d: int = 64, heads: int = 8, nbytes: int = 4) -> dict:
    """The model's time for one implementation ('naive-numpy', 'tiled-torch', 'sdpa-torch', ...) at n.

    `constants` are one library's measured rates on a CPU (see `cpu_constants`; float32, so `nbytes`
    is ignored there), or a GPU's data sheet (see `H200_SHEET`). Returns the seconds and how they
    split: on a CPU every term of every phase, summed by part ("products", "exponentials", "passes",
    "fresh memory", "calls") plus the kernel's fixed cost ("overhead", its time at n = 1); "regime"
    names the largest part.
    """
    kind = KINDS[impl.split("-")[0]]
    if "bandwidth" in constants:
        return _on_sheet(impl, kind, n, constants, d, heads, nbytes)
    split = dict.fromkeys(("products", "exponentials", "passes", "fresh memory", "calls"), 0.0)
    for ph in step_phases(kind, n, d, heads, constants.get("cache_bytes", 2 * 2**20)):
        for traffic, seconds in step_terms(ph, constants).items():
            split[split_of(traffic)] += seconds
    split["overhead"] = constants.get("kernel call", {}).get(impl, 0.0)
    total = sum(split.values())
    return {"impl": impl, "n": n, "time_s": total, "split": split, "regime": max(split, key=split.get)}


def cpu_constants(phase_run: dict, library: str) -> dict:
    """One library's constants from a stored phase run: its traffic rates, its L2's size, and each
    kernel's fixed cost (its time at n = 1)."""
    return {
        **phase_run["rates"][library]["rates"],
        "cache_bytes": phase_run["caches"]["L2"],
        "kernel call": phase_run["kernel_call_s"],
    }


def predicted_against_measured(rows: list[dict], phase_run: dict) -> list[dict]:
    """For every measured row of a sweep: the model's time, the measured median and their ratio."""
    out = []
    for r in rows:
        if r.get("median_s") is None:
            continue
        constants = cpu_constants(phase_run, r["impl"].split("-")[1])
        p = predict(r["impl"], r["n"], constants, r["d"], r["heads"])
        out.append({**p, "measured_s": r["median_s"], "ratio": r["median_s"] / p["time_s"]})
    return out


# --- a GPU from its data sheet: every phase a roof ---------------------------------------------

LAUNCHES_PER_BLOCK = 13  # the library calls of tiled_attention for one block of keys, each a GPU launch


def sheet_phases(kind: str, n: int, d: int, heads: int, nbytes: int) -> list[dict]:
    """The phases of a kernel on a GPU, each {"flops", "exps", "bytes"}: the naive kernel by the byte
    count of counting.attention_bytes (QKᵀ writes the n×n scores, six passes read or write them 10
    times, AV reads A once more); tiled_attention with every head and query at once, its blocks of
    512 keys in float32 (a block's scores too large for any cache); a fused kernel reading Q, K, V
    and writing Z once."""
    rows, product = heads * n * d * nbytes, 2 * heads * n * n * d

    def one(flops: float = 0, exps: float = 0, nbytes: float = 0) -> dict:
        return {"flops": flops, "exps": exps, "bytes": nbytes}

    if kind in ("plain", "naive"):
        square = heads * n * n * nbytes
        passes = [
            one(nbytes=k * square, exps=e * heads * n * n) for k, e in ((2, 0), (1, 0), (2, 0), (2, 1), (1, 0), (2, 0))
        ]
        return [one(product, nbytes=2 * rows + square), *passes, one(product, nbytes=square + 2 * rows)]
    if kind == "tiled":
        b = min(KEYS, n)
        blocks, tile, kv = math.ceil(n / b), heads * n * b * 4, heads * 2 * b * d * 4
        block_passes = [
            one(nbytes=blocks * k * tile, exps=e * heads * n * n) for k, e in ((1, 0), (2, 0), (2, 1), (1, 0))
        ]
        return [
            one(product, nbytes=blocks * (tile + kv / 2)),
            *block_passes,
            one(product, nbytes=blocks * (tile + kv / 2)),
        ]
    return [one(2 * product, heads * n * n, 4 * rows)]


def _on_sheet(impl: str, kind: str, n: int, sheet: dict, d: int, heads: int, nbytes: int) -> dict:
    """predict on a data sheet: a phase takes the larger of its arithmetic and its bytes; its products
    and exponentials add (`units="shared"`) or overlap ("separate"). Split into "compute",
    "exponentials", "bandwidth" (phases bound by their bytes) and "overhead" (launches)."""
    separate = sheet.get("units") == "separate"
    peak = sheet["float32_peak"] if kind == "tiled" else sheet["peak"]  # tiled_attention computes in float32
    split = dict.fromkeys(("compute", "exponentials", "bandwidth", "overhead"), 0.0)
    for ph in sheet_phases(kind, n, d, heads, nbytes):
        products, exps, memory = ph["flops"] / peak, ph["exps"] / sheet["exp_rate"], ph["bytes"] / sheet["bandwidth"]
        compute = max(products, exps) if separate else products + exps
        if memory > 0 and memory >= compute:
            split["bandwidth"] += memory
        elif not separate:  # products and exponentials take turns: show both
            split["compute"] += products
            split["exponentials"] += exps
        else:
            split["compute" if products >= exps else "exponentials"] += compute
    split["overhead"] = sheet["call_cost"].get(impl, 0.0)
    if kind == "tiled":
        split["overhead"] += (math.ceil(n / KEYS) - 1) * LAUNCHES_PER_BLOCK * sheet["op_overhead"]
    total = sum(split.values())
    return {"impl": impl, "n": n, "time_s": total, "split": split, "regime": max(split, key=split.get)}


# The H200 (SXM) as NVIDIA's data sheet gives it, plus what the sheet leaves out (marked): the
# constants of the same model, for predictions before any GPU run is stored.
H200_SHEET = {
    "peak": 989e12,  # bfloat16 dense tensor-core FLOP/s (the sheet's 1,979 assumes sparse matrices)
    "float32_peak": 67e12,  # float32 without tensor cores
    "bandwidth": 4.8e12,  # HBM3e bytes per second
    "exp_rate": 3.9e12,  # exponentials per second of the special-function units (FlashAttention-3, H100 SXM)
    "units": "separate",  # tensor cores and exponential units work at the same time
    "op_overhead": 5e-6,  # assumed: a typical kernel launch from PyTorch, not on the sheet
    "call_cost": {"naive-torch": 8 * 5e-6, "tiled-torch": 6 * 5e-6, "sdpa-torch": 5e-6},  # launches × 5 µs
}

# The H100 (SXM5, 80 GB): the H200's chip, so the same compute, with HBM3 at 3.35 TB/s instead of 4.8.
H100_SHEET = {**H200_SHEET, "bandwidth": 3.35e12}


# --- generating one token: every weight and the whole K/V cache read once --------------------


def token_bytes(context: int, weight_bytes: int, layers: int, kv_heads: int, d_k: int, nbytes: int = 4) -> dict:
    """The bytes one generated token must read with a K/V cache of `context` tokens: every weight
    once, and every layer's cached keys and values once (kv_heads × context × d_k numbers each)."""
    return {"weights": weight_bytes, "cache": 2 * layers * kv_heads * context * d_k * nbytes}


def cache_crossover(weight_bytes: int, layers: int, kv_heads: int, d_k: int, nbytes: int = 4) -> float:
    """The context at which the cache's reads per token equal the weights': beyond it, the cache weighs more."""
    return weight_bytes / (2 * layers * kv_heads * d_k * nbytes)
