"""Checkers for the chapter on softmax and the attention matrix A."""

from __future__ import annotations

from typing import Any

import numpy as np

from attnlib.core import scale, scores, softmax
from attnlib.data import RUNNING_SENTENCE, running_lenses, sentence_matrix, words

from . import (
    Wrong,
    call,
    exercise,
    expect_array,
    expect_no_slip,
    expect_number,
    expect_structure,
    expect_word,
    to_numpy,
)

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "softmax", "softmax and the attention matrix A"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

# softmax.by_hand -----------------------------------------------------------------

BY_HAND_SCORES = np.array([0.0, 2.0, -1.0])
BY_HAND = np.exp(BY_HAND_SCORES) / np.exp(BY_HAND_SCORES).sum()  # [0.114, 0.844, 0.042]


EDGES["softmax.by_hand"] = ("e^x, total, divide", "a negative score", "the order of the scores", "three decimals")
_BY_HAND_WHOLE = [  # slips of the whole answer, diagnosed before its weights, with their hints
    (
        BY_HAND_SCORES / BY_HAND_SCORES.sum(),
        (
            "You divided the scores by their total. Softmax takes e^x of each score first (step 1 of 'From "
            "scores to shares'), so every weight is positive."
        ),
        "a negative score",
    ),
    (
        np.exp(BY_HAND_SCORES) / np.exp(BY_HAND_SCORES).max(),
        (
            "You divided by the largest e^x. Step 3 of 'From scores to shares' divides by the total of all "
            "of them, so that the weights add up to 1."
        ),
        "e^x, total, divide",
    ),
]
SLIPS["softmax.by_hand"] = [
    *_BY_HAND_WHOLE,
    (np.exp(BY_HAND_SCORES), "your weights add up to 8.757", "e^x, total, divide"),
    ([1 / 3, 1 / 3, 1 / 3], "equal shares ignore the scores", "e^x, total, divide"),
    (BY_HAND[::-1].copy(), "the right numbers in the wrong order", "the order of the scores"),
    ([0.11, 0.84, 0.04], "rounded too coarsely", "three decimals"),
    ([0.114, 0.844], "your answer has 2 number(s)", "the order of the scores"),
]


@exercise(
    "softmax.by_hand",
    right=[BY_HAND, [0.114, 0.844, 0.042], tuple(BY_HAND.tolist()), BY_HAND.astype(np.float32)],
    wrong=[np.sort(BY_HAND), *(a for a, _, _ in SLIPS["softmax.by_hand"])],
    catches="e^x not divided by the total, scores divided by their total, the right weights "
    "sorted or reversed, equal shares, rounded to 2 decimals, a weight left out",
    solution="answer = powers / total",
)
def _by_hand(answer: Any) -> None:
    got = to_numpy(answer, "your weights")
    expect_structure(got, BY_HAND, "your weights", atol=1e-3, rtol=0)
    if got.shape == BY_HAND.shape and np.all(np.isfinite(got)):
        if np.allclose(got, BY_HAND, atol=1e-3):
            return
        if np.allclose(got, BY_HAND, atol=1e-2):
            raise Wrong("Close, but rounded too coarsely: give each weight to three decimals.")
        expect_no_slip(got, _BY_HAND_WHOLE, atol=1e-3)
        if np.any(got < 0):
            raise Wrong(
                "A weight is negative. e to any power is positive, so every softmax weight is "
                "too: look again at step 1 of 'From scores to shares'."
            )
        if np.allclose(got, np.sort(BY_HAND), atol=1e-3) or np.allclose(got, BY_HAND[::-1], atol=1e-3):
            raise Wrong(
                "The right numbers in the wrong order. Weight j belongs to score j: "
                "keep the order of the scores [0, 2, -1]."
            )
        if np.allclose(got, 1 / 3, atol=1e-2):  # [0.33, 0.33, 0.33] too
            raise Wrong("Equal shares ignore the scores. A bigger score must get a bigger share.")
        if not np.isclose(got.sum(), 1.0, atol=2e-3):
            raise Wrong(
                f"Your weights add up to {got.sum():.4g}, not 1, so step 3 of 'From scores to "
                "shares' is missing or divides by something other than the total of the e^x."
            )
    if got.ndim == 1 and got.size != BY_HAND.size:
        raise Wrong(f"Your answer has {got.size} number(s); there is one weight per score, three in all.")
    expect_array(got, BY_HAND, what="your weights", atol=1e-3, rtol=0)


