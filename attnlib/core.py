"""The math of attention, one code path for numpy arrays and torch tensors (the matrix multiplication, query key value, transpose, dot product scores, scaling, softmax, weighted sum and masks chapters).

Every function takes numpy arrays (or plain Python lists, treated as numpy)
or torch tensors on any device, and returns the same kind it was given.
torch is never imported here: a tensor is recognised by its type's module,
so `import attnlib` stays fast.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .arrays import Array, as_array, exp, from_nested, max_along, same_kind, shape_of, sum_along
from .masks import apply_mask

# --- helpers shared by every function below -------------------------------


def _need_ndim(name: str, arg: str, x: Array, ndim: int) -> None:
    if x.ndim != ndim:
        raise ValueError(f"{name}: {arg} must have {ndim} dimension(s), but it has shape {shape_of(x)}")


def swap_last_two(x: Array) -> Array:
    """Transpose the last two axes of x (works for numpy and torch, any batch shape)."""
    return x.swapaxes(-1, -2)


# --- the dot product -------------------------


def dot(u: Array, v: Array) -> Array:
    """Dot product u · v with an explicit loop: multiply matching entries, then add."""
    u, v = as_array(u, "u"), as_array(v, "v")
    same_kind("dot", u, v)
    _need_ndim("dot", "u", u, 1)
    _need_ndim("dot", "v", v, 1)
    if u.shape[0] != v.shape[0]:
        raise ValueError(
            f"dot: u has shape {shape_of(u)} and v has shape {shape_of(v)}; "
            f"their lengths must match, but {u.shape[0]} != {v.shape[0]}"
        )
    total = u[0] * v[0] if u.shape[0] else 0 * u.sum()
    for i in range(1, u.shape[0]):
        total = total + u[i] * v[i]
    return total


# --- matrix multiplication ----------------


def matmul(M: Array, N: Array) -> Array:
    """Matrix product M @ N with explicit loops: row i of M times column j of N gives cell (i, j)."""
    M, N = as_array(M, "M"), as_array(N, "N")
    same_kind("matmul", M, N)
    _need_ndim("matmul", "M", M, 2)
    _need_ndim("matmul", "N", N, 2)
    rows, inner = M.shape
    inner_n, cols = N.shape
    if inner != inner_n:
        raise ValueError(
            f"matmul: M has shape {shape_of(M)} and N has shape {shape_of(N)}; "
            f"the inner dimensions must match, but M's columns ({inner}) != N's rows ({inner_n})"
        )
    out = []
    for i in range(rows):
        row = []
        for j in range(cols):
            cell = 0.0
            for k in range(inner):
                cell += float(M[i, k]) * float(N[k, j])
            row.append(cell)
        out.append(row)
    if rows == 0 or cols == 0:
        return M @ N  # an empty result: let the library give it the right shape
    return from_nested(out, M)


# --- the transpose ------------------------------------


def transpose(M: Array) -> Array:
    """Transpose with explicit loops: cell (i, j) of M becomes cell (j, i) of the result."""
    M = as_array(M, "M")
    _need_ndim("transpose", "M", M, 2)
    rows, cols = M.shape
    if rows == 0 or cols == 0:
        return swap_last_two(M)
    out = [[float(M[i, j]) for i in range(rows)] for j in range(cols)]
    return from_nested(out, M)


# --- the pieces of attention, from the scores to the weighted sum --------------


def _check_qk(name: str, Q: Array, K: Array) -> None:
    if Q.ndim < 2 or K.ndim < 2:
        raise ValueError(
            f"{name}: Q and K need at least 2 dimensions (n, d_k), "
            f"but Q has shape {shape_of(Q)} and K has shape {shape_of(K)}"
        )
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"{name}: Q has shape {shape_of(Q)} and K has shape {shape_of(K)}; "
            f"the last dimension d_k must match, but {Q.shape[-1]} != {K.shape[-1]}"
        )
    try:
        np.broadcast_shapes(shape_of(Q)[:-2], shape_of(K)[:-2])
    except ValueError:
        raise ValueError(
            f"{name}: Q has shape {shape_of(Q)} and K has shape {shape_of(K)}; "
            f"their batch dimensions {shape_of(Q)[:-2]} and {shape_of(K)[:-2]} "
            "do not broadcast"
        ) from None


def scores(Q: Array, K: Array) -> Array:
    """The score matrix S = QKᵀ, one dot product per (query, key) pair."""
    Q, K = as_array(Q, "Q"), as_array(K, "K")
    same_kind("scores", Q, K)
    _check_qk("scores", Q, K)
    return Q @ swap_last_two(K)


def scale(S: Array, d_k: int) -> Array:
    """Divide the scores by √d_k, the spread of a d_k-long dot product."""
    return S / math.sqrt(d_k)


def softmax(x: Array, axis: int = -1) -> Array:
    """Softmax along `axis`, made stable by subtracting the largest entry first."""
    x = as_array(x, "x")
    shifted = x - max_along(x, axis)
    e = exp(shifted)
    return e / sum_along(e, axis)


def attention(Q: Array, K: Array, V: Array, mask: Any = None) -> tuple[Array, Array]:
    """Scaled dot-product attention: returns (Z, A) with A = softmax(QKᵀ/√d_k) and Z = AV.

    `mask`, when given, is True where query i may see key j; the hidden scores
    become -inf, so softmax gives them weight 0.
    """
    Q, K, V = as_array(Q, "Q"), as_array(K, "K"), as_array(V, "V")
    check_qkv("attention", Q, K, V)
    S = scale(scores(Q, K), Q.shape[-1])  # S = QKᵀ / √d_k
    if mask is not None:
        S = apply_mask(S, mask)
    A = softmax(S)
    Z = A @ V
    return Z, A


def check_qkv(name: str, Q: Array, K: Array, V: Array) -> None:
    """Clear errors, naming the shapes, unless Q, K and V fit together: one kind (numpy or torch),
    d_k matching, one value per key, at least one key, batches that broadcast."""
    same_kind(name, Q, K, V)
    _check_qk(name, Q, K)
    if V.ndim < 2 or V.shape[-2] != K.shape[-2]:
        raise ValueError(
            f"{name}: K has shape {shape_of(K)} and V has shape {shape_of(V)}; "
            f"they need one row per key, but K has {K.shape[-2]} rows and V has "
            f"{V.shape[-2] if V.ndim >= 2 else 'no'} rows"
        )
    if K.shape[-2] == 0:
        raise ValueError(f"{name}: K has shape {shape_of(K)}; there is no key to attend to")
    try:
        np.broadcast_shapes(shape_of(Q)[:-2], shape_of(K)[:-2], shape_of(V)[:-2])
    except ValueError:
        raise ValueError(
            f"{name}: Q has shape {shape_of(Q)}, K has shape {shape_of(K)} and V has shape {shape_of(V)}; "
            "their batch dimensions do not broadcast"
        ) from None


def self_attention(X: Array, W_Q: Array, W_K: Array, W_V: Array, mask: Any = None) -> tuple[Array, Array]:
    """Self-attention of the words in X: Q = XW_Q, K = XW_K, V = XW_V, then attention."""
    X = as_array(X, "X")
    W_Q, W_K, W_V = as_array(W_Q, "W_Q"), as_array(W_K, "W_K"), as_array(W_V, "W_V")
    same_kind("self_attention", X, W_Q, W_K, W_V)
    Q = project(X, W_Q, caller="self_attention")
    K = project(X, W_K, caller="self_attention")
    V = project(X, W_V, caller="self_attention")
    return attention(Q, K, V, mask=mask)


def project(X: Array, W: Array, *, caller: str = "project") -> Array:
    """X @ W after checking the shapes: W needs one row per column of X.

    `caller` names the function that projects in an error, e.g. "self_attention: X has shape ...".
    """
    if X.ndim < 2 or W.ndim != 2:
        raise ValueError(
            f"{caller}: X must be (n, d_model) and the weights W must be (d_model, d), "
            f"but X has shape {shape_of(X)} and W has shape {shape_of(W)}"
        )
    if X.shape[-1] != W.shape[0]:
        raise ValueError(
            f"{caller}: X has shape {shape_of(X)} and W has shape {shape_of(W)}; "
            f"W needs d_model = {X.shape[-1]} rows, but it has {W.shape[0]}"
        )
    return X @ W
