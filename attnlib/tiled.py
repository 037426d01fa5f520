"""Attention one block of keys at a time, so the n×m weight matrix A is never stored (the cpu vs gpu chapter).

This is the idea behind FlashAttention. Softmax needs two numbers per query row: the
largest score (to stay stable) and the sum of the exponentials (to normalise). Both can be
kept *running* while the keys arrive in blocks (the online softmax of Milakov and
Gimelshein, 2018). When a new block brings a larger maximum, everything added so far is
multiplied by exp(old max - new max), as if it had been computed with the new maximum all
along. At the end we divide by the running sum once, and get exactly softmax(QKᵀ/√d_k) V.

Like attnlib.attention, it works on numpy arrays and torch tensors through one code path,
and torch can take gradients through it (then each step makes a new array, and autograd
keeps every block's weights for the backward pass: FlashAttention instead writes its own
backward pass, which recomputes the blocks).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .arrays import Array, as_array, is_torch, shape_of, whole_number
from .core import check_qkv, swap_last_two
from .masks import check_mask

BLOCK = 512  # keys per block
QUERY_BLOCK = 512  # queries per chunk on a CPU: 512×512 float32 scores of one head are 1 MiB, inside the cache
# Both chosen by timing: benchmarks/cpu_sweep.py times other sizes against SDPA.


def tiled_attention(
    Q: Array,
    K: Array,
    V: Array,
    block: int = BLOCK,
    mask: Any = None,
    query_block: int | None = None,
    causal: bool = False,
) -> Array:
    """Attention over blocks of `block` keys with a running (online) softmax; returns Z only (the cpu vs gpu chapter).

    On a CPU the queries go in chunks of `query_block` rows (default QUERY_BLOCK) and, unless
    the scores of all heads together fit in one block, the heads go one at a time: one block
    of scores then stays in the processor's cache while the softmax steps walk over it. On a
    GPU every head and every query go at once. Each chunk meets the keys one block at a
    time. `causal=True` lets query i see keys 0 … i only, and skips the blocks of keys that
    lie wholly after a chunk's last query: about half the work.

    What 16-bit inputs (float16, bfloat16) get: Q, K and V are turned into float32 first, so
    every product, the running statistics and Z are float32, and only the result is rounded
    back to 16 bits. (FlashAttention instead feeds the 16-bit numbers to the products and
    keeps only the sums and statistics in float32.)
    """
    Q, K, V = as_array(Q, "Q"), as_array(K, "K"), as_array(V, "V")
    check_qkv("tiled_attention", Q, K, V)
    whole_number("tiled_attention", "block", block)
    if query_block is not None:
        whole_number("tiled_attention", "query_block", query_block)
    Q, K, V = _common_float(Q, K, V)
    given = Q.dtype
    Q, K, V = (_cast(x, _accumulator_dtype(x)) for x in (Q, K, V))  # 16-bit -> float32
    n, m = Q.shape[-2], K.shape[-2]
    score_batch = np.broadcast_shapes(shape_of(Q)[:-2], shape_of(K)[:-2])
    allowed = None if mask is None else full_mask(mask, score_batch + (n, m), like=Q)
    batch = np.broadcast_shapes(score_batch, shape_of(V)[:-2])
    Q, K, V = (_broadcast(x, batch) for x in (Q, K, V))  # views: no copies
    allowed = None if allowed is None else _broadcast(allowed, batch)
    query_block = query_block or (QUERY_BLOCK if _on_cpu(Q) else max(n, 1))  # a GPU takes every query at once
    if _on_cpu(Q) and math.prod(batch) * n * m > query_block * block:
        heads = list(np.ndindex(*batch))  # one head at a time, so that one block of scores stays in the cache
    else:
        heads = [Ellipsis]  # every head at once: their scores fit in one block, or a GPU wants few, large steps
    scale = 1 / math.sqrt(Q.shape[-1])
    Z = _empty(batch + (n, V.shape[-1]), like=Q)
    for head in heads:
        for start in range(0, n, query_block):
            rows = slice(start, start + query_block)
            q = Q[head][..., rows, :] * scale  # scale the queries (n·d numbers), not the n×m scores
            hidden = None if allowed is None else allowed[head][..., rows, :]
            Z[head][..., rows, :] = _attend(q, K[head], V[head], block, start, causal, hidden)
    return _cast(Z, given)


def _attend(Q: Array, K: Array, V: Array, block: int, first_row: int, causal: bool, allowed: Array | None) -> Array:
    """One chunk of (scaled) queries against the keys, one block at a time: the online softmax."""
    rows = Q.shape[-2]
    in_place = not _recording(Q, K, V)
    mu = _full(shape_of(Q)[:-1] + (1,), -math.inf, Q)  # running max μ: the largest score so far, per query
    l = _full(shape_of(Q)[:-1] + (1,), 0.0, Q)  # running sum: Σ exp(score - μ) so far
    Z = _full(shape_of(Q)[:-1] + (V.shape[-1],), 0.0, Q)
    last = min(K.shape[-2], first_row + rows) if causal else K.shape[-2]
    for start in range(0, last, block):
        stop = min(start + block, last)
        S = Q @ swap_last_two(K[..., start:stop, :])  # (..., rows, keys): the only big array
        hidden = _hidden(allowed, start, stop, first_row, rows, causal, S)
        if hidden is not None and in_place:
            _hide(S, hidden)
        elif hidden is not None:
            S = _where(hidden, -math.inf, S)
        mu_new = _maximum(mu, _row_max(S))
        shift = mu_new if hidden is None else _where(mu_new == -math.inf, 0.0, mu_new)  # no key yet: 0
        c = _exp(mu - shift)  # e^(μ_old - μ_new): the old sums moved to the new max
        if in_place:
            S -= shift
            P = _exp_(S)  # P reuses S's memory
            l *= c
            l += _row_sum(P)
            Z *= c
            Z += P @ V[..., start:stop, :]
        else:  # torch records the steps: no array is overwritten
            P = _exp(S - shift)
            l = l * c + _row_sum(P)
            Z = Z * c + P @ V[..., start:stop, :]
        mu = mu_new
    return Z.__itruediv__(l) if in_place else Z / l


def _hidden(
    allowed: Array | None, start: int, stop: int, first_row: int, rows: int, causal: bool, like: Array
) -> Array | None:
    """True where a score of this block must be hidden (the mask, and the causal rule), or None."""
    hidden = None if allowed is None else ~allowed[..., start:stop]
    if causal and stop - 1 > first_row:  # some key of the block comes after some query of the chunk
        after = np.arange(start, stop)[None, :] > np.arange(first_row, first_row + rows)[:, None]
        after = _like(after, like)
        hidden = after if hidden is None else hidden | after
    return hidden


# --- the mask, checked once for the whole call -----------------------------------


def full_mask(mask: Any, scores_shape: tuple[int, ...], like: Array) -> Array:
    """The mask checked (attnlib.masks.check_mask) and broadcast to the full score shape, on `like`'s
    kind and device. The scores themselves never exist in full here, so a zero-sized stand-in of
    their shape (a broadcast view: no memory) is what the mask is checked against."""
    if is_torch(like):
        stand_in = like.new_zeros(()).expand(scores_shape)
    else:
        stand_in = np.broadcast_to(np.zeros((), dtype=like.dtype), scores_shape)
    return check_mask(stand_in, mask)


# --- small steps that differ between numpy and torch -----------------------------


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


def _recording(*arrays: Array) -> bool:
    """True when torch records these tensors' steps for gradients (then nothing may be overwritten)."""
    if not is_torch(arrays[0]):
        return False
    import torch

    return torch.is_grad_enabled() and any(x.requires_grad for x in arrays)