# --- softmax.gap: from two weights of a row back to the gap between their scores -------------------

GAP_WEIGHTS = (0.6, 0.2)  # kitten, mat
GAP = float(np.log(GAP_WEIGHTS[0] / GAP_WEIGHTS[1]))  # the ratio 3 is e to the gap: about 1.0986
_WHERE_GAP = "the section 'Three properties, and the fact behind them'"


EDGES["softmax.gap"] = ("the gap of scores, not of weights", "the natural logarithm", "its sign")
SLIPS["softmax.gap"] = [  # each with the hint it gets, the whole of it
    (
        0.4,
        (
            "That is the gap between the two WEIGHTS. The question asks for the gap between their SCORES: how does "
            f"a ratio of weights depend on a gap of scores? See {_WHERE_GAP}."
        ),
        "the gap of scores, not of weights",
    ),
    (
        3.0,
        (
            "That is the ratio of the two weights. The ratio is e to the gap: the gap is the number you raise e "
            "to, so undo the e."
        ),
        "the natural logarithm",
    ),
    (
        -GAP,
        "The size is right, but the sign is not: kitten has the larger weight, so its score is the larger one.",
        "its sign",
    ),
    (
        float(np.log10(3.0)),
        (
            "That is a base-10 logarithm. The ratio of two weights is e to the gap, so you need the logarithm "
            "that undoes e^x, the natural one."
        ),
        "the natural logarithm",
    ),
    (
        float(np.exp(3.0)),
        "You raised e to the ratio. It goes the other way round: the ratio IS e to the gap.",
        "the natural logarithm",
    ),
    (
        2.0,
        (
            "Subtracting does not undo e^x. The ratio of two weights is e to the gap between their scores: which "
            "function turns e^x back into x?"
        ),
        "the natural logarithm",
    ),
]


@exercise(
    "softmax.gap",
    right=[GAP, np.log(3.0), round(GAP, 2), np.float32(GAP), [GAP]],
    wrong=["1.1", *(a for a, _, _ in SLIPS["softmax.gap"])],
    catches="the gap between the weights; the ratio itself; mat's score minus kitten's; the base-10 "
    "logarithm; e to the ratio; the ratio minus 1; text",
    solution="answer = np.log(0.6 / 0.2)",
)
def _gap(answer: Any) -> None:
    if isinstance(answer, str):
        raise Wrong("Your answer is text; write the number without quotes.")
    got = to_numpy(answer, "your gap")
    if got.size == 1 and np.all(np.isfinite(got)):
        value = float(got.reshape(()))
        expect_no_slip(value, SLIPS["softmax.gap"], atol=1e-3, rtol=1e-3)
    expect_number(
        got,
        GAP,
        what="your gap",
        atol=0.006,
        rtol=0,
        hint=f"The ratio of two weights of a row is e to the gap between their scores; see {_WHERE_GAP}.",
    )


# Hidden inputs: each catches a class of wrong softmax (see `catches` below).
# softmax.stable_softmax ----------------------------------------------------------

