"""Checkers for chapter 11: timing attention on CPU and GPU."""
from __future__ import annotations

import math
from typing import Any

from . import Wrong, exercise, expect_number, to_numpy
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


@exercise("ch11.flops", right=[FLOPS, float(FLOPS), 3.4359738368e10],
          wrong=[FLOPS // HEADS, FLOPS // 2, FLOPS // 2 // HEADS, HEADS * 4 * N * D])
def _flops(answer: Any) -> None:
    value = _one_number(answer, "your count")
    _slips(value, {
        FLOPS // HEADS: "that is the work of one head. There are 8 heads, each doing the same work.",
        FLOPS // 2: "that is half: it counts only QKᵀ or only AV, or a multiply-add as 1 FLOP. "
                    "Each multiply-add is 2 FLOPs, and both products cost 2·n²·64.",
        FLOPS // 2 // HEADS: "that is half the work of one head. Count both products, at 2 FLOPs per "
                             "multiply-add, and then all 8 heads.",
        HEADS * 4 * N * D: "that grows only like n. Every query meets every key: the count has n² in it.",
    })
    expect_number(answer, FLOPS, what="your count", rtol=1e-6,
                  hint="Per head: 2·n²·d_k for QKᵀ plus 2·n²·d_v for AV; then times the number of heads.")


# --- how the time grows ------------------------------------------------------------------

T_MS, FACTOR = 30.0, 2
T_2N_MS = T_MS * FACTOR**2  # 120 ms


@exercise("ch11.time_at_2n", right=[120, 120.0, 1.2e2],
          wrong=[60, 240, 30, 0.12])
def _time_at_2n(answer: Any) -> None:
    value = _one_number(answer, "your time")
    _slips(value, {
        T_MS * FACTOR: "that doubles the time, as if the work grew like n. Attention's work grows like n²: "
                       "what does doubling n do to n²?",
        T_MS * FACTOR**3: "that is ×8, growth like n³. The n² part grows by 2² when n doubles.",
        T_MS: "the time does not stay the same: twice the words means more pairs of words to compare.",
        T_2N_MS / 1000: "that looks like seconds. Give the answer in milliseconds.",
    })
    expect_number(answer, T_2N_MS, what="your time", rtol=1e-3,
                  hint="Work ∝ n², so the time at 2n is the time at n times (2n)²/n².")


# --- the memory of A -----------------------------------------------------------------------

N_MEM, HEADS_MEM, BYTES_PER = 16_384, 32, 2  # bfloat16
A_BYTES = N_MEM**2 * HEADS_MEM * BYTES_PER    # 17,179,869,184 = 16 GiB


@exercise("ch11.memory_of_a", right=[A_BYTES, float(A_BYTES), 1.7179869184e10],
          wrong=[2 * A_BYTES, A_BYTES // HEADS_MEM, N_MEM * HEADS_MEM * BYTES_PER, A_BYTES // BYTES_PER])
def _memory_of_a(answer: Any) -> None:
    value = _one_number(answer, "your count of bytes")
    _slips(value, {
        2 * A_BYTES: "that counts 4 bytes per number (float32). A bfloat16 number takes 2 bytes.",
        A_BYTES // HEADS_MEM: "that is the A of one head. Every one of the 32 heads has its own A.",
        N_MEM * HEADS_MEM * BYTES_PER: "that grows only like n. A has a row AND a column for every word: n·n numbers.",
        A_BYTES // BYTES_PER: "that counts numbers, not bytes. Each bfloat16 number takes 2 bytes.",
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
        raise Wrong(f"the stored results file {STORED_FILE} is missing from chapters/data.")
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


@exercise("ch11.crossover", right=_or_empty(lambda: [stored_crossover()]), wrong=_or_empty(_wrong_crossovers))
def _crossover(answer: Any) -> None:
    right = stored_crossover()
    rows = stored_rows()
    sizes = sorted(set(measured(rows, OLD)[0].tolist()))
    if isinstance(answer, str):
        word = answer.strip().strip("\"'").lower()
        if word == "none" and right == "none":
            return
        if word == "none":
            raise Wrong(f"at the largest stored n, {sizes[-1]}, compare the two times again: is the tiled "
                        "one smaller?")
        if right == "none":
            raise Wrong("compare the two times at the largest stored n first. If tiled-numpy is not "
                        "faster there, the answer is \"none\".")
        raise Wrong("give a size n from the table (a whole number), not a word.")
    value = _one_number(answer, "your n")
    if value is None:
        raise Wrong("give one size n from the stored table, a whole number such as 512.")
    if right == "none":
        raise Wrong(f"tiled-numpy is not faster at the largest stored n, {sizes[-1]}, so it never stays "
                    "ahead: answer \"none\".")
    if value < 1 and not float(value).is_integer():
        raise Wrong("that looks like a time. The question asks for a size n from the table.")
    if not float(value).is_integer() or int(value) not in sizes:
        raise Wrong(f"{value:g} is not one of the stored sizes {sizes}. Read n off the table.")
    n = int(value)
    if n == right:
        return
    if n < right and _faster_at(n):
        raise Wrong(f"at n = {n} tiled-numpy is indeed faster, but at some larger n it falls behind "
                    "again. Find the n from which it stays ahead at every larger n.")
    if n < right:
        raise Wrong(f"at n = {n} tiled-numpy is slower than naive-numpy. Compare the two times row by row.")
    raise Wrong(f"tiled-numpy stays ahead from n = {n} on, but it is already ahead at a smaller n too, "
                "without falling behind later. Find the smallest such n.")
