"""Attention one block of keys at a time, so the n×m weight matrix A is never stored.

This is the idea behind FlashAttention (chapter 15). Softmax needs two numbers per
query row: the largest score (to stay stable) and the sum of the exponentials (to
normalise). Both can be kept *running* while the keys arrive in blocks. When a new
block brings a larger maximum, everything added so far is multiplied by
exp(old max - new max), as if it had been computed with the new maximum all along.
At the end we divide by the running sum once, and get exactly softmax(QKᵀ/√d_k) V.

Like attnlib.core, it works on numpy arrays and torch tensors through one code path.
It is the forward pass only: its in-place steps (which save memory) are not for
autograd, so train with attnlib.attention or torch's scaled_dot_product_attention.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .core import (Array, _broadcasts, _check_qk, _exp, _max, _same_kind, _sum, as_array, is_torch,
                   shape_of, swap_last_two)


def tiled_attention(Q: Array, K: Array, V: Array, block: int = 256, mask: Any = None,
                    query_block: int | None = None) -> Array:
    """Attention over blocks of `block` keys with a running (online) softmax; returns Z only (chapter 15).

    The queries go in chunks of `query_block` rows (default: QUERY_BLOCK on a CPU, where a
    small chunk keeps each block of scores in the cache; all rows at once on a GPU), and
    each chunk meets the keys one block at a time. 16-bit inputs (float16, bfloat16) are
    computed in float32, running statistics and output included (FlashAttention too keeps
    them in float32), and only the result is rounded back to the input's format.
    """
    Q, K, V = as_array(Q, "Q"), as_array(K, "K"), as_array(V, "V")
    _same_kind("tiled_attention", Q, K, V)
    _check_qk("tiled_attention", Q, K)
    _check_v("tiled_attention", K, V)
    for name, size in (("block", block), ("query_block", query_block)):
        if size is not None and (not isinstance(size, (int, np.integer)) or size < 1):
            raise ValueError(f"tiled_attention: {name} must be a whole number of rows >= 1, not {size!r}")
    Q, K, V = _common_float(Q, K, V)
    given = Q.dtype
    Q, K, V = (_cast(x, _accumulator_dtype(x)) for x in (Q, K, V))  # 16-bit -> float32
    n = Q.shape[-2]
    score_batch = np.broadcast_shapes(shape_of(Q)[:-2], shape_of(K)[:-2])
    z_batch = _batch_with_v("tiled_attention", score_batch, Q, K, V)
    allowed = None if mask is None else _full_mask(mask, score_batch + (n, K.shape[-2]), like=Q)
    if query_block is None:
        query_block = QUERY_BLOCK if _on_cpu(Q) else max(n, 1)

    Z = _full(z_batch + (n, V.shape[-1]), 0.0, Q)
    for start in range(0, n, query_block):
        rows = slice(start, min(start + query_block, n))
        Z[..., rows, :] = _attend(Q[..., rows, :], K, V, block,
                                  None if allowed is None else allowed[..., rows, :])
    return _cast(Z, given)


QUERY_BLOCK = 256  # queries per chunk on a CPU: a 256×256 block of float32 scores is 256 KiB


def _attend(Q: Array, K: Array, V: Array, block: int, allowed: Array | None) -> Array:
    """One chunk of queries against all the keys, one block of keys at a time (the online softmax)."""
    d_k = Q.shape[-1]
    batch = np.broadcast_shapes(shape_of(Q)[:-2], shape_of(K)[:-2])
    rows = Q.shape[-2]
    Q = Q * (1 / math.sqrt(d_k))                          # scale once: (Q/√d_k)Kᵀ = QKᵀ/√d_k
    m = _full(batch + (rows, 1), -math.inf, Q)            # running max: largest score so far, per query
    l = _full(batch + (rows, 1), 0.0, Q)                  # running sum: Σ exp(score - m) so far
    Z = _full(np.broadcast_shapes(batch, shape_of(V)[:-2]) + (rows, V.shape[-1]), 0.0, Q)
    for start in range(0, K.shape[-2], block):            # Z: Σ exp(score - m) · value so far
        keys = slice(start, min(start + block, K.shape[-2]))
        S = Q @ swap_last_two(K[..., keys, :])             # (..., rows, block): the only big array
        if allowed is not None:
            _hide_(S, allowed[..., keys])                  # masked scores become -inf
        m_new = _maximum(m, _max(S, -1))
        shift = _where(m_new == -math.inf, 0.0, m_new)     # no allowed key yet in a row: shift by 0
        S -= shift
        P = _exp_(S)                                      # in place: P reuses S's memory
        rescale = _exp(m - shift)                         # e^(m_old - m_new): old sums to the new max
        l = l * rescale + _sum(P, -1)
        Z *= rescale
        Z += P @ V[..., keys, :]
        m = m_new
        del S, P                                          # free this block before the next one
    Z /= l
    return Z


# --- helpers: small steps that differ between numpy and torch -----------------

def _check_v(name: str, K: Array, V: Array) -> None:
    if V.ndim < 2 or V.shape[-2] != K.shape[-2]:
        raise ValueError(f"{name}: K has shape {shape_of(K)} and V has shape {shape_of(V)}; "
                         f"they need one row per key, but K has {K.shape[-2]} rows and V has "
                         f"{V.shape[-2] if V.ndim >= 2 else 'no'} rows")
    if K.shape[-2] == 0:
        raise ValueError(f"{name}: K has shape {shape_of(K)}; there is no key to attend to")


def _batch_with_v(name: str, score_batch: tuple[int, ...], Q: Array, K: Array, V: Array) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(score_batch, shape_of(V)[:-2])
    except ValueError:
        raise ValueError(f"{name}: Q has shape {shape_of(Q)}, K has shape {shape_of(K)} and V has shape "
                         f"{shape_of(V)}; their batch dimensions do not broadcast") from None


def _common_float(Q: Array, K: Array, V: Array) -> tuple[Array, Array, Array]:
    """Bring Q, K, V to one floating dtype (integers become the default float), copying only if needed."""
    if is_torch(Q):
        import torch
        dtype = torch.promote_types(torch.promote_types(Q.dtype, K.dtype), V.dtype)
        if not dtype.is_floating_point:
            dtype = torch.get_default_dtype()
        return Q.to(dtype), K.to(dtype), V.to(dtype)
    dtype = np.result_type(Q.dtype, K.dtype, V.dtype)
    if not np.issubdtype(dtype, np.floating):
        dtype = np.dtype(np.float64)
    return Q.astype(dtype, copy=False), K.astype(dtype, copy=False), V.astype(dtype, copy=False)


def _full_mask(mask: Any, scores_shape: tuple[int, ...], like: Array) -> Array:
    """Check a boolean mask and broadcast it to the full score shape (a view: nothing is copied)."""
    if is_torch(like):
        import torch
        allowed = torch.as_tensor(mask, device=like.device)
        is_bool = allowed.dtype == torch.bool
    else:
        allowed = np.asarray(mask.cpu() if is_torch(mask) else mask)
        is_bool = allowed.dtype == bool
    if not _broadcasts(shape_of(allowed), scores_shape):
        raise ValueError(f"tiled_attention: mask has shape {shape_of(allowed)} and the scores have shape "
                         f"{scores_shape}; the mask must broadcast to the scores")
    if not is_bool:
        raise TypeError(f"tiled_attention: mask must be boolean (True = may attend), not {allowed.dtype}")
    allowed = allowed.broadcast_to(scores_shape) if is_torch(allowed) else np.broadcast_to(allowed, scores_shape)
    if not bool(allowed.any(-1).all()):
        raise ValueError("tiled_attention: a row of the mask is all False, so some query may attend to no key")
    return allowed


def _full(shape: tuple[int, ...], value: float, like: Array) -> Array:
    if is_torch(like):
        return like.new_full(shape, value)
    return np.full(shape, value, dtype=like.dtype)


def _accumulator_dtype(x: Array) -> Any:
    """float32 for 16-bit inputs (float16, bfloat16), else x's own dtype."""
    if x.dtype.itemsize != 2:
        return x.dtype
    if is_torch(x):
        import torch
        return torch.float32
    return np.dtype(np.float32)


def _cast(x: Array, dtype: Any) -> Array:
    """x in `dtype`, copied only when the dtype changes."""
    if x.dtype == dtype:
        return x
    return x.to(dtype) if is_torch(x) else x.astype(dtype)


def _on_cpu(x: Array) -> bool:
    return not is_torch(x) or x.device.type == "cpu"


def _maximum(a: Array, b: Array) -> Array:
    if is_torch(a):
        import torch
        return torch.maximum(a, b)
    return np.maximum(a, b)


def _where(condition: Array, a: float, b: Array) -> Array:
    if is_torch(b):
        import torch
        return torch.where(condition, a, b)
    return np.where(condition, a, b).astype(b.dtype, copy=False)


def _hide_(S: Array, allowed: Array) -> None:
    """Set S to -inf wherever `allowed` is False, in place."""
    if is_torch(S):
        S.masked_fill_(~allowed, -math.inf)
    else:
        np.copyto(S, -np.inf, where=~allowed)


def _exp_(x: Array) -> Array:
    """exp(x) written over x itself, so no new array is allocated."""
    if is_torch(x):
        return x.exp_()
    return np.exp(x, out=x)
