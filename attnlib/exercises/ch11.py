"""Checkers for chapter 11: masks, what a word may not see."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import Wrong, call, describe, exercise, expect_array, expect_structure, show, to_items, to_mask, to_numpy, to_shape
from ..masks import padding_mask as _library_padding_mask


# --- ch11.causal_zeros: which entries of A does a causal mask set to 0? -------------------

N_CAUSAL = 4
CAUSAL_ZEROS = frozenset((i, j) for i in range(N_CAUSAL) for j in range(N_CAUSAL) if j > i)


def _pairs(answer: Any) -> list[tuple[int, int]]:
    """The answer as a list of (i, j) pairs of whole numbers, or Wrong."""
    if isinstance(answer, (str, bytes)):
        raise Wrong("Your answer is text. Give a list of (i, j) pairs of whole numbers, such as [(0, 1), (2, 3)].")
    try:
        items = to_items(answer)
    except Wrong:
        raise Wrong(f"Your answer is {describe(answer)}. Give a list of (i, j) pairs, such as "
                    "[(0, 1), (2, 3)].") from None
    if not items:
        raise Wrong("Give a non-empty list of (i, j) pairs, such as [(0, 1), (2, 3)]: one pair per entry of A "
                    "that becomes 0.")
    pairs = []
    for item in items:
        try:
            pair = to_shape(item, "one pair", 2)
        except Wrong:
            raise Wrong(f"Each pair holds two whole numbers (row i, column j), but one pair is {show(item, 60)}.") from None
        if len(pair) != 2:
            raise Wrong(f"Each entry should be one pair (i, j), row then column, but one of them is {show(item, 60)}.")
        pairs.append((pair[0], pair[1]))
    return pairs


@exercise("ch11.causal_zeros",
          right=[sorted(CAUSAL_ZEROS), set(CAUSAL_ZEROS), np.array(sorted(CAUSAL_ZEROS)),
                 [list(p) for p in sorted(CAUSAL_ZEROS, reverse=True)], tuple(sorted(CAUSAL_ZEROS))],
          wrong=[[(i, j) for i in range(4) for j in range(4) if j < i],          # transposed: below the diagonal
                 [(i, j) for i in range(4) for j in range(4) if j >= i],         # the diagonal too
                 [(i, j) for i in range(4) for j in range(4) if j <= i],         # the entries the mask keeps
                 [(0, 1), (0, 2), (0, 3)],                                       # only the first row
                 [(i + 1, j + 1) for i, j in sorted(CAUSAL_ZEROS)],              # counted from 1
                 [(i, j) for i in range(3) for j in range(3) if j > i]],         # n = 3
          catches="the lower triangle (transposed), the diagonal included, the kept entries, only row 0, "
                  "counting from 1, a smaller n",
          solution="answer = [(i, j) for i in range(4) for j in range(4) if j > i]")
def _causal_zeros(answer: Any) -> None:
    pairs = _pairs(answer)
    got = set(pairs)
    if len(got) != len(pairs):
        raise Wrong("Some pair appears twice. List each entry of A once.")
    outside = [p for p in got if not (0 <= p[0] < N_CAUSAL and 0 <= p[1] < N_CAUSAL)]
    if outside:
        if all(1 <= i <= N_CAUSAL and 1 <= j <= N_CAUSAL for i, j in got):
            raise Wrong(f"The pair {outside[0]} is outside a 4×4 matrix: rows and columns are counted "
                        "from 0, as Python counts, so they run from 0 to 3.")
        raise Wrong(f"The pair {outside[0]} is outside a 4×4 matrix: i and j run from 0 to 3.")
    if got == CAUSAL_ZEROS:
        return
    diagonal = [p for p in got if p[0] == p[1]]
    if diagonal:
        raise Wrong(f"The entry {diagonal[0]} is on the diagonal. Under a causal mask a word may always look "
                    "at itself: see the section on the causal mask.")
    below = [p for p in got if p[1] < p[0]]
    if below:
        raise Wrong(f"The entry {below[0]} has j < i: word {below[0][0]} looking at an EARLIER word, which a "
                    "causal mask allows. Rows are the words that ask (i), columns the words they look at (j).")
    missing = sorted(CAUSAL_ZEROS - got)
    more = "one more entry becomes" if len(missing) == 1 else f"{len(missing)} more entries become"
    raise Wrong(f"The pairs you gave are right, but {more} 0. Go through "
                "every row, not only one, and count what each word may not see.")


# --- ch11.padding_mask: design the mask of a padded batch -------------------------------

PADDING_CASES = (((3, 1), 3), ((1,), 1), ((2, 4, 4, 1), 4), ((5, 2), 6), ((1, 3), 3))   # (lengths, n), immutable


def _expected_padding(lengths: tuple[int, ...], n: int) -> np.ndarray:
    """The right (batch, 1, n) mask, made fresh from the private constants for every check."""
    return np.arange(n)[None, None, :] < np.array(lengths)[:, None, None]


def _pad_loops(lengths: Any, n: int) -> list:
    return [[[j < length for j in range(n)]] for length in lengths]


def _pad_numpy(lengths: Any, n: int) -> np.ndarray:
    return np.arange(n)[None, None, :] < np.asarray(lengths)[:, None, None]


def _pad_every_row(lengths: Any, n: int) -> np.ndarray:
    keys = np.arange(n)[None, :] < np.asarray(lengths)[:, None]    # (batch, n)
    return np.repeat(keys[:, None, :], n, axis=1)                 # the same row for every query


def _pad_torch(lengths: Any, n: int) -> Any:
    import torch
    return torch.arange(n)[None, None, :] < torch.as_tensor(lengths)[:, None, None]


def _pad_no_middle_axis(lengths: Any, n: int) -> np.ndarray:
    return np.arange(n)[None, :] < np.asarray(lengths)[:, None]


def _pad_inverted(lengths: Any, n: int) -> np.ndarray:
    return ~_pad_numpy(lengths, n)


def _pad_off_by_one(lengths: Any, n: int) -> np.ndarray:
    return np.arange(n)[None, None, :] <= np.asarray(lengths)[:, None, None]


def _pad_longest(lengths: Any, n: int) -> np.ndarray:
    return _pad_numpy(lengths, int(max(lengths)))


def _pad_in_front(lengths: Any, n: int) -> np.ndarray:
    return _pad_numpy(lengths, n)[..., ::-1]


def _pad_numbers(lengths: Any, n: int) -> np.ndarray:
    return _pad_numpy(lengths, n).astype(float)


def _pad_masks_queries(lengths: Any, n: int) -> np.ndarray:
    return _pad_every_row(lengths, n).swapaxes(-1, -2)


def _pad_sorts_in_place(lengths: Any, n: int) -> np.ndarray:
    mask = _pad_numpy(lengths, n)
    lengths.sort()                   # tidies the caller's lengths on the way
    return mask


@exercise("ch11.padding_mask",
          right=[_pad_numpy, _pad_loops, _pad_torch, _library_padding_mask],
          wrong=[_pad_no_middle_axis, _pad_every_row, _pad_inverted, _pad_off_by_one, _pad_longest, _pad_in_front,
                 _pad_numbers, _pad_masks_queries, _pad_sorts_in_place],
          catches="no query axis (batch, n), one row per query (batch, n, n) where the statement says (batch, 1, n), "
                  "True on the padding (torch's key_padding_mask), j <= length, "
                  "n taken from the longest length, padding in front, 0/1 numbers, masking query rows "
                  "instead of key columns, a function that sorts the lengths in place",
          solution="return np.arange(n)[None, None, :] < np.asarray(lengths)[:, None, None]")
def _padding_mask(fn: Any) -> None:
    wants = [_expected_padding(lengths, n) for lengths, n in PADDING_CASES]   # before any learner code runs
    for case, ((lengths, n), want) in enumerate(zip(PADDING_CASES, wants)):
        given = np.array(lengths) if case == 2 else list(lengths)   # one case as a numpy array
        got = call(fn, given, n, what="your function `padding_mask`")
        label = f"Your mask for lengths {list(lengths)} and n = {n}"
        batch = len(lengths)
        try:
            mask = to_mask(got, label)
        except Wrong:
            values = to_numpy(got, label)
            if values.ndim == 3 and values.shape[0] == batch and values.shape[2] == n and np.array_equal(
                    np.broadcast_to(values, (batch, n, n)), np.broadcast_to(want, (batch, n, n))):
                raise Wrong("The pattern is right, but the entries are numbers. attnlib.attention wants "
                            "True/False (True = may attend): use dtype=bool.") from None
            raise
        if mask.shape == (batch, n) and batch > 1:
            raise Wrong(f"{label} has shape {mask.shape}. The scores of the batch have shape (batch, n, n): "
                        "give the mask a middle axis of size 1, (batch, 1, n), so that it is the same for "
                        "every query. See the section on padding.")
        if mask.shape != (batch, 1, n) and mask.shape != (batch, n, n):
            expect_structure(mask.astype(float), want, label)
        if mask.ndim == 3 and mask.shape[0] == batch and mask.shape[1] == 1 and mask.shape[2] != n:
            raise Wrong(f"{label} has {mask.shape[2]} columns, but the padded batch has n = {n} positions: "
                        "n is the second argument, not the longest length.")
        if mask.shape != (batch, 1, n) and mask.shape != (batch, n, n):
            raise Wrong(f"{label} has shape {mask.shape}, but it should be (batch, 1, n) = {(batch, 1, n)}.")
        full = np.broadcast_to(mask, (batch, n, n))
        target = np.broadcast_to(want, (batch, n, n))
        if np.array_equal(full, target) and mask.shape == (batch, 1, n):
            continue
        if np.array_equal(full, target):
            raise Wrong(f"{label} has shape {mask.shape}, one row per query. The statement asks for shape "
                        f"(batch, 1, n) = {(batch, 1, n)}: one row per sentence, which every query shares.")
        if np.array_equal(full, ~target):
            raise Wrong("Your mask is True on the padding and False on the words: the opposite convention "
                        "(torch.nn.MultiheadAttention's key_padding_mask uses it). Here True = may attend.")
        if np.array_equal(full, target.swapaxes(-1, -2)):
            raise Wrong("Your mask switches off query rows, not key columns. Padding must not be LOOKED AT: "
                        "the False entries belong in the columns of the padded positions.")
        if np.array_equal(full, target[..., ::-1]):
            raise Wrong("Your mask puts the padding in front. The batch is padded at the end: a sentence "
                        "of length L fills positions 0 to L - 1.")
        b, i, j = (int(x) for x in np.argwhere(full != target)[0])
        raise Wrong(f"{label} is wrong for sentence {b} at key {j}: a sentence of length {lengths[b]} has real "
                    f"words at positions 0 to {lengths[b] - 1}, and only those may be attended to.")


# --- ch11.masked_row: one row of A under a mask ------------------------------------------

ROW_SCORES = np.array([2.0, 0.0, 1.0, 3.0])   # already divided by √d_k
ROW_MASK = np.array([True, False, True, False])
ROW_A = np.where(ROW_MASK, np.exp(ROW_SCORES - ROW_SCORES[ROW_MASK].max()), 0.0)
ROW_A = ROW_A / ROW_A.sum()                     # [0.731, 0, 0.269, 0]


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


ROW_ZEROED_AFTER = np.where(ROW_MASK, _softmax(ROW_SCORES), 0.0)
ROW_SCORE_ZERO = _softmax(np.where(ROW_MASK, ROW_SCORES, 0.0))
ROW_UNMASKED = _softmax(ROW_SCORES)
ROW_INVERTED = np.where(~ROW_MASK, np.exp(ROW_SCORES - 3.0), 0.0)
ROW_INVERTED = ROW_INVERTED / ROW_INVERTED.sum()


@exercise("ch11.masked_row",
          right=[ROW_A, ROW_A.tolist(), [0.731, 0.0, 0.269, 0.0], (0.73, 0, 0.27, 0)],
          wrong=[ROW_ZEROED_AFTER, ROW_SCORE_ZERO, ROW_UNMASKED, ROW_INVERTED, [0.7, 0.0, 0.3, 0.0],
                 [0.5, 0.0, 0.5, 0.0], ROW_A[:3]],
          catches="zeroing after softmax (the row sums to 0.32), a masked score of 0 instead of -inf, "
                  "no mask, the mask read inverted, one decimal, equal shares, a missing entry",
          solution="answer = [np.exp(2) / (np.exp(2) + np.exp(1)), 0, np.exp(1) / (np.exp(2) + np.exp(1)), 0]")
def _masked_row(answer: Any) -> None:
    if isinstance(answer, (str, bytes)):
        raise Wrong("Your row is text. Give the four weights as numbers, without quotes.")
    got = to_numpy(answer, "your row")
    expect_structure(got, ROW_A, "your row", atol=2e-3, rtol=0)
    if got.shape != ROW_A.shape:
        raise Wrong(f"Your row has {got.size} number(s); it needs one weight per key, 4 in all, masked keys "
                    "included (as 0).")
    if not np.all(np.isfinite(got)):
        raise Wrong("Your row contains inf or nan. A masked key gets weight exactly 0, e to the power -∞.")
    near = lambda ref, tol=2e-3: bool(np.allclose(got, ref, atol=tol))   # noqa: E731
    if near(ROW_A):
        return
    if near(ROW_ZEROED_AFTER):
        raise Wrong(f"Your weights add up to {got.sum():.2f}, not 1: the softmax ran over all four keys and the "
                    "masked ones were zeroed afterwards. See the section on −∞ before softmax.")
    if near(ROW_SCORE_ZERO):
        raise Wrong("The masked keys still get weight: a score of 0 is an ordinary score, and e⁰ = 1. "
                    "A masked score must become −∞ before the softmax.")
    if near(ROW_UNMASKED):
        raise Wrong("That is the softmax of the row without the mask. Keys 1 and 3 may not be seen.")
    if near(ROW_INVERTED):
        raise Wrong("Your weights sit on keys 1 and 3, the masked ones. False in the mask means may NOT attend.")
    expect_structure(got, ROW_A, "your row", atol=2e-3, rtol=0, values=True)
    if np.any(np.abs(got[~ROW_MASK]) > 1e-9):
        raise Wrong("A masked key must get weight exactly 0.")
    if not math.isclose(float(got.sum()), 1.0, abs_tol=2e-3):
        raise Wrong(f"Your weights add up to {got.sum():.3f}; the weights of one row of A add up to 1.")
    if near(ROW_A, 0.06):
        raise Wrong("A fair guess, but not precise enough: give each weight to at least 2 decimals.")
    expect_array(got, ROW_A, what="your row", atol=2e-3, rtol=0)
