"""Checkers for the chapter on masks, what a word may not see."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from attnlib.core import softmax as _softmax
from attnlib.masks import causal_mask as _library_causal_mask
from attnlib.masks import padding_mask as _library_padding_mask

from . import Wrong, call, exercise, expect_array, expect_no_slip, expect_number, expect_structure, to_mask, to_numpy

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "masks", "masks, what a word may not see"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

# --- masks.masked_count: how much of A does a causal mask set to 0? --------------------

N_COUNT = 1000
MASKED_COUNT = N_COUNT * (N_COUNT - 1) // 2  # the entries above the diagonal: 499,500


EDGES["masks.masked_count"] = _KEPT, _AFTER, _COUNT = ("the diagonal is kept", "only the words after", "a count")
_ROWS = "Count row by row how many keys each query may not see."
SLIPS["masks.masked_count"] = [  # each with the hint it gets, the whole of it
    (
        N_COUNT * (N_COUNT + 1) // 2,
        "That counts the diagonal too, or the kept entries: a word may always look at itself.",
        _KEPT,
    ),
    (N_COUNT**2 // 2, f"Half the grid is close, but the diagonal belongs to neither half. {_ROWS}", _KEPT),
    (N_COUNT * (N_COUNT - 1), "That counts both triangles. Only the words AFTER word i are hidden from it.", _AFTER),
    (N_COUNT - 1, "That is the count of one row, the first. Every row hides the words after it.", _AFTER),
    ((N_COUNT - 1) ** 2, f"That is the grid without one row and one column. {_ROWS}", _AFTER),
    (0, "A causal mask does hide something: each word's later words.", _AFTER),
    (15, "That is the count for the six words of the running example. Here n = 1000.", _COUNT),
    (MASKED_COUNT / N_COUNT**2, "That is the share of A that is 0. The question asks how many entries.", _COUNT),
]


@exercise(
    "masks.masked_count",
    right=[MASKED_COUNT, float(MASKED_COUNT), np.int64(MASKED_COUNT), 4.995e5, np.array(MASKED_COUNT)],
    wrong=[a for a, _, _ in SLIPS["masks.masked_count"]],
    catches="the diagonal counted as masked (the same number as the kept entries), half the grid, "
    "both triangles, one row only, (n - 1)², nothing masked, the 15 of the printed six-word mask",
    solution="answer = 1000 * 999 // 2",
)
def _masked_count(answer: Any) -> None:
    if isinstance(answer, (str, bytes)):
        raise Wrong("Your answer is text. Give the count as a whole number, without quotes.")
    got = to_numpy(answer, "your count")
    if got.size == 1 and math.isfinite(float(got.reshape(()))):
        value = float(got.reshape(()))
        expect_no_slip(value, SLIPS["masks.masked_count"], rtol=1e-9, atol=1e-9)
    expect_number(
        got,
        MASKED_COUNT,
        what="your count",
        atol=0.5,
        rtol=0,
        hint="Row i of A may not see the keys after it. Count those for a few rows and look for the pattern.",
    )


# --- masks.causal_mask: write the causal mask ---------------------------------------------


def _causal(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool))


def _causal_loops(n: int) -> list[list[bool]]:
    return [[j <= i for j in range(n)] for i in range(n)]


_FORBIDDEN_CAUSAL = {"attnlib.causal_mask": _library_causal_mask}  # the statements: numpy, not attnlib
_FORBIDDEN_PADDING = {"attnlib.padding_mask": _library_padding_mask}


def _causal_from_the_library(n: int) -> np.ndarray:
    return np.asarray(_library_causal_mask(n))


def _padding_from_the_library(lengths: Any, n: int) -> np.ndarray:
    return _library_padding_mask(lengths, n)


def _causal_compare(n: int) -> np.ndarray:
    return np.arange(n)[:, None] >= np.arange(n)[None, :]


def _causal_torch(n: int) -> Any:
    import torch

    return torch.tril(torch.ones(n, n, dtype=torch.bool))


def _causal_upper(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n), dtype=bool))


def _causal_no_diagonal(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool), k=-1)


def _causal_inverted(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n), dtype=bool), k=1)  # True where masked: torch's MultiheadAttention


def _causal_numbers(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n)))


def _causal_additive(n: int) -> np.ndarray:
    return np.where(_causal(n), 0.0, -np.inf)  # the grid M of the formula, not the mask


def _causal_fixed_size(n: int) -> np.ndarray:
    return _causal(6)


def _causal_one_row(n: int) -> np.ndarray:
    return np.ones(n, dtype=bool)


CAUSAL_SIZES = (3, 1, 2, 6)  # n = 3 first: there every wrong pattern looks different


@exercise(
    "masks.causal_mask",
    right=[_causal, _causal_loops, _causal_compare, _causal_torch],
    wrong=[
        _causal_from_the_library,
        _causal_upper,
        _causal_no_diagonal,
        _causal_inverted,
        _causal_numbers,
        _causal_additive,
        _causal_fixed_size,
        _causal_one_row,
    ],
    catches="the upper triangle, the diagonal left out, True where masked (MultiheadAttention's "
    "convention), 0/1 numbers, the additive grid M of 0 and -inf, a fixed n = 6, one row; "
    "n = 1, 2, 3 and 6 are tried",
    solution="return np.arange(n)[:, None] >= np.arange(n)[None, :]",
)
def _causal_mask(fn: Any) -> None:
    wants = {n: _causal(n) for n in CAUSAL_SIZES}  # before any learner code runs
    for n in CAUSAL_SIZES:
        got = call(fn, n, what="your function `causal_mask`", forbidden=_FORBIDDEN_CAUSAL)
        what = f"the result of causal_mask({n})"
        try:
            mask, numbers = to_mask(got, what), None
        except Wrong:  # numbers, or not a grid at all (to_numpy names which)
            numbers = to_numpy(got, what)
            mask = numbers
        want = wants[n]
        if mask.shape != want.shape:
            raise Wrong(
                f"The result of causal_mask({n}) has shape {mask.shape}, but the mask has one row per "
                f"query and one column per key: (n, n) = {want.shape}."
            )
        if numbers is not None:
            if np.isinf(numbers).any() and np.array_equal(np.isfinite(numbers), want):
                raise Wrong(
                    "That is the grid M of 0 and -inf that the formula adds to the scores. The question "
                    "asks for the mask itself, True/False, from which M is made."
                )
            if np.array_equal(numbers, want.astype(float)):
                raise Wrong(
                    "The pattern is right, but the entries are numbers. attnlib.attention wants "
                    "True/False (True = may attend): use dtype=bool, or build it from comparisons."
                )
            raise Wrong(f"The result of causal_mask({n}) should hold True/False values, not numbers.")
        if np.array_equal(mask, want):
            continue
        if n > 1 and np.array_equal(mask, want.T):
            raise Wrong(
                "That mask lets each word see the words AFTER it. True belongs on and below the "
                "diagonal: word i (row) may look at word j (column) when j ≤ i."
            )
        if n > 1 and np.array_equal(mask, ~want):
            raise Wrong(
                "That mask is True where a word may NOT look, torch.nn.MultiheadAttention's convention. "
                'Here True means "may attend".'
            )
        if np.array_equal(mask, want & ~np.eye(n, dtype=bool)):
            raise Wrong(
                "The diagonal is False, so the first word may look at nothing at all. A word may "
                "always attend to itself."
            )
        i, j = (int(k) for k in np.argwhere(mask != want)[0])
        raise Wrong(
            f"The result of causal_mask({n}) is wrong in row {i}, column {j}: word i may attend to "
            "word j exactly when j ≤ i. See the section on the causal mask."
        )


# --- masks.padding_mask: design the mask of a padded batch -------------------------------

PADDING_CASES = (
    ((3, 1), 3),
    ((1,), 1),
    ((2, 4, 4, 1), 4),
    ((5, 2), 6),
    ((1, 3), 3),
    ((3, 1), 5),
)  # (lengths, n), immutable; lengths again at another n


def _expected_padding(lengths: tuple[int, ...], n: int) -> np.ndarray:
    """The right (batch, 1, n) mask, made fresh from the private constants for every check."""
    return np.arange(n)[None, None, :] < np.array(lengths)[:, None, None]


def _pad_loops(lengths: Any, n: int) -> list:
    return [[[j < length for j in range(n)]] for length in lengths]


def _pad_numpy(lengths: Any, n: int) -> np.ndarray:
    return np.arange(n)[None, None, :] < np.asarray(lengths)[:, None, None]


def _pad_every_row(lengths: Any, n: int) -> np.ndarray:
    keys = np.arange(n)[None, :] < np.asarray(lengths)[:, None]  # (batch, n)
    return np.repeat(keys[:, None, :], n, axis=1)  # the same row for every query


def _pad_torch(lengths: Any, n: int) -> Any:
    import torch

    return torch.arange(n)[None, None, :] < torch.as_tensor(lengths)[:, None, None]


def _pad_cached_by_lengths(lengths: Any, n: int) -> np.ndarray:
    """Remembers each mask by the lengths alone: the same lengths at another n get the old mask."""
    key = tuple(int(x) for x in lengths)
    if key not in _PAD_MEMORY:
        _PAD_MEMORY[key] = _pad_numpy(lengths, n)
    return _PAD_MEMORY[key]


_PAD_MEMORY: dict = {}


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
    lengths.sort()  # tidies the caller's lengths on the way
    return mask


EDGES |= {
    "masks.causal_mask": ("n = 1, 2, 3 and 6", "True where a word may attend", "plain Python or numpy, not attnlib"),
    "masks.padding_mask": (
        "no sentence fills all n positions",
        "lengths not sorted",
        "the same lengths again at another n",
        "numpy, not attnlib",
    ),
}
SLIPS |= {
    "masks.causal_mask": [
        (_causal_from_the_library, "uses attnlib.causal_mask", "plain Python or numpy, not attnlib"),
        (_causal_upper, "see the words after it", "True where a word may attend"),
        (_causal_no_diagonal, "may always attend to itself", "True where a word may attend"),
        (_causal_inverted, "may not look", "True where a word may attend"),
        (_causal_fixed_size, "has shape (6, 6)", "n = 1, 2, 3 and 6"),
    ],
    "masks.padding_mask": [
        (_padding_from_the_library, "uses attnlib.padding_mask", "numpy, not attnlib"),
        (_pad_longest, "n is the second argument", "no sentence fills all n positions"),
        (_pad_off_by_one, "real words at positions 0 to", "no sentence fills all n positions"),
        (_pad_in_front, "puts the padding in front", "lengths not sorted"),
        (_pad_cached_by_lengths, "keeps results between calls", "the same lengths again at another n"),
    ],
}


@exercise(
    "masks.padding_mask",
    right=[_pad_numpy, _pad_loops, _pad_torch],
    wrong=[
        *(a for a, _, _ in SLIPS["masks.padding_mask"]),
        *(_pad_no_middle_axis, _pad_every_row, _pad_inverted, _pad_numbers, _pad_masks_queries, _pad_sorts_in_place),
    ],
    catches="no query axis (batch, n), one row per query (batch, n, n) where the statement says (batch, 1, n), "
    "True on the padding (torch's key_padding_mask), j <= length, "
    "n taken from the longest length, padding in front, 0/1 numbers, masking query rows "
    "instead of key columns, a function that sorts the lengths in place",
    solution="return np.arange(n)[None, None, :] < np.asarray(lengths)[:, None, None]",
)
def _padding_mask(fn: Any) -> None:
    wants = [_expected_padding(lengths, n) for lengths, n in PADDING_CASES]  # before any learner code runs
    for case, ((lengths, n), want) in enumerate(zip(PADDING_CASES, wants)):
        given = np.array(lengths) if case == 2 else list(lengths)  # one case as a numpy array
        got = call(fn, given, n, what="your function `padding_mask`", forbidden=_FORBIDDEN_PADDING)
        label = f"Your mask for lengths {list(lengths)} and n = {n}"
        mask = _read_padding_mask(got, want, label)
        if any(mask.shape == w.shape and np.array_equal(mask, w) and not np.array_equal(w, want) for w in wants[:case]):
            raise Wrong(
                f"{label} is the mask of an earlier call: your function keeps results between calls. "
                "Build each mask from the lengths and n it is given."
            )
        _check_padding_shape(mask, want, label)
        _check_padding_pattern(mask, want, label, lengths)


def _read_padding_mask(got: Any, want: np.ndarray, label: str) -> np.ndarray:
    """The learner's mask as booleans; numbers in the right pattern are told to use dtype=bool."""
    batch, _, n = want.shape
    try:
        return to_mask(got, label)
    except Wrong:
        values = to_numpy(got, label)
        if (
            values.ndim == 3
            and values.shape[0] == batch
            and values.shape[2] == n
            and np.array_equal(np.broadcast_to(values, (batch, n, n)), np.broadcast_to(want, (batch, n, n)))
        ):
            raise Wrong(
                "The pattern is right, but the entries are numbers. attnlib.attention wants "
                "True/False (True = may attend): use dtype=bool."
            ) from None
        raise