_STABLE_CASES = (
    np.array([1.0, 2.0, 3.0]),  # one row, small scores
    np.array([1000.0, 1001.0, 1002.0]),  # overflows without the max-subtraction
    np.array([-1000.0, -1001.0, -1002.0]),  # underflows to 0/0 without it
    np.array([5.0]),  # a single score
    np.array([[1000.0, 998.0, 1001.0]]),  # a 1-row matrix: the columns would give 1s
    np.array([[2.0], [-1.0], [1000.0]]),  # one score per row: every weight is 1
    np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, 1000.0]]),  # 2×3, a small row beside a huge one
    np.array([[0.0, 1.0, 2.0], [5.0, 3.0, 1.0], [-1.0, 0.0, 4.0]]),  # square
    np.array([[2.0, -1.0], [0.5, 0.5], [3.0, 1.0], [-2.0, 0.0]]),  # 4×2, more rows than columns
    np.array([[1000.0, -1000.0, 0.0, 999.0], [-500.0, -501.0, -502.0, -503.0]]),  # rows far apart
    np.array([[-800.0, 0.0, 800.0], [3.0, 1.0, 2.0]]),  # the mean or the min would still overflow
)


def _stable(x: Any) -> np.ndarray:
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


with np.errstate(all="ignore"):
    _STABLE_WANT = tuple(_stable(x) for x in _STABLE_CASES)  # computed before any learner code runs


def _stable_rows_loop(x: Any) -> np.ndarray:
    rows = np.atleast_2d(x)
    out = np.array([np.exp(r - max(r)) / np.exp(r - max(r)).sum() for r in rows])
    return out.reshape(np.shape(x))


def _stable_np_max(x: Any) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def _naive(x: Any) -> np.ndarray:
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def _whole_array_max(x: Any) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum(axis=-1, keepdims=True)


