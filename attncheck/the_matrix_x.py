"""Checkers for the chapter on stacking word vectors into the matrix X."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from attnlib.data import VOCAB, sentence_matrix

from . import (
    Wrong,
    call,
    exercise,
    expect_array,
    expect_no_slip,
    expect_shape,
    expect_value_error,
    to_numpy,
    to_shape,
    torch_form,
)

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "the_matrix_x", "stacking word vectors into the matrix X"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

# --- the_matrix_x.build_x ------------------------------------------------------------------------

BUILD_SENTENCE = "a puppy ran"
_X = sentence_matrix(BUILD_SENTENCE)  # private: computed before any learner code runs
_X_WRONG_ARTICLE = sentence_matrix("the puppy ran")
_VOCAB = {word: np.array(v, dtype=float) for word, v in VOCAB.items()}


EDGES["the_matrix_x.build_x"] = ("one row per word", "the sentence's order", "embed's numbers exactly")
SLIPS["the_matrix_x.build_x"] = [
    (_X.T.copy(), "one COLUMN per word", "one row per word"),
    (_X.reshape(-1).copy(), "one long list of 12 numbers", "one row per word"),
    (_X[:2].copy(), "has 2 row(s)", "one row per word"),
    (_X[::-1].copy(), "the right rows, in the wrong order", "the sentence's order"),
    (_X_WRONG_ARTICLE, "rows 1 and 2 are right, but row 0 is not", "embed's numbers exactly"),
    (_X.round(0), "rounded to whole numbers", "embed's numbers exactly"),
]


@exercise(
    "the_matrix_x.build_x",
    right=[_X.copy(), _X.tolist(), tuple(map(tuple, _X.tolist())), torch_form(_X, "float32")],
    wrong=[a for a, _, _ in SLIPS["the_matrix_x.build_x"]],
    catches="one column per word (transposed), one flat list, rows in the wrong order, 'the' for 'a', "
    "a missing word, numbers rounded",
    solution='answer = np.stack([attnlib.embed(word) for word in "a puppy ran".split()])',
)
def _build_x(answer: Any) -> None:
    got = to_numpy(answer, "Your X")
    if got.ndim == 1 and got.size == _X.size:
        raise Wrong(
            f"Your X is one long list of {got.size} numbers. Each word's vector should be one ROW, "
            "so X has one row per word (section 'A sentence is several vectors')."
        )
    if got.shape == _X.T.shape:
        raise Wrong(
            f"Your X has shape {got.shape}: one COLUMN per word. In this course each word is a ROW, "
            "so the shape is (n, d_model)."
        )
    if got.ndim == 2 and got.shape[1] == _X.shape[1] and got.shape[0] != _X.shape[0]:
        raise Wrong(f"Your X has {got.shape[0]} row(s), but the sentence has {_X.shape[0]} words: one row per word.")
    if got.shape == _X.shape and not np.allclose(got, _X):
        for order in ([2, 1, 0], [1, 0, 2], [0, 2, 1], [1, 2, 0], [2, 0, 1]):
            if np.allclose(got, _X[order]):
                raise Wrong(
                    "The right rows, in the wrong order. Row 0 must be the first word, row 1 the second, and so on."
                )
        if np.allclose(got[1:], _X[1:]):
            raise Wrong(
                "Rows 1 and 2 are right, but row 0 is not: it should be the vector of the first word "
                "of the sentence, exactly as written."
            )
        if np.allclose(got, np.round(_X), atol=1e-9):
            raise Wrong("The numbers look rounded to whole numbers; keep every vector exactly as embed gives it.")
        for i, (row, want) in enumerate(zip(got, _X)):
            other = next((w for w, v in _VOCAB.items() if np.allclose(row, v) and not np.allclose(v, want)), None)
            if other is not None:
                raise Wrong(
                    f"Row {i} is the vector of {other!r}, a different word. Row {i} must be word {i} "
                    "of the sentence, exactly as written."
                )
    expect_array(got, _X, what="Your X")


# --- the_matrix_x.shapes_after_edit ----------------------------------------------------------------

# n = 10 words in a model with d_model = 768; then add 2 words; then remove 3 from the original.
EDIT_SHAPES = [(10, 768), (12, 768), (7, 768)]


EDGES["the_matrix_x.shapes_after_edit"] = (
    "rows are words, columns d_model",
    "(c) from the original 10 words",
    "three shapes",
)
_EDIT_WHOLE = [  # slips of the whole answer, diagnosed before its shapes, with their hints
    (
        [(768, 10), (768, 12), (768, 7)],
        "Every shape has its numbers in the wrong order: rows (words) come first, then columns.",
        "rows are words, columns d_model",
    ),
    (
        [(11, 769), (13, 769), (8, 769)],
        "Every number of every shape is one too many: a shape counts the rows and the columns.",
        "rows are words, columns d_model",
    ),
]
SLIPS["the_matrix_x.shapes_after_edit"] = [
    *_EDIT_WHOLE,
    ([(10, 768), (10, 770), (10, 765)], "never changes d_model", "rows are words, columns d_model"),
    ([(10, 768), (12, 768), (9, 768)], "not from the longer one", "(c) from the original 10 words"),
    ([(10, 768), (11, 768), (7, 768)], "how many rows do two more words add", "rows are words, columns d_model"),
    ([(10, 768), (12, 768)], "give a list of THREE shapes", "three shapes"),
]


@exercise(
    "the_matrix_x.shapes_after_edit",
    right=[
        list(EDIT_SHAPES),
        [list(s) for s in EDIT_SHAPES],
        tuple(EDIT_SHAPES),
        [tuple(np.int64(d) for d in s) for s in EDIT_SHAPES],
    ],
    wrong=[a for a, _, _ in SLIPS["the_matrix_x.shapes_after_edit"]],
    catches="words added to the columns, rows and columns swapped, (c) taken from the longer sentence, "
    "a missing part, one word added instead of two",
    solution="answer = [(10, d_model), (10 + 2, d_model), (10 - 3, d_model)]",
)
def _shapes_after_edit(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        raise Wrong("Give a list of THREE shapes, one per question: [(?, ?), (?, ?), (?, ?)].")
    expect_no_slip(answer, _EDIT_WHOLE)  # the whole answer before its shapes
    for part, got, want in zip("abc", answer, EDIT_SHAPES):
        got = to_shape(got, f"Shape ({part})", len(want))
        if len(got) == 2:
            if got == (want[1], want[0]):
                raise Wrong(
                    f"Shape ({part}) is the right numbers in the wrong order: rows (words) come first, then columns."
                )
            if 768 not in got:
                raise Wrong(
                    f"Shape ({part}): adding or removing words never changes d_model; it changes the number of rows."
                )
            if part == "c" and got == (9, 768):
                raise Wrong(
                    "Shape (c): remove 3 words from the ORIGINAL sentence of 10 words, not from the longer one."
                )
            if part == "b" and got != want:
                raise Wrong("Shape (b): how many rows do two more words add?")
        expect_shape(got, want, what=f"Shape ({part})")


# --- the_matrix_x.make_x -----------------------------------------------------------------------------


def _make_x(vectors: Any) -> np.ndarray:
    lengths = [len(v) for v in vectors]
    if len(set(lengths)) > 1:
        raise ValueError(f"make_X: every vector needs the same length, but the lengths are {lengths}")
    return np.array(vectors, dtype=float)


def _make_x_stack_after_check(vectors: Any) -> np.ndarray:
    for v in vectors:
        if len(v) != len(vectors[0]):
            raise ValueError(f"vector of length {len(v)} does not match the first, of length {len(vectors[0])}")
    return np.stack([np.asarray(v, dtype=float) for v in vectors])


def _make_x_via_set(vectors: Any) -> Any:
    lengths = {len(v) for v in vectors}
    if len(lengths) != 1:
        raise ValueError(f"vectors of different lengths: {sorted(lengths)}")
    return [list(map(float, v)) for v in vectors]


def _make_x_columns(vectors: Any) -> np.ndarray:
    return np.array(vectors, dtype=float).T


def _make_x_flat(vectors: Any) -> np.ndarray:
    return np.concatenate([np.asarray(v, dtype=float) for v in vectors])


def _make_x_no_return(vectors: Any) -> None:
    np.array(vectors, dtype=float)


def _make_x_silent_message(vectors: Any) -> np.ndarray:
    return np.stack([np.asarray(v, dtype=float) for v in vectors])  # numpy's message names no lengths


def _make_x_first_vs_last(vectors: Any) -> np.ndarray:
    if len(vectors[0]) != len(vectors[-1]):
        raise ValueError(f"lengths {len(vectors[0])} and {len(vectors[-1])} differ")
    return np.array(vectors, dtype=float)


def _make_x_first_two(vectors: Any) -> np.ndarray:
    if len(vectors) > 1 and len(vectors[0]) != len(vectors[1]):
        raise ValueError(f"lengths {len(vectors[0])} and {len(vectors[1])} differ")
    return np.array(vectors, dtype=float)


def _make_x_wrong_error(vectors: Any) -> np.ndarray:
    lengths = [len(v) for v in vectors]
    if len(set(lengths)) > 1:
        raise TypeError(f"the lengths are {lengths}")
    return np.array(vectors, dtype=float)


def _make_x_mutates(vectors: Any) -> np.ndarray:
    """Zeroes the first vector it was given, then stacks what is left."""
    lengths = [len(v) for v in vectors]
    if len(set(lengths)) > 1:
        raise ValueError(f"the lengths are {lengths}")
    vectors[0][:] = [0.0] * len(vectors[0])
    return np.array(vectors, dtype=float)


# Right-shaped inputs: one vector, more rows than columns, more columns than rows, whole numbers, square.
MAKE_X_CASES = [
    [[0.9, 0.0, 0.3, 0.1]],
    [[3.0, 0.5], [2.8, 1.0], [0.5, 3.0]],
    [[1.0, -2.0, 0.0, 4.0, 5.5], [0.1, 0.2, 0.3, 0.4, 0.5]],
    [[1, 2], [3, 4]],
]
_MAKE_X_WANT = [np.array(v, dtype=float) for v in MAKE_X_CASES]


# Ragged inputs, the odd vector first, in the middle, last, and between many: its length and the
# others' never equal the number of vectors, so a message must name the lengths themselves.
def _vec(length: int, start: float) -> list[float]:
    return [start + 0.1 * k for k in range(length)]


RAGGED_CASES = [
    [_vec(6, 1.0), _vec(4, 2.0), _vec(4, 3.0)],  # odd one first
    [_vec(4, 1.0), _vec(6, 2.0), _vec(4, 3.0)],  # in the middle
    [_vec(4, 1.0), _vec(4, 2.0), _vec(6, 3.0)],  # last
    [_vec(4, 1.0), _vec(4, 2.0), _vec(4, 3.0), _vec(6, 4.0), _vec(4, 5.0)],  # one of five, not at an end
    [_vec(7, 1.0), _vec(4, 2.0)],  # just two
]
_POSITION = ["first", "in the middle", "last", "fourth of five", "second of two"]
_RAGGED_LENGTHS = [([len(v) for v in case]) for case in RAGGED_CASES]


EDGES |= {
    "the_matrix_x.make_x": (
        "one vector and several",
        "the odd length first, in the middle or last",
        "a ValueError that names the lengths",
    )
}
SLIPS |= {
    "the_matrix_x.make_x": [
        (_make_x_columns, "each vector became a column", "one vector and several"),
        (_make_x_flat, "one flat list", "one vector and several"),
        (_make_x_silent_message, "does not name the lengths", "the odd length first, in the middle or last"),
        (_make_x_first_vs_last, "does not name the lengths", "the odd length first, in the middle or last"),
        (_make_x_first_two, "does not name the lengths", "the odd length first, in the middle or last"),
        (_make_x_wrong_error, "raised TypeError", "a ValueError that names the lengths"),
    ]
}


@exercise(
    "the_matrix_x.make_x",
    right=[_make_x, _make_x_stack_after_check, _make_x_via_set],
    wrong=[
        _make_x_columns,
        _make_x_flat,
        _make_x_no_return,
        _make_x_silent_message,
        _make_x_first_vs_last,
        _make_x_first_two,
        _make_x_wrong_error,
        _make_x_mutates,
    ],
    catches="vectors as columns, one flat list, no return, numpy's own message (names no lengths), "
    "a length check that compares only the first and last or the first two vectors, "
    "TypeError instead of ValueError, a function that zeroes its input",
    solution="if len(set(lengths)) > 1:",
)
def _make_x_check(fn: Any) -> None:
    for vectors, want in zip(MAKE_X_CASES, _MAKE_X_WANT):
        got = call(fn, [list(v) for v in vectors], what="your function `make_X`")
        got_arr = to_numpy(got, "What `make_X` returned")
        size = f"{len(vectors)} vector(s) of length {len(vectors[0])}"
        if got_arr.ndim == 1:
            raise Wrong(
                f"For {size} `make_X` returned one flat list of {got_arr.size} numbers; "
                "each vector should become one ROW."
            )
        if got_arr.shape == want.T.shape and want.shape[0] != want.shape[1]:
            raise Wrong(
                f"For {size} `make_X` returned shape {got_arr.shape}: each vector became a COLUMN. "
                "Each vector should become one ROW."
            )
        square = want.shape[0] == want.shape[1]
        if square and got_arr.shape == want.shape and np.allclose(got_arr, want.T) and not np.allclose(want, want.T):
            raise Wrong(f"For {size} `make_X` returned the vectors as columns. Each vector should become one ROW.")
        expect_array(got, want, what=f"For {size}, the result")
    for vectors, lengths, where in zip(RAGGED_CASES, _RAGGED_LENGTHS, _POSITION):
        what = f"vectors of lengths {lengths} (the odd one {where})"
        message = expect_value_error(fn, vectors, what="`make_X`", inputs=what, naming="the lengths")
        numbers = set(re.findall(r"\d+", message))
        if not {str(n) for n in set(lengths)} <= numbers:
            shown = message[:80] + ("…" if len(message) > 80 else "")
            raise Wrong(
                f"For {what} `make_X` raised ValueError, but its message ({shown!r}) does not name "
                "the lengths. Put them in the message."
            )
