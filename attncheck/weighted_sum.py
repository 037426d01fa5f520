"""Checkers for the chapter on mixing the content, Z = AV."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

import attnlib
from attnlib.core import self_attention as _reference
from attnlib.course import chapter_ref

from . import (
    Wrong,
    call,
    describe,
    exercise,
    expect_array,
    expect_no_slip,
    expect_number,
    expect_pair,
    expect_structure,
    expect_value_error,
    to_numpy,
)
from . import _self_attention_samples as samples

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "weighted_sum", "mixing the content, Z = AV"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and bool(np.allclose(got, want, atol=1e-6))


# --- one row of Z by hand ----------------------------------------------------------

A_EX = np.array([[0.5, 0.25, 0.25], [0.1, 0.2, 0.7], [0.6, 0.3, 0.1]])
V_EX = np.array([[2.0, 0.0], [0.0, 4.0], [1.0, 1.0]])
ROW = 1  # the second row, word 1 in Python's counting
_Z_ROW = A_EX[ROW] @ V_EX  # [0.9, 1.5]


EDGES["weighted_sum.z_row"] = ("row 1, counted from 0", "weights along a row of A", "each value row weighted")
SLIPS["weighted_sum.z_row"] = [
    ([1.25, 1.25], "that is row 0, the first word", "row 1, counted from 0"),
    ([1.3, 1.3], "that is row 2, the third word", "row 1, counted from 0"),
    ([0.8, 1.1], "you used column 1 of A", "weights along a row of A"),
    ([1.0, 5 / 3], "the plain average", "each value row weighted"),
    ([3.0, 5.0], "the sum of the value rows without weights", "each value row weighted"),
    ([1.0, 1.0], "one value row copied whole", "each value row weighted"),
    ([1.5, 0.9], "the right two numbers in the wrong order", "each value row weighted"),
]


@exercise(
    "weighted_sum.z_row",
    right=[[0.9, 1.5], np.array([0.9, 1.5]), (0.9, 1.5), np.float32([0.9, 1.5])],
    wrong=[a for a, _, _ in SLIPS["weighted_sum.z_row"]],
    catches="column 1 of A used as the weights, row 0 or row 2 instead of row 1, the plain average, the "
    "unweighted sum, the two numbers swapped, a single value row copied",
    solution="answer = [0.1 * 2 + 0.2 * 0 + 0.7 * 1,",
)
def _z_row(answer: Any) -> None:
    got = to_numpy(answer, "your row")
    want = _Z_ROW
    expect_structure(got, _Z_ROW, "your row", atol=2e-3, rtol=0)
    if got.shape == want.shape:
        if np.allclose(got, want, atol=2e-3, rtol=0):  # bfloat16 keeps about 3 digits
            return
        if _close(got, A_EX[:, ROW] @ V_EX):
            raise Wrong(
                "You used column 1 of A as the weights. Word i's weights are ROW i of A "
                "(they add up to 1 across the row)."
            )
        if _close(got, A_EX[0] @ V_EX):
            raise Wrong("That is row 0, the first word. The exercise asks for row 1, the second word.")
        if _close(got, A_EX[2] @ V_EX):
            raise Wrong("That is row 2, the third word: rows count from 0, so row 1 is the second row of A.")
        if _close(got, V_EX.mean(axis=0)):
            raise Wrong(
                "That is the plain average of the value rows. Multiply each value row by its "
                "weight from row 1 of A before adding."
            )
        if _close(got, V_EX.sum(axis=0)):
            raise Wrong(
                "That is the sum of the value rows without weights. Multiply each value row by its weight first."
            )
        if _close(got, want[::-1]):
            raise Wrong(
                "The right two numbers in the wrong order: the first number of z comes from the "
                "first numbers of the value rows."
            )
        if any(_close(got, v) for v in V_EX):
            raise Wrong(
                "That is one value row copied whole. Row 1 of A spreads its weight over all three "
                "words: blend all three value rows."
            )
    expect_array(got, want, what="your row")


# --- the whole of self-attention -----------------------------------------------------

# (n, d_model, d_k, d_v): no two of them equal in the first case, so √d_k, d_k and √d_model all differ
_SHAPES = [(5, 3, 4, 2), (3, 4, 2, 5), (1, 4, 3, 3), (4, 2, 6, 1)]


def _overflow_case() -> tuple[np.ndarray, ...]:
    """Scores near 25,000 with gaps of about 1: e^x overflows unless each row's max is subtracted first."""
    u = np.array([1.5, -1.0, 0.5, 2.0, -0.5])
    w = np.array([0.3, -0.7, 1.1, 0.0, 0.6])
    X = np.stack([np.full(5, 30.0), u, w], axis=1)  # n = 5, d_model = 3
    W_Q = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])  # d_k = 2
    W_K = np.array([[40.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    W_V = np.array(
        [
            [0.1, 0.0, -0.05, 0.02],  # d_v = 4
            [1.0, -0.5, 0.0, 2.0],
            [0.0, 1.5, 1.0, -1.0],
        ]
    )
    return X, W_Q, W_K, W_V


def _rows_apart_case() -> tuple[np.ndarray, ...]:
    """Row 0's scores near +1,000, row 1's near -1,000, row 2's near 0, with gaps below 1 in each row.

    Without a shift row 0 overflows; shifted by the whole matrix's max, rows 1 and 2 underflow to 0/0.
    """
    X = np.array([[1.0, 0.5, 1.0], [-1.0, -0.4, 1.0], [0.0, 1.0, 1.0]])  # sign, detail, a constant 1
    W_Q = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])  # q = (sign, detail)
    W_K = np.array([[0.0, 0.0], [0.0, 1.0], [1414.0, 0.0]])  # k = (1414, detail): S ≈ ±1000
    W_V = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    return X, W_Q, W_K, W_V


def _wide_row_case() -> tuple[np.ndarray, ...]:
    """Row 0's scores are [1131, 0, 0]: a spread of over 1,000 inside one row.

    Shifted by the row's max it is fine; shifted by its min or its mean, e^x still overflows (the softmax
    chapter's stable_softmax rejects both shifts on such a row). X is the identity, so Q = W_Q, K = W_K, V = W_V.
    """
    X = np.eye(3)
    W_Q = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    W_K = np.array([[1600.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    W_V = np.array([[0.5, -1.0], [2.0, 0.3], [-0.4, 1.2]])
    return X, W_Q, W_K, W_V


def _cases() -> list[tuple[np.ndarray, ...]]:
    rng = np.random.default_rng(10)
    cases = [
        (rng.normal(size=(n, d)), rng.normal(size=(d, k)), rng.normal(size=(d, k)), rng.normal(size=(d, v)))
        for n, d, k, v in _SHAPES
    ]
    X0, W_Q0, W_K0, W_V0 = cases[0]  # the first X again with other weights: a result remembered by X fails
    again = (X0, rng.normal(size=W_Q0.shape), rng.normal(size=W_K0.shape), rng.normal(size=W_V0.shape))
    return cases + [_overflow_case(), _rows_apart_case(), _wide_row_case(), again]


def _softmax_rows(S: np.ndarray, axis: int = -1) -> np.ndarray:
    """The stable softmax the statement asks for, in numpy (the learner may not use attnlib's, nor may its right answers)."""
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _solution(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> tuple[np.ndarray, np.ndarray]:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = _softmax_rows(Q @ K.T / np.sqrt(K.shape[1]))
    return A @ V, A


# Private hidden cases and their answers, made before any learner code runs.
_SA_CASES = tuple(_cases())
_SA_WANT = tuple(_solution(*case)[0] for case in _SA_CASES)


def _global_max_shift(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.max())  # the whole matrix's largest score, not each row's
    return E / E.sum(axis=1, keepdims=True) @ V


def _min_shift(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.min(axis=1, keepdims=True))  # each row's smallest score: its largest still overflows
    return E / E.sum(axis=1, keepdims=True) @ V


def _mean_shift(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.mean(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True) @ V


def _z_from(result: Any, want_shape: tuple[int, int]) -> np.ndarray:
    """Z from what the function returned: Z itself, or the pair (Z, A) as a tuple or a list."""
    if isinstance(result, (tuple, list)) and len(result) == 2:
        Z, A = expect_pair(result, "What your function returned")
        Z, A = to_numpy(Z, "the Z your function returned"), to_numpy(A, "the A your function returned")
        n = want_shape[0]
        if Z.shape == (n, n) and A.shape == want_shape and want_shape != (n, n):
            raise Wrong(
                "Your function returned the pair in the other order, (A, Z). Return Z first: "
                "(Z, A), as the statement says."
            )
        if Z.ndim == 2 and A.ndim == 2:
            return Z
    if isinstance(result, tuple):
        raise Wrong(f"Your function returned a tuple of {len(result)} things; return Z, or the pair (Z, A).")
    return to_numpy(result, "the Z your function returned")


def _diagnose(Z: np.ndarray, X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, W_V: np.ndarray) -> None:
    """Name the usual slip when Z matches one of them."""
    d_k = W_Q.shape[1]
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T
    if _close(Z, _softmax_rows(S / np.sqrt(d_k))):
        raise Wrong("Your function returned the weights A. Z is the blend of the value rows: multiply A by V.")
    if _close(Z, _softmax_rows(S) @ V):
        raise Wrong(f"The scores were not scaled. Divide QKᵀ by √d_k before the softmax ({chapter_ref('scaling')}).")
    if d_k != np.sqrt(X.shape[1]) and _close(Z, _softmax_rows(S / d_k) @ V):
        raise Wrong(f"You divided by d_k itself. Divide by its square root ({chapter_ref('scaling')}).")
    if _close(Z, _softmax_rows(S / np.sqrt(d_k), axis=0) @ V):
        raise Wrong(f"The softmax ran down the columns. Each ROW of A must add up to 1 ({chapter_ref('softmax')}).")
    if _close(Z, _softmax_rows(K @ Q.T / np.sqrt(d_k)) @ V):
        raise Wrong(
            f"The scores are transposed. S = QKᵀ: row i holds query i against every key ({chapter_ref('dot_product_scores')})."
        )
    if X.shape[1] != d_k and _close(Z, _softmax_rows(S / np.sqrt(X.shape[1])) @ V):
        raise Wrong("You scaled by √d_model. d_k is the width of Q and K, not of X.")
    if V.shape[1] != d_k and _close(Z, _softmax_rows(S / np.sqrt(V.shape[1])) @ V):
        raise Wrong(
            "You scaled by √d_v, the width of the values. The scaling tames the scores, whose "
            f"size comes from the width of the queries and keys ({chapter_ref('scaling')})."
        )
    if Z.shape[0] == V.shape[0] and _close(Z, _softmax_rows(S / np.sqrt(d_k)).T @ V):
        raise Wrong("You blended with A transposed. Word i's weights are row i of A, so Z = A @ V, not A.T @ V.")


EDGES |= {
    "weighted_sum.self_attention": (
        "any legal shapes: d_k, d_v and d_model all different, n = 1",
        "scores in the tens of thousands",
        "rows far apart",
        "a row with a large spread inside it",
        "each input again with other companions",
        "built with numpy's @ and np.exp, not attnlib",
    )
}
_FORBIDDEN = {"attnlib": attnlib}  # the statement: numpy's @ and np.exp, not attnlib
SLIPS |= {
    "weighted_sum.self_attention": [
        (_reference, "uses attnlib", "built with numpy's @ and np.exp, not attnlib"),
        (samples.cached_by_x, "keeps results between calls", "each input again with other companions"),
        (_min_shift, "each row's smallest score", "a row with a large spread inside it"),
        (_mean_shift, "each row's mean score", "a row with a large spread inside it"),
        (_global_max_shift, "the largest score of the whole matrix", "rows far apart"),
        (samples.no_max_shift, "scores near 25,000", "scores in the tens of thousands"),
        (samples.scale_by_d_model, "scaled by √d_model", "any legal shapes: d_k, d_v and d_model all different, n = 1"),
        (samples.divide_by_d_k, "divided by d_k itself", "any legal shapes: d_k, d_v and d_model all different, n = 1"),
    ]
}


@exercise(
    "weighted_sum.self_attention",
    right=[_solution, samples.solution_z_only, samples.solution_as_list, samples.solution_loops],
    wrong=[
        samples.no_scaling,
        samples.divide_by_d_k,
        samples.scale_by_d_model,
        samples.softmax_down_columns,
        samples.transposed_scores,
        samples.no_max_shift,
        _global_max_shift,
        samples.returns_weights,
        samples.zeroes_W_V,
        samples.shifts_X_in_place,
        samples.no_return,
        samples.blends_with_transpose,
        samples.scale_by_d_v,
        _min_shift,
        _mean_shift,
        _reference,
        samples.cached_by_x,
    ],
    catches="a shift by each row's min or mean (a row of scores 1131, 0, 0), no √d_k, d_k or √d_model instead of √d_k, softmax down the columns, S = KQᵀ (all by "
    "non-square shapes with d_k ≠ d_v ≠ d_model and n = 1), √d_v instead of √d_k, A.T @ V, no max-subtraction (scores "
    "near 25,000), a shift by the whole matrix's max (rows near +1,000 and -1,000), returning A, changing X or W_V in place, a missing return, no ValueError "
    "for a W_Q with the wrong number of rows",
    solution="S = Q @ K.T / np.sqrt(d_k)",
)
def _self_attention(fn: Any) -> None:
    for k, (case, want) in enumerate(zip(_SA_CASES, _SA_WANT)):
        X, W_Q, W_K, W_V = case
        n, d_model, d_k, d_v = X.shape[0], X.shape[1], W_Q.shape[1], W_V.shape[1]
        label = f"Z for n={n}, d_model={d_model}, d_k={d_k}, d_v={d_v}"
        got = call(fn, *case, what="your function `self_attention`", forbidden=_FORBIDDEN)  # on private copies
        Z = _z_from(got, want.shape)
        if _close(Z, want):
            continue
        if any(w.shape == Z.shape and _close(Z, w) for w in _SA_WANT[:k]):
            raise Wrong(
                f"{label} is the Z of an earlier call: your function keeps results between calls. "
                "Compute Z from the X and weights it is given, every time."
            )
        if Z.shape == want.shape and not np.all(np.isfinite(Z)):
            with np.errstate(all="ignore"):
                global_shift = _global_max_shift(*case)
                shifts = {"smallest score": _min_shift(*case), "mean score": _mean_shift(*case)}
            shifted = next((name for name, z in shifts.items() if np.allclose(Z, z, equal_nan=True)), None)
            if shifted and not np.allclose(Z, global_shift, equal_nan=True):
                raise Wrong(
                    f"{label} contains inf or nan: you subtracted each row's {shifted}. In this hidden input "
                    "one row's scores are spread over more than 1,000 (about 1131, 0, 0), so after that "
                    "shift e^x of its largest score still overflows. Subtract each row's largest score: "
                    "then every power is at most e^0 = 1."
                )
            if np.allclose(Z, global_shift, equal_nan=True):
                raise Wrong(
                    f"{label} contains nan: you subtracted the largest score of the whole matrix. "
                    "In these hidden inputs one row's scores sit near +1,000 and another's near "
                    "-1,000, so every e^x of the low row underflows to 0 and it divides 0 by 0. "
                    "Subtract each row's own largest score (keepdims=True)."
                )
            raise Wrong(
                f"{label} contains inf or nan: these hidden inputs have scores near 25,000, and "
                f"e^x overflows. Subtract each row's largest score before np.exp ({chapter_ref('softmax')}, "
                "'Overflow, and the max trick')."
            )
        if Z.shape == want.shape or Z.shape == (n, n):
            _diagnose(Z, *case)
        if Z.shape != want.shape:
            raise Wrong(
                f"{label} has shape {Z.shape}, but it should be (n, d_v) = {want.shape}. "
                "Check which weight matrix makes V, and that Z = A @ V."
            )
        expect_array(Z, want, what=label)
    X, W_Q, W_K, W_V = (M.copy() for M in _SA_CASES[0])
    expect_value_error(fn, X, np.ones((X.shape[1] + 1, 2)), W_K, W_V, what="your function `self_attention`")


# --- what depends on W_V? (a prediction) --------------------------------------------------

_PIECES = ("Q", "K", "V", "S", "A", "Z")
_CHANGES = {"V", "Z"}  # V = XW_V, Z = AV; Q, K, S and A never see W_V


def _letters(answer: Any) -> set[str]:
    """The set of names in the answer: a list, tuple or set of names, or one text such as "V, Z"."""
    if isinstance(answer, str):
        tokens = [t for t in re.findall(r"[A-Za-z]+", answer) if t.lower() not in ("and", "or")]
    elif isinstance(answer, (list, tuple, set, frozenset)):
        if not all(isinstance(t, str) for t in answer):
            raise Wrong('Give the names as text in quotes, such as ["Q", "K"].')
        tokens = [t.strip() for t in answer]
    else:
        raise Wrong(
            f'Your answer should be a list of names in quotes, such as ["Q", "K"], but it is {describe(answer)}.'
        )
    names = {t.upper() for t in tokens}
    unknown = sorted(names - set(_PIECES))
    if unknown:
        raise Wrong(f"{', '.join(repr(u) for u in unknown)[:80]} is not one of Q, K, V, S, A, Z.")
    if not names:
        raise Wrong("Your answer names nothing. Something does change: list the names that do.")
    return names


EDGES["weighted_sum.what_changes"] = (
    "A is decided before the values",
    "V and what is made from it",
    "Q and K untouched",
)
SLIPS["weighted_sum.what_changes"] = [
    (["V", "A", "Z"], "which of its letters is made with W_V?", "A is decided before the values"),
    (["V"], "follow it one more step", "V and what is made from it"),
    (["Z"], "V itself is made with W_V", "V and what is made from it"),
    (list(_PIECES), "none of those changed", "Q and K untouched"),
    (["Q", "V", "Z"], "none of those changed", "Q and K untouched"),
]


@exercise(
    "weighted_sum.what_changes",
    right=[["V", "Z"], ("Z", "V"), {"V", "Z"}, "V, Z", "v and z"],
    wrong=[["A", "Z"], ["V", "S", "A", "Z"], *(a for a, _, _ in SLIPS["weighted_sum.what_changes"])],
    catches="forgetting V or Z, thinking S or A depend on the values, thinking Q or K change, everything changes",
    solution="Z_new, A_new = attnlib.self_attention(X, W_Q, W_K, W_V_new)",
)
def _what_changes(answer: Any) -> None:
    names = _letters(answer)
    if names == _CHANGES:
        return
    if names & {"Q", "K"}:
        raise Wrong(
            f"Q and K are made from X with W_Q and W_K ({chapter_ref('query_key_value')}), and none of those changed."
        )
    if names & {"S", "A"}:
        raise Wrong(
            "Look at the formula A = softmax(QKᵀ/√d_k) again (section 'The whole formula on the "
            "running example'): which of its letters is made with W_V? Who attends to whom is decided "
            "before the values come in."
        )
    if "V" not in names:
        raise Wrong("V itself is made with W_V: V = XW_V.")
    raise Wrong("V changes, and something is computed from V. Follow it one more step.")


# --- counting the work -------------------------------------------------------------------

# A head with d_k = d_v = 64 reads n words; then the text doubles and d_v is halved to 32.
D_K, D_V_OLD, D_V_NEW = 64, 64, 32
FLOPS_FACTOR = (2**2 * (D_K + D_V_NEW)) / (D_K + D_V_OLD)  # 4 · 96 / 128 = 3: the n² and the 2 cancel

EDGES["weighted_sum.flops"] = ("both products grow like n²", "only AV works on d_v", "a factor, not a count")
SLIPS["weighted_sum.flops"] = [  # each with the hint it gets, the whole of it
    (
        1.0,
        (
            "That treats the work as growing like n, so that doubling n and halving d_v cancel. Every word is "
            "scored against every word: both products grow like n², so doubling n multiplies each by 4."
        ),
        "both products grow like n²",
    ),
    (
        2 * (D_K + D_V_NEW) / (D_K + D_V_OLD),
        (
            "That grows only like n. Every word is scored against every word: both products grow like n², so "
            "doubling n multiplies each by 4."
        ),
        "both products grow like n²",
    ),
    (
        4.0,
        "That leaves out the halved d_v. The blend AV works on value rows of d_v numbers, so it costs less.",
        "only AV works on d_v",
    ),
    (
        2.0,
        (
            "That halves both products. Only the blend AV works on value rows; the scores QKᵀ pair queries and "
            "keys of d_k numbers, and d_k stayed 64."
        ),
        "only AV works on d_v",
    ),
    (1 / 3, "That is the factor upside down: divide the new work by the old one.", "a factor, not a count"),
    (2 * 2000**2 * (D_K + D_V_NEW), "That looks like a count of FLOPs", "a factor, not a count"),  # n = 1000
]


@exercise(
    "weighted_sum.flops",
    right=[3, 3.0, FLOPS_FACTOR, np.float64(3.0), np.int64(3)],
    wrong=[6.0, 2.5, *(a for a, _, _ in SLIPS["weighted_sum.flops"])],
    catches="work taken to grow like n (1 and 1.5), the halved d_v left out (4), d_v taken to halve both "
    "products (2), the factor upside down (1/3)",
    solution="answer = work(2 * n, 64, 32) / work(n, 64, 64)",
)
def _flops(answer: Any) -> None:
    got = to_numpy(answer, "your factor")
    if got.size == 1 and math.isfinite(float(got.reshape(()))):
        value = float(got.reshape(()))
        if value > 1e6:
            raise Wrong(
                "That looks like a count of FLOPs. The question asks for a factor: the new work divided by the old."
            )
        expect_no_slip(value, SLIPS["weighted_sum.flops"])
    expect_number(
        got,
        FLOPS_FACTOR,
        what="your factor",
        rtol=1e-6,
        hint="Write the work of QKᵀ and of AV before and after as in 'The cost: every word against every word', "
        "and divide the new total by the old.",
    )