def _mean_shift(x: Any) -> np.ndarray:
    e = np.exp(x - x.mean(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _min_shift(x: Any) -> np.ndarray:
    e = np.exp(x - x.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _same_numbers(got: np.ndarray, want: np.ndarray) -> bool:
    """The same array, nan and inf in the same places (a wrong softmax's output against a model of it)."""
    return got.shape == want.shape and bool(np.allclose(got, want, equal_nan=True))


def _not_whole_array(x: np.ndarray, got: np.ndarray) -> str:
    """The end of the overflow hint: the whole array's max named only when that is what was used."""
    whole = x.ndim > 1 and _same_numbers(got, _whole_array_max(x))
    if whole:
        return ", not by the whole array's largest."
    return ": yours shifts by nothing." if _same_numbers(got, _naive(x)) else "."


def _columns(x: Any) -> np.ndarray:
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def _axis_one(x: Any) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _no_keepdims(x: Any) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1))
    return e / e.sum(axis=-1)


def _in_place(x: Any) -> np.ndarray:
    x -= x.max(axis=-1, keepdims=True)  # changes the caller's array
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def _no_return(x: Any) -> None:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    e / e.sum(axis=-1, keepdims=True)


def _atleast_2d(x: Any) -> np.ndarray:
    """Right weights, but a 1-D row comes back as a (1, n) matrix."""
    return np.atleast_2d(_stable(x))


EDGES |= {
    "softmax.stable_softmax": (
        "a single row (1-D) and matrices",
        "scores near ±1000",
        "rows far apart",
        "a row with a large spread inside it",
        "one row or one column",
    )
}
SLIPS |= {
    "softmax.stable_softmax": [
        (_mean_shift, "by its mean score", "a row with a large spread inside it"),
        (_min_shift, "by its smallest score", "a row with a large spread inside it"),
        (_whole_array_max, "not by the whole array's largest", "rows far apart"),
        (_naive, "yours shifts by nothing", "scores near ±1000"),
        (_atleast_2d, "without np.atleast_2d", "a single row (1-D) and matrices"),
        (_columns, "the columns add up to 1", "one row or one column"),
    ]
}


@exercise(
    "softmax.stable_softmax",
    right=[_stable, lambda x: softmax(x, axis=-1), _stable_rows_loop, _stable_np_max],
    wrong=[
        _naive,
        _whole_array_max,
        _mean_shift,
        _min_shift,
        _columns,
        _axis_one,
        _no_keepdims,
        _in_place,
        _no_return,
        _atleast_2d,
    ],
    catches="a 1-D row returned as a (1, n) matrix, no max-subtraction (scores near ±1000 overflow or give 0/0), the whole array's max "
    "(rows 1500 apart), the mean or min instead of the max (a row [-800, 0, 800]), softmax "
    "down the columns (1-row, n×1 and non-square inputs), axis=1 (a 1-D row), no keepdims, "
    "a function that changes its input, a missing return",
    solution="shifted = x - x.max(axis=-1, keepdims=True)",
)
def _stable_softmax(fn: Any) -> None:
    for x, want in zip(_STABLE_CASES, _STABLE_WANT):
        case = f"softmax({x.tolist()})"
        got = _softmax_output(fn, x, case)
        _check_softmax_shape(got, want, x, case)
        _check_softmax_values(got, want, x, case)


def _softmax_output(fn: Any, x: np.ndarray, case: str) -> np.ndarray:
    """The learner's softmax of a copy of x, as numpy; an input it changed is named here."""
    given = x.copy()  # the learner's own copy; x stays private
    with np.errstate(all="ignore"):
        got = _call_softmax(fn, given)
        if not np.array_equal(given, x, equal_nan=True):
            raise Wrong(
                f"Your function changed its input: after {case} the scores it was given were "
                "different. Compute the shifted scores into a new array (x - ..., not x -= ...), "
                "so the caller's scores stay as they were."
            )
        return to_numpy(got, f"softmax of an input of shape {x.shape}")


def _call_softmax(fn: Any, given: np.ndarray) -> Any:
    """Call the learner's softmax; numpy's broadcast and axis errors get the slip that causes them."""
    try:
        return call(fn, given, what="your function `softmax`")
    except Wrong as hint:
        if given.ndim == 2 and "broadcast" in str(hint):
            raise Wrong(
                f"{hint} The max of each row must stay a column that lines up with its row: use keepdims=True."
            ) from None
        if given.ndim == 1 and "axis" in str(hint).lower():
            raise Wrong(
                f"{hint} A single row (1-D input) has only one axis: work along the "
                "last axis, axis=-1, so rows and matrices both work."
            ) from None
        raise


def _check_softmax_shape(got: np.ndarray, want: np.ndarray, x: np.ndarray, case: str) -> None:
    if got.shape != want.shape and got.size == want.size and np.allclose(got.reshape(want.shape), want):
        raise Wrong(
            f"The result for {case} holds the right numbers, but in shape {got.shape}: softmax keeps the "
            f"shape of its input, {x.shape}. Return it as it is, without np.atleast_2d or a reshape."
        )
    if got.shape != want.shape:
        raise Wrong(
            f"The result for {case} has shape {got.shape}, but softmax keeps the shape of its "
            f"input, {x.shape}. Use keepdims=True when you take the max and the sum of each row."
        )


def _check_softmax_values(got: np.ndarray, want: np.ndarray, x: np.ndarray, case: str) -> None:
    with np.errstate(all="ignore"):
        _check_softmax_finite(got, x, case)
        if got.ndim == 2 and np.allclose(got.sum(axis=0), 1) and not np.allclose(got.sum(axis=-1), 1):
            raise Wrong(
                f"In {case} the columns add up to 1 instead of the rows. Work along the last "
                "axis, axis=-1, in both the max and the sum."
            )
        if not np.allclose(got, want, atol=1e-9, rtol=1e-6):
            if np.allclose(got.sum(axis=-1), 1):
                raise Wrong(
                    f"The result for {case} has rows that add up to 1, but the shares are off. "
                    "Shift each row by its own maximum, with keepdims=True so it lines up with "
                    "its row."
                )
            raise Wrong(
                f"The result for {case} is not right yet: each row should become e^x divided by "
                "the row's total of e^x (shift the row by its max first)."
            )


def _check_softmax_finite(got: np.ndarray, x: np.ndarray, case: str) -> None:
    """inf or nan in the result: a shift by the mean or the min, or no shift at all."""
    if np.all(np.isfinite(got)):
        return
    for shift, shifted_by in ((_mean_shift, "its mean score"), (_min_shift, "its smallest score")):
        if _same_numbers(got, shift(x)) and not _same_numbers(got, _stable(x)):
            raise Wrong(
                f"The result for {case} contains inf or nan: you shifted each row by {shifted_by}, which "
                "leaves some exponents above 0, so e^x still overflows. Only the row's own largest "
                "score keeps every exponent at most 0."
            )
    raise Wrong(
        f"The result for {case} contains inf or nan: np.exp overflowed, or a whole row "
        "underflowed to 0. Shift each row by its own largest score before np.exp "
        f"(section 'Overflow, and the max trick'){_not_whole_array(x, got)}"
    )


# softmax.doubled -------------------------------------------------------------------
# A prediction on the running example: every scaled score doubles; which row of A stays the same?

_WORDS = words(RUNNING_SENTENCE)
_OPTIONS = list(dict.fromkeys(_WORDS))  # "the" appears twice in the sentence


def running_attention() -> tuple[np.ndarray, np.ndarray]:
    """The running example's scaled scores S/√d_k and A = softmax of them."""
    W_Q, W_K, _ = running_lenses()
    X = sentence_matrix(RUNNING_SENTENCE)
    scaled = scale(scores(X @ W_Q, X @ W_K), W_Q.shape[1])
    return scaled, softmax(scaled)


_SCALED, _A = running_attention()
_A_DOUBLED = softmax(2 * _SCALED)
_UNCHANGED = [w for w, same in zip(_WORDS, np.all(np.isclose(_A_DOUBLED, _A, atol=1e-9), axis=1)) if same]
assert len(set(_UNCHANGED)) == 1, _UNCHANGED  # the question has exactly one right answer
_DOUBLED_ANSWER = _UNCHANGED[0]
_SHARPEST = _WORDS[int(_A.max(axis=1).argmax())]


EDGES["softmax.doubled"] = ("a row of equal scores", "the sharpest row")
SLIPS["softmax.doubled"] = [
    (_SHARPEST, "its largest weight grows even closer to 1", "the sharpest row"),
    ("kitten", "its scores are not all equal", "a row of equal scores"),
    ("none", "one row does stay exactly the same", "a row of equal scores"),
]


@exercise(
    "softmax.doubled",
    right=[_DOUBLED_ANSWER, f" {_DOUBLED_ANSWER.upper()} ", f'"{_DOUBLED_ANSWER}"', _DOUBLED_ANSWER.capitalize()],
    wrong=[w for w in _OPTIONS if w not in (_DOUBLED_ANSWER, _SHARPEST)] + [a for a, _, _ in SLIPS["softmax.doubled"]],
    catches="every other word of the sentence (each has unequal scores, so its row sharpens), "
    '"none", and words outside the sentence',
    solution="A_doubled = attnlib.softmax(2 * S_scaled)",
)
def _doubled(answer: Any) -> None:
    if isinstance(answer, str):
        word = answer.strip().strip("\"'“”").lower()
        if word in ("none", "no row", "nothing", "no", "no word"):
            raise Wrong("One row does stay exactly the same. Think about a row in which doubling has no gaps to widen.")
        if word == _SHARPEST and word != _DOUBLED_ANSWER:
            raise Wrong(
                f'Row "{word}" changes: doubling every score doubles the gaps between them, and '
                "softmax amplifies gaps (section 'Three properties, and the fact behind them'), so its largest "
                "weight grows even closer to 1."
            )
        if word in _OPTIONS and word != _DOUBLED_ANSWER:
            raise Wrong(
                f'Row "{word}" changes too: its scores are not all equal, so doubling widens the '
                "gaps between them and softmax moves weight towards its larger scores."
            )
        if word not in _OPTIONS:
            raise Wrong(f"{word[:40]!r} is not a word of the sentence; the choices are: {', '.join(_OPTIONS)}.")
    expect_word(answer, _DOUBLED_ANSWER, _OPTIONS)
