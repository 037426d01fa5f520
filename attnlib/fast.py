"""Naive attention written for speed: one n×m array, every step in place (the counting and timing and cpu vs gpu chapters).

`attnlib.attention` reads like the formula: each step makes a new array. This module is the
same algorithm as the timing chapters measure it: the scores S = QKᵀ are a fresh array that
belongs to us, so scaling, masking and softmax overwrite S instead of allocating a new n×m
array for each step. Fresh memory costs time (the operating system must hand it over) as
well as space, so this is the fair "naive" baseline to set against tiled and fused kernels.
"""

from __future__ import annotations

import math
from typing import Any

from .arrays import Array, as_array, is_torch
from .core import check_qkv, swap_last_two
from .masks import apply_mask, hide


def naive_attention(Q: Array, K: Array, V: Array, mask: Any = None) -> tuple[Array, Array]:
    """(Z, A) as attnlib.attention returns them, computed in one n×m array (the counting and timing chapter).

    With torch recording gradients, in-place steps are not allowed, so the steps
    then make new arrays, exactly like attnlib.attention.
    """
    Q, K, V = as_array(Q, "Q"), as_array(K, "K"), as_array(V, "V")
    check_qkv("naive_attention", Q, K, V)
    S = Q @ swap_last_two(K)
    if _recording(Q, K, V):
        return _out_of_place(S, V, Q.shape[-1], mask)
    if _floating(S):
        S /= math.sqrt(Q.shape[-1])  # scale, in place
    else:
        S = S / math.sqrt(Q.shape[-1])  # whole-number scores: the scaled ones are our own new array
    if mask is not None:
        hide(S, mask)  # masked scores become -inf
    S -= S.amax(-1, keepdim=True) if is_torch(S) else S.max(-1, keepdims=True)
    if is_torch(S):  # exponentials over the shifted scores
        S.exp_()
    else:
        import numpy as np

        np.exp(S, out=S)
    S /= S.sum(-1, keepdim=True) if is_torch(S) else S.sum(-1, keepdims=True)
    return S @ V, S  # S is now A


def _out_of_place(S: Array, V: Array, d_k: int, mask: Any) -> tuple[Array, Array]:
    """The same steps, each making a new tensor, so that autograd can record them."""
    S = S / math.sqrt(d_k)
    if mask is not None:
        S = apply_mask(S, mask)
    E = (S - S.amax(-1, keepdim=True)).exp()
    A = E / E.sum(-1, keepdim=True)
    return A @ V, A


def _recording(*tensors: Array) -> bool:
    if not is_torch(tensors[0]):
        return False
    import torch

    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


def _floating(S: Array) -> bool:
    if is_torch(S):
        return S.dtype.is_floating_point
    import numpy as np

    return bool(np.issubdtype(S.dtype, np.floating))
