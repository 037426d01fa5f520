"""Sample answers to `weighted_sum.self_attention`: right ones and the plausible wrong ones.

The grader (`weighted_sum.py`) registers them; its hidden inputs, its expected answers (from its own
`_solution`) and the shifts it names in its hints stay there. These are written as a learner would,
with numpy's @ and np.exp and nothing of attnlib, each taking X, W_Q, W_K, W_V.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def _softmax_rows(S: np.ndarray, axis: int = -1) -> np.ndarray:
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _attention(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> tuple[np.ndarray, np.ndarray]:
    """A learner's right answer, (Z, A), that the wrong ones below start from."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = _softmax_rows(Q @ K.T / np.sqrt(K.shape[1]))
    return A @ V, A


def solution_z_only(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    return _attention(X, W_Q, W_K, W_V)[0]


def solution_as_list(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> list:
    Z, A = _attention(X, W_Q, W_K, W_V)
    return [Z, A]


def solution_loops(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    Z = []
    for q in Q:  # one word at a time: its scores, its weights, its blend
        s = K @ q / math.sqrt(K.shape[1])
        a = np.exp(s - s.max())
        Z.append((a / a.sum()) @ V)
    return np.array(Z)


def no_scaling(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax_rows(Q @ K.T) @ V


def divide_by_d_k(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax_rows(Q @ K.T / K.shape[1]) @ V


def scale_by_d_model(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax_rows(Q @ K.T / np.sqrt(X.shape[1])) @ V


def softmax_down_columns(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax_rows(Q @ K.T / np.sqrt(K.shape[1]), axis=0) @ V


def transposed_scores(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax_rows(K @ Q.T / np.sqrt(K.shape[1])) @ V


def no_max_shift(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    E = np.exp(Q @ K.T / np.sqrt(K.shape[1]))
    return E / E.sum(axis=1, keepdims=True) @ V


def cached_by_x(X: Any, W_Q: Any, W_K: Any, W_V: Any, memory: dict = {}) -> Any:  # noqa: B006 - the slip
    """Remembers Z by X alone: the same X with other weights gets the old Z."""
    return memory.setdefault(repr(np.asarray(X).tolist()), _attention(X, W_Q, W_K, W_V)[0])


def returns_weights(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    return _attention(X, W_Q, W_K, W_V)[1]


def zeroes_W_V(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    W_V[...] = 0.0  # changes the caller's matrix
    return _attention(X, W_Q, W_K, W_V)[0]


def shifts_X_in_place(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Z = _attention(X, W_Q, W_K, W_V)[0]
    X -= X.mean(axis=0)  # right Z, but the caller's X is changed
    return Z


def blends_with_transpose(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    return _attention(X, W_Q, W_K, W_V)[1].T @ (X @ W_V)


def scale_by_d_v(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> np.ndarray:
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax_rows(Q @ K.T / np.sqrt(V.shape[1])) @ V


def no_return(X: Any, W_Q: Any, W_K: Any, W_V: Any) -> None:
    _attention(X, W_Q, W_K, W_V)
