"""Counting the work and the memory traffic of attention: FLOPs and bytes, no clock (the counting and timing chapter).

What a kernel must do at least, to set a measured time against (`attnlib.bench` measures the time).
"""

from __future__ import annotations


def attention_flops(
    n: int, d_k: int, d_v: int | None = None, batch: int = 1, heads: int = 1, m: int | None = None
) -> int:
    """FLOPs of attention: 2·n·m·d_k for QKᵀ plus 2·n·m·d_v for AV, per head."""
    d_v = d_k if d_v is None else d_v
    m = n if m is None else m
    return batch * heads * (2 * n * m * d_k + 2 * n * m * d_v)


def attention_matrix_bytes(n: int, m: int | None = None, batch: int = 1, heads: int = 1, dtype_bytes: int = 4) -> int:
    """Bytes of one n×m weight matrix A per head, for all heads and the whole batch."""
    m = n if m is None else m
    return batch * heads * n * m * dtype_bytes


def attention_bytes(
    n: int, d: int, kind: str, dtype_bytes: int = 4, heads: int = 1, batch: int = 1, query_block: int | None = None
) -> int:
    """Bytes attention moves to and from memory, counted pass by pass.

    "naive": Q and K read, the n×n scores written, then six passes over them (scale,
    row max, shift, exp, row sum, divide: 10 reads or writes of n² numbers), A read again
    with V for Z = AV, and Z written: 12·n² + 4·n·d numbers per head. (Done out of place
    or in place, the count is the same; in place only reuses the memory.)
    "fused" (SDPA's kernel, ideally): Q, K, V read once and Z written once: 4·n·d.
    "tiled": the blocks of scores stay in the cache, but K and V are read again for every
    chunk of `query_block` queries: (2 + 2·n/query_block)·n·d.
    """
    if kind == "naive":
        numbers = 12 * n * n + 4 * n * d
    elif kind == "fused":
        numbers = 4 * n * d
    elif kind == "tiled":
        chunks = -(-n // (query_block or n))
        numbers = (2 + 2 * chunks) * n * d
    else:
        raise ValueError(f"attention_bytes: kind must be 'naive', 'tiled' or 'fused', not {kind!r}")
    return batch * heads * numbers * dtype_bytes


def matmul_bytes(side: int, dtype_bytes: int = 4) -> int:
    """Bytes a side×side matmul moves at least: two matrices read, one written."""
    return 3 * side * side * dtype_bytes


def dtype_bytes(dtype: str) -> int:
    """Bytes of one number of this dtype ('float32' -> 4)."""
    return {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}[dtype]
