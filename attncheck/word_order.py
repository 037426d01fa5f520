"""Checkers for the chapter on word order and positional encodings."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from attnlib.core import self_attention
from attnlib.data import running_lenses, sentence_matrix, words
from attnlib.positions import positional_encoding

from . import Wrong, call, counted_from_one, exercise, expect_array, to_numpy

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "word_order", "word order and positional encodings"

# --- predict where the rows of Z go when the words are shuffled (no positions) ------------

_OLD = words("the kitten sat on the mat")
_ORDER = [2, 0, 1, 3, 4, 5]  # new word k is old word _ORDER[k]
_NEW = [_OLD[k] for k in _ORDER]  # "sat the kitten on the mat"
_W = running_lenses()
_Z_OLD = self_attention(sentence_matrix(_OLD), *_W)[0]
_Z_NEW = self_attention(sentence_matrix(_NEW), *_W)[0]
_INVERSE = [int(k) for k in np.argsort(_ORDER)]


def _row_indices(answer: Any) -> list[int]:
    if isinstance(answer, (list, tuple)) and any(isinstance(a, (str, bytes)) for a in answer):
        raise Wrong('Your answer holds text; write the row numbers without quotes, e.g. 3 rather than "3".')
    got = to_numpy(answer, "your answer")
    if got.ndim != 1 or got.size != len(_OLD):
        raise Wrong(
            f"Your answer should be {len(_OLD)} row numbers, one for each row of the new Z, "
            f"but it has shape {got.shape}."
        )
    if not np.all(np.isfinite(got)) or not np.allclose(got, np.round(got)):
        raise Wrong("Your answer should hold whole row numbers such as 0 or 3.")
    rows = [round(float(v)) for v in got]
    if rows in (counted_from_one(_ORDER), counted_from_one(_INVERSE)):
        raise Wrong("Python counts rows from 0: the first row of Z is row 0, the last is row 5.")
    if any(r < 0 or r >= len(_OLD) for r in rows):
        raise Wrong(f"Every entry must be a row number of the old Z, from 0 to {len(_OLD) - 1}.")
    return rows


EDGES["word_order.shuffled_rows"] = (
    "a row follows its word",
    "for each NEW row, an old one",
    "counted from 0",
    "six rows",
)
SLIPS["word_order.shuffled_rows"] = [
    ([0, 1, 2, 3, 4, 5], "no row of Z moves", "a row follows its word"),
    ([2, 0, 1, 3, 4, 4], "follow each word to where it went", "a row follows its word"),
    (_INVERSE, "the move the other way round", "for each NEW row, an old one"),
    (counted_from_one(_ORDER), "python counts rows from 0", "counted from 0"),
    (counted_from_one(_INVERSE), "python counts rows from 0", "counted from 0"),
    ([2, 0, 1], "it has shape (3,)", "six rows"),
]


@exercise(
    "word_order.shuffled_rows",
    right=[[2, 0, 1, 3, 4, 5], (2, 4, 1, 3, 0, 5), np.array([2, 0, 1, 3, 0, 5]), [2.0, 0.0, 1.0, 3.0, 4.0, 5.0]],
    wrong=[a for a, _, _ in SLIPS["word_order.shuffled_rows"]],
    catches="nothing moves (identity), the inverse permutation, rows counted from 1, only the moved rows, "
    "a row that is not the same word",
    solution="answer = [2, 0, 1, 3, 4, 5]",
)
def _shuffled_rows(answer: Any) -> None:
    rows = _row_indices(answer)
    if rows == list(range(len(_OLD))):
        raise Wrong(
            "With that answer no row of Z moves. The words moved: without positions, does each "
            "word's row of Z stay with its word or with its place? See the section on the experiment."
        )
    if rows == _INVERSE:
        raise Wrong(
            "That is the move the other way round: for each OLD row you said where it went. "
            "The question asks, for each NEW row, which old row it equals."
        )
    for k, r in enumerate(rows):
        if not np.allclose(_Z_OLD[r], _Z_NEW[k]):
            raise Wrong(
                f'Row {k} of the new Z belongs to the word "{_NEW[k]}", but old row {r} belongs to '
                f'"{_OLD[r]}". Follow each word to where it went.'
            )


# --- one row of the sinusoidal positional encoding ---------------------------------------

# pos = 0, d_model = 2, a far position; then positions again at another width (a cache by position fails)
_CASES = [(0, 4), (1, 4), (3, 2), (7, 6), (50, 16), (2, 8), (1000, 10), (1, 6), (3, 8), (7, 2)]


def _pe_row(pos: int, d_model: int) -> np.ndarray:
    row = np.zeros(d_model)
    for i in range(d_model // 2):
        angle = pos / 10000 ** (2 * i / d_model)
        row[2 * i], row[2 * i + 1] = math.sin(angle), math.cos(angle)
    return row


_EXPECTED = [_pe_row(p, d) for p, d in _CASES]  # computed before any learner code runs


def _right_torch(pos: int, d_model: int) -> Any:
    import torch

    i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (i / d_model)
    return torch.stack([torch.sin(angle), torch.cos(angle)], dim=1).reshape(-1)


def _uses_the_library(pos: int, d_model: int) -> np.ndarray:
    """Right numbers, from the library function the statement forbids."""
    return positional_encoding(pos + 1, d_model)[pos]


def _cached_by_position(pos: int, d_model: int) -> np.ndarray:
    """Remembers each row by its position alone: the same position at another width gets the old row."""
    if pos not in _PE_MEMORY:
        _PE_MEMORY[pos] = _pe_row(pos, d_model)
    return _PE_MEMORY[pos]


_PE_MEMORY: dict = {}


def _base_1000(pos: int, d_model: int) -> np.ndarray:
    i = np.arange(0, d_model, 2)
    angle = pos / 1000 ** (i / d_model)
    return np.stack([np.sin(angle), np.cos(angle)], axis=1).reshape(-1)


def _right_list(pos: int, d_model: int) -> list[float]:
    out = []
    for i in range(d_model // 2):
        out += [math.sin(pos / 10000 ** (2 * i / d_model)), math.cos(pos / 10000 ** (2 * i / d_model))]
    return out


def _swapped(pos: int, d_model: int) -> np.ndarray:
    row = _pe_row(pos, d_model)
    return row.reshape(-1, 2)[:, ::-1].reshape(-1)


def _column_index_exponent(pos: int, d_model: int) -> np.ndarray:
    j = np.arange(d_model)
    angle = pos / 10000 ** (j / d_model)
    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))


def _i_not_2i(pos: int, d_model: int) -> np.ndarray:
    i = np.arange(d_model // 2)
    angle = pos / 10000 ** (i / d_model)
    return np.stack([np.sin(angle), np.cos(angle)], axis=1).reshape(-1)


def _halves(pos: int, d_model: int) -> np.ndarray:
    i = np.arange(0, d_model, 2)
    angle = pos / 10000 ** (i / d_model)
    return np.concatenate([np.sin(angle), np.cos(angle)])


def _times_not_divided(pos: int, d_model: int) -> np.ndarray:
    i = np.arange(0, d_model, 2)
    angle = pos * 10000 ** (i / d_model)
    return np.stack([np.sin(angle), np.cos(angle)], axis=1).reshape(-1)


def _degrees(pos: int, d_model: int) -> np.ndarray:
    i = np.arange(0, d_model, 2)
    angle = np.radians(pos / 10000 ** (i / d_model))  # the angle read as degrees
    return np.stack([np.sin(angle), np.cos(angle)], axis=1).reshape(-1)


def _off_by_one(pos: int, d_model: int) -> np.ndarray:
    return _pe_row(pos + 1, d_model)


EDGES |= {
    "word_order.pe_row": (
        "any position: 0, 1 and a far one (1000)",
        "d_model = 2 and wider",
        "the same position again at another width",
        "built without attnlib.positional_encoding",
    )
}
SLIPS |= {
    "word_order.pe_row": [
        (_uses_the_library, "which the statement forbids", "built without attnlib.positional_encoding"),
        (_cached_by_position, "keeps results between calls", "the same position again at another width"),
        (_off_by_one, "is the row of position", "any position: 0, 1 and a far one (1000)"),
        (_swapped, "sines and cosines are swapped", "d_model = 2 and wider"),
        (_halves, "all the sines first", "d_model = 2 and wider"),
        (_degrees, "treats the angle as degrees", "any position: 0, 1 and a far one (1000)"),
        (_i_not_2i, "the speeds are off", "d_model = 2 and wider"),
        (_base_1000, "recompute that pair's angle", "any position: 0, 1 and a far one (1000)"),
    ]
}
_FORBIDDEN = {"attnlib.positional_encoding": positional_encoding}


@exercise(
    "word_order.pe_row",
    right=[_pe_row, _right_torch, _right_list],
    wrong=[
        _swapped,
        _column_index_exponent,
        _i_not_2i,
        _halves,
        _times_not_divided,
        _off_by_one,
        _degrees,
        _uses_the_library,
        _cached_by_position,
        _base_1000,
    ],
    catches="attnlib.positional_encoding used (the statement forbids it), a row remembered by position alone "
    "(positions 1, 3 and 7 again at another width), base 1000, sine and cosine swapped, the exponent j/d_model per column instead of 2f/d_model per pair f, "
    "i/d_model, all sines then all cosines, multiplying by the speed, counting positions from 1, the angle taken as degrees; "
    "pos = 0, d_model = 2 and a far position 1000 are among the cases (the inputs are ints, so "
    "nothing can be changed in place)",
    solution="angle = pos / 10000 ** (2 * i / d_model)",
)
def _pe_row_checker(fn: Any) -> None:
    for k, ((pos, d_model), want) in enumerate(zip(_CASES, _EXPECTED)):
        got = call(fn, pos, d_model, what="your function `pe_row`", forbidden=_FORBIDDEN)
        got = to_numpy(got, f"pe_row({pos}, {d_model})")
        label = f"pe_row({pos}, {d_model})"
        earlier = [(d, w) for (p, d), w in zip(_CASES[:k], _EXPECTED) if p == pos and d != d_model]
        if any(got.shape == w.shape and np.allclose(got, w, atol=1e-9) for _, w in earlier):
            raise Wrong(
                f"Your {label} is the row pe_row({pos}, {earlier[0][0]}) gave earlier: your function keeps "
                "results between calls, by position alone. The row depends on d_model too: compute it "
                "from both arguments on every call."
            )
        if got.shape != want.shape:
            raise Wrong(
                f"Your {label} has shape {got.shape}, but it should be a flat row of d_model = {d_model} numbers."
            )
        if np.allclose(got, want, atol=1e-9):
            continue
        if np.allclose(got, _swapped(pos, d_model), atol=1e-9):
            raise Wrong(f"In {label} sines and cosines are swapped: the even columns 0, 2, 4, ... hold the sines.")
        if np.allclose(got, _halves(pos, d_model), atol=1e-9):
            raise Wrong(
                f"Your {label} puts all the sines first and all the cosines after. They alternate: "
                "column 2f is a sine and column 2f+1 the cosine of the same angle."
            )
        if np.allclose(got, _degrees(pos, d_model), atol=1e-9):
            raise Wrong(
                f"Your {label} treats the angle as degrees. np.sin and np.cos (and math.sin, math.cos) take "
                "radians, and the formula's angle is already in radians: see the section on the "
                "turning arrow."
            )
        if np.allclose(got, _pe_row(pos + 1, d_model), atol=1e-9):
            raise Wrong(
                f"Your {label} is the row of position {pos + 1}: positions count from 0, and pos = 0 gives "
                "sines of 0 and cosines of 0."
            )
        if np.allclose(got, _column_index_exponent(pos, d_model), atol=1e-9) or np.allclose(
            got, _i_not_2i(pos, d_model), atol=1e-9
        ):
            raise Wrong(
                f"In {label} the speeds are off: a sine and its cosine share one angle, and the exponent "
                "of 10000 uses 2f, the even column of pair f, over d_model. See the formula in the "
                "section on sinusoidal encodings."
            )
        off = np.flatnonzero(~np.isclose(got, want, atol=1e-9))
        if off.size:
            column = int(off[0])
            kind = "sine" if column % 2 == 0 else "cosine"
            raise Wrong(
                f"Your {label} differs from the formula in {off.size} of its {d_model} columns, first in "
                f"column {column}, the {kind} of pair f = {column // 2}. Recompute that pair's angle as the "
                "section on sinusoidal encodings defines it, in radians"
                + (
                    "."  # each pair is a sine and a cosine of one angle already: the placement is not the slip
                    if np.allclose(got.reshape(-1, 2) ** 2 @ np.ones(2), 1.0, atol=1e-9)
                    else ", and check which column takes its sine and which its cosine."
                )
            )
        expect_array(got, want, what=label, atol=1e-9)
