"""Masks: which keys each query may see (chapter 11).

A mask is a boolean array with True where query i may attend to key j, the convention of
`attnlib.attention` (and of the `attn_mask` of torch's scaled_dot_product_attention).
Both functions return a numpy array, or a torch tensor on the same device when `like` is one;
torch is imported only then.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .core import Array, is_torch, shape_of


def _count(name: str, arg: str, value: Any) -> int:
    """A whole number of at least 1, or a clear error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: {arg} must be a whole number, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name}: {arg} must be at least 1, but it is {value}")
    return int(value)


def _like(mask: np.ndarray, like: Any) -> Array:
    """Return the numpy mask, or the same mask as a torch tensor on `like`'s device."""
    if like is None or not is_torch(like):
        return mask
    import torch
    return torch.as_tensor(mask, device=like.device)


def causal_mask(n: int, like: Any = None) -> Array:
    """The n×n causal mask: True where j ≤ i, so word i sees itself and the words before it (chapter 11)."""
    n = _count("causal_mask", "n", n)
    rows = np.arange(n)[:, None]
    cols = np.arange(n)[None, :]
    return _like(cols <= rows, like)


def padding_mask(lengths: Any, n: int, like: Any = None) -> Array:
    """The (batch, 1, n) mask of a padded batch: True where key j is a real word of sentence b (chapter 11)."""
    n = _count("padding_mask", "n", n)
    if is_torch(lengths):
        lengths = lengths.detach().cpu().numpy()
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise ValueError(f"padding_mask: lengths must have shape (batch,), one length per sentence, "
                         f"but it has shape {shape_of(lengths)}")
    if lengths.dtype.kind not in "iu" and not (lengths.dtype.kind == "f" and np.all(lengths == np.round(lengths))):
        raise TypeError(f"padding_mask: lengths must be whole numbers, not {lengths.dtype}")
    lengths = lengths.astype(int)
    too_long = lengths[lengths > n]
    if too_long.size:
        raise ValueError(f"padding_mask: lengths has shape {shape_of(lengths)} with a length of {too_long[0]}, "
                         f"but the padded batch has only n = {n} positions (mask shape ({len(lengths)}, 1, {n}))")
    if np.any(lengths < 0):
        raise ValueError(f"padding_mask: lengths must not be negative, but they are {lengths.tolist()}")
    keys = np.arange(n)[None, None, :]
    return _like(keys < lengths[:, None, None], like)
