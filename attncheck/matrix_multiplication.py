"""Checkers for the chapter on matrix multiplication.

The chapter's two generic matrices are called M and N (A is the attention matrix of the softmax chapter).
Every expected answer is computed here, at import, from private constants: a learner's function
only ever receives copies, and a function that changes its inputs is told so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import (
    Wrong,
    call,
    describe,
    exercise,
    expect_no_slip,
    expect_structure,
    expect_value_error,
    to_numpy,
    to_shape,
    torch_form,
)
from . import _matmul_samples as samples

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "matrix_multiplication", "matrix multiplication"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

SECTION_CELL = "the section “One row times one column makes one cell”"
SECTION_INNER = "the section “The inner numbers must match”"


# --- matrix_multiplication.by_hand: a 2×3 matrix times a 3×2 matrix -----------------------------------

_HAND_M = np.array([[1.0, 2.0, 0.0], [3.0, -1.0, 2.0]])
_HAND_N = np.array([[2.0, 1.0], [0.0, 4.0], [5.0, -2.0]])
_HAND_MN = _HAND_M @ _HAND_N  # [[2, 9], [16, -5]]
_HAND_SHORT = _HAND_M[:, :2] @ _HAND_N[:2]  # the last of the three products dropped


EDGES["matrix_multiplication.by_hand"] = ("row i of M, column j of N", "three products a cell", "signs", "a 2×2 grid")
SLIPS["matrix_multiplication.by_hand"] = [
    (_HAND_MN.T.tolist(), "rows and columns are swapped", "row i of M, column j of N"),
    ((_HAND_N @ _HAND_M).tolist(), "the shape of N times M", "row i of M, column j of N"),
    (_HAND_SHORT.tolist(), "every cell is short of a term", "three products a cell"),
    ([[2, 9], [16, 3]], "cell (1, 1) is off", "signs"),  # the minus of -1 or of -2 dropped
    ([2, 9, 16, -5], "arranged in shape (4,)", "a 2×2 grid"),
]


@exercise(
    "matrix_multiplication.by_hand",
    right=[
        [[2, 9], [16, -5]],
        ((2.0, 9.0), (16.0, -5.0)),
        _HAND_MN.copy(),
        torch_form(_HAND_MN, "float32"),
        torch_form(_HAND_MN, "bfloat16"),
    ],
    wrong=[[["2", "9"], ["16", "-5"]], [[2, 9], [16]], *(a for a, _, _ in SLIPS["matrix_multiplication.by_hand"])],
    catches="the transposed product, N times M (3×3), a cell missing its third product, "
    "one arithmetic slip, the right numbers flat instead of 2×2, numbers as text, ragged rows",
    solution="answer = [[1*2 + 2*0 + 0*5,    1*1 + 2*4 + 0*(-2)],",
)
def _by_hand(answer: Any) -> None:
    got = to_numpy(answer)
    expect_structure(got, _HAND_MN, "Your answer")
    if got.shape == (3, 3):
        raise Wrong(
            "Your answer is 3×3, the shape of N times M. Order matters: the rows come from M "
            f"and the columns from N, so MN has (rows of M) × (columns of N); see {SECTION_INNER}."
        )
    if got.shape == (4,) or got.shape == (1, 4) or got.shape == (4, 1):
        raise Wrong(
            f"Your answer has shape {got.shape}: give the four numbers as a grid, a list of two rows "
            "with two numbers each."
        )
    if got.shape != (2, 2):
        raise Wrong(
            f"Your answer has shape {got.shape}. M is 2×3 and N is 3×2: the inner 3s must match "
            f"and then disappear, and the outer numbers give the shape; see {SECTION_INNER}."
        )
    if not np.all(np.isfinite(got)):
        raise Wrong("Your answer contains inf or nan; every cell is a sum of three ordinary products.")
    if np.allclose(got, _HAND_MN):
        return
    if np.allclose(got, _HAND_MN.T):
        raise Wrong(
            "Rows and columns are swapped: cell (i, j) uses row i of M and column j of N, so "
            f"cell (0, 1) pairs row 0 of M with column 1 of N; see {SECTION_CELL}."
        )
    if np.allclose(got, _HAND_SHORT):
        raise Wrong(
            "Every cell is short of a term. M has 3 columns and N has 3 rows, so each cell is "
            "the sum of three products: did you drop the last one?"
        )
    expect_structure(got, _HAND_MN, "Your answer", values=True)
    bad = [(int(i), int(j)) for i, j in np.argwhere(~np.isclose(got, _HAND_MN))]
    cells = ", ".join(str(c) for c in bad)
    raise Wrong(
        f"The shape is right, but cell{'s' if len(bad) > 1 else ''} {cells} "
        f"{'are' if len(bad) > 1 else 'is'} off. Redo {'them' if len(bad) > 1 else 'it'}: "
        "row i of M times column j of N: three products, each with its sign, then one sum."
    )


# --- matrix_multiplication.my_matmul: write matrix multiplication with loops ----------------------------


def _hidden_pairs() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(404)
    shapes = [
        ((2, 3), (3, 2)),
        ((1, 4), (4, 3)),
        ((2, 4), (4, 1)),
        ((3, 1), (1, 2)),
        ((1, 1), (1, 1)),
        ((4, 2), (2, 5)),
        ((3, 3), (3, 3)),
    ]
    pairs = []
    for a, b in shapes:
        # whole numbers and halves or quarters: a product cut to whole numbers by int() shows
        M = rng.integers(-3, 4, size=a) + rng.choice([0.0, 0.5, 0.25], size=a)
        N = rng.integers(-3, 4, size=b) + rng.choice([0.0, 0.5, -0.25], size=b)
        M[0, -1] = M[0, -1] or 2.0  # no zero in the last column of M: dropping the last product shows
        N[-1, 0] = N[-1, 0] or -1.0
        pairs.append((M, N, M @ N))
    # each matrix again with another partner: a function that remembers results by one of them fails
    (M0, N0, _), (M5, _, _) = pairs[0], pairs[5]
    N_other = N0[:, ::-1] + 0.5
    M_other = M5[:, :3][:3][::-1] - 0.25 if M5.shape[1] >= 3 else M0[::-1]
    pairs += [(M0, N_other, M0 @ N_other), (M_other[:, : N0.shape[0]], N0, M_other[:, : N0.shape[0]] @ N0)]
    return pairs


_MATMUL_PAIRS = _hidden_pairs()
# Shapes that cannot be multiplied; all numbers differ, so a message naming both shapes is recognisable.
_MATMUL_BAD = [((2, 3), (4, 5)), ((1, 4), (3, 2)), ((3, 1), (2, 3)), ((2, 2), (3, 3)), ((5, 2), (3, 4))]


EDGES |= {
    "matrix_multiplication.my_matmul": (
        "any legal shapes: one row, one column, an inner size of 1",
        "values with fractions",
        "shapes that do not fit",
        "each matrix again with another partner",
    ),
    "matrix_multiplication.design_w": ("any W of the right meaning", "a sign in any entry"),
}
SLIPS |= {
    "matrix_multiplication.my_matmul": [
        (samples.int_cells, "the decimals were cut", "values with fractions"),
        (samples.cached_by_m, "keeps results between calls", "each matrix again with another partner"),
        (samples.off_by_one, "misses its last product", "any legal shapes: one row, one column, an inner size of 1"),
        (samples.transposed, "the product flipped", "any legal shapes: one row, one column, an inner size of 1"),
        (
            samples.square_only,
            "do your loops run over the right lengths",
            "any legal shapes: one row, one column, an inner size of 1",
        ),
        (samples.vague_message, "does not name the shape", "shapes that do not fit"),
    ],
}


@exercise(
    "matrix_multiplication.my_matmul",
    right=[samples.solution, samples.numpy_checked, samples.zipped_columns],
    wrong=[
        samples.numpy_unchecked,
        samples.no_shape_check,
        samples.vague_message,
        samples.one_shape,
        samples.type_error,
        samples.square_only,
        samples.wrong_index,
        samples.off_by_one,
        samples.transposed,
        samples.no_return,
        samples.zeroes_input,
        samples.scribbles_after,
        samples.int_cells,
        samples.cached_by_m,
    ],
    catches="cells cut to whole numbers by int() (hidden entries hold halves and quarters), a result remembered "
    "by M alone (M again with another N), square-only loops (1-row, 1-column and inner-1 cases), N[k][i] for N[k][j], a dropped last "
    "product, the transposed result, no shape check (silent or IndexError), TypeError instead of "
    "ValueError, a message naming no shape or one shape (numpy's own), a missing return, "
    "a function that changes M or N",
    solution="row.append(sum(M[i][t] * N[t][j] for t in range(inner)))",
)
def _my_matmul(fn: Any) -> None:
    for k, (M, N, want) in enumerate(_MATMUL_PAIRS):
        a, b = M.shape, N.shape
        got = call(fn, M, N, what="Your function `my_matmul`")
        got = to_numpy(got, f"For shapes {a} and {b} the result")
        if got.shape != want.shape:
            raise Wrong(
                f"For shapes {a} and {b} your result has shape {got.shape}, but it should be "
                f"{want.shape}: one row per row of M, one column per column of N. Do your loops run "
                f"over the right lengths? See {SECTION_INNER}."
            )
        earlier = [w for _, _, w in _MATMUL_PAIRS[:k] if w.shape == want.shape and not np.allclose(w, want)]
        if not np.allclose(got, want) and any(np.allclose(got, w) for w in earlier):
            raise Wrong(
                f"For shapes {a} and {b} your function returned the product of an earlier call: it "
                "keeps results between calls. Compute each product from the M and N it is given."
            )
        if not np.allclose(got, want) and np.allclose(got, np.trunc(want)) and np.any(want != np.trunc(want)):
            raise Wrong(
                f"For shapes {a} and {b} your cells are whole numbers, but the product of these "
                "matrices has fractions: the decimals were cut, by int() or a result of whole numbers. "
                "Keep each sum as it is."
            )
        if not np.allclose(got, want) and np.allclose(got, want - np.outer(M[:, -1], N[-1])) and M.shape[1] > 1:
            raise Wrong(
                f"For shapes {a} and {b} every cell of your result misses its last product: t must run "
                f"over every one of the {M.shape[1]} columns of M ({SECTION_CELL})."
            )
        if not np.allclose(got, want) and np.allclose(got, want.T):
            raise Wrong(
                f"For shapes {a} and {b} your result is the product flipped: your cell (i, j) holds "
                "what belongs in cell (j, i). Row i of M and column j of N make cell (i, j)."
            )
        if not np.all(np.isfinite(got)) or not np.allclose(got, want):
            i, j = (int(x) for x in np.argwhere(~np.isclose(got, want))[0])
            raise Wrong(
                f"For shapes {a} and {b} cell ({i}, {j}) of your result is wrong. It must pair row {i} "
                f"of M with column {j} of N, entry by entry, and add all of the products; check which "
                f"loop variable picks the row, which the column, and how far t runs ({SECTION_CELL})."
            )
    for a, b in _MATMUL_BAD:
        expect_value_error(fn, np.ones(a), np.ones(b), what="your function", names_shapes=True)


# --- matrix_multiplication.shapes: predict the shape of five products ------------------------------------

SHAPE_QUESTIONS = [((3, 4), (4, 2)), ((5, 4), (4, 8)), ((1, 3), (3, 1)), ((3, 1), (1, 3)), ((6, 2), (6, 2))]
_SHAPE_ANSWERS: list[Any] = [(3, 2), (5, 8), (1, 1), (3, 3), "illegal"]


def _is_illegal_word(item: Any) -> bool:
    return isinstance(item, str) and item.strip().strip("\"'“”").lower() in ("illegal", "not allowed", "impossible")


EDGES["matrix_multiplication.shapes"] = (
    "outer numbers, rows first",
    "inner numbers must match",
    "a 1×1 result",
    "five answers",
)
_SHAPES_WHOLE = [  # slips of the whole answer, diagnosed before its entries, with their hints
    (
        [(2, 3), (8, 5), (1, 1), (3, 3), "illegal"],
        "Every shape is written columns first: a shape gives rows first, then columns.",
        "outer numbers, rows first",
    ),
    (
        [(4, 4), (4, 4), (3, 3), (1, 1), "illegal"],
        (
            "Every shape you gave is made of the inner numbers, which must match and then disappear. The outer "
            f"numbers give the shape; see {SECTION_INNER}."
        ),
        "outer numbers, rows first",
    ),
]
SLIPS["matrix_multiplication.shapes"] = [
    *_SHAPES_WHOLE,
    ([(3, 2), (5, 8), (1, 1), (3, 3), (6, 2)], "when they differ there is no product", "inner numbers must match"),
    ([(3, 2), (5, 8), (1, 1), (3, 3), "legal"], "when they differ there is no product", "inner numbers must match"),
    ([(3, 2), (5, 8), (3, 3), (1, 1), "illegal"], "product (c), 1×3 times 3×1: those are the inner", "a 1×1 result"),
    ([(3, 2), (5, 8), 1, (3, 3), "illegal"], "the shape of product (c) is a single number", "a 1×1 result"),
    ([(3, 2), (5, 8), (1, 1), (3, 3)], "yours is 4 answers", "five answers"),
]


@exercise(
    "matrix_multiplication.shapes",
    right=[
        list(_SHAPE_ANSWERS),
        [[3, 2], [5, 8], [1, 1], [3, 3], "Illegal"],
        ((3, 2), (5, 8), (1, 1), (3, 3), " ILLEGAL "),
        [np.array([3, 2]), (np.int64(5), np.int64(8)), (1, 1), [3, 3], "illegal"],
    ],
    wrong=[a for a, _, _ in SLIPS["matrix_multiplication.shapes"]],
    catches="shapes written columns-first, the inner numbers given as the shape, (c) and (d) swapped "
    "(same shapes, opposite order), the illegal product given a shape, a missing answer, "
    "1×1 written as a bare number",
    solution='answer = [(3, 2), (5, 8), (1, 1), (3, 3), "illegal"]',
)
def _shapes(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != len(_SHAPE_ANSWERS):
        count = f"{len(answer)} answers" if isinstance(answer, (list, tuple)) else describe(answer)
        raise Wrong(
            f"Give a list of {len(_SHAPE_ANSWERS)} answers, one per product (a) to (e), each a shape "
            f'such as (2, 7) or the word "illegal"; yours is {count}.'
        )
    expect_no_slip(answer, _SHAPES_WHOLE)
    for letter, (a, b), item, want in zip("abcde", SHAPE_QUESTIONS, answer, _SHAPE_ANSWERS):
        what = f"Product ({letter}), {a[0]}×{a[1]} times {b[0]}×{b[1]}:"
        if want == "illegal":
            if _is_illegal_word(item):
                continue
            raise Wrong(
                f"{what} compare the inner numbers, the columns of the first and the rows of the "
                'second. When they differ there is no product: answer with the word "illegal".'
            )
        if isinstance(item, str):
            raise Wrong(
                f"{what} the inner numbers match here ({a[1]} and {b[0]}), so this product is legal: "
                "give its shape as a tuple (rows, columns)."
            )
        shape = to_shape(item, f"The shape of product ({letter})", 2)
        if len(shape) != 2:
            raise Wrong(f"{what} give the shape as a tuple of two whole numbers, (rows, columns).")
        if shape == want:
            continue
        if shape == (a[1], b[0]):
            raise Wrong(
                f"{what} those are the inner numbers, which must match and then disappear. "
                "The outer numbers give the shape."
            )
        if shape == tuple(reversed(want)):
            raise Wrong(f"{what} the right numbers in the wrong order: rows come first, then columns.")
        raise Wrong(
            f"{what} not right yet. The result keeps the rows of the first matrix and the columns "
            f"of the second; see {SECTION_INNER}."
        )


# --- matrix_multiplication.design_w: design a W whose columns mean something --------------------------------
# Rows of W: the features animal, vehicle, small, action (attnlib.FEATURES), in that order.
# Column 0: "motion" = vehicle + action.  Column 1: "creature" = animal - vehicle.

_FEATURES = ("animal", "vehicle", "small", "action")
_W_DESIGN = np.array([[0.0, 1.0], [1.0, -1.0], [0.0, 0.0], [1.0, 0.0]])
_COLUMNS = ("column 0 (motion)", "column 1 (creature)")
_CHAPTER_W = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # the W the chapter prints


_DESIGN_SLIPS = [
    ([[0, -1], [1, 1], [0, 0], [1, 0]], "every sign is flipped", "a sign in any entry"),
    ([[0, 1], [1, 0], [0, -1], [1, 0]], "the rows for 'vehicle', 'small' are", "a sign in any entry"),
    ([[0, 1], [1, 1], [0, 0], [1, 0]], "the row for 'vehicle' is", "a sign in any entry"),
    ([[0, 1], [1, -1], [0, 0], [0, 0]], "the row for 'action' is", "any W of the right meaning"),
]
SLIPS["matrix_multiplication.design_w"] = _DESIGN_SLIPS


@exercise(
    "matrix_multiplication.design_w",
    right=[
        [[0, 1], [1, -1], [0, 0], [1, 0]],
        _W_DESIGN.copy(),
        ((0.0, 1.0), (1.0, -1.0), (0.0, 0.0), (1.0, 0.0)),
        torch_form(_W_DESIGN, "float32"),
        torch_form(_W_DESIGN, "bfloat16"),
    ],
    wrong=[
        _W_DESIGN.T.tolist(),
        _W_DESIGN[:, ::-1].tolist(),
        [[0, 1], [1, 1], [0, 0], [1, 0]],
        [[1, 0], [0, -1], [0, 0], [1, 0]],
        [[0, 1], [1, -1], [0, 0], [0, 0]],
        [[1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
        [0, 1, 1, -1, 0, 0, 1, 0],
        *(slip for slip, _, _ in _DESIGN_SLIPS),
    ],
    catches="creature as vehicle minus animal (a column's signs flipped), the -1 in the wrong row, W written with features as columns (2×4), the two columns in the other order, "
    "+vehicle for -vehicle, a feature read from the wrong row, a forgotten feature, "
    "the chapter's own W, the numbers flat",
    solution="W_design = np.array([[0, 1],",
)
def _design_w(answer: Any) -> None:
    got = to_numpy(answer, "Your W")
    expect_structure(got, _W_DESIGN, "Your W")
    if got.shape == (2, 4):
        raise Wrong(
            "Your W is 2×4. X has d_model = 4 columns, so W needs 4 rows, one per feature, and one "
            f"column per new number; see {SECTION_INNER}."
        )
    if got.ndim != 2 or got.shape != (4, 2):
        raise Wrong(
            f"Your W has shape {got.shape}, but it should be 4×2: one row per feature (animal, vehicle, "
            "small, action) and one column per new number."
        )
    if not np.all(np.isfinite(got)):
        raise Wrong("Your W contains inf or nan.")
    if np.allclose(got, _W_DESIGN):
        return
    if np.allclose(got, _CHAPTER_W):
        raise Wrong(
            "That is the chapter's W (small animal, action). This one should make two other numbers: "
            "motion in column 0 and creature in column 1."
        )
    if np.allclose(got, _W_DESIGN[:, ::-1]):
        raise Wrong("Your two columns are in the other order: column 0 of XW should be the motion score.")
    for j, column in enumerate(_COLUMNS):  # a whole column's sign before its entries
        if np.any(_W_DESIGN[:, j]) and np.allclose(got[:, j], -_W_DESIGN[:, j]):
            raise Wrong(
                f"In {column} of W every sign is flipped: the column measures the opposite of what it "
                "should. Read its name again: which feature adds, which takes away?"
            )
    for j, column in enumerate(_COLUMNS):  # the exercise's own entry hints before any generic one
        bad = [f for f, g, w in zip(_FEATURES, got[:, j], _W_DESIGN[:, j]) if not np.isclose(g, w)]
        if bad:
            rows = f"the row for {bad[0]!r} is" if len(bad) == 1 else f"the rows for {', '.join(map(repr, bad))} are"
            raise Wrong(
                f"In {column} of W, {rows} not right yet. "
                "Each entry of W says how much of the feature of its row goes into the new number of its "
                "column: feed a word "
                "that has only that feature through your W and compare with what the column should say."
            )


# --- matrix_multiplication.row_view: a prediction with the row view ---------------------------------------

_ROW_W = np.array([[2.0, 1.0], [0.0, 3.0], [-1.0, 4.0]])
_ROW_X = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
_ROW_XW = _ROW_X @ _ROW_W


EDGES["matrix_multiplication.row_view"] = (
    "row i of X, read along the row",
    "an amount of 2",
    "a sum of two rows",
    "3×2",
)
SLIPS["matrix_multiplication.row_view"] = [
    ((_ROW_X.T @ _ROW_W).tolist(), "you read the amounts down the columns of X", "row i of X, read along the row"),
    (_ROW_XW[::-1].tolist(), "the right rows in the wrong order", "row i of X, read along the row"),
    (_ROW_W.tolist(), "row 0 is not right yet", "row i of X, read along the row"),
    ([[0, 3], [2, 1], [1, 5]], "row 1 is not right yet", "an amount of 2"),
    ([[0, 3], [4, 2], [-1, 4]], "row 2 is not right yet", "a sum of two rows"),
    (_ROW_XW.T.tolist(), "rows and columns swapped", "3×2"),
]


@exercise(
    "matrix_multiplication.row_view",
    right=[_ROW_XW.tolist(), tuple(map(tuple, _ROW_XW.tolist())), _ROW_XW.copy(), torch_form(_ROW_XW, "float32")],
    wrong=[a for a, _, _ in SLIPS["matrix_multiplication.row_view"]],
    catches="the amounts read down X's columns instead of along its rows (XᵀW), the right rows in the "
    "wrong order, W itself, a weight of 2 forgotten, one row of W left out of a sum, the "
    "result transposed",
    solution="answer = [1 * W_3x2[1], 2 * W_3x2[0], 1 * W_3x2[0] + 1 * W_3x2[2]]",
)
def _row_view(answer: Any) -> None:
    got = to_numpy(answer)
    expect_structure(got, _ROW_XW, "Your answer")
    if got.shape != (3, 2):
        if got.shape == (2, 3):
            raise Wrong(
                "Your answer is 2×3. XW has one row per row of X (3) and one column per column of W "
                f"(2): 3×2; see {SECTION_INNER}."
            )
        raise Wrong(f"Your answer has shape {got.shape}; XW is 3×2, one row per row of X.")
    if not np.all(np.isfinite(got)):
        raise Wrong("Your answer contains inf or nan; every row is a sum of rows of W.")
    if np.allclose(got, _ROW_XW):
        return
    if np.allclose(got, _ROW_X.T @ _ROW_W):
        raise Wrong(
            "You read the amounts down the columns of X. The amounts for row i of XW come from "
            "row i of X, read along the row."
        )
    if sorted(map(tuple, got.round(9))) == sorted(map(tuple, _ROW_XW.round(9))):
        raise Wrong("You have the right rows in the wrong order: row i of XW belongs to row i of X.")
    expect_structure(got, _ROW_XW, "Your answer", values=True)
    for i in range(3):
        if not np.allclose(got[i], _ROW_XW[i]):
            raise Wrong(
                f"Row {i} is not right yet: which rows of W does row {i} of X ask for, and how much of "
                "each? (section 'A row of XW is a weighted sum of W's rows')."
            )
