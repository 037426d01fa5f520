"""Checkers for chapter 15: timing attention on CPU and GPU."""
from __future__ import annotations

import math
from typing import Any

from . import Wrong, call, exercise, expect_number, to_numpy
from ..results import DATA_DIR, crossover_of, load_results, measured


def _one_number(answer: Any, what: str) -> float | None:
    """The answer as a float, or None when it is not one finite number (expect_number then says why)."""
    if isinstance(answer, bool):
        return None
    got = to_numpy(answer, what)
    if got.size != 1 or not math.isfinite(float(got.reshape(()))):
        return None
    return float(got.reshape(()))


def _slips(value: float | None, slips: dict[float, str]) -> None:
    if value is None:
        return
    for slip, hint in slips.items():
        if math.isclose(value, slip, rel_tol=1e-6):
            raise Wrong(hint)


# --- the FLOPs of one attention call ------------------------------------------------------

N, D, HEADS = 4096, 64, 8
FLOPS = HEADS * (2 * N**2 * D + 2 * N**2 * D)  # 34,359,738,368


@exercise("ch15.flops", right=[FLOPS, float(FLOPS), 3.4359738368e10],
          wrong=[FLOPS // HEADS, FLOPS // 2, FLOPS // 2 // HEADS, HEADS * 4 * N * D],
          catches="one head only, one product only or a multiply-add as 1 FLOP, both slips at once, growth like n",
          solution="answer = 8 * (2 * 4096**2 * 64 + 2 * 4096**2 * 64)")
def _flops(answer: Any) -> None:
    value = _one_number(answer, "your count")
    _slips(value, {
        FLOPS // HEADS: "That is the work of one head. There are 8 heads, each doing the same work.",
        FLOPS // 2: "That is half: it counts only QKᵀ or only AV, or a multiply-add as 1 FLOP. "
                    "Each multiply-add is 2 FLOPs, and both products cost 2·n²·64.",
        FLOPS // 2 // HEADS: "That is half the work of one head. Count both products, at 2 FLOPs per "
                             "multiply-add, and then all 8 heads.",
        HEADS * 4 * N * D: "That grows only like n. Every query meets every key: the count has n² in it.",
    })
    expect_number(answer, FLOPS, what="your count", rtol=1e-6,
                  hint="Per head: 2·n²·d_k for QKᵀ plus 2·n²·d_v for AV; then times the number of heads.")


# --- how the time grows ------------------------------------------------------------------

T_MS, FACTOR = 30.0, 2
T_2N_MS = T_MS * FACTOR**2  # 120 ms


@exercise("ch15.time_at_2n", right=[120, 120.0, 1.2e2],
          wrong=[60, 240, 30, 0.12],
          catches="growth like n (×2), like n³ (×8), no growth, the answer in seconds",
          solution="answer = 30 * (2000 / 1000) ** 2")
def _time_at_2n(answer: Any) -> None:
    value = _one_number(answer, "your time")
    _slips(value, {
        T_MS * FACTOR: "That doubles the time, as if the work grew like n. Attention's work grows like n²: "
                       "what does doubling n do to n²?",
        T_MS * FACTOR**3: "That is ×8, growth like n³. The n² part grows by 2² when n doubles.",
        T_MS: "The time does not stay the same: twice the words means more pairs of words to compare.",
        T_2N_MS / 1000: "That looks like seconds. Give the answer in milliseconds.",
    })
    expect_number(answer, T_2N_MS, what="your time", rtol=1e-3,
                  hint="Work ∝ n², so the time at 2n is the time at n times (2n)²/n².")


# --- the memory of A -----------------------------------------------------------------------

N_MEM, HEADS_MEM, BYTES_PER = 16_384, 32, 2  # bfloat16
A_BYTES = N_MEM**2 * HEADS_MEM * BYTES_PER    # 17,179,869,184 = 16 GiB


@exercise("ch15.memory_of_a", right=[A_BYTES, float(A_BYTES), 1.7179869184e10],
          wrong=[2 * A_BYTES, A_BYTES // HEADS_MEM, N_MEM * HEADS_MEM * BYTES_PER, A_BYTES // BYTES_PER],
          catches="float32's 4 bytes, one head only, growth like n, numbers instead of bytes",
          solution="answer = 16_384**2 * 32 * 2")
def _memory_of_a(answer: Any) -> None:
    value = _one_number(answer, "your count of bytes")
    _slips(value, {
        2 * A_BYTES: "That counts 4 bytes per number (float32). A bfloat16 number takes 2 bytes.",
        A_BYTES // HEADS_MEM: "That is the A of one head. Every one of the 32 heads has its own A.",
        N_MEM * HEADS_MEM * BYTES_PER: "That grows only like n. A has a row AND a column for every word: n·n numbers.",
        A_BYTES // BYTES_PER: "That counts numbers, not bytes. Each bfloat16 number takes 2 bytes.",
    })
    expect_number(answer, A_BYTES, what="your count of bytes", rtol=1e-6,
                  hint="A has n·n numbers per head; multiply by the heads and by 2 bytes per number.")


# --- a crossover in the stored results -----------------------------------------------------

OLD, NEW = "naive-numpy", "tiled-numpy"
STORED_FILE = "cpu_results.json"


def stored_rows() -> list[dict]:
    """The rows of the stored CPU run (chapters/data/cpu_results.json), read afresh."""
    runs = [r for r in load_results(DATA_DIR) if r["file"] == STORED_FILE]
    if not runs:
        raise Wrong(f"The stored results file {STORED_FILE} is missing from chapters/data.")
    return runs[0]["results"]


def stored_crossover() -> int | str:
    """The answer, computed from the committed file: an n, or "none" if tiled is not ahead at the largest n."""
    since = crossover_of(stored_rows(), OLD, NEW)
    return "none" if since is None else since


def _wrong_crossovers() -> list[Any]:
    right = stored_crossover()
    n_all = sorted(set(measured(stored_rows(), OLD)[0].tolist()))
    candidates = [n_all[-1] + 1 if isinstance(right, int) else n_all[-1],  # not a right n in any case
                  1000, 0.5, "tiled-numpy"]
    first_win = next((n for n in n_all if _faster_at(n)), None)
    if first_win is not None:
        candidates.insert(0, first_win)  # the first n where tiled wins, even if it loses again later
    return [c for c in candidates if c != right]


def _faster_at(n: int) -> bool:
    old = dict(zip(*[x.tolist() for x in measured(stored_rows(), OLD)]))
    new = dict(zip(*[x.tolist() for x in measured(stored_rows(), NEW)]))
    return n in old and n in new and new[n] < old[n]


def _or_empty(make: Any) -> list:
    """Examples read from the stored file; none (rather than a failed import) if the file is missing or broken."""
    try:
        return make()
    except (Wrong, OSError, ValueError, KeyError, TypeError):
        return []


def _right_crossovers() -> list[Any]:
    right = stored_crossover()
    if right == "none":
        return ["none", "None", " NONE "]
    import numpy as np
    return [right, float(right), np.int64(right)]


@exercise("ch15.crossover", right=_or_empty(_right_crossovers), wrong=_or_empty(_wrong_crossovers),
          catches="the first n where tiled wins although it loses again later, a size not stored, a time, a word",
          solution="answer = results.crossover(naive_n, naive_t, tiled_t)")
def _crossover(answer: Any) -> None:
    right = stored_crossover()
    rows = stored_rows()
    sizes = sorted(set(measured(rows, OLD)[0].tolist()))
    if isinstance(answer, str):
        word = answer.strip().strip("\"'").lower()
        if word == "none" and right == "none":
            return
        if word == "none":
            raise Wrong(f"At the largest stored n, {sizes[-1]}, compare the two times again: is the tiled "
                        "one smaller?")
        if right == "none":
            raise Wrong("Compare the two times at the largest stored n first. If tiled-numpy is not "
                        "faster there, the answer is \"none\".")
        raise Wrong("Give a size n from the table (a whole number), not a word.")
    value = _one_number(answer, "your n")
    if value is None:
        raise Wrong("Give one size n from the stored table, a whole number such as 512.")
    if right == "none":
        raise Wrong(f"The tiled version is not faster at the largest stored n, {sizes[-1]}, so it never stays "
                    "ahead: answer \"none\".")
    if value < 1 and not float(value).is_integer():
        raise Wrong("That looks like a time. The question asks for a size n from the table.")
    if not float(value).is_integer() or int(value) not in sizes:
        raise Wrong(f"The size {value:g} is not one of the stored sizes {sizes}. Read n off the table.")
    n = int(value)
    if n == right:
        return
    if n < right and _faster_at(n):
        raise Wrong(f"At n = {n} tiled-numpy is indeed faster, but at some larger n it falls behind "
                    "again. Find the n from which it stays ahead at every larger n.")
    if n < right:
        raise Wrong(f"At n = {n} tiled-numpy is slower than naive-numpy. Compare the two times row by row.")
    raise Wrong(f"The tiled version stays ahead from n = {n} on, but it is already ahead at a smaller n too, "
                "without falling behind later. Find the smallest such n.")


# --- the online softmax: one block's update --------------------------------------------------

# Hidden cases: (m, l, z, s, v). Built to catch: a z that is not rescaled, the rescale upside down
# (e^(m_new − m_old)), a new max that forgets the old one, exponentials not shifted by the new max
# (they overflow at scores near 1000), the old max returned, and a function that changes z in place.
_ROW = [  # the first block (m = -inf, nothing seen yet), a larger max, a smaller max, a tie, huge scores
    (-math.inf, 0.0, [0.0, 0.0], [2.0, 1.0], [[10.0, 1.0], [20.0, 2.0]]),
    (2.0, 1.3678794411714423, [17.357588823428847, 1.7357588823428847], [4.0, 0.0],
     [[30.0, 3.0], [40.0, 4.0]]),
    (3.0, 2.5, [1.0, -2.0, 0.5], [-1.0, 2.0, 0.5], [[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [3.0, 3.0, 3.0]]),
    (1.5, 0.7, [0.2], [1.5], [[4.0]]),
    (1000.0, 1.2, [3.0, 1.0], [1001.0, 999.0, 1003.0], [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]),
]


def _online_step_reference(m: float, l: float, z: list, s: list, v: list) -> tuple:
    """The update of the chapter, from the private cases only (never from what the learner's function got)."""
    m_new = max(m, max(s))
    c = math.exp(m - m_new) if m != -math.inf else 0.0
    p = [math.exp(x - m_new) for x in s]
    l_new = c * l + sum(p)
    z_new = [c * z[j] + sum(p[i] * v[i][j] for i in range(len(s))) for j in range(len(z))]
    return m_new, l_new, z_new


_EXPECTED = [_online_step_reference(*case) for case in _ROW]


def _right_numpy(m, l, z, s, v):
    import numpy as np
    m_new = max(m, float(np.max(s)))
    c = np.exp(m - m_new)
    p = np.exp(np.asarray(s) - m_new)
    return m_new, c * l + p.sum(), c * np.asarray(z) + p @ np.asarray(v)


def _right_math(m, l, z, s, v):
    m_new = max([m] + list(s))
    c = math.exp(m - m_new)
    p = [math.exp(x - m_new) for x in s]
    return [m_new, c * l + sum(p), [c * zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]]


def _right_torch(m, l, z, s, v):
    import torch
    s, z, v = torch.tensor(s, dtype=torch.float64), torch.tensor(z, dtype=torch.float64), torch.tensor(v, dtype=torch.float64)
    m_new = torch.maximum(torch.tensor(m, dtype=torch.float64), s.max())
    c = torch.exp(m - m_new)
    p = torch.exp(s - m_new)
    return m_new, c * l + p.sum(), c * z + p @ v


def _wrong_no_rescale_of_z(m, l, z, s, v):
    m_new, l_new, _ = _right_math(m, l, z, s, v)
    p = [math.exp(x - m_new) for x in s]
    return m_new, l_new, [zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]


def _wrong_upside_down(m, l, z, s, v):
    m_new = max([m] + list(s))
    c = math.exp(m_new - m) if m != -math.inf else 0.0
    p = [math.exp(x - m_new) for x in s]
    return m_new, c * l + sum(p), [c * zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]


def _wrong_forgets_old_max(m, l, z, s, v):
    m_new = max(s)
    c = math.exp(m - m_new) if m != -math.inf else 0.0
    p = [math.exp(x - m_new) for x in s]
    return m_new, c * l + sum(p), [c * zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]


def _wrong_not_shifted(m, l, z, s, v):
    m_new = max([m] + list(s))
    c = math.exp(m - m_new)
    p = [math.exp(x) for x in s]
    return m_new, c * l + sum(p), [c * zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]


def _wrong_returns_old_max(m, l, z, s, v):
    _, l_new, z_new = _right_math(m, l, z, s, v)
    return m, l_new, z_new


def _wrong_changes_z_in_place(m, l, z, s, v):
    m_new, l_new, z_new = _right_math(m, l, z, s, v)
    z[:] = [0.0] * len(z)
    return m_new, l_new, z_new


@exercise("ch15.online_step", right=[_right_numpy, _right_math, _right_torch],
          wrong=[_wrong_no_rescale_of_z, _wrong_upside_down, _wrong_forgets_old_max, _wrong_not_shifted,
                 _wrong_returns_old_max, _wrong_changes_z_in_place],
          catches="z not rescaled, the rescale upside down, a new max that forgets the old one, exponentials not "
                  "shifted by the new max (overflow near 1000), the old max returned, z changed in place",
          solution="c = np.exp(m - m_new)")
def _online_step(answer: Any) -> None:
    import copy
    for case, (m_want, l_want, z_want) in zip(_ROW, _EXPECTED):
        given = copy.deepcopy(case)
        got = call(answer, *given, what="your function online_step")
        if list(given) != list(case):
            raise Wrong("Your function changed one of its inputs in place (the running z, perhaps). "
                        "Build the new values and return them; leave m, ℓ, z and the block as they were.")
        if not isinstance(got, (tuple, list)) or len(got) != 3:
            raise Wrong("Return three things, in this order: the new running max, the new running sum ℓ "
                        "and the new running z.")
        if all(x is None for x in got):
            raise Wrong("All three values online_step returns are still None: replace each None with the update of the section "
                        "'The online softmax, step by step'.")
        first = case[0] == -math.inf
        old_max = _floats(got[0], finite=False)
        if old_max is not None and old_max.size == 1 and float(old_max.reshape(())) == case[0] != m_want:
            raise Wrong("The running max must move up when the block brings a larger score: return "
                        "the new max, not the old one.")
        m_got, l_got, z_got = (_floats(x) for x in got)
        if m_got is None or l_got is None or z_got is None:
            raise Wrong("The three things you return should be numbers (m and ℓ) and a list or array of "
                        "numbers (z), with no NaN or infinity in them. Were the exponentials shifted by "
                        "the new max before exp (section 'The online softmax, step by step')?")
        if m_got.size != 1 or l_got.size != 1:
            raise Wrong("The new max m and the new sum ℓ are one number each for the query row.")
        if z_got.size != len(z_want):
            raise Wrong(f"The new z should have one entry per column of the values ({len(z_want)}), "
                        f"not {z_got.size}.")
        m_got, l_got = float(m_got.reshape(())), float(l_got.reshape(()))
        if not math.isclose(m_got, m_want, rel_tol=1e-9):
            raise Wrong("The new running max is the larger of the old max and the block's largest score.")
        if not math.isclose(l_got, l_want, rel_tol=1e-9):
            if not first and l_got > l_want * 1.5:
                raise Wrong("The running sum ℓ came out too large. Which way does the rescale go? The old sum "
                            "was computed with the old, smaller max; bringing it to the new max shrinks it.")
            raise Wrong("The new running sum ℓ is not right: rescale the old ℓ to the new max, then add the "
                        "block's exponentials, each shifted by the new max.")
        if not all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(z_got.ravel(), z_want)):
            raise Wrong("The sum ℓ is right, but z is not: the old z was summed with the old max, so it needs the "
                        "same rescale as ℓ before the block's weighted values are added.")


def _floats(x: Any, finite: bool = True) -> Any:
    """x as a float numpy array, or None when it is not numbers (or, with finite=True, not finite ones)."""
    import numpy as np
    try:
        arr = to_numpy(x, "a returned value")
    except Wrong:
        return None
    if not arr.size or (finite and not np.all(np.isfinite(arr))):
        return None
    return arr
