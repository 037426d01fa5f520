"""Checkers for chapter 6: the transpose.

Generic matrices are P, M and N (A is the attention matrix of chapter 9). Every expected
answer is computed here, at import, from private constants.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import Wrong, exercise, expect_structure, to_count, to_numpy, to_shape, torch_form

SECTION_ROWS = "the section “Rows become columns”"
SECTION_LEGAL = "the section “Why QK is illegal and QKᵀ is legal”"

# --- ch06.by_hand: transpose a 2×3 matrix by hand ----------------------------------------

_P = np.array([[2.0, 0.0, 7.0], [-1.0, 5.0, 3.0]])
_P_T = _P.T.copy()                                   # [[2, -1], [0, 5], [7, 3]]
_P_RESHAPED = _P.reshape(3, 2)                       # the numbers poured in reading order
_P_COLUMNS_SWAPPED = _P_T[:, ::-1].copy()            # [[-1, 2], [5, 0], [3, 7]]
_P_ROTATED = np.rot90(_P).copy()                     # a quarter turn, not a reflection: [[7, 3], [0, 5], [2, -1]]


@exercise("ch06.by_hand",
          right=[[[2, -1], [0, 5], [7, 3]], ((2.0, -1.0), (0.0, 5.0), (7.0, 3.0)), _P_T.copy(),
                 torch_form(_P_T, "float32"), torch_form(_P_T, "bfloat16")],
          wrong=[_P.tolist(), _P_RESHAPED.tolist(), _P_COLUMNS_SWAPPED.tolist(), _P_ROTATED.tolist(),
                 [[2, -1], [0, 5], [7, -3]], [2, -1, 0, 5, 7, 3], [["2", "-1"], ["0", "5"], ["7", "3"]]],
          catches="P unchanged, a reshape (numbers poured in reading order), the columns in the wrong order, "
                  "a quarter turn instead of a reflection, a lost minus sign, the numbers flat, numbers as text",
          solution="answer = [[2, -1],")
def _by_hand(answer: Any) -> None:
    got = to_numpy(answer)
    if got.shape == (2, 3):
        if np.allclose(got, _P):
            raise Wrong("That is P unchanged. Transposing turns each row of P into a column, so the answer has "
                        "3 rows and 2 columns.")
        raise Wrong("Your answer has P's shape, 2×3. A 2×3 matrix has a 3×2 transpose: rows and columns swap.")
    if got.ndim == 1 or 1 in got.shape:
        raise Wrong(f"Your answer has shape {got.shape}: give the six numbers as a grid, a list of 3 rows with "
                    "2 numbers each.")
    if got.shape != (3, 2):
        raise Wrong(f"Your answer has shape {got.shape}, but the transpose of a 2×3 matrix is 3×2.")
    if np.allclose(got, _P_T):
        return
    if np.allclose(got, _P_RESHAPED):
        raise Wrong("You read P's numbers in order and poured them into 3 rows of 2: that is a reshape, not a "
                    f"transpose. Row 0 of P should stand up as column 0 of the answer; see {SECTION_ROWS}.")
    if np.allclose(got, _P_COLUMNS_SWAPPED):
        raise Wrong("The columns are in the wrong order. Row 0 of P becomes column 0 (the left one), "
                    "row 1 becomes column 1.")
    if np.allclose(got, _P_ROTATED):
        raise Wrong("That is P turned a quarter turn, not reflected: the rows come out in reverse order. "
                    "In a transpose the number at row i, column j moves to row j, column i.")
    expect_structure(got, _P_T, "Your answer", values=True)
    bad = [(int(i), int(j)) for i, j in np.argwhere(~np.isclose(got, _P_T))]
    raise Wrong(f"The shape is right, but the entr{'ies' if len(bad) > 1 else 'y'} at "
                f"{', '.join(map(str, bad))} {'are' if len(bad) > 1 else 'is'} off. Entry (j, i) of the "
                "answer is entry (i, j) of P, copied exactly, sign included.")


# --- ch06.product_transpose: (MN)ᵀ = NᵀMᵀ ----------------------------------------------

_M = np.array([[1.0, 2.0, 0.0], [-1.0, 3.0, 1.0]])
_N = np.array([[2.0, 1.0], [0.0, -1.0], [4.0, 1.0]])
_MN = _M @ _N                    # [[2, -1], [2, -3]]
_NT_MT = _N.T @ _M.T             # [[2, 2], [-1, -3]] = (MN)ᵀ
_MT_NT = _M.T @ _N.T             # 3×3
_NM = _N @ _M                    # 3×3


@exercise("ch06.product_transpose",
          right=[_NT_MT.copy(), _NT_MT.tolist(), tuple(map(tuple, _MN.T.tolist())), torch_form(_NT_MT, "float32"),
                 torch_form(_NT_MT, "bfloat16")],
          wrong=[_MN.tolist(), _MT_NT.tolist(), _NM.tolist(), _NT_MT.flatten().tolist(), [[2, 2], [-1, 3]]],
          catches="MN not transposed, MᵀNᵀ (both transposed, order kept), NM (order flipped, no transposes), "
                  "the numbers flat, a sign slip",
          solution="answer = attnlib.matmul(attnlib.transpose(N), attnlib.transpose(M))")
def _product_transpose(answer: Any) -> None:
    got = to_numpy(answer)
    expect_structure(got, _NT_MT, "Your answer")
    if got.shape == (3, 3):
        if np.allclose(got, _MT_NT):
            raise Wrong("That is MᵀNᵀ: both transposed, but in the old order. Look at the shapes: (3×2)(2×3) "
                        "is 3×3, while (MN)ᵀ is 2×2. The rule flips the order.")
        if np.allclose(got, _NM):
            raise Wrong("That is NM, with no transposes. Transpose N and M first, then multiply them.")
        raise Wrong("Your answer is 3×3, but (MN)ᵀ is 2×2. Check the order and the transposes.")
    if got.shape != (2, 2):
        raise Wrong(f"Your answer has shape {got.shape}, but NᵀMᵀ is (2×3)(3×2): a 2×2 grid of rows.")
    if np.allclose(got, _NT_MT):
        return
    if np.allclose(got, _MN):
        raise Wrong("That is MN itself, not transposed: the two off-diagonal numbers are swapped. Multiply Nᵀ "
                    "by Mᵀ, in that order.")
    expect_structure(got, _NT_MT, "Your answer", values=True)
    bad = [(int(i), int(j)) for i, j in np.argwhere(~np.isclose(got, _NT_MT))]
    raise Wrong(f"The shape is right, but {len(bad)} entr{'ies differ' if len(bad) > 1 else 'y differs'}, the "
                f"first at {bad[0]}. Transpose each matrix carefully, then multiply: row i of Nᵀ times column "
                "j of Mᵀ.")


# --- ch06.pair_cell: where does a word pair land in QKᵀ? --------------------------------
# "the kitten sat on the mat": the=0, kitten=1, sat=2, on=3, the=4, mat=5; n = 6.

_SAT_KITTEN = (2, 1)      # row: the word whose query asks; column: the word whose key answers
_KITTEN_SAT = (1, 2)
_CELLS_WITH_THE_KEY = 12  # "the" is word 0 and word 4: two columns of 6 cells


def _cell(item: Any, letter: str) -> tuple[int, ...]:
    try:
        cell = to_shape(item, f"Answer {letter}", 2)
    except Wrong:
        cell = ()
    if len(cell) != 2:
        raise Wrong(f"Answer {letter} should be a cell: a pair of whole numbers (row, column).")
    return cell


@exercise("ch06.pair_cell",
          right=[[(2, 1), (1, 2), 12], ((2, 1), (1, 2), 12), [[2, 1], [1, 2], 12.0],
                 [np.array([2, 1]), (np.int64(1), np.int64(2)), np.int64(12)]],
          wrong=[[(1, 2), (2, 1), 12], [(3, 2), (2, 3), 12], [(2, 1), (2, 1), 12], [(2, 1), (1, 2), 6],
                 [(2, 1), (1, 2), 20], [(2, 1), (1, 2), 2], [(2, 1), (1, 2)]],
          catches="rows and columns swapped (query and key confused), counting from 1, assuming the table is "
                  "symmetric, counting 'the' once, counting its query row too, counting columns not cells, "
                  "a missing part",
          solution="answer = [(2, 1), (1, 2), 12]")
def _pair_cell(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        raise Wrong("Give a list of three answers: the cell for (a) as (row, column), the cell for (b), and "
                    "the count for (c) as a whole number.")
    a, b = _cell(answer[0], "(a)"), _cell(answer[1], "(b)")
    if a == (3, 2) or b == (2, 3):
        raise Wrong("Count the words from 0, as the code does: “the” is word 0, “kitten” word 1, “sat” word 2.")
    if a == _KITTEN_SAT and b == _SAT_KITTEN:
        raise Wrong("Rows and columns are swapped. In QKᵀ the row comes from Q (the word that asks) and the "
                    f"column from Kᵀ, whose column j is word j's key; see {SECTION_LEGAL}.")
    if a == b:
        raise Wrong("Answers (a) and (b) are different questions: one uses sat's query and kitten's key, the other "
                    "kitten's query and sat's key. Would they sit in the same cell?")
    if a != _SAT_KITTEN:
        raise Wrong("Answer (a) is not right yet. Find the word whose query asks: its number is the row.")
    if b != _KITTEN_SAT:
        raise Wrong("Answer (b) is not right yet. Which word's query asks this time? Its number is the row.")
    try:
        c = to_count(answer[2], "Answer (c)")
    except Wrong:
        raise Wrong("Answer (c) should be a whole number: how many cells.") from None
    if c == 6:
        raise Wrong("Answer (c): read the sentence again: how many times does “the” appear, and so how many "
                    "columns of QKᵀ hold its key?")
    if c == 2:
        raise Wrong("Answer (c): that counts columns. Each column has one cell per query, one per word.")
    if c == 20:
        raise Wrong("Answer (c): that also counts the cells where “the” asks with its query (its rows). Only "
                    "the columns hold keys.")
    if c != _CELLS_WITH_THE_KEY:
        raise Wrong("Answer (c) is not right yet. Keys stand as the columns of Kᵀ: count the columns that "
                    "belong to “the”, then the cells in each.")
