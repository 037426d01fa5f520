"""Checkers for chapter 5: the learned view-changers W_Q, W_K, W_V."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import Wrong, exercise, expect_array, expect_number, expect_shape, to_numpy

# --- ch05.q_by_hand: Q = X W_Q for a tiny X --------------------------------------------

HAND_X = np.array([[1.0, 0.0, 2.0],
                   [0.0, 1.0, 1.0]])
HAND_W_Q = np.array([[1.0, 0.0],
                     [0.0, 2.0],
                     [1.0, 1.0]])
HAND_Q = HAND_X @ HAND_W_Q  # [[3, 2], [1, 3]]


@exercise("ch05.q_by_hand", right=[[[3, 2], [1, 3]], HAND_Q],
          wrong=[HAND_Q.T.tolist(), (HAND_W_Q @ HAND_X).tolist(), [[3, 2], [1, 2]], [[1, 0], [0, 2]]])
def _q_by_hand(answer: Any) -> None:
    got = to_numpy(answer, "your Q")
    if got.shape == (3, 3):
        raise Wrong("your Q is 3×3: that is W_Q times X. The order is Q = X W_Q: rows from X "
                    "(one per word), columns from W_Q.")
    if got.shape == (2, 2) and np.all(np.isfinite(got)) and not np.allclose(got, HAND_Q):
        if np.allclose(got, HAND_Q.T):
            raise Wrong("rows and columns are swapped. Row i of Q belongs to word i, so row 0 of Q "
                        "is row 0 of X times each column of W_Q.")
        if np.allclose(got, HAND_X[:, :2] * HAND_W_Q[:2, :]):
            raise Wrong("each cell of Q is a whole row of X times a whole column of W_Q: "
                        "three products, then their sum.")
    expect_array(answer, HAND_Q, "your Q")


# --- ch05.w_shapes: legal shapes for the three weight matrices -----------------------

SHAPES_N, SHAPES_D_MODEL, SHAPES_D_K, SHAPES_D_V = 5, 6, 3, 4
W_SHAPES = [(SHAPES_D_MODEL, SHAPES_D_K), (SHAPES_D_MODEL, SHAPES_D_K), (SHAPES_D_MODEL, SHAPES_D_V)]


@exercise("ch05.w_shapes", right=[W_SHAPES, ((6, 3), (6, 3), (6, 4)), [[6, 3], [6, 3], [6, 4]]],
          wrong=[[(5, 3), (5, 3), (5, 4)], [(3, 6), (3, 6), (4, 6)], [(6, 3), (6, 3), (6, 3)],
                 [(6, 3), (6, 4), (6, 4)], [(6, 3), (6, 4)]])
def _w_shapes(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        raise Wrong("give three shapes, in the order W_Q, W_K, W_V, e.g. [(1, 2), (1, 2), (1, 2)].")
    names = ["W_Q", "W_K", "W_V"]
    for name, item, want in zip(names, answer, W_SHAPES):
        if isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(d, (int, np.integer))
                                                                     for d in item):
            rows, cols = int(item[0]), int(item[1])
            if (rows, cols) == (want[1], want[0]):
                raise Wrong(f"{name} {(rows, cols)} has rows and columns swapped. X is (n, d_model), "
                            "so W needs d_model rows; its columns give the width of the result.")
            if rows == SHAPES_N:
                raise Wrong(f"{name} has {rows} rows: that is n, the number of words. A weight matrix "
                            "does not depend on how many words there are; its rows must match the "
                            "columns of X.")
            if rows == want[0] and cols != want[1]:
                if name == "W_V":
                    raise Wrong(f"{name} {(rows, cols)}: the values should have d_v = {SHAPES_D_V} "
                                "numbers per word, and the columns of W_V set that width.")
                raise Wrong(f"{name} {(rows, cols)}: queries and keys both need d_k = {SHAPES_D_K} "
                            "numbers per word, so W_Q and W_K have d_k columns.")
        expect_shape(item, want, what=f"your shape for {name}")


# --- ch05.d_k_heads: d_k = d_model / h -------------------------------------------------

HEADS_D_MODEL, HEADS_H = 512, 16


@exercise("ch05.d_k_heads", right=[32, 32.0], wrong=[HEADS_D_MODEL * HEADS_H, HEADS_H, HEADS_D_MODEL, 64])
def _d_k_heads(answer: Any) -> None:
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        if answer == HEADS_D_MODEL * HEADS_H:
            raise Wrong("that is d_model times h. The h heads SHARE the d_model numbers: divide.")
        if answer == HEADS_H:
            raise Wrong("that is h, the number of heads. d_k is how many numbers each head's "
                        "queries and keys get.")
        if answer == HEADS_D_MODEL:
            raise Wrong("that is d_model itself. With h heads, each head gets only a share of it.")
    expect_number(answer, HEADS_D_MODEL / HEADS_H,
                  hint="Use d_k = d_model / h with the numbers of this exercise.")
