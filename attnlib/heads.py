"""Multi-head attention: split, attend, concatenate, project with W_O (the many heads chapter).

One code path for numpy arrays and torch tensors. Head k uses columns k·d_k to (k+1)·d_k of
W_Q, W_K and W_V, the same layout as torch.nn.MultiheadAttention.
"""

from __future__ import annotations

from typing import Any

from .arrays import Array, as_array, same_kind, shape_of, whole_number
from .core import attention, project


def split_heads(M: Array, h: int) -> Array:
    """(..., n, h·d) → (..., h, n, d): cut the columns into h blocks, one block per head."""
    M = as_array(M, "M")
    h = whole_number("split_heads", "h, the number of heads,", h)
    if M.ndim < 2:
        raise ValueError(f"split_heads: M must be (..., n, h·d), but it has shape {shape_of(M)}")
    width = M.shape[-1]
    if width % h:
        raise ValueError(
            f"split_heads: M has shape {shape_of(M)}, whose {width} columns cannot be cut into h = {h} equal heads"
        )
    blocks = M.reshape(*M.shape[:-1], h, width // h)  # (..., n, h, d)
    return blocks.swapaxes(-2, -3)  # (..., h, n, d)


def merge_heads(M: Array) -> Array:
    """(..., h, n, d) → (..., n, h·d): put the heads' columns side by side again."""
    M = as_array(M, "M")
    if M.ndim < 3:
        raise ValueError(f"merge_heads: M must be (..., h, n, d), but it has shape {shape_of(M)}")
    h, n, d = M.shape[-3:]
    together = M.swapaxes(-2, -3)  # (..., n, h, d)
    return together.reshape(*together.shape[:-2], h * d)


def multi_head_attention(
    X: Array, W_Q: Array, W_K: Array, W_V: Array, W_O: Array, h: int, mask: Any = None
) -> tuple[Array, Array]:
    """h heads of attention side by side, concatenated and mixed by W_O: returns (output, A per head)."""
    X = as_array(X, "X")
    W_Q, W_K, W_V, W_O = (as_array(W, name) for W, name in ((W_Q, "W_Q"), (W_K, "W_K"), (W_V, "W_V"), (W_O, "W_O")))
    same_kind("multi_head_attention", X, W_Q, W_K, W_V, W_O)
    h = whole_number("multi_head_attention", "h, the number of heads,", h)
    if shape_of(W_Q) != shape_of(W_K):
        raise ValueError(
            f"multi_head_attention: W_Q has shape {shape_of(W_Q)} and W_K has shape "
            f"{shape_of(W_K)}; queries and keys must have the same width"
        )
    if W_O.ndim != 2 or W_V.ndim != 2 or W_O.shape[0] != W_V.shape[1]:
        raise ValueError(
            f"multi_head_attention: W_V has shape {shape_of(W_V)} and W_O has shape "
            f"{shape_of(W_O)}; W_O needs one row per column of W_V"
        )
    for W, name in ((W_Q, "W_Q"), (W_V, "W_V")):
        if W.ndim == 2 and W.shape[1] % h:
            raise ValueError(
                f"multi_head_attention: {name} has shape {shape_of(W)}, whose {W.shape[1]} "
                f"columns cannot be cut into h = {h} equal heads"
            )
    Q = split_heads(project(X, W_Q, caller="multi_head_attention"), h)  # (..., h, n, d_k)
    K = split_heads(project(X, W_K, caller="multi_head_attention"), h)
    V = split_heads(project(X, W_V, caller="multi_head_attention"), h)  # (..., h, n, d_v)
    if mask is not None:
        mask = as_array(mask, "mask", dtype=None)
        if mask.ndim >= 2:
            mask = mask[..., None, :, :]  # the same mask for every head
    Z, A = attention(Q, K, V, mask=mask)  # Z: (..., h, n, d_v), A: (..., h, n, n)
    return merge_heads(Z) @ W_O, A
