"""Attention one block of keys at a time, so the n×m weight matrix A is never stored.

This is the idea behind FlashAttention (chapter 11). Softmax needs two numbers per
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


def tiled_attention(Q: Array, K: Array, V: Array, block: int = 256, mask: Any = None) -> Array:
    """Attention over blocks of `block` keys with a running (online) softmax; returns Z only (chapter 11)."""
    Q, K, V = as_array(Q, "Q"), as_array(K, "K"), as_array(V, "V")
    _same_kind("tiled_attention", Q, K, V)
    _check_qk("tiled_attention", Q, K)
    _check_v("tiled_attention", K, V)
    if not isinstance(block, (int, np.integer)) or block < 1:
        raise ValueError(f"tiled_attention: block must be a whole number of keys >= 1, not {block!r}")
    Q, K, V = _common_float(Q, K, V)
    n, m, d_k, d_v = Q.shape[-2], K.shape[-2], Q.shape[-1], V.shape[-1]
    score_batch = np.broadcast_shapes(shape_of(Q)[:-2], shape_of(K)[:-2])
    z_batch = _batch_with_v("tiled_attention", score_batch, Q, K, V)
    allowed = None if mask is None else _full_mask(mask, score_batch + (n, m), like=Q)

    Q = Q * (1 / math.sqrt(d_k))                         # scale once: (Q/√d_k)Kᵀ = QKᵀ/√d_k
    row_max = _full(score_batch + (n, 1), -math.inf, Q)  # largest score seen so far, per query
    row_sum = _full(score_batch + (n, 1), 0.0, Q)        # Σ exp(score - row_max) so far
    Z = _full(z_batch + (n, d_v), 0.0, Q)                # Σ exp(score - row_max) · value so far

    for start in range(0, m, block):
        keys = slice(start, min(start + block, m))
        S = Q @ swap_last_two(K[..., keys, :])           # (..., n, block): the only big array
        if allowed is not None:
            _hide_(S, allowed[..., keys])                 # masked scores become -inf
        new_max = _maximum(row_max, _max(S, -1))
        shift = _where(new_max == -math.inf, 0.0, new_max)  # no allowed key yet in a row: shift by 0
        S -= shift
        P = _exp_(S)                                     # in place: P reuses S's memory
        rescale = _exp(row_max - shift)                  # bring the old sums to the new maximum
        row_sum = row_sum * rescale + _sum(P, -1)
        Z *= rescale
        Z += P @ V[..., keys, :]
        row_max = new_max
        del S, P                                         # free this block before the next one
    Z /= row_sum
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
