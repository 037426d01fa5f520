"""Checkers for chapter 10: mixing the content, Z = AV."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import Wrong, call, exercise, expect_array, expect_number, expect_value_error, to_numpy
from ..core import self_attention as _reference

# --- one row of Z by hand ----------------------------------------------------------

A_EX = np.array([[0.5, 0.25, 0.25],
                 [0.1, 0.2, 0.7],
                 [0.6, 0.3, 0.1]])
V_EX = np.array([[2.0, 0.0],
                 [0.0, 4.0],
                 [1.0, 1.0]])
ROW = 1  # the second row, word 1 in Python's counting


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and bool(np.allclose(got, want, atol=1e-6))


@exercise("ch10.z_row", right=[[0.9, 1.5], np.array([0.9, 1.5]), (0.9, 1.5)],
          wrong=[[0.8, 1.1], [1.25, 1.25], [1.0, 5 / 3], [3.0, 5.0], [1.5, 0.9]])
def _z_row(answer: Any) -> None:
    got = to_numpy(answer, "your row")
    want = A_EX[ROW] @ V_EX
    if got.shape == want.shape:
        if _close(got, A_EX[:, ROW] @ V_EX):
            raise Wrong("you used column 1 of A as the weights. Word i's weights are ROW i of A "
                        "(they add up to 1 across the row).")
        if _close(got, A_EX[0] @ V_EX):
            raise Wrong("that is row 0, the first word. The exercise asks for the second row (row 1).")
        if _close(got, V_EX.mean(axis=0)):
            raise Wrong("that is the plain average of the value rows. Multiply each value row by its "
                        "weight from row 1 of A before adding.")
        if _close(got, V_EX.sum(axis=0)):
            raise Wrong("that is the sum of the value rows without weights. Multiply each value row "
                        "by its weight first.")
    expect_array(got, want, what="your row")


# --- the whole of self-attention -----------------------------------------------------

SHAPES = [(3, 4, 2, 5), (5, 3, 4, 2), (1, 4, 3, 3), (4, 2, 6, 1)]  # (n, d_model, d_k, d_v)


def _cases() -> list[tuple[np.ndarray, ...]]:
    rng = np.random.default_rng(10)
    return [(rng.normal(size=(n, d)), rng.normal(size=(d, k)), rng.normal(size=(d, k)), rng.normal(size=(d, v)))
            for n, d, k, v in SHAPES]


def _softmax_rows(S: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _solution(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> tuple[np.ndarray, np.ndarray]:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = _softmax_rows(Q @ K.T / np.sqrt(K.shape[1]))
    return A @ V, A


def _solution_z_only(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    return _solution(X, W_Q, W_K, W_V)[0]


def _no_scaling(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax_rows(Q @ K.T) @ V


def _divide_by_d_k(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax_rows(Q @ K.T / K.shape[1]) @ V


def _softmax_down_columns(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax_rows(Q @ K.T / np.sqrt(K.shape[1]), axis=0) @ V


def _returns_weights(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    return _solution(X, W_Q, W_K, W_V)[1]


def _no_return(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> None:
    _solution(X, W_Q, W_K, W_V)


def _z_from(result: Any) -> np.ndarray:
    if isinstance(result, tuple):
        if len(result) != 2:
            raise Wrong(f"your function returned a tuple of {len(result)} things; return Z, or the pair (Z, A).")
        result = result[0]
    return to_numpy(result, "the Z your function returned")


def _diagnose(Z: np.ndarray, X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, W_V: np.ndarray) -> None:
    """Name the usual slip when Z matches one of them."""
    n, d_k = X.shape[0], W_Q.shape[1]
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T
    if _close(Z, _softmax_rows(S / np.sqrt(d_k))):
        raise Wrong("your function returned the weights A. Z is the blend of the value rows: multiply A by V.")
    if _close(Z, _softmax_rows(S) @ V):
        raise Wrong("the scores were not scaled. Divide QKᵀ by √d_k before the softmax.")
    if _close(Z, _softmax_rows(S / d_k) @ V):
        raise Wrong("you divided by d_k itself. Divide by its square root, np.sqrt(d_k).")
    if _close(Z, _softmax_rows(S / np.sqrt(d_k), axis=0) @ V):
        raise Wrong("the softmax ran down the columns. Each ROW of A must add up to 1: use axis=-1 (or axis=1).")
    if _close(Z, _softmax_rows(K @ Q.T / np.sqrt(d_k)) @ V):
        raise Wrong("the scores are transposed. S = QKᵀ: row i holds query i against every key.")
    if _close(Z, _softmax_rows(S / np.sqrt(X.shape[1])) @ V) and X.shape[1] != d_k:
        raise Wrong("you scaled by √d_model. d_k is the width of Q and K (Q.shape[1]), not of X.")


@exercise("ch10.self_attention", right=[_solution, _solution_z_only, _reference],
          wrong=[_no_scaling, _divide_by_d_k, _softmax_down_columns, _returns_weights, _no_return])
def _self_attention(fn: Any) -> None:
    for X, W_Q, W_K, W_V in _cases():
        n, d_model, d_k, d_v = X.shape[0], X.shape[1], W_Q.shape[1], W_V.shape[1]
        got = call(fn, X, W_Q, W_K, W_V, what="your function `self_attention`")
        Z = _z_from(got)
        want = _solution_z_only(X, W_Q, W_K, W_V)
        label = f"Z for n={n}, d_model={d_model}, d_k={d_k}, d_v={d_v}"
        if _close(Z, want):
            continue
        if Z.shape == want.shape or Z.shape == (n, n):
            _diagnose(Z, X, W_Q, W_K, W_V)
        if Z.shape != want.shape:
            raise Wrong(f"{label} has shape {Z.shape}, but it should be (n, d_v) = {want.shape}. "
                        "Check which weight matrix makes V, and that Z = A @ V.")
        expect_array(Z, want, what=label)
    X, W_Q, W_K, W_V = _cases()[0]
    expect_value_error(fn, X, np.ones((X.shape[1] + 1, 2)), W_K, W_V, what="your function `self_attention`")


# --- counting the work -------------------------------------------------------------------

N_FLOPS, D_K, D_V = 2000, 64, 128
FLOPS = 2 * N_FLOPS**2 * D_K + 2 * N_FLOPS**2 * D_V  # 1,536,000,000


@exercise("ch10.flops", right=[FLOPS, 1.536e9, float(FLOPS)],
          wrong=[N_FLOPS**2 * (D_K + D_V), 2 * N_FLOPS**2 * D_K, 2 * N_FLOPS**2 * D_V, 2 * N_FLOPS * (D_K + D_V)])
def _flops(answer: Any) -> None:
    if isinstance(answer, bool):
        raise Wrong("your answer is True/False, but a count of operations is wanted.")
    got = to_numpy(answer, "your count")
    if got.size == 1 and math.isfinite(float(got.reshape(()))):
        value = float(got.reshape(()))
        slips = {
            N_FLOPS**2 * (D_K + D_V): "that is half: every multiply-add counts as 2 FLOPs (one multiply, one add).",
            2 * N_FLOPS**2 * D_K: "that counts only the scores QKᵀ. Add the work of the blend AV, 2·n²·d_v.",
            2 * N_FLOPS**2 * D_V: "that counts only the blend AV. Add the work of the scores QKᵀ, 2·n²·d_k.",
            2 * N_FLOPS * (D_K + D_V): "that grows only like n. Every word is scored against every word: "
                                       "the count has n² in it.",
        }
        for slip, hint in slips.items():
            if math.isclose(value, slip, rel_tol=1e-9):
                raise Wrong(hint)
    expect_number(got, FLOPS, what="your count", rtol=1e-6,
                  hint="Count 2·n²·d_k for QKᵀ plus 2·n²·d_v for AV, with n = 2000, d_k = 64, d_v = 128.")


# --- the causal mask (stretch) -----------------------------------------------------------

def _causal(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool))


def _causal_loops(n: int) -> list[list[bool]]:
    return [[j <= i for j in range(n)] for i in range(n)]


def _upper(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n), dtype=bool))


def _strict(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool), k=-1)


def _numbers(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n)))


@exercise("ch10.causal_mask", right=[_causal, _causal_loops], wrong=[_upper, _strict, _numbers])
def _causal_mask(fn: Any) -> None:
    for n in (1, 3, 6):
        got = call(fn, n, what="your function `causal_mask`")
        if isinstance(got, (str, bytes)) or callable(got):
            raise Wrong(f"causal_mask({n}) should return an n×n grid of True/False, not a {type(got).__name__}.")
        mask = np.asarray(got.detach().cpu().numpy() if hasattr(got, "detach") else got)
        want = _causal(n)
        if mask.shape != want.shape:
            raise Wrong(f"causal_mask({n}) has shape {mask.shape}, but it should be (n, n) = {want.shape}.")
        if mask.dtype != bool:
            if mask.dtype.kind in "iuf" and np.array_equal(mask, want.astype(mask.dtype)):
                raise Wrong("the pattern is right, but the entries are numbers. attention wants True/False "
                            "(True = may attend): use dtype=bool.")
            raise Wrong(f"causal_mask({n}) should hold True/False values, but they are {mask.dtype}.")
        if n > 1 and np.array_equal(mask, _upper(n)):
            raise Wrong("that mask lets each word see the words AFTER it. True belongs on and below the "
                        "diagonal: word i may look at word j when j ≤ i.")
        if np.array_equal(mask, _strict(n)):
            raise Wrong("the diagonal is False, so the first word may look at nothing at all. "
                        "A word may always attend to itself.")
        if not np.array_equal(mask, want):
            bad = tuple(int(i) for i in np.argwhere(mask != want)[0])
            raise Wrong(f"causal_mask({n}) is wrong at position {bad}: word i may attend to word j "
                        "exactly when j ≤ i.")