def _check_padding_shape(mask: np.ndarray, want: np.ndarray, label: str) -> None:
    """The mask is (batch, 1, n) or (batch, n, n); the usual wrong shapes are named."""
    batch, _, n = want.shape
    if mask.shape == (batch, n) and batch > 1:
        raise Wrong(
            f"{label} has shape {mask.shape}. The scores of the batch have shape (batch, n, n): "
            "give the mask a middle axis of size 1, (batch, 1, n), so that it is the same for "
            "every query. See the section on padding."
        )
    if mask.shape == (batch, n, 1) and n > 1:
        raise Wrong(
            f"{label} has shape {mask.shape}: the axis of size 1 is last. The key positions j "
            "go last, one per column, and the size-1 axis stands in the middle: (batch, 1, n)."
        )
    if mask.shape != (batch, 1, n) and mask.shape != (batch, n, n):
        expect_structure(mask.astype(float), want, label)
    if mask.ndim == 3 and mask.shape[0] == batch and mask.shape[1] == 1 and mask.shape[2] != n:
        raise Wrong(
            f"{label} has {mask.shape[2]} columns, but the padded batch has n = {n} positions: "
            "n is the second argument, not the longest length."
        )
    if mask.shape != (batch, 1, n) and mask.shape != (batch, n, n):
        raise Wrong(f"{label} has shape {mask.shape}, but it should be (batch, 1, n) = {(batch, 1, n)}.")


