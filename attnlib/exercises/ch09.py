"""Checkers for chapter 9: softmax and the attention matrix A."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import Wrong, call, exercise, expect_array, expect_word, to_numpy
from ..core import scale, scores, softmax
from ..data import random_weights, sentence_matrix, words

# ch09.by_hand -----------------------------------------------------------------

BY_HAND_SCORES = np.array([0.0, 2.0, -1.0])
BY_HAND = np.exp(BY_HAND_SCORES) / np.exp(BY_HAND_SCORES).sum()


@exercise("ch09.by_hand", right=[BY_HAND, [0.114, 0.844, 0.042], BY_HAND.tolist()],
          wrong=[np.exp(BY_HAND_SCORES), BY_HAND_SCORES / BY_HAND_SCORES.sum(), np.sort(BY_HAND),
                 [1 / 3, 1 / 3, 1 / 3]])
def _by_hand(answer: Any) -> None:
    got = to_numpy(answer, "your weights")
    if got.shape == BY_HAND.shape and np.all(np.isfinite(got)):
        if np.any(got < 0):
            raise Wrong("a weight is negative. e to any power is positive, so every softmax weight is too: "
                        "take e^x of each score before dividing.")
        if not np.isclose(got.sum(), 1.0, atol=2e-3):
            raise Wrong(f"your weights add up to {got.sum():.4g}, not 1. After taking e^x of each score, "
                        "divide each one by their total.")
        if np.allclose(got, np.sort(BY_HAND), atol=1e-3) and not np.allclose(got, BY_HAND, atol=1e-3):
            raise Wrong("the right numbers in the wrong order. Weight j belongs to score j: "
                        "keep the order of the scores.")
        if np.allclose(got, 1 / 3, atol=1e-3):
            raise Wrong("equal shares ignore the scores. A bigger score must get a bigger share.")
    expect_array(answer, BY_HAND, what="your weights", atol=1e-3, rtol=0)


# ch09.stable_softmax ----------------------------------------------------------

STABLE_CASES = [
    np.array([1.0, 2.0, 3.0]),
    np.array([1000.0, 1001.0, 1002.0]),
    np.array([-1000.0, -1001.0, -1002.0]),
    np.array([5.0]),
    np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, 1000.0]]),
    np.array([[0.0, 1.0, 2.0], [5.0, 3.0, 1.0], [-1.0, 0.0, 4.0]]),
    np.array([[2.0, -1.0], [0.5, 0.5], [3.0, 1.0], [-2.0, 0.0]]),
    np.array([[1000.0, -1000.0, 0.0, 999.0], [-500.0, -501.0, -502.0, -503.0]]),
]


def _stable(x: Any) -> np.ndarray:
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def _naive(x: Any) -> np.ndarray:
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def _whole_array_max(x: Any) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum(axis=-1, keepdims=True)


def _columns(x: Any) -> np.ndarray:
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def _no_keepdims(x: Any) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1))
    return e / e.sum(axis=-1)


def _no_return(x: Any) -> None:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    e / e.sum(axis=-1, keepdims=True)


@exercise("ch09.stable_softmax", right=[_stable, lambda x: softmax(x, axis=-1)],
          wrong=[_naive, _whole_array_max, _columns, _no_keepdims, _no_return])
def _stable_softmax(fn: Any) -> None:
    for x in STABLE_CASES:
        want = _stable(x)
        with np.errstate(all="ignore"):
            try:
                got = call(fn, x.copy(), what="your function `softmax`")
            except Wrong as hint:
                if x.ndim == 2 and "broadcast" in str(hint):
                    raise Wrong(f"{hint} The max of each row must stay a column that lines up with "
                                "its row: use keepdims=True.") from None
                raise
            got = to_numpy(got, f"softmax of an input of shape {x.shape}")
        case = f"softmax({x.tolist()})"
        if got.shape != want.shape:
            raise Wrong(f"the result for {case} has shape {got.shape}, but softmax keeps the shape of its input, {x.shape}. "
                        "Use keepdims=True when you take the max and the sum of each row.")
        if not np.all(np.isfinite(got)):
            if x.ndim == 1 or np.abs(x).max() > 100:
                raise Wrong(f"the result for {case} contains inf or nan: np.exp overflowed or a whole row underflowed to 0. "
                            "Subtract each row's own largest score (x.max(axis=-1, keepdims=True)) "
                            "before np.exp.")
        if got.ndim == 2 and np.allclose(got.sum(axis=0), 1) and not np.allclose(got.sum(axis=-1), 1):
            raise Wrong(f"in {case} the columns add up to 1 instead of the rows. Work along the last axis: "
                        "axis=-1 in both the max and the sum.")
        if not np.allclose(got, want, atol=1e-9, rtol=1e-6):
            if not np.all(np.isfinite(got)):
                raise Wrong(f"the result for {case} contains inf or nan. Subtract each row's own largest score "
                            "(x.max(axis=-1, keepdims=True)), not the largest of the whole array.")
            if np.allclose(got.sum(axis=-1), 1):
                raise Wrong(f"the result for {case} has rows that add up to 1, but the shares are off. Subtract each "
                            "row's own maximum, with keepdims=True so it lines up with its row.")
            raise Wrong(f"the result for {case} is not right yet: each row should become e^x divided by the row's total "
                        "of e^x (shift the row by its max first).")


# ch09.most_attended -------------------------------------------------------------

SENTENCE = "a puppy drove the car"
D_K = 4
SEED = 2


def attention_weights() -> np.ndarray:
    """A = softmax(QKᵀ/√d_k) for the chapter 9 sentence, with seeded random lenses."""
    X = sentence_matrix(SENTENCE)
    W_Q, W_K, _ = random_weights(X.shape[1], D_K, seed=SEED)
    return softmax(scale(scores(X @ W_Q, X @ W_K), D_K))


_WORDS = words(SENTENCE)
_ROW = _WORDS.index("drove")
_A = attention_weights()
_ANSWER = _WORDS[int(_A[_ROW].argmax())]
_COLUMN_MISTAKE = _WORDS[int(_A[:, _ROW].argmax())]
_SECOND = _WORDS[int(np.argsort(_A[_ROW])[-2])]


@exercise("ch09.most_attended", right=[_ANSWER, f" {_ANSWER.upper()} "],
          wrong=["drove", _COLUMN_MISTAKE, _SECOND])
def _most_attended(answer: Any) -> None:
    if isinstance(answer, str):
        word = answer.strip().strip("\"'“”").lower()
        if word == "drove" and _ANSWER != "drove":
            raise Wrong("a word need not attend most to itself. Read the row of \"drove\" and find its "
                        "largest weight.")
        if word == _COLUMN_MISTAKE and word != _ANSWER:
            raise Wrong(f"\"{word}\" is the word that attends most TO \"drove\": you read down a column. "
                        "Row i holds the weights of word i, so read along the row of \"drove\".")
        if word == _SECOND and word != _ANSWER:
            raise Wrong(f"\"{word}\" gets the second-largest weight in that row. Compare the numbers "
                        "in the row again, to three decimals.")
    expect_word(answer, _ANSWER, _WORDS)
