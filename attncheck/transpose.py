"""Checkers for the chapter on the transpose.

Generic matrices are P, M and N (A is the attention matrix of the softmax chapter). Every expected
answer is computed here, at import, from private constants.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from attnlib.course import chapter_ref
from attnlib.data import VOCAB, running_lenses

from . import (
    Wrong,
    counted_from_one,
    exercise,
    expect_array,
    expect_shape,
    expect_structure,
    normal_word,
    show,
    to_count,
    to_numpy,
    to_shape,
    torch_form,
)

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "transpose", "the transpose"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

SECTION_ROWS = "the section “Rows become columns”"
SECTION_LEGAL = "the section “Why QK is illegal and QKᵀ is legal”"

# --- transpose.by_hand: transpose a 2×3 matrix by hand ----------------------------------------

_P = np.array([[2.0, 0.0, 7.0], [-1.0, 5.0, 3.0]])
_P_T = _P.T.copy()  # [[2, -1], [0, 5], [7, 3]]
_P_RESHAPED = _P.reshape(3, 2)  # the numbers poured in reading order
_P_COLUMNS_SWAPPED = _P_T[:, ::-1].copy()  # [[-1, 2], [5, 0], [3, 7]]
_P_ROTATED = np.rot90(_P).copy()  # a quarter turn, not a reflection: [[7, 3], [0, 5], [2, -1]]


EDGES["transpose.by_hand"] = ("row i becomes column i", "a reflection, not a turn", "signs kept", "a 3×2 grid")
SLIPS["transpose.by_hand"] = [
    (_P.tolist(), "that is P unchanged", "row i becomes column i"),
    (_P_RESHAPED.tolist(), "that is a reshape, not a transpose", "row i becomes column i"),
    (_P_COLUMNS_SWAPPED.tolist(), "the columns are in the wrong order", "row i becomes column i"),
    (_P_ROTATED.tolist(), "a quarter turn, not reflected", "a reflection, not a turn"),
    ((-_P_T).tolist(), "the opposite sign", "signs kept"),
    ([[2, -1], [0, 5], [7, -3]], "sign included", "signs kept"),
    ([2, -1, 0, 5, 7, 3], "shape (6,)", "a 3×2 grid"),
]


@exercise(
    "transpose.by_hand",
    right=[
        [[2, -1], [0, 5], [7, 3]],
        ((2.0, -1.0), (0.0, 5.0), (7.0, 3.0)),
        _P_T.copy(),
        torch_form(_P_T, "float32"),
        torch_form(_P_T, "bfloat16"),
    ],
    wrong=[[["2", "-1"], ["0", "5"], ["7", "3"]], *(a for a, _, _ in SLIPS["transpose.by_hand"])],
    catches="P unchanged, a reshape (numbers poured in reading order), the columns in the wrong order, "
    "a quarter turn instead of a reflection, a lost minus sign, the numbers flat, numbers as text",
    solution="answer = [[2, -1],",
)
def _by_hand(answer: Any) -> None:
    got = to_numpy(answer)
    if got.shape == (2, 3):
        if np.allclose(got, _P):
            raise Wrong(
                "That is P unchanged. Transposing turns each row of P into a column, so the answer has "
                "3 rows and 2 columns."
            )
        raise Wrong("Your answer has P's shape, 2×3. A 2×3 matrix has a 3×2 transpose: rows and columns swap.")
    if got.ndim == 1 or 1 in got.shape:
        raise Wrong(
            f"Your answer has shape {got.shape}: give the six numbers as a grid, a list of 3 rows with 2 numbers each."
        )
    if got.shape != (3, 2):
        raise Wrong(f"Your answer has shape {got.shape}, but the transpose of a 2×3 matrix is 3×2.")
    if np.allclose(got, _P_T):
        return
    if np.allclose(got, _P_RESHAPED):
        raise Wrong(
            "You read P's numbers in order and poured them into 3 rows of 2: that is a reshape, not a "
            f"transpose. Row 0 of P should stand up as column 0 of the answer; see {SECTION_ROWS}."
        )
    if np.allclose(got, _P_COLUMNS_SWAPPED):
        raise Wrong(
            "The columns are in the wrong order. Row 0 of P becomes column 0 (the left one), row 1 becomes column 1."
        )
    if np.allclose(got, _P_ROTATED):
        raise Wrong(
            "That is P turned a quarter turn, not reflected: the rows come out in reverse order. "
            "In a transpose the number at row i, column j moves to row j, column i."
        )
    expect_structure(got, _P_T, "Your answer", values=True)
    bad = [(int(i), int(j)) for i, j in np.argwhere(~np.isclose(got, _P_T))]
    raise Wrong(
        f"The shape is right, but the entr{'ies' if len(bad) > 1 else 'y'} at "
        f"{', '.join(map(str, bad))} {'are' if len(bad) > 1 else 'is'} off. Entry (j, i) of the "
        "answer is entry (i, j) of P, copied exactly, sign included."
    )


# --- transpose.transpose_order: predict the shapes that force (MN)ᵀ = NᵀMᵀ --------------------

_M_SHAPE, _N_SHAPE = (2, 3), (3, 4)
_MN_T_SHAPE = (_N_SHAPE[1], _M_SHAPE[0])  # (MN)ᵀ: 4×2
_NT_MT_SHAPE = (_N_SHAPE[1], _M_SHAPE[0])  # (4×3)(3×2): 4×2


def _is_illegal(item: Any) -> bool:
    return isinstance(item, str) and normal_word(item) == "illegal"


_SHAPE_TEXT = re.compile(r"\s*[\(\[]?\s*\d+\s*(?:,|x|×|\*|by)\s*\d+\s*[\)\]]?\s*", re.IGNORECASE)


def _shape_as_text(item: Any, which: str) -> None:
    """Raise Wrong when a shape was given as text, "(4, 2)", rather than as numbers."""
    if isinstance(item, str) and _SHAPE_TEXT.fullmatch(item):
        raise Wrong(
            f"Your answer for {which} is the text {show(item)}: give a shape as numbers in a tuple, "
            "such as (2, 7), without quotes."
        )


EDGES["transpose.transpose_order"] = ("the transpose swaps rows and columns", "inner numbers decide", "three answers")
SLIPS["transpose.transpose_order"] = [
    ([(2, 4), "illegal", (4, 2)], "is the shape of MN", "the transpose swaps rows and columns"),
    ([(4, 2), (3, 3), (4, 2)], "Mᵀ first, and compare", "inner numbers decide"),
    ([(4, 2), (4, 2), "illegal"], "Mᵀ first, and compare", "inner numbers decide"),
    ([(4, 2), "illegal", "illegal"], "Nᵀ first, and compare", "inner numbers decide"),
    ([(4, 2), "illegal"], "give a list of three answers", "three answers"),
    ([(4, 2), "no", (4, 2)], 'write the word "illegal"', "three answers"),
    (["(4, 2)", "illegal", (4, 2)], "your answer for (MN)ᵀ is the text", "three answers"),
    ([(4, 2), "illegal", "4 x 2"], "your answer for NᵀMᵀ is the text", "three answers"),
]


@exercise(
    "transpose.transpose_order",
    right=[
        [(4, 2), "illegal", (4, 2)],
        ((4, 2), "Illegal", (4, 2)),
        [[4, 2], " illegal ", [4, 2]],
        [np.array([4, 2]), "illegal", (np.int64(4), np.int64(2))],
    ],
    wrong=[[(4, 2), (3, 4), (4, 2)], *(a for a, _, _ in SLIPS["transpose.transpose_order"])],
    catches="MN's shape not transposed, MᵀNᵀ taken as legal (3×3 or 3×4), the old order taken as the "
    "right one, NᵀMᵀ called illegal too, a missing answer, a word other than 'illegal', a shape written as text",
    solution='answer = [(4, 2), "illegal", (4, 2)]',
)
def _transpose_order(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        raise Wrong(
            "Give a list of three answers: the shape of (MN)ᵀ, then MᵀNᵀ and NᵀMᵀ, each a shape "
            'such as (2, 7) or the word "illegal".'
        )
    mn_t, mt_nt, nt_mt = answer
    _shape_as_text(mn_t, "(MN)ᵀ")
    if isinstance(mn_t, str):
        raise Wrong("(MN)ᵀ is legal: MN is a legal product, and every matrix has a transpose. Give its shape.")
    if to_shape(mn_t, "your shape of (MN)ᵀ") == (_M_SHAPE[0], _N_SHAPE[1]):
        raise Wrong("(2, 4) is the shape of MN. Its transpose swaps rows and columns.")
    expect_shape(mn_t, _MN_T_SHAPE, "your shape of (MN)ᵀ")
    if not _is_illegal(mt_nt):
        if isinstance(mt_nt, str) and not _SHAPE_TEXT.fullmatch(mt_nt):  # a shape as text is a shape
            raise Wrong('For a product that cannot be computed, write the word "illegal".')
        raise Wrong(
            "MᵀNᵀ: write the two shapes side by side, Mᵀ first, and compare the inner numbers "
            f"({chapter_ref('matrix_multiplication')})."
        )
    if _is_illegal(nt_mt):
        raise Wrong("NᵀMᵀ: write the two shapes side by side, Nᵀ first, and compare the inner numbers again.")
    _shape_as_text(nt_mt, "NᵀMᵀ")
    if isinstance(nt_mt, str):
        raise Wrong('For NᵀMᵀ give a shape such as (2, 7), or the word "illegal".')
    expect_shape(nt_mt, _NT_MT_SHAPE, "your shape of NᵀMᵀ")


# --- transpose.trap: when n = d_k, QK runs and gives wrong numbers ------------------------------

_TRAP_WORDS = ["the", "kitten"]
_W_Q, _W_K, _ = running_lenses()
_TRAP_X = np.array([VOCAB[w] for w in _TRAP_WORDS], dtype=float)
_TRAP_Q, _TRAP_K = _TRAP_X @ _W_Q, _TRAP_X @ _W_K
_TRAP_QKT = _TRAP_Q @ _TRAP_K.T  # cell (i, j): word i's query times word j's key
_TRAP_QK = _TRAP_Q @ _TRAP_K  # legal because n = d_k = 2, and wrong


EDGES["transpose.trap"] = ("n = d_k, so QK runs", "row i a query, column j a key", "a 2×2 table")
SLIPS["transpose.trap"] = [
    (_TRAP_QK.tolist(), "that is Q @ K. It ran", "n = d_k, so QK runs"),
    ((_TRAP_Q.T @ _TRAP_K).tolist(), "that is Qᵀ @ K", "n = d_k, so QK runs"),
    ((_TRAP_K @ _TRAP_Q.T).tolist(), "rows and columns are swapped", "row i a query, column j a key"),
    ((_TRAP_Q @ _TRAP_Q.T).tolist(), "use Q for the rows and K for the columns", "row i a query, column j a key"),
    ((_TRAP_X @ _TRAP_X.T).tolist(), "use Q for the rows and K for the columns", "row i a query, column j a key"),
    (_TRAP_QKT.flatten().tolist(), "arranged in shape (4,)", "a 2×2 table"),
]


@exercise(
    "transpose.trap",
    right=[
        _TRAP_QKT.copy(),
        _TRAP_QKT.tolist(),
        tuple(map(tuple, _TRAP_QKT.tolist())),
        torch_form(_TRAP_QKT, "float32"),
    ],
    wrong=[a for a, _, _ in SLIPS["transpose.trap"]],
    catches="QK (legal when n = d_k, and wrong), KQᵀ (queries and keys swapped), QᵀK, queries against "
    "queries, the raw X Xᵀ with no lenses, the numbers flat",
    solution="answer = Q_two @ K_two.T",
)
def _trap(answer: Any) -> None:
    got = to_numpy(answer)
    expect_structure(got, _TRAP_QKT, "Your table")
    if got.shape != (2, 2):
        raise Wrong(f"Your answer has shape {got.shape}; the table of word pairs for two words is 2×2.")
    if np.allclose(got, _TRAP_QKT):
        return
    if np.allclose(got, _TRAP_QK):
        raise Wrong(
            "That is Q @ K. It ran, because here n = d_k = 2, but its cell (1, 0) is row 1 of Q times "
            "column 0 of K, which holds slot 0 of every key, not the key of word 0. Compare it with "
            'kitten\'s query times the key of "the", computed by hand.'
        )
    if np.allclose(got, _TRAP_QKT.T):
        raise Wrong(
            f"Rows and columns are swapped: row i must be word i's query, column j word j's key; see {SECTION_LEGAL}."
        )
    if np.allclose(got, _TRAP_Q.T @ _TRAP_K):
        raise Wrong(
            "That is Qᵀ @ K: its cell (s, t) pairs slot s of every query with slot t of every key, a table of "
            "slots against slots. The rows and columns of the table must be words: row i word i's query, "
            "column j word j's key."
        )
    if np.allclose(got, _TRAP_Q @ _TRAP_Q.T) or np.allclose(got, _TRAP_X @ _TRAP_X.T):
        raise Wrong("Each cell must multiply a query with a key: use Q for the rows and K for the columns.")
    expect_structure(got, _TRAP_QKT, "Your table", values=True)
    expect_array(got, _TRAP_QKT, "Your table")


# --- transpose.pair_cell: where does a word pair land in QKᵀ? --------------------------------
# "the kitten sat on the mat": the=0, kitten=1, sat=2, on=3, the=4, mat=5; n = 6.

_ON_KITTEN = (3, 1)  # row: the word whose query asks; column: the word whose key answers
_KITTEN_ON = (1, 3)
_CELLS_WITH_THE_KEY = 12  # "the" is word 0 and word 4: two columns of 6 cells


def _cell(item: Any, letter: str) -> tuple[int, ...]:
    try:
        cell = to_shape(item, f"Answer {letter}", 2)
    except Wrong:
        cell = ()
    if len(cell) != 2:
        raise Wrong(f"Answer {letter} should be a cell: a pair of whole numbers (row, column).")
    return cell


EDGES["transpose.pair_cell"] = (
    "row: the query, column: the key",
    "counted from 0",
    "the twice-seen word",
    "three answers",
)
SLIPS["transpose.pair_cell"] = [
    ([(1, 3), (3, 1), 12], "rows and columns are swapped", "row: the query, column: the key"),
    ([(3, 1), (3, 1), 12], "would they sit in the same cell?", "row: the query, column: the key"),
    ([(2, 1), (1, 2), 12], "answer (a) is not right yet", "row: the query, column: the key"),
    ([*counted_from_one([_ON_KITTEN, _KITTEN_ON]), 12], "count the words from 0", "counted from 0"),
    ([*counted_from_one([_KITTEN_ON, _ON_KITTEN]), 12], "count the words from 0", "counted from 0"),
    ([(3, 1), (1, 3), 6], "how many times does “the” appear", "the twice-seen word"),
    ([(3, 1), (1, 3), 20], "also counts the cells where “the” asks", "the twice-seen word"),
    ([(3, 1), (1, 3), 2], "that counts columns", "the twice-seen word"),
    ([(3, 1), (1, 3)], "give a list of three answers", "three answers"),
]


@exercise(
    "transpose.pair_cell",
    right=[
        [(3, 1), (1, 3), 12],
        ((3, 1), (1, 3), 12),
        [[3, 1], [1, 3], 12.0],
        [np.array([3, 1]), (np.int64(1), np.int64(3)), np.int64(12)],
    ],
    wrong=[a for a, _, _ in SLIPS["transpose.pair_cell"]],
    catches="rows and columns swapped (query and key confused), counting from 1, assuming the table is "
    "symmetric, the sat-kitten cells of the widget instead of on-kitten, counting 'the' once, counting "
    "its query row too, counting columns not cells, a missing part",
    solution="answer = [(3, 1), (1, 3), 12]",
)
def _pair_cell(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        raise Wrong(
            "Give a list of three answers: the cell for (a) as (row, column), the cell for (b), and "
            "the count for (c) as a whole number."
        )
    a, b = _cell(answer[0], "(a)"), _cell(answer[1], "(b)")
    if {a, b} & {counted_from_one(_ON_KITTEN), counted_from_one(_KITTEN_ON)}:
        raise Wrong("Count the words from 0, as the code does: “the” is word 0, “kitten” word 1, “on” word 3.")
    if a == _KITTEN_ON and b == _ON_KITTEN:
        raise Wrong(
            "Rows and columns are swapped. In QKᵀ the row comes from Q (the word that asks) and the "
            f"column from Kᵀ, whose column j is word j's key; see {SECTION_LEGAL}."
        )
    if a == b:
        raise Wrong(
            "Answers (a) and (b) are different questions: one uses on's query and kitten's key, the other "
            "kitten's query and on's key. Would they sit in the same cell?"
        )
    if a != _ON_KITTEN:
        raise Wrong("Answer (a) is not right yet. Find the word whose query asks: its number is the row.")
    if b != _KITTEN_ON:
        raise Wrong("Answer (b) is not right yet. Which word's query asks this time? Its number is the row.")
    try:
        c = to_count(answer[2], "Answer (c)")
    except Wrong:
        raise Wrong("Answer (c) should be a whole number: how many cells.") from None
    if c == 6:
        raise Wrong(
            "Answer (c): read the sentence again: how many times does “the” appear, and so how many "
            "columns of QKᵀ hold a key of “the”?"
        )
    if c == 2:
        raise Wrong("Answer (c): that counts columns. Each column has one cell per query, one per word.")
    if c == 20:
        raise Wrong(
            "Answer (c): that also counts the cells where “the” asks with its query (its rows). Only "
            "the columns hold keys."
        )
    if c != _CELLS_WITH_THE_KEY:
        raise Wrong(
            "Answer (c) is not right yet. Keys stand as the columns of Kᵀ: count the columns that "
            "belong to “the”, then the cells in each."
        )