def _check_padding_pattern(mask: np.ndarray, want: np.ndarray, label: str, lengths: Any) -> None:
    """The mask's True/False entries, against the usual slips: inverted, on the queries, in front."""
    batch, _, n = want.shape
    full = np.broadcast_to(mask, (batch, n, n))
    target = np.broadcast_to(want, (batch, n, n))
    if np.array_equal(full, target) and mask.shape == (batch, 1, n):
        return
    if np.array_equal(full, target):
        raise Wrong(
            f"{label} has shape {mask.shape}, one row per query. The statement asks for shape "
            f"(batch, 1, n) = {(batch, 1, n)}: one row per sentence, which every query shares."
        )
    if np.array_equal(full, ~target):
        raise Wrong(
            "Your mask is True on the padding and False on the words: the opposite convention "
            "(torch.nn.MultiheadAttention's key_padding_mask uses it). Here True = may attend."
        )
    if np.array_equal(full, target.swapaxes(-1, -2)):
        raise Wrong(
            "Your mask switches off query rows, not key columns. Padding must not be LOOKED AT: "
            "the False entries belong in the columns of the padded positions."
        )
    if np.array_equal(full, target[..., ::-1]):
        raise Wrong(
            "Your mask puts the padding in front. The batch is padded at the end: a sentence "
            "of length L fills positions 0 to L - 1."
        )
    b, i, j = (int(x) for x in np.argwhere(full != target)[0])
    raise Wrong(
        f"{label} is wrong for sentence {b} at key {j}: a sentence of length {lengths[b]} has real "
        f"words at positions 0 to {lengths[b] - 1}, and only those may be attended to."
    )


