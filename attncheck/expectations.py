"""Comparing an answer with the expected one: its structure first, then its values.

Before any entry is compared, the arrangement of the right numbers is recognised and named: an
axis of length 1 too many or too few, the axes in another order, rows and columns swapped, the
numbers sorted, reversed or permuted, the opposite sign, a common factor. Then rounding, then the
first wrong entry, with how far off it is and in which direction, never the right value.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from .answers import normal_word, to_count, to_number, to_numpy, to_shape
from .hints import Wrong, describe, fmt, is_array, position_words, sentence_start, shape_words, show

# --- rounding -----------------------------------------------------------------------


def rounding_hint(answer: Any, expected: Any, atol: float = 1e-6, rtol: float = 1e-5) -> str:
    """A hint when `answer` is `expected` rounded (or cut) to fewer decimals than it needs, else ''."""
    try:
        got = to_numpy(answer)
        want = np.asarray(expected, dtype=np.float64)
    except Wrong:
        return ""
    if (
        got.shape != want.shape
        or got.size == 0
        or not np.all(np.isfinite(got))
        or np.allclose(got, want, atol=atol, rtol=rtol)
    ):
        return ""
    need = next((k for k in range(13) if np.allclose(np.round(want, k), want, atol=atol, rtol=rtol)), None)
    have = _decimals(got)
    if need is not None and have is not None and have < need:
        scale = 10.0**have
        cut = np.trunc(want * scale) / scale
        if np.all(np.isclose(got, np.round(want, have), rtol=0, atol=1e-9) | np.isclose(got, cut, rtol=0, atol=1e-9)):
            places = "whole numbers" if have == 0 else f"{have} decimal{'s' if have > 1 else ''}"
            return (
                f"Your numbers look rounded to {places}, which is too coarse here. Keep at least "
                f"{need} decimal{'s' if need != 1 else ''}, or give the unrounded result of the computation."
            )
    sig = _significant(got)
    if sig is not None and sig >= 2 and np.all(want != 0):
        need_sig = next((s for s in range(1, 16) if np.allclose(_round_sig(want, s), want, atol=atol, rtol=rtol)), None)
        if need_sig is not None and sig < need_sig and np.allclose(got, _round_sig(want, sig), rtol=1e-12, atol=0):
            return (
                f"Your number looks rounded to {sig} significant digits, which is too coarse here. "
                "Give it exactly, or with more digits."
            )
    return ""


def _decimals(values: np.ndarray) -> int | None:
    """The fewest decimals that write every value exactly (None when it takes more than 8)."""
    return next((d for d in range(9) if np.allclose(values, np.round(values, d), rtol=0, atol=1e-9)), None)


def _round_sig(values: np.ndarray, digits: int) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log10(np.abs(np.where(values == 0, 1, values))))
    scale = 10.0 ** (digits - 1 - exponent)
    return np.round(values * scale) / scale


def _significant(values: np.ndarray) -> int | None:
    if np.any(values == 0):
        return None
    return next((s for s in range(1, 16) if np.allclose(values, _round_sig(values, s), rtol=1e-12, atol=0)), None)


# --- expectations ---------------------------------------------------------------------


def expect_array(
    answer: Any,
    expected: Any,
    what: str = "your answer",
    atol: float = 1e-6,
    rtol: float = 1e-5,
    factors: dict[str, float] | None = None,
) -> None:
    """Raise Wrong unless `answer` equals `expected`: structure first (axes, order, sign, a common
    factor, named in `factors` such as {"the number of heads": 8}), then rounding, then values."""
    expected = np.asarray(expected, dtype=float)
    got = to_numpy(answer, what)
    name = sentence_start(what)
    if got.shape == expected.shape and np.all(np.isfinite(got)) and np.allclose(got, expected, atol=atol, rtol=rtol):
        return
    if got.size == expected.size and got.size > 1 and np.all(np.isfinite(got)):
        structure = structure_hint(got, expected, name, atol=atol, rtol=rtol, factors=factors)
        if structure:
            raise Wrong(structure)
    if got.shape != expected.shape:
        raise Wrong(
            f"{name} has shape {got.shape}, but it should have shape {expected.shape}, {shape_words(expected.shape)}."
        )
    if not np.all(np.isfinite(got)):
        first = tuple(int(i) for i in np.argwhere(~np.isfinite(got))[0])
        where = f" at {position_words(first)}" if first else ""
        raise Wrong(f"{name} contains inf or nan{where}: something overflowed or divided by zero.")
    if _cut_to_whole(answer, got, expected):
        raise Wrong(
            f"{name} holds whole numbers ({describe(answer)}): the decimals were cut off when it was "
            "made. Build it from floats (dtype=float) so that every number keeps its decimals."
        )
    rounded = rounding_hint(got, expected, atol=atol, rtol=rtol)
    if rounded:
        raise Wrong(rounded if got.size > 1 else rounded.replace("Your numbers look", "Your number looks"))
    bad = np.argwhere(~np.isclose(got, expected, atol=atol, rtol=rtol))
    if got.ndim:
        first = tuple(int(i) for i in bad[0])
        raise Wrong(
            f"The shape is right, but {len(bad)} of {got.size} values differ. The first wrong one is "
            f"{position_words(first)}, where you have {fmt(got[first], expected[first])}, "
            f"{_how_far(float(got[first]), float(expected[first]))}. Recompute that entry carefully."
        )
    raise Wrong(f"{name} is {fmt(got, expected)}, {_how_far(float(got), float(expected))}. Recompute it carefully.")


def expect_structure(
    answer: Any,
    expected: Any,
    what: str = "your answer",
    atol: float = 1e-6,
    rtol: float = 1e-5,
    factors: dict[str, float] | None = None,
    values: bool = False,
) -> None:
    """Raise Wrong when `answer` holds the expected numbers in another arrangement (see `structure_hint`).

    A grader calls it before checking shapes; with values=True (after its own exercise-specific
    slips) it also names the right numbers in another order, the opposite sign or a common factor.
    `expect_array` does all of it before comparing values."""
    expected = np.asarray(expected, dtype=float)
    got = to_numpy(answer, what)
    if got.size != expected.size or got.size < 2 or not np.all(np.isfinite(got)):
        return
    if got.shape == expected.shape and (not values or np.allclose(got, expected, atol=atol, rtol=rtol)):
        return
    hint = structure_hint(got, expected, sentence_start(what), atol=atol, rtol=rtol, factors=factors)
    if hint:
        raise Wrong(hint)


def structure_hint(
    got: np.ndarray,
    expected: np.ndarray,
    name: str = "Your answer",
    atol: float = 1e-6,
    rtol: float = 1e-5,
    factors: dict[str, float] | None = None,
) -> str:
    """What is wrong with the arrangement of the right numbers, in words, or '' when it is not that.

    Tried in order: an axis of length 1 too many or too few, rows and columns swapped, the axes in
    another order, the numbers poured into another shape, then (same shape) the right numbers in
    another order, the opposite sign, and every number off by the same factor."""

    def same(a: np.ndarray, b: np.ndarray) -> bool:
        return a.shape == b.shape and bool(np.allclose(a, b, atol=atol, rtol=rtol))

    if got.shape != expected.shape:
        return _arrangement_hint(got, expected, name, same) if got.size == expected.size else ""
    if got.ndim == 2 and got.shape[0] == got.shape[1] and same(got.T, expected):
        return f"{name} is the right grid transposed: are rows and columns swapped?"
    flat, want = got.reshape(-1), expected.reshape(-1)
    if same(np.sort(flat), np.sort(want)):
        return _order_hint(got, expected, name, same)
    if np.any(np.abs(want) > atol) and same(-got, expected):
        return f"{name} has the right sizes but the opposite sign: every number should have the other sign."
    factor = _common_factor(flat, want, atol=atol, rtol=rtol)
    if factor is not None:
        return _factor_words(name, factor, factors, several=got.size > 1)
    return ""


def _arrangement_hint(got: np.ndarray, expected: np.ndarray, name: str, same) -> str:
    """The right count of numbers in the wrong shape: which arrangement it is, or ''."""
    if same(np.squeeze(got), np.squeeze(expected)):
        more, fewer = got.ndim > expected.ndim, got.ndim < expected.ndim
        kind = (
            "an extra axis of length 1"
            if more
            else "an axis of length 1 missing"
            if fewer
            else "its axes of length 1 in other places"
        )
        return (
            f"{name} holds the right numbers, but with {kind}: its shape is {got.shape}, and it should "
            f"be {expected.shape}, {shape_words(expected.shape)}."
        )
    if got.ndim == expected.ndim == 2 and same(got.T, expected):
        return (
            f"{name} has shape {got.shape}, but it should have shape {expected.shape}. It holds the right "
            "numbers with rows and columns swapped."
        )
    if got.ndim == expected.ndim and 2 < got.ndim <= 5:
        for order in itertools.permutations(range(got.ndim)):
            if same(got.transpose(order), expected):
                return (
                    f"{name} holds the right numbers with its axes in another order: its shape is "
                    f"{got.shape}, and it should be {expected.shape}. Check which axis each size belongs to."
                )
    if same(got.reshape(expected.shape), expected):
        return (
            f"{name} holds the right numbers, but arranged in shape {got.shape}; it should have shape "
            f"{expected.shape}, {shape_words(expected.shape)}."
        )
    return ""


def _order_hint(got: np.ndarray, expected: np.ndarray, name: str, same) -> str:
    """The right numbers in the right shape but another order: which order it is."""
    flat, want = got.reshape(-1), expected.reshape(-1)
    if got.size == 2:
        return f"{name} holds the right two numbers in the other order."
    if same(flat[::-1], want) or (got.ndim >= 1 and same(got[::-1], expected)):
        return f"{name} holds the right numbers in reverse order."
    if same(flat, np.sort(want)) or same(flat, np.sort(want)[::-1]):
        return (
            f"{name} holds the right numbers, but sorted by size. They belong in another order: each "
            "number at the place it was computed for."
        )
    if (
        got.ndim == 2
        and same(np.sort(got, axis=0), np.sort(expected, axis=0))
        and sorted(map(tuple, got.tolist())) == sorted(map(tuple, expected.tolist()))
    ):
        return f"{name} holds the right rows, but in another order: row i belongs to the i-th item."
    if got.ndim == 2 and sorted(map(tuple, got.T.tolist())) == sorted(map(tuple, expected.T.tolist())):
        return f"{name} holds the right columns, but in another order: column j belongs to the j-th item."
    if got.ndim == 2:
        off = [i for i in range(got.shape[0]) if not same(got[i], expected[i])]
        if len(off) == 1 and same(np.sort(got[off[0]]), np.sort(expected[off[0]])):
            return f"In row {off[0]} of {name[:1].lower() + name[1:]} the right numbers stand in another order."
    if len(np.unique(np.round(want, 9))) <= want.size // 2:
        return ""  # few distinct values (0s and 1s, say): the same numbers in another order is no evidence of a swap
    return f"{name} holds the right numbers, but in another order."


def _common_factor(got: np.ndarray, want: np.ndarray, atol: float, rtol: float) -> float | None:
    """c when got is c times want for one c other than 1 (and 0, and -1), else None."""
    if not np.any(np.abs(want) > atol):
        return None
    c = float(np.dot(got, want) / np.dot(want, want))
    if c == 0 or not math.isfinite(c) or math.isclose(abs(c), 1.0, rel_tol=1e-3):
        return None
    return c if np.allclose(got, c * want, atol=atol, rtol=rtol) else None


def _factor_words(name: str, c: float, factors: dict[str, float] | None, several: bool) -> str:
    every = "every number is" if several else "it is"
    for label, value in (factors or {}).items():
        for size, direction in ((value, "too large"), (1 / value, "too small")):
            if value and math.isclose(c, size, rel_tol=1e-6):
                return f"{name} is off by a factor of {label}: {every} {label} times {direction}."
    direction = "too large" if abs(c) > 1 else "too small"
    return (
        f"{name} is off by one common factor: {every} {direction} by the same factor. Look for a step "
        "that multiplies or divides everything."
    )


def _how_far(value: float, want: float) -> str:
    """How far off and in which direction, in coarse words that never give the right value away."""
    if want == 0 or not math.isfinite(value):
        return "which is not right yet"
    if (value > 0) != (want > 0) and value != 0:
        if 0.9 <= abs(value / want) <= 1.1:
            return "which has the wrong sign"
        return "on the wrong side of 0, and not the right size either: flipping its sign would not fix it"
    ratio = abs(value / want)
    direction = "too large" if abs(value) > abs(want) else "too small"
    if 0.9 <= ratio <= 1.1:
        return f"a little {direction} (within 10%)"
    if 0.5 <= ratio <= 2:
        return f"{direction}, by more than 10%"
    if 0.1 <= ratio <= 10:
        return f"far {direction}: off by more than a factor of 2"
    return f"far {direction}: off by more than a factor of 10"


def _cut_to_whole(answer: Any, got: np.ndarray, expected: np.ndarray) -> bool:
    """True when the answer is an integer array or tensor whose numbers are the expected ones with the decimals cut."""
    if isinstance(answer, np.ndarray):
        kind = answer.dtype.kind
    elif is_array(answer):  # a torch tensor: int8 … int64, uint8
        kind = "i" if "int" in str(answer.dtype) else "f"
    else:
        return False
    if kind not in ("i", "u") or np.allclose(expected, np.round(expected)):
        return False
    return bool(np.allclose(got, np.trunc(expected)) or np.allclose(got, np.round(expected)))


def expect_number(
    answer: Any,
    expected: float,
    what: str = "your answer",
    atol: float = 1e-6,
    rtol: float = 1e-4,
    hint: str = "",
    factors: dict[str, float] | None = None,
) -> None:
    """Raise Wrong unless `answer` is one real number close to `expected`.

    The sign and a common factor are diagnosed first (`factors` names the candidates, such as
    {"2": 2, "the number of heads": 8}); otherwise the hint says how far off and in which direction."""
    name = sentence_start(what)
    value = to_number(answer, what)
    if not math.isfinite(value):
        raise Wrong(f"{name} is {value}; a finite number is wanted.")
    if math.isclose(value, expected, abs_tol=atol, rel_tol=rtol):
        return
    if expected != 0 and math.isclose(-value, expected, abs_tol=atol, rel_tol=rtol):
        raise Wrong(f"{name} has the right size but the wrong sign. {hint}".strip())
    if expected != 0 and value != 0:
        c = value / expected
        for label, size in (factors or {}).items():
            for target, direction in ((size, "too large"), (1 / size, "too small")):
                if size and math.isclose(c, target, rel_tol=max(rtol, 1e-9)):
                    raise Wrong(
                        f"{name} is off by a factor of {label}: it is {label} times {direction}. {hint}".strip()
                    )
    rounded = rounding_hint(value, expected, atol=atol, rtol=rtol)
    if rounded:
        raise Wrong(rounded.replace("Your numbers look", "Your number looks"))
    raise Wrong(f"{name} is {fmt(value, expected)}, {_how_far(value, expected)}. {hint}".strip())


# --- shapes, pairs and words ------------------------------------------------------------


def expect_shape(answer: Any, expected: tuple[int, ...], what: str = "your answer") -> None:
    """Raise Wrong unless `answer` is a shape (tuple, list or torch.Size of whole numbers) equal to `expected`."""
    name = sentence_start(what)
    expected = tuple(int(d) for d in expected)
    got = to_shape(answer, what, len(expected))
    if len(got) != len(expected):
        raise Wrong(f"{name} {got} has {len(got)} number(s), but this shape has {len(expected)}.")
    if got != expected:
        if got == tuple(reversed(expected)):
            raise Wrong(f"{name} {got} is the right numbers in the wrong order: rows come first, then columns.")
        raise Wrong(f"{name} {got} is not right yet: count the rows, then the columns.")


def expect_pair(answer: Any, what: str = "your answer", n: int = 2) -> tuple:
    """The n things in `answer` (a tuple or a list, e.g. (Z, A) or [Z, A]), or raise Wrong."""
    name = sentence_start(what)
    torch = sys.modules.get("torch")
    example = ", ".join("abcdefgh"[:n]) if n <= 8 else "a, b, …"
    if isinstance(answer, (tuple, list)) and not (torch is not None and isinstance(answer, torch.Size)):
        if len(answer) == n:
            return tuple(answer)
        raise Wrong(
            f"{name} holds {len(answer)} thing{'s' if len(answer) != 1 else ''}, but {n} are wanted "
            f"together, as a tuple ({example}) or a list [{example}]."
        )
    raise Wrong(
        f"{name} should be {n} things together, as a tuple ({example}) or a list [{example}], "
        f"but it is {describe(answer)}."
    )


def expect_word(
    answer: Any,
    expected: str,
    options: Sequence[str],
    what: str = "your answer",
    near: Sequence[str] | None = None,
    section: str = "",
) -> None:
    """Raise Wrong unless `answer` is the text `expected` (case, quotes and spaces ignored).

    `near` names the near misses that earn "a fair guess"; any other choice gets a neutral hint
    that points back to `section` (e.g. "the section on the attention matrix").
    """
    name = sentence_start(what)
    if not isinstance(answer, str):
        raise Wrong(f"{name} should be one word in quotes (text), but it is {describe(answer)}.")
    word = normal_word(answer)
    if not word:
        raise Wrong(f"{name} is empty text: write the word between the quotes.")
    choices = list(dict.fromkeys(options))
    if word not in [o.lower() for o in choices]:
        raise Wrong(f"{name} {show(word)} is not one of the choices: {', '.join(choices)}.")
    if word != expected.lower():
        remaining = [o for o in choices if o.lower() != word]
        if near and word in {n.lower() for n in near} and len(remaining) > 1:
            raise Wrong(f"{name} {show(word)} is a fair guess, but not the closest. Compare the numbers again.")
        back = section or "the section this exercise follows"
        raise Wrong(f"{name} {show(word)} is not the one. Go back to {back} and compare again.")


# --- registered slips: the whole answer diagnosed before its entries ------------------------


def expect_no_slip(answer: Any, slips: Sequence, rtol: float = 1e-6, atol: float = 1e-9) -> None:
    """Raise Wrong with a registered slip's hint when the whole answer is that slip.

    `slips` holds (wrong answer, hint, ...) entries, as a grader's SLIPS lists them; a grader calls
    this before it looks at single entries, so the diagnosis of the whole answer comes first."""
    for slip, hint, *_ in slips:
        if same_answer(answer, slip, rtol, atol):
            raise Wrong(hint)


def expect_layer_head(answer: Any, right: tuple[int, int], slips: Sequence, layers: int, heads: int, hint: str) -> None:
    """A (layer, head) answer about a real model: its form, then the registered slips of the whole pair, then
    the model's range; a pair in range that is no slip is told `hint` (what to compute again)."""
    values = to_numpy(answer, "Your answer, (layer, head),")
    if values.shape != (2,):
        raise Wrong(
            f"Your answer holds {values.size} number(s); two are wanted, the layer and the head: (layer, head)."
        )
    got = (to_count(values[0], "the layer of your answer"), to_count(values[1], "the head of your answer"))
    if got == right:
        return
    expect_no_slip(got, slips)
    if got[0] >= layers or got[1] >= heads:
        raise Wrong(f"The model has layers 0 to {layers - 1} and heads 0 to {heads - 1}; {got} is not one of them.")
    raise Wrong(f"Layer {got[0]}, head {got[1]} is not the one: {hint}")


