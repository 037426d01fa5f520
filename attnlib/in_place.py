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

from .arrays import Array, as_array, exp_in_place, is_floating, max_along, recording, sum_along
from .core import check_qkv, swap_last_two
from .masks import apply_mask, hide


def naive_attention(Q: Array, K: Array, V: Array, mask: Any = None) -> tuple[Array, Array]:
    """(Z, A) as attnlib.attention returns them, computed in one n×m array.

    With torch recording gradients, in-place steps are not allowed, so the steps
    then make new arrays, exactly like attnlib.attention.
    """
    Q, K, V = as_array(Q, "Q"), as_array(K, "K"), as_array(V, "V")
    check_qkv("naive_attention", Q, K, V)
    S = Q @ swap_last_two(K)
    if recording(Q, K, V):
        return _out_of_place(S, V, Q.shape[-1], mask)
    if is_floating(S):
        S /= math.sqrt(Q.shape[-1])  # scale, in place
    else:
        S = S / math.sqrt(Q.shape[-1])  # whole-number scores: the scaled ones are our own new array
    if mask is not None:
        hide(S, mask)  # masked scores become -inf
    S -= max_along(S)
    exp_in_place(S)  # exponentials over the shifted scores
    S /= sum_along(S)
    return S @ V, S  # S is now A


def _out_of_place(S: Array, V: Array, d_k: int, mask: Any) -> tuple[Array, Array]:
    """The same steps, each making a new tensor, so that autograd can record them."""
    S = S / math.sqrt(d_k)
    if mask is not None:
        S = apply_mask(S, mask)
    E = (S - max_along(S)).exp()
    A = E / sum_along(E)
    return A @ V, A
