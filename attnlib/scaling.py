"""Why attention divides by √d_k: seeded experiments and the softmax Jacobian (the scaling chapter)."""

from __future__ import annotations

import numpy as np

from .arrays import whole_number
from .core import softmax


def dot_products(d_k: int, trials: int = 10_000, seed: int = 0) -> np.ndarray:
    """`trials` dot products q · k of random d_k-long vectors with unit-variance entries."""
    d_k, trials = whole_number("dot_products", "d_k", d_k), whole_number("dot_products", "trials", trials)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((trials, d_k))
    k = rng.standard_normal((trials, d_k))
    return (q * k).sum(axis=1)


def random_scores(d_k: int, n_keys: int = 8, trials: int = 1000, seed: int = 0) -> np.ndarray:
    """Unscaled scores of `trials` random queries, each against its own `n_keys` random keys: shape (trials, n_keys)."""
    d_k, n_keys, trials = (
        whole_number("random_scores", arg, value)
        for arg, value in (("d_k", d_k), ("n_keys", n_keys), ("trials", trials))
    )
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((trials, 1, d_k))
    K = rng.standard_normal((trials, n_keys, d_k))
    return (q * K).sum(axis=-1)


def softmax_jacobian(x: np.ndarray) -> np.ndarray:
    """J[j, m] = how much weight p_j moves per nudge of score x_m: diag(p) − p pᵀ, p = softmax(x).

    x is one row of scores, shape (n,), or many rows, shape (..., n); the result has shape (..., n, n).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim == 0:
        raise ValueError(
            f"softmax_jacobian: x must be a row of scores with at least 1 dimension, but it has shape {tuple(x.shape)}"
        )
    p = softmax(x, axis=-1)
    return p[..., :, None] * np.eye(x.shape[-1]) - p[..., :, None] * p[..., None, :]


def jacobian_size(x: np.ndarray) -> np.ndarray:
    """The Frobenius norm of softmax's Jacobian (square every entry, add, take the root), one per row of x."""
    J = softmax_jacobian(x)
    return np.sqrt((J**2).sum(axis=(-2, -1)))


def largest_weight(S: np.ndarray) -> float:
    """The biggest softmax weight of each row of scores S, averaged over the rows."""
    return float(softmax(np.asarray(S, dtype=float), axis=-1).max(axis=-1).mean())