def same_answer(answer: Any, slip: Any, rtol: float = 1e-6, atol: float = 1e-9) -> bool:
    """True when the answer is the registered `slip`: words compared the lenient way, numbers within
    the tolerance, shapes and lists entry by entry, a dict key by key; False for anything else."""
    try:
        if isinstance(slip, str):
            return isinstance(answer, str) and normal_word(answer) == normal_word(slip)
        if isinstance(slip, dict):
            return (
                isinstance(answer, dict)
                and sorted(map(str, answer)) == sorted(slip)
                and all(same_answer(answer[key], value, rtol, atol) for key, value in slip.items())
            )
        if isinstance(slip, (list, tuple)) and not _numbers_only(slip):
            items = list(answer) if isinstance(answer, (list, tuple)) or is_array(answer) else None
            return (
                items is not None
                and len(items) == len(slip)
                and all(same_answer(a, s, rtol, atol) for a, s in zip(items, slip))
            )
        if isinstance(answer, (str, dict)):
            return False
        got, want = to_numpy(answer, allow_bool=True), np.asarray(slip, dtype=np.float64)
        return got.shape == want.shape and bool(np.allclose(got, want, rtol=rtol, atol=atol))
    except Exception:  # an answer the slip cannot be compared with is not that slip
        return False


def _numbers_only(values: Any) -> bool:
    """True for a list or tuple that reads as one array of numbers (not ragged, no words)."""
    try:
        return np.asarray(values, dtype=np.float64).dtype == np.float64
    except (TypeError, ValueError):
        return False


def counted_from_one(positions: Any) -> Any:
    """Positions as a learner who counts from 1 writes them: every whole number one more, words kept.

    For a grader's SLIPS: counted_from_one((5, 11)) == (6, 12); counted_from_one(("column", 2)) == ("column", 3)."""
    if isinstance(positions, (list, tuple)):
        return type(positions)(counted_from_one(p) for p in positions)
    if isinstance(positions, (int, np.integer)) and not isinstance(positions, bool):
        return int(positions) + 1
    return positions
