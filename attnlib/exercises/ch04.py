"""Checkers for chapter 4: matrix multiplication."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import Wrong, call, exercise, expect_array, expect_shape, expect_value_error, to_numpy

# --- ch04.by_hand: a 2×3 matrix times a 3×2 matrix -----------------------------------

HAND_A = np.array([[1.0, 2.0, 0.0],
                   [3.0, -1.0, 2.0]])
HAND_B = np.array([[2.0, 1.0],
                   [0.0, 4.0],
                   [5.0, -2.0]])
HAND_C = HAND_A @ HAND_B  # [[2, 9], [16, -5]]


@exercise("ch04.by_hand", right=[HAND_C.tolist(), [[2, 9], [16, -5]], HAND_C],
          wrong=[HAND_C.T.tolist(), (HAND_B @ HAND_A).tolist(), [[2, 9], [16, -1]],
                 [[2, 9], [6, -1]]])
def _by_hand(answer: Any) -> None:
    got = to_numpy(answer, "your answer")
    if got.shape == (3, 3):
        raise Wrong("your answer is 3×3: that is B times A. Order matters: the rows come from A, "
                    "the columns from B, so A @ B is (rows of A) × (columns of B).")
    if got.shape == (2, 3) or got.shape == (3, 2):
        raise Wrong(f"your answer has shape {got.shape}. A is 2×3 and B is 3×2: the inner 3s "
                    "disappear and the outer numbers give the shape of the result.")
    if got.shape == (2, 2) and np.all(np.isfinite(got)) and not np.allclose(got, HAND_C) \
            and np.allclose(got, HAND_C.T):
        raise Wrong("rows and columns are swapped: cell (i, j) uses row i of A and column j of B, "
                    "so cell (0, 1) is row 0 of A with column 1 of B.")
    if got.shape == (2, 2) and np.all(np.isfinite(got)) and np.allclose(got, HAND_A[:, :2] @ HAND_B[:2, :]):
        raise Wrong("some cells are short of a term. Each cell is the sum of THREE products "
                    "(A has 3 columns, B has 3 rows): did you drop the last one?")
    expect_array(answer, HAND_C, "your answer")


# --- ch04.my_matmul: write matrix multiplication with loops ----------------------------

def _matmul_solution(A: Any, B: Any) -> list[list[float]]:
    rows, inner = len(A), len(A[0])
    if len(B) != inner:
        raise ValueError(f"cannot multiply {(rows, inner)} by {(len(B), len(B[0]))}")
    cols = len(B[0])
    return [[sum(A[i][k] * B[k][j] for k in range(inner)) for j in range(cols)] for i in range(rows)]


def _matmul_numpy(A: Any, B: Any) -> np.ndarray:
    return np.asarray(A) @ np.asarray(B)


def _matmul_no_shape_check(A: Any, B: Any) -> list[list[float]]:
    cols = len(B[0])
    return [[sum(a * b for a, b in zip(A[i], [row[j] for row in B])) for j in range(cols)]
            for i in range(len(A))]


def _matmul_square_only(A: Any, B: Any) -> list[list[float]]:
    n = len(A)
    if len(A[0]) != len(B):
        raise ValueError("inner dimensions differ")
    return [[sum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(n)] for i in range(n)]


def _matmul_wrong_index(A: Any, B: Any) -> list[list[float]]:
    if len(A[0]) != len(B):
        raise ValueError("inner dimensions differ")
    return [[sum(A[i][k] * B[k][i] for k in range(len(B))) for j in range(len(B[0]))]
            for i in range(len(A))]


def _matmul_no_return(A: Any, B: Any) -> None:
    np.asarray(A) @ np.asarray(B)


MATMUL_CASES = [((2, 3), (3, 2)), ((1, 4), (4, 3)), ((3, 1), (1, 2)), ((4, 2), (2, 5)), ((3, 3), (3, 3))]
MATMUL_BAD = [((2, 3), (2, 3)), ((3, 2), (3, 2)), ((1, 4), (3, 1))]


@exercise("ch04.my_matmul", right=[_matmul_solution, _matmul_numpy],
          wrong=[_matmul_no_shape_check, _matmul_square_only, _matmul_wrong_index, _matmul_no_return])
def _my_matmul(fn: Any) -> None:
    rng = np.random.default_rng(4)
    for a_shape, b_shape in MATMUL_CASES:
        A = rng.integers(-3, 4, size=a_shape).astype(float)
        B = rng.integers(-3, 4, size=b_shape).astype(float)
        got = to_numpy(call(fn, A.copy(), B.copy(), what="your function `my_matmul`"),
                       f"my_matmul on shapes {a_shape} and {b_shape}")
        want = A @ B
        if got.shape != want.shape:
            raise Wrong(f"for shapes {a_shape} and {b_shape} your result has shape {got.shape}, "
                        f"but it should be {want.shape}: one row per row of A, one column per "
                        "column of B. Do your loops run over the right lengths?")
        if not np.all(np.isfinite(got)) or not np.allclose(got, want):
            bad = np.argwhere(~np.isclose(got, want))
            i, j = (int(x) for x in bad[0]) if len(bad) else (0, 0)
            raise Wrong(f"for shapes {a_shape} and {b_shape} cell ({i}, {j}) of your result is wrong. "
                        f"It must be row {i} of A times column {j} of B: A[i][k] * B[k][j], summed "
                        "over k. Check which loop variable indexes what.")
    for a_shape, b_shape in MATMUL_BAD:
        expect_value_error(fn, np.ones(a_shape), np.ones(b_shape), what="your function `my_matmul`")


# --- ch04.shapes: predict the shape of five products ------------------------------------

SHAPE_QUESTIONS = [((3, 4), (4, 2)), ((5, 4), (4, 8)), ((1, 3), (3, 1)), ((3, 1), (1, 3)), ((6, 2), (6, 2))]
SHAPE_ANSWERS: list[Any] = [(3, 2), (5, 8), (1, 1), (3, 3), "illegal"]


@exercise("ch04.shapes", right=[SHAPE_ANSWERS, [[3, 2], [5, 8], [1, 1], [3, 3], "Illegal"]],
          wrong=[[(2, 3), (8, 5), (1, 1), (3, 3), "illegal"],
                 [(3, 2), (5, 8), (1, 1), (3, 3), (6, 2)],
                 [(3, 2), (5, 8), (3, 3), (1, 1), "illegal"],
                 [(3, 2), (5, 8), (1, 1), (3, 3)]])
def _shapes(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != len(SHAPE_ANSWERS):
        raise Wrong(f"give a list of {len(SHAPE_ANSWERS)} answers, one per product (a) to (e), "
                    "each a shape such as (2, 7) or the word \"illegal\".")
    for letter, (a, b), item, want in zip("abcde", SHAPE_QUESTIONS, answer, SHAPE_ANSWERS):
        what = f"({letter}) {a} @ {b}:"
        if want == "illegal":
            if isinstance(item, str) and item.strip().strip("\"'").lower() == "illegal":
                continue
            raise Wrong(f"{what} compare the inner numbers, A's columns and B's rows. "
                        "When they differ, the answer is the word \"illegal\".")
        if isinstance(item, str):
            raise Wrong(f"{what} the inner numbers match here ({a[1]} and {b[0]}), so this product "
                        "is legal: give its shape as a tuple.")
        if isinstance(item, (tuple, list)) and tuple(item) == (a[1], b[0]):
            raise Wrong(f"{what} those are the inner numbers, which must match and then disappear. "
                        "The OUTER numbers give the shape.")
        expect_shape(item, want, what=f"{what} your shape")