def _on_cpu(x: Array) -> bool:
    return not is_torch(x) or x.device.type == "cpu"


def _broadcast(x: Array, batch: tuple[int, ...]) -> Array:
    """x seen with the batch dimensions `batch` (a view that repeats x where it has fewer)."""
    shape = batch + tuple(x.shape[-2:])
    return x.expand(shape) if is_torch(x) else np.broadcast_to(x, shape)


def _empty(shape: tuple[int, ...], like: Array) -> Array:
    return like.new_empty(shape) if is_torch(like) else np.empty(shape, dtype=like.dtype)


def _full(shape: tuple[int, ...], value: float, like: Array) -> Array:
    return like.new_full(shape, value) if is_torch(like) else np.full(shape, value, dtype=like.dtype)


def _like(x: np.ndarray, like: Array) -> Array:
    if is_torch(like):
        import torch

        return torch.as_tensor(x, device=like.device)
    return x


def _row_max(x: Array) -> Array:
    return x.amax(-1, keepdim=True) if is_torch(x) else x.max(-1, keepdims=True)


def _row_sum(x: Array) -> Array:
    return x.sum(-1, keepdim=True) if is_torch(x) else x.sum(-1, keepdims=True)


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


def _hide(S: Array, hidden: Array) -> None:
    """Set S to -inf wherever `hidden` is True, in place. (Not masks.hide: within one block a row may
    rightly be hidden entirely, which a whole mask may never be.)"""
    if is_torch(S):
        S.masked_fill_(hidden, -math.inf)
    else:
        np.copyto(S, -np.inf, where=hidden)


def _exp(x: Array) -> Array:
    return x.exp() if is_torch(x) else np.exp(x)


def _exp_(x: Array) -> Array:
    """exp(x) written over x itself, so no new array is allocated."""
    return x.exp_() if is_torch(x) else np.exp(x, out=x)