# --- masks.masked_row: one row of A under a mask ------------------------------------------

ROW_SCORES = np.array([2.0, 0.0, 1.0, 3.0])  # already divided by √d_k
ROW_MASK = np.array([True, False, True, False])
ROW_A = np.where(ROW_MASK, np.exp(ROW_SCORES - ROW_SCORES[ROW_MASK].max()), 0.0)
ROW_A = ROW_A / ROW_A.sum()  # [0.731, 0, 0.269, 0]


ROW_ZEROED_AFTER = np.where(ROW_MASK, _softmax(ROW_SCORES), 0.0)
ROW_SCORE_ZERO = _softmax(np.where(ROW_MASK, ROW_SCORES, 0.0))
ROW_UNMASKED = _softmax(ROW_SCORES)
ROW_INVERTED = np.where(~ROW_MASK, np.exp(ROW_SCORES - 3.0), 0.0)
ROW_INVERTED = ROW_INVERTED / ROW_INVERTED.sum()


EDGES["masks.masked_row"] = (
    "−∞ before the softmax",
    "False: may not attend",
    "the kept scores still count",
    "four numbers",
)
_EQUAL = "Keys 0 and 2 are kept, with different scores: softmax does not share them equally."
_ROW_EQUAL = [([0.5, 0.0, 0.5, 0.0], _EQUAL, "the kept scores still count")]  # a slip of the whole answer
SLIPS["masks.masked_row"] = [
    *_ROW_EQUAL,
    (ROW_ZEROED_AFTER, "zeroed afterwards", "−∞ before the softmax"),
    (ROW_SCORE_ZERO, "a score of 0 is an ordinary score", "−∞ before the softmax"),
    (ROW_UNMASKED, "without the mask", "−∞ before the softmax"),
    (ROW_INVERTED, "False in the mask means may NOT attend", "False: may not attend"),
    ([0.7, 0.0, 0.3, 0.0], "at least 2 decimals", "four numbers"),
    (ROW_A[:3], "your row has 3 number(s)", "four numbers"),
]


