"""Checkers for the chapter on why divide by √d_k."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import Wrong, exercise, expect_array, expect_number, expect_structure, to_numpy, torch_form

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "scaling", "why divide by √d_k"

WHERE_WHY = "the section 'Longer vectors, bigger scores' (why the square root)"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

# --- scaling.spread: a transfer of the variance argument ---------------------------------------
# d_k = 100 (not in the chapter's table); q's entries have variance 1, k's entries have spread 2.

SPREAD_D_K, Q_VARIANCE, K_SPREAD = 100, 1.0, 2.0
SPREAD = math.sqrt(SPREAD_D_K * Q_VARIANCE * K_SPREAD**2)  # 20
SPREAD_UNIT = math.sqrt(SPREAD_D_K)  # 10: k's spread ignored
SPREAD_VARIANCE = SPREAD**2  # 400: the variance, not the spread
SPREAD_K_SPREAD_SQUARED = SPREAD_UNIT * K_SPREAD**2  # 40: spread multiplied by k's variance
SPREAD_LINEAR = SPREAD_D_K * K_SPREAD  # 200: d_k times k's spread
SPREAD_SCALED = SPREAD / math.sqrt(SPREAD_D_K)  # 2: after dividing by √d_k
SPREAD_HALF_ROOT = math.sqrt(SPREAD_D_K * K_SPREAD)  # 14.1: k's spread used as its variance


EDGES["scaling.spread"] = ("k's spread 2: variance 4", "the spread, not the variance", "the raw q · k, before scaling")
SLIPS["scaling.spread"] = [
    (SPREAD_UNIT, "k's entries had spread 1", "k's spread 2: variance 4"),
    (SPREAD_HALF_ROOT, "a variance of 2² for each entry", "k's spread 2: variance 4"),
    (SPREAD_VARIANCE, "that is the variance of q · k", "the spread, not the variance"),
    (SPREAD_K_SPREAD_SQUARED, "variances add; spreads do not", "the spread, not the variance"),
    (SPREAD_LINEAR, "variances add; spreads do not", "the spread, not the variance"),
    (SPREAD_SCALED, "the spread after dividing by √d_k", "the raw q · k, before scaling"),
]


@exercise(
    "scaling.spread",
    right=[20, 20.0, np.float64(20.3), torch_form(20.0, "float32"), [19.6]],
    wrong=["20", *(a for a, _, _ in SLIPS["scaling.spread"])],
    catches="k's spread ignored; the variance given; k's variance multiplied onto the spread; "
    "no square root; the spread after scaling; k's spread used as its variance; text",
    solution="answer = math.sqrt(100 * 1 * 2**2)",
)
def _spread(answer: Any) -> None:
    got = to_numpy(answer, "Your spread")
    if got.size == 1 and np.isfinite(got).all():
        v = float(got.reshape(()))
        near = lambda x: math.isclose(v, x, rel_tol=0.05)
        if near(SPREAD_UNIT):
            raise Wrong(
                "That would be right if k's entries had spread 1, but here they have spread 2. "
                "What is the variance of one product q[i] k[i] now?"
            )
        if near(SPREAD_VARIANCE):
            raise Wrong("That is the variance of q · k. The spread (standard deviation) is its square root.")
        if near(SPREAD_K_SPREAD_SQUARED) or near(SPREAD_LINEAR):
            raise Wrong(
                f"Variances add; spreads do not. Work with variances first (of one product, then "
                f"of the sum of all of them) and take the square root last. See {WHERE_WHY}."
            )
        if near(SPREAD_SCALED):
            raise Wrong(
                "That is the spread after dividing by √d_k. The question asks for the spread of "
                "the raw dot product q · k."
            )
        if near(SPREAD_HALF_ROOT):
            raise Wrong(
                "A spread of 2 means a variance of 2² for each entry of k, not 2. Redo the variance of one product."
            )
    expect_number(
        got,
        SPREAD,
        what="Your spread",
        rtol=0.05,
        hint=f"Go back to {WHERE_WHY}, which works out the spread of a dot product.",
    )


# --- scaling.scale: QKᵀ / √d_k for a 3-word example ------------------------------------------------

SCALE_Q = np.array([[1.0, 0.0, 2.0, 1.0], [0.0, 1.0, 1.0, 0.0], [2.0, 1.0, 0.0, 1.0]])
SCALE_K = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 2.0, 1.0, 1.0], [1.0, 0.0, 1.0, 2.0]])
_S = SCALE_Q @ SCALE_K.T
_D_K = SCALE_Q.shape[1]
SCALED = _S / math.sqrt(_D_K)
_E = np.exp(SCALED - SCALED.max(axis=1, keepdims=True))
SOFTMAXED = _E / _E.sum(axis=1, keepdims=True)  # one step too far: the weights


EDGES["scaling.scale"] = ("√d_k, d_k the columns of Q", "row i: query i", "3×3, unrounded", "before the softmax")
SLIPS["scaling.scale"] = [
    (_S / _D_K, "you divided by d_k = 4", "√d_k, d_k the columns of Q"),
    (_S, "these are the raw scores", "√d_k, d_k the columns of Q"),
    (_S / math.sqrt(3), "the square root of 3, the number of words", "√d_k, d_k the columns of Q"),
    (SCALED.T, "rows and columns are swapped", "row i: query i"),
    (np.round(SCALED), "rounded to whole numbers", "3×3, unrounded"),
    (SCALED[:2], "has shape (2, 3)", "3×3, unrounded"),
    (SCALED.ravel(), "arranged in shape (9,)", "3×3, unrounded"),
    (SOFTMAXED, "you applied softmax too", "before the softmax"),
]


@exercise(
    "scaling.scale",
    right=[
        SCALED,
        SCALED.tolist(),
        tuple(map(tuple, SCALED.tolist())),
        torch_form(SCALED.tolist(), "float32"),
        torch_form(SCALED.tolist(), "bfloat16"),
    ],
    wrong=[a for a, _, _ in SLIPS["scaling.scale"]],
    catches="divided by d_k; not divided; transposed; divided by √n; rounded to whole numbers; "
    "a row missing; flattened; softmax applied as well",
    solution="attnlib.scores(Q_three, K_three) / math.sqrt(",
)
def _scale(answer: Any) -> None:
    got = to_numpy(answer, "Your scaled scores")
    expect_structure(got, SCALED, "Your scaled scores", factors={"√d_k": math.sqrt(_D_K)})
    if got.shape == (SCALED.size,):
        raise Wrong(f"Your scores are one flat row of {got.size} numbers; give the 3×3 table, one row per query.")
    if got.shape == SCALED.shape and np.all(np.isfinite(got)):
        if np.allclose(got, _S / _D_K):
            raise Wrong(
                "You divided by d_k = 4. Divide by the square root of d_k instead: "
                "dividing by d_k shrinks the scores too much."
            )
        if np.allclose(got, _S):
            raise Wrong("These are the raw scores QKᵀ. Now divide every one by √d_k.")
        if np.allclose(got, SOFTMAXED, atol=5e-3):
            raise Wrong(
                "Every row of yours adds up to 1: you applied softmax too. This exercise stops "
                "one step earlier, at the scaled scores."
            )
        if np.allclose(got, SCALED.T) or np.allclose(got, _S.T):
            raise Wrong(
                "Rows and columns are swapped. Row i of the scores belongs to query i: "
                "queries times keys, not keys times queries."
            )
        if np.allclose(got, _S / math.sqrt(_S.shape[0])):
            raise Wrong(
                "You divided by the square root of 3, the number of words. d_k is the length of "
                "each query and key row: the number of COLUMNS of Q."
            )
        if np.allclose(got, np.round(got)) and np.allclose(got, SCALED, atol=0.5):
            raise Wrong("Your scores are rounded to whole numbers; keep the decimals.")
    expect_array(got, SCALED, what="Your scaled scores")


# --- scaling.ninefold: predict what d_k 64 → 576 does, with and without scaling -----------------------

NINE_FROM, NINE_TO = 64, 576
NINEFOLD = (math.sqrt(NINE_TO / NINE_FROM), 1.0)  # (3, 1)


EDGES |= {"scaling.ninefold": ("the spread, not the variance", "both factors", "unscaled first, then scaled")}
SLIPS |= {
    "scaling.ninefold": [
        ((6, 2), "both factors are off", "both factors"),
        ((9, 1), "how much the variance grows", "the spread, not the variance"),
        ((1, 3), "the two factors are swapped", "unscaled first, then scaled"),
        ((3, 3), "the second is off", "both factors"),
    ]
}


@exercise(
    "scaling.ninefold",
    right=[NINEFOLD, [3, 1], np.array(NINEFOLD), torch_form(list(NINEFOLD), "float32"), (3.0, 1)],
    wrong=[(9, 1), (3, 3), (9, 3), (1, 3), (3, 1 / 3), (3,), *(a for a, _, _ in SLIPS["scaling.ninefold"])],
    catches="the variance's factor; scaling forgotten in the second; both squared; swapped; "
    "scaling over-corrects; one number only",
    solution="answer = (3, 1)",
)
def _ninefold(answer: Any) -> None:
    got = to_numpy(answer, "Your pair")
    expect_structure(got, NINEFOLD, "Your pair")
    if got.shape != (2,):
        raise Wrong(f"Give two numbers, (without scaling, with scaling); yours has shape {got.shape}.")
    raw, scaled = (float(x) for x in got)
    if not np.all(np.isfinite(got)):
        raise Wrong("Your pair contains inf or nan; give two ordinary numbers.")
    if np.isclose(raw, NINEFOLD[1]) and np.isclose(scaled, NINEFOLD[0]):
        raise Wrong("The two factors are swapped: first the unscaled scores, then the scaled ones.")
    if np.isclose(raw, NINE_TO / NINE_FROM):
        raise Wrong(
            "The first factor is how much the VARIANCE grows. The spread is the square root of "
            f"the variance. See {WHERE_WHY}."
        )
    if not np.isclose(raw, NINEFOLD[0], rtol=0.05) and not np.isclose(scaled, NINEFOLD[1], rtol=0.05):
        raise Wrong(
            "Both factors are off. How does the spread of q · k grow with d_k, and what does dividing "
            f"by √d_k leave of that growth? See {WHERE_WHY}."
        )
    if not np.isclose(raw, NINEFOLD[0], rtol=0.05):
        raise Wrong(f"The first factor is off: how does the spread of q · k grow with d_k? See {WHERE_WHY}.")
    if not np.isclose(scaled, NINEFOLD[1], rtol=0.05):
        raise Wrong(
            "The first factor is right; the second is off. After dividing by √d_k, what is the "
            "spread of the scores at any d_k? See the table in 'Why not divide by d_k?'."
        )
