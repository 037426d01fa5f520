"""Word order: the positional encodings that tell attention where each word stands (the word order and learning the lenses chapters).

One code path for numpy and torch: pass `like=` a torch tensor to get a tensor of its dtype and
device; otherwise the result is a float64 numpy array. torch is imported only when it is used.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import library_of, whole_number


def positional_encoding(n: int, d_model: int, like: Any = None, base: float = 10000.0) -> Any:
    """The sinusoidal table PE (n × d_model) of "Attention Is All You Need": sines in even columns, cosines in odd.

    PE[pos, 2i] = sin(pos / base^(2i/d_model)) and PE[pos, 2i+1] = cos(pos / base^(2i/d_model)).
    """
    n = whole_number("positional_encoding", "n (the number of positions)", n)
    d_model = whole_number("positional_encoding", "d_model", d_model, smallest=2)
    if d_model % 2:
        raise ValueError(
            f"positional_encoding: d_model must be even (a sine and a cosine per frequency), but it is {d_model}"
        )
    xp, kw = library_of(like)  # numpy, or torch on like's device
    pos = xp.arange(n, **kw)[:, None]  # (n, 1): 0, 1, ..., n-1
    two_i = xp.arange(0, d_model, 2, **kw)[None, :]  # (1, d_model/2): 0, 2, 4, ...
    angle = pos / base ** (two_i / d_model)  # (n, d_model/2): one speed per column pair
    pe = xp.zeros((n, d_model), **kw)
    pe[:, 0::2] = xp.sin(angle)
    pe[:, 1::2] = xp.cos(angle)
    return pe


def learned_position_table(n_max: int, d_model: int, seed: int = 0, scale: float = 0.1) -> Any:
    """A learned positional encoding before training: a torch table of trainable numbers, one row per position."""
    import torch  # a torch Parameter: torch is needed, not chosen

    n_max = whole_number("learned_position_table", "n_max (the number of positions)", n_max)
    d_model = whole_number("learned_position_table", "d_model", d_model)
    generator = torch.Generator().manual_seed(seed)
    start = scale * torch.randn(n_max, d_model, generator=generator, dtype=torch.float64)
    return torch.nn.Parameter(start)


def shift_rotation(k: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The d_model × d_model matrix R_k with PE[pos + k] = PE[pos] @ R_k for every pos.

    Each (sine, cosine) pair of columns is an arrow turning at its own speed; moving k positions on
    turns pair i by the angle k / base^(2i/d_model), whatever pos is. R_k holds one 2 × 2 turn
    [[cos, -sin], [sin, cos]] per pair on its diagonal and zeros elsewhere.
    """
    d_model = whole_number("shift_rotation", "d_model", d_model, smallest=2)
    if d_model % 2:
        raise ValueError(
            f"shift_rotation: d_model must be even (a sine and a cosine per frequency), but it is {d_model}"
        )
    R = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        angle = k / base ** (2 * i / d_model)
        c, s = np.cos(angle), np.sin(angle)
        R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
    return R
