"""Checkers for chapter 6: the transpose."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import Wrong, exercise, expect_array, expect_shape, to_numpy

# Exercise "transpose by hand".
M = [[2, 0, 7], [-1, 5, 3]]
M_T = [[2, -1], [0, 5], [7, 3]]
M_RESHAPED = [[2, 0], [7, -1], [5, 3]]      # the numbers poured in reading order: a reshape, not a flip
M_T_COLUMNS_SWAPPED = [[-1, 2], [5, 0], [3, 7]]


@exercise("ch06.by_hand", right=[M_T, np.array(M_T, dtype=float)],
          wrong=[M, M_RESHAPED, M_T_COLUMNS_SWAPPED])
def _by_hand(answer: Any) -> None:
    got = to_numpy(answer)
    if got.shape == (2, 3) and np.allclose(got, M):
        raise Wrong("that is M unchanged. Transposing turns each row of M into a column of the answer, "
                    "so the answer has 3 rows and 2 columns.")
    if got.shape == (3, 2) and np.allclose(got, M_RESHAPED):
        raise Wrong("you read M's numbers in order and poured them into 3 rows of 2: that is a reshape, "
                    "not a transpose. Row 0 of M should become COLUMN 0 of the answer.")
    if got.shape == (3, 2) and np.allclose(got, M_T_COLUMNS_SWAPPED):
        raise Wrong("the columns are in the wrong order. Row 0 of M becomes column 0 (the left column), "
                    "row 1 of M becomes column 1.")
    expect_array(got, M_T)


# Exercise "(AB)ᵀ = BᵀAᵀ".
A = [[1, 2, 0], [-1, 3, 1]]
B = [[2, 1], [0, -1], [4, 1]]
AB = np.array(A, dtype=float) @ np.array(B, dtype=float)
BT_AT = np.array(B, dtype=float).T @ np.array(A, dtype=float).T
AT_BT = np.array(A, dtype=float).T @ np.array(B, dtype=float).T
BA = np.array(B, dtype=float) @ np.array(A, dtype=float)


@exercise("ch06.ab_transpose", right=[BT_AT, BT_AT.tolist(), AB.T], wrong=[AB, AT_BT, BA])
def _ab_transpose(answer: Any) -> None:
    got = to_numpy(answer)
    if got.shape == (2, 2) and np.allclose(got, AB):
        raise Wrong("that is AB itself, not transposed. Multiply Bᵀ by Aᵀ (in that order), "
                    "then compare with the transpose of AB.")
    if got.shape == (3, 3) and np.allclose(got, AT_BT):
        raise Wrong("that is AᵀBᵀ: you transposed both but kept the order. The rule flips the order: "
                    "Bᵀ comes first. Look at the shapes: which order gives a 2×2 result?")
    if got.shape == (3, 3) and np.allclose(got, BA):
        raise Wrong("that is BA, without any transposes. Transpose B and A first (attnlib.transpose or .T), "
                    "then multiply them.")
    if got.shape == (3, 3):
        raise Wrong("your answer is 3×3, but (AB)ᵀ is 2×2. Check the order and the transposes.")
    expect_array(got, BT_AT)


# Exercise "the shape of QKᵀ" for n = 6 words and d_k = 3.
N_WORDS, D_K = 6, 3


@exercise("ch06.qkt_shape", right=[(6, 6), [6, 6], (np.int64(6), np.int64(6))],
          wrong=[(6, 3), (3, 3), (3, 6), (6,)])
def _qkt_shape(answer: Any) -> None:
    if isinstance(answer, (tuple, list)) and all(isinstance(d, (int, np.integer)) for d in answer):
        got = tuple(int(d) for d in answer)
        if got == (N_WORDS, D_K):
            raise Wrong("(6, 3) is the shape of Q (and of K). Multiplying by Kᵀ (3×6) changes the columns: "
                        "what is left on the outside of (6×3)(3×6)?")
        if got == (D_K, N_WORDS):
            raise Wrong("(3, 6) is the shape of Kᵀ alone. The product QKᵀ keeps the rows of Q "
                        "and the columns of Kᵀ.")
        if got == (D_K, D_K):
            raise Wrong("(3, 3) would come from (3×6)(6×3), that is KᵀQ. In QKᵀ the outer numbers are "
                        "Q's rows and Kᵀ's columns.")
    expect_shape(answer, (N_WORDS, N_WORDS), what="the shape of QKᵀ")
