"""Checkers for chapter 8: why divide by √d_k."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import Wrong, exercise, expect_array, expect_number, to_numpy

# ch08.spread ------------------------------------------------------------------

SPREAD_D_K = 64


@exercise("ch08.spread", right=[8, 8.0, 8.08, math.sqrt(64)], wrong=[64, 1, 0.125, 4096])
def _spread(answer: Any) -> None:
    if isinstance(answer, bool):
        raise Wrong("True/False is not a spread; a number is wanted.")
    value = to_numpy(answer)
    if value.size == 1 and np.isfinite(value).all():
        v = float(value.reshape(()))
        if math.isclose(v, SPREAD_D_K, rel_tol=0.05):
            raise Wrong("64 is the variance of q · k, which grows like d_k. "
                        "The spread (standard deviation) is the square root of the variance.")
        if math.isclose(v, 1.0, rel_tol=0.05):
            raise Wrong("1 is the spread AFTER dividing by √d_k. The question asks for the spread of the "
                        "raw dot product q · k.")
        if math.isclose(v, SPREAD_D_K ** 2, rel_tol=0.05):
            raise Wrong("That is d_k squared. Each of the 64 products has variance 1, the variances add "
                        "up to 64, and the spread is the square root of that.")
    expect_number(answer, math.sqrt(SPREAD_D_K), rtol=0.05,
                  hint="Measure it: dot_products(64).std(), or use the rule that the spread grows "
                       "like the square root of d_k.")


# ch08.scale -------------------------------------------------------------------

SCALE_Q = np.array([[1.0, 0.0, 2.0, 1.0],
                    [0.0, 1.0, 1.0, 0.0],
                    [2.0, 1.0, 0.0, 1.0]])
SCALE_K = np.array([[1.0, 1.0, 0.0, 0.0],
                    [0.0, 2.0, 1.0, 1.0],
                    [1.0, 0.0, 1.0, 2.0]])
_S = SCALE_Q @ SCALE_K.T
_D_K = SCALE_Q.shape[1]
SCALED = _S / math.sqrt(_D_K)


@exercise("ch08.scale", right=[SCALED, SCALED.tolist()],
          wrong=[_S / _D_K, _S, SCALED.T, _S / math.sqrt(3)])
def _scale(answer: Any) -> None:
    got = to_numpy(answer, "your scaled scores")
    if got.shape == SCALED.shape and np.all(np.isfinite(got)):
        if np.allclose(got, _S / _D_K):
            raise Wrong("you divided by d_k = 4. Divide by the square root of d_k instead: "
                        "dividing by d_k shrinks the scores too much.")
        if np.allclose(got, _S):
            raise Wrong("these are the raw scores QKᵀ. Now divide every one by √d_k.")
        if np.allclose(got, SCALED.T) or np.allclose(got, _S.T):
            raise Wrong("rows and columns are swapped. Row i of the scores belongs to query i: "
                        "compute Q @ K.T, not K @ Q.T.")
        if np.allclose(got, _S / math.sqrt(_S.shape[0])):
            raise Wrong("you divided by the square root of 3, the number of words. d_k is the length of "
                        "each query and key row: the number of COLUMNS of Q.")
    expect_array(answer, SCALED, what="your scaled scores")
