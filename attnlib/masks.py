"""Masks: which keys each query may see (the masks chapter).

A mask is a boolean array with True where query i may attend to key j, the convention of
`attnlib.attention` (and of the `attn_mask` of torch's scaled_dot_product_attention).
The masks come back as numpy arrays, or as torch tensors on the same device when `like` is one;
torch is imported only then. `apply_mask` and `hide` put -inf into the scores a mask hides, so
softmax gives them weight 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .arrays import (
    Array,
    as_array,
    as_kind_of,
    broadcast_to,
    broadcasts,
    fill_where,
    is_boolean,
    shape_of,
    to_numpy,
    where,
    whole_number,
)


def causal_mask(n: int, like: Any = None) -> Array:
    """The n×n causal mask: True where j ≤ i, so word i sees itself and the words before it."""
    n = whole_number("causal_mask", "n", n)
    rows = np.arange(n)[:, None]
    cols = np.arange(n)[None, :]
    return as_kind_of(cols <= rows, like)


def padding_mask(lengths: Any, n: int, like: Any = None) -> Array:
    """The (batch, 1, n) mask of a padded batch: True where key j is a real word of sentence b."""
    n = whole_number("padding_mask", "n", n)
    lengths = to_numpy(lengths, dtype=None)
    if lengths.ndim != 1:
        raise ValueError(
            f"padding_mask: lengths must have shape (batch,), one length per sentence, "
            f"but it has shape {shape_of(lengths)}"
        )
    if lengths.dtype.kind not in "iu" and not (lengths.dtype.kind == "f" and np.all(lengths == np.round(lengths))):
        raise TypeError(f"padding_mask: lengths must be whole numbers, not {lengths.dtype}")
    lengths = lengths.astype(int)
    too_long = lengths[lengths > n]
    if too_long.size:
        raise ValueError(
            f"padding_mask: lengths has shape {shape_of(lengths)} with a length of {too_long[0]}, "
            f"but the padded batch has only n = {n} positions (mask shape ({len(lengths)}, 1, {n}))"
        )
    if np.any(lengths < 0):
        raise ValueError(f"padding_mask: lengths must not be negative, but they are {lengths.tolist()}")
    keys = np.arange(n)[None, None, :]
    return as_kind_of(keys < lengths[:, None, None], like)


def check_mask(S: Array, mask: Any) -> Array:
    """The mask checked against the scores S and broadcast to S's shape, on S's kind and device.

    It must be boolean, broadcast to S's shape, and have a True in every row: a row of False
    would leave a query no key to attend to, and softmax of a row of -inf is 0/0.
    """
    mask = as_array(mask, "mask", dtype=None)
    if not broadcasts(shape_of(mask), shape_of(S)):
        raise ValueError(
            f"attention: mask has shape {shape_of(mask)} and the scores have shape {shape_of(S)}; "
            "the mask must broadcast to the scores"
        )
    allowed = as_kind_of(mask, S)  # on the scores' device
    if not is_boolean(allowed):
        raise TypeError(f"attention: mask must be boolean (True = may attend), not {allowed.dtype}")
    allowed = broadcast_to(allowed, shape_of(S))
    if not bool(allowed.any(-1).all()):
        raise ValueError("attention: a row of the mask is all False, so some query may attend to no key")
    return allowed


def apply_mask(S: Array, mask: Any) -> Array:
    """A copy of the scores S with -inf wherever the mask is False."""
    return where(check_mask(S, mask), S, -math.inf)


def hide(S: Array, mask: Any) -> Array:
    """Put -inf into S itself wherever the mask is False, and return S: `apply_mask` without a copy."""
    return fill_where(S, ~check_mask(S, mask), -math.inf)
