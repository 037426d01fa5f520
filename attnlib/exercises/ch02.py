"""Checkers for chapter 2: stacking word vectors into the matrix X."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import Wrong, call, exercise, expect_array, expect_shape, to_numpy
from ..data import sentence_matrix

BUILD_SENTENCE = "a puppy ran"
_X = sentence_matrix(BUILD_SENTENCE)


@exercise("ch02.build_x", right=[_X, _X.tolist()],
          wrong=[_X.T, _X.reshape(-1), _X[::-1], sentence_matrix("the puppy ran")])
def _build_x(answer: Any) -> None:
    got = to_numpy(answer, "your X")
    if got.ndim == 1 and got.size == _X.size:
        raise Wrong(f"your X is one long list of {got.size} numbers. Stack the word vectors as ROWS "
                    "(np.stack or np.array of a list of vectors), so X has one row per word.")
    if got.shape == _X.T.shape:
        raise Wrong(f"your X has shape {got.shape}: one COLUMN per word. In this course each word is a ROW, "
                    "so the shape is (n, d_model).")
    if got.shape == _X.shape and not np.allclose(got, _X):
        for order in ([2, 1, 0], [1, 0, 2], [0, 2, 1], [1, 2, 0], [2, 0, 1]):
            if np.allclose(got, _X[order]):
                raise Wrong("the right rows, in the wrong order. Row 0 must be the first word, "
                            "row 1 the second, and so on.")
    expect_array(got, _X, what="your X")


# n = 10 words in a model with d_model = 768; then add 2 words; then remove 3 from the original.
EDIT_SHAPES = [(10, 768), (12, 768), (7, 768)]


@exercise("ch02.shapes_after_edit", right=[EDIT_SHAPES, [list(s) for s in EDIT_SHAPES]],
          wrong=[[(10, 768), (10, 770), (10, 765)], [(768, 10), (768, 12), (768, 7)],
                 [(10, 768), (12, 768), (9, 768)], [(10, 768), (12, 768)]])
def _shapes_after_edit(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        raise Wrong("give a list of THREE shapes, one per question: [(?, ?), (?, ?), (?, ?)].")
    for part, got, want in zip("abc", answer, EDIT_SHAPES):
        if isinstance(got, (list, tuple)) and len(got) == 2 and all(isinstance(d, int) for d in got):
            if 768 not in got:
                raise Wrong(f"({part}): adding or removing words never changes d_model; "
                            "it changes the number of rows.")
            if part == "c" and tuple(got) == (9, 768):
                raise Wrong("(c): remove 3 words from the ORIGINAL sentence of 10 words, "
                            "not from the longer one.")
            if part == "b" and tuple(got) == (10, 768):
                raise Wrong("(b): two more words means two more rows.")
        expect_shape(got, want, what=f"shape ({part})")


def _make_x(vectors: Any) -> np.ndarray:
    lengths = [len(v) for v in vectors]
    if len(set(lengths)) > 1:
        raise ValueError(f"make_X: every vector needs the same length, but the lengths are {lengths}")
    return np.array([[float(x) for x in v] for v in vectors])


def _make_x_columns(vectors: Any) -> np.ndarray:
    return np.array(vectors, dtype=float).T


def _make_x_flat(vectors: Any) -> np.ndarray:
    return np.concatenate([np.asarray(v, dtype=float) for v in vectors])


def _make_x_no_return(vectors: Any) -> None:
    np.array(vectors, dtype=float)


def _make_x_silent_message(vectors: Any) -> np.ndarray:
    return np.stack([np.asarray(v, dtype=float) for v in vectors])  # numpy's message names no lengths


MAKE_X_CASES = [
    [[0.9, 0.0, 0.3, 0.1]],
    [[3.0, 0.5], [2.8, 1.0], [0.5, 3.0]],
    [[1.0, -2.0, 0.0, 4.0, 5.5], [0.1, 0.2, 0.3, 0.4, 0.5]],
]
RAGGED = [[0.1, 0.1, 0.1, 0.1], [3.0, 0.5, 1.0, 2.0, 7.0]]  # lengths 4 and 5


@exercise("ch02.make_x", right=[_make_x],
          wrong=[_make_x_columns, _make_x_flat, _make_x_no_return, _make_x_silent_message])
def _make_x_check(fn: Any) -> None:
    for vectors in MAKE_X_CASES:
        want = np.array(vectors)
        got = call(fn, [list(v) for v in vectors], what="your function `make_X`")
        got_arr = to_numpy(got, "what `make_X` returned")
        if got_arr.ndim == 1:
            raise Wrong(f"for {len(vectors)} vector(s) `make_X` returned one flat list of {got_arr.size} numbers; "
                        "each vector should become one ROW.")
        if got_arr.shape == want.T.shape and want.shape[0] != want.shape[1]:
            raise Wrong(f"for {len(vectors)} vector(s) of length {len(vectors[0])} `make_X` returned shape "
                        f"{got_arr.shape}: each vector became a COLUMN. Each vector should become one ROW.")
        expect_array(got_arr, want, what=f"for {len(vectors)} vector(s) of length {len(vectors[0])}, the result")
    try:
        fn([list(v) for v in RAGGED])
    except ValueError as err:
        message = str(err)
        if "4" not in message or "5" not in message:
            raise Wrong("for vectors of lengths 4 and 5 `make_X` raised ValueError, but its message "
                        f"({message[:80]!r}) does not name both lengths. Put the lengths in the message.") from None
        return
    except Exception as exc:
        raise Wrong(f"for vectors of lengths 4 and 5 `make_X` raised {type(exc).__name__}; "
                    "raise ValueError instead, naming both lengths.") from None
    raise Wrong("for vectors of lengths 4 and 5 `make_X` returned a result, but such vectors cannot be "
                "rows of one matrix: raise ValueError naming both lengths.")