@exercise(
    "masks.masked_row",
    right=[ROW_A, ROW_A.tolist(), [0.731, 0.0, 0.269, 0.0], (0.73, 0, 0.27, 0)],
    wrong=[a for a, _, _ in SLIPS["masks.masked_row"]],
    catches="zeroing after softmax (the row sums to 0.32), a masked score of 0 instead of -inf, "
    "no mask, the mask read inverted, one decimal, equal shares, a missing entry",
    solution="answer = [np.exp(2) / (np.exp(2) + np.exp(1)), 0, np.exp(1) / (np.exp(2) + np.exp(1)), 0]",
)
def _masked_row(answer: Any) -> None:
    if isinstance(answer, (str, bytes)):
        raise Wrong("Your row is text. Give the four weights as numbers, without quotes.")
    got = to_numpy(answer, "your row")
    expect_structure(got, ROW_A, "your row", atol=2e-3, rtol=0)
    if got.shape != ROW_A.shape:
        raise Wrong(
            f"Your row has {got.size} number(s); it needs one weight per key, 4 in all, masked keys included (as 0)."
        )
    if not np.all(np.isfinite(got)):
        raise Wrong("Your row contains inf or nan. A masked key gets weight exactly 0, e to the power -∞.")
    near = lambda ref, tol=2e-3: bool(np.allclose(got, ref, atol=tol))
    if near(ROW_A):
        return
    if near(ROW_ZEROED_AFTER):
        raise Wrong(
            f"Your weights add up to {got.sum():.2f}, not 1: the softmax ran over all four keys and the "
            "masked ones were zeroed afterwards. See the section on −∞ before softmax."
        )
    if near(ROW_SCORE_ZERO):
        raise Wrong(
            "The masked keys still get weight: a score of 0 is an ordinary score, and e⁰ = 1. "
            "A masked score must become −∞ before the softmax."
        )
    if near(ROW_UNMASKED):
        raise Wrong("That is the softmax of the row without the mask. Keys 1 and 3 may not be seen.")
    if near(ROW_INVERTED):
        raise Wrong("Your weights sit on keys 1 and 3, the masked ones. False in the mask means may NOT attend.")
    expect_no_slip(got, _ROW_EQUAL, atol=2e-3)
    expect_structure(got, ROW_A, "your row", atol=2e-3, rtol=0, values=True)
    if np.any(np.abs(got[~ROW_MASK]) > 1e-9):
        raise Wrong("A masked key must get weight exactly 0.")
    if not math.isclose(float(got.sum()), 1.0, abs_tol=2e-3):
        raise Wrong(f"Your weights add up to {got.sum():.3f}; the weights of one row of A add up to 1.")
    if near(ROW_A, 0.06):
        raise Wrong("A fair guess, but not precise enough: give each weight to at least 2 decimals.")
    expect_array(got, ROW_A, what="your row", atol=2e-3, rtol=0)
