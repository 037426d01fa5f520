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

from .arrays import (
    Array,
    accumulator_dtype,
    as_array,
    as_kind_of,
    broadcast_to,
    cast,
    common_float,
    empty,
    exp,
    exp_in_place,
    fill_where,
    full,
    max_along,
    maximum,
    on_cpu,
    recording,
    shape_of,
    sum_along,
    where,
    whole_number,
)
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
    """Attention over blocks of `block` keys with a running (online) softmax; returns Z only.

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
    Q, K, V = common_float(Q, K, V)
    given = Q.dtype
    Q, K, V = (cast(x, accumulator_dtype(x)) for x in (Q, K, V))  # 16-bit -> float32
    n, m = Q.shape[-2], K.shape[-2]
    score_batch = np.broadcast_shapes(shape_of(Q)[:-2], shape_of(K)[:-2])
    allowed = None if mask is None else full_mask(mask, score_batch + (n, m), like=Q)
    batch = np.broadcast_shapes(score_batch, shape_of(V)[:-2])
    Q, K, V = (broadcast_to(x, batch + shape_of(x)[-2:]) for x in (Q, K, V))  # views: no copies
    allowed = None if allowed is None else broadcast_to(allowed, batch + (n, m))
    query_block = query_block or (QUERY_BLOCK if on_cpu(Q) else max(n, 1))  # a GPU takes every query at once
    if on_cpu(Q) and math.prod(batch) * n * m > query_block * block:
        heads = list(np.ndindex(*batch))  # one head at a time, so that one block of scores stays in the cache
    else:
        heads = [Ellipsis]  # every head at once: their scores fit in one block, or a GPU wants few, large steps
    scale = 1 / math.sqrt(Q.shape[-1])
    Z = empty(batch + (n, V.shape[-1]), like=Q)
    for head in heads:
        for start in range(0, n, query_block):
            rows = slice(start, start + query_block)
            q = Q[head][..., rows, :] * scale  # scale the queries (n·d numbers), not the n×m scores
            hidden = None if allowed is None else allowed[head][..., rows, :]
            Z[head][..., rows, :] = _attend(q, K[head], V[head], block, start, causal, hidden)
    return cast(Z, given)


def _attend(Q: Array, K: Array, V: Array, block: int, first_row: int, causal: bool, allowed: Array | None) -> Array:
    """One chunk of (scaled) queries against the keys, one block at a time: the online softmax."""
    rows = Q.shape[-2]
    in_place = not recording(Q, K, V)
    mu = full(shape_of(Q)[:-1] + (1,), -math.inf, Q)  # running max μ: the largest score so far, per query
    l = full(shape_of(Q)[:-1] + (1,), 0.0, Q)  # running sum: Σ exp(score - μ) so far
    Z = full(shape_of(Q)[:-1] + (V.shape[-1],), 0.0, Q)
    last = min(K.shape[-2], first_row + rows) if causal else K.shape[-2]
    for start in range(0, last, block):
        stop = min(start + block, last)
        S = Q @ swap_last_two(K[..., start:stop, :])  # (..., rows, keys): the only big array
        hidden = _hidden(allowed, start, stop, first_row, rows, causal, S)
        if hidden is not None and in_place:
            fill_where(S, hidden, -math.inf)  # not masks.hide: in one block a row may rightly be all hidden
        elif hidden is not None:
            S = where(hidden, -math.inf, S)
        mu_new = maximum(mu, max_along(S))
        shift = mu_new if hidden is None else where(mu_new == -math.inf, 0.0, mu_new)  # no key yet: 0
        c = exp(mu - shift)  # e^(μ_old - μ_new): the old sums moved to the new max
        if in_place:
            S -= shift
            P = exp_in_place(S)  # P reuses S's memory
            l *= c
            l += sum_along(P)
            Z *= c
            Z += P @ V[..., start:stop, :]
        else:  # torch records the steps: no array is overwritten
            P = exp(S - shift)
            l = l * c + sum_along(P)
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
        after = as_kind_of(after, like)
        hidden = after if hidden is None else hidden | after
    return hidden


# --- the mask, checked once for the whole call -----------------------------------


def full_mask(mask: Any, scores_shape: tuple[int, ...], like: Array) -> Array:
    """The mask checked (attnlib.masks.check_mask) and broadcast to the full score shape, on `like`'s
    kind and device. The scores themselves never exist in full here, so a zero-sized stand-in of
    their shape (a broadcast view: no memory) is what the mask is checked against."""
    stand_in = broadcast_to(full((), 0.0, like), scores_shape)
    return check_mask(stand_in, mask)
