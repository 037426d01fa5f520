"""Learning the lenses: train W_Q, W_K, W_V with autograd on a task whose right attention is known (the learning the lenses and masks chapters).

The task: in random six-word sequences, every word must bring in the four features of the word
before it (the first word, which has nothing before it, keeps its own). Only word order can
solve it, so the inputs carry the sinusoidal positions of the word order chapter, and a causal
mask keeps each word from looking ahead. torch is imported only inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .arrays import is_torch, to_numpy
from .core import self_attention
from .data import FEATURES, VOCAB
from .masks import causal_mask
from .positions import positional_encoding

D_MODEL = 8  # four columns left for the fast position waves, then the four features of the word


@dataclass
class Task:
    """A batch of training sentences for the previous-word task."""

    sentences: list[list[str]]  # the words of each sequence
    X: np.ndarray  # (batch, n, D_MODEL): word columns plus positions
    targets: np.ndarray  # (batch, n, 4): the features each row must end up with
    keys: np.ndarray  # (n,): the key each query row should attend to (0, 0, 1, 2, ...)
    positions: bool = True


@dataclass
class Trained:
    """What training returns: the loss at every step, the learned lenses and the final weights A."""

    history: list[float]
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    A: np.ndarray  # (batch, n, n) on the training sentences after the last step
    config: dict = field(default_factory=dict)


def word_rows(sentence: list[str] | str) -> np.ndarray:
    """Each word as a row of D_MODEL = 8 numbers: four zeros, then its four toy features."""
    words = sentence.split() if isinstance(sentence, str) else list(sentence)
    return np.array([[0.0] * (D_MODEL - len(FEATURES)) + VOCAB[w] for w in words])


def task_input(sentence: list[str] | str, positions: bool = True) -> np.ndarray:
    """The matrix X the model sees for one sentence: its word rows plus, if asked, the sinusoidal positions."""
    X = word_rows(sentence)
    return X + positional_encoding(len(X), D_MODEL) if positions else X


def previous_keys(n: int) -> np.ndarray:
    """The right key for every query row of the previous-word task: 0 for the first word, i − 1 for word i."""
    return np.maximum(np.arange(n) - 1, 0)


def make_task(n_sentences: int = 128, n: int = 6, seed: int = 0, positions: bool = True) -> Task:
    """Random sequences of toy-vocabulary words, with the previous word's features as the target."""
    if n < 2 or n_sentences < 1:
        raise ValueError(f"make_task: need n ≥ 2 words and at least one sentence, got n={n}, n_sentences={n_sentences}")
    vocabulary = sorted(VOCAB)
    rng = np.random.default_rng(seed)
    sentences = [[vocabulary[k] for k in rng.integers(0, len(vocabulary), size=n)] for _ in range(n_sentences)]
    X = np.stack([task_input(s, positions) for s in sentences])
    features = np.stack([word_rows(s)[:, -len(FEATURES) :] for s in sentences])
    keys = previous_keys(n)
    return Task(sentences, X, features[:, keys], keys, positions)


def weight_on_keys(A: Any, keys: Any, rows: Any = None) -> float:
    """The average weight that the query rows put on their expected keys, over rows (and batch)."""
    A = to_numpy(A)
    keys = np.asarray(keys, dtype=int)
    rows = np.arange(A.shape[-2]) if rows is None else np.asarray(rows, dtype=int)
    return float(A[..., rows, keys[rows]].mean())


def train_lenses(
    task: Task, steps: int = 200, lr: float = 0.1, d_k: int = 2, seed: int = 0, masked: bool = True, init: float = 0.3
) -> Trained:
    """Fit W_Q, W_K (D_MODEL × d_k) and W_V (D_MODEL × 4) by Adam on the mean squared error, seeded and float64."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same sums in the same order, so every run gives the same numbers
    try:
        W_Q, W_K, W_V = initial_lenses(task, d_k, seed, init)
        X = torch.tensor(task.X, dtype=torch.float64)
        target = torch.tensor(task.targets, dtype=torch.float64)
        mask = causal_mask(X.shape[-2]) if masked else None
        optimiser = torch.optim.Adam([W_Q, W_K, W_V], lr=lr)
        history = []
        for _ in range(steps):
            # the weighted sum chapter's function, now with gradients
            Z, A = self_attention(X, W_Q, W_K, W_V, mask=mask)
            loss = ((Z - target) ** 2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            history.append(float(loss.detach()))
        with torch.no_grad():
            _, A = self_attention(X, W_Q, W_K, W_V, mask=mask)
    finally:
        torch.set_num_threads(threads)
    config = {"steps": steps, "lr": lr, "d_k": d_k, "seed": seed, "masked": masked, "init": init}
    lenses = (W.detach().numpy().copy() for W in (W_Q, W_K, W_V))
    return Trained(history, *lenses, A.numpy().copy(), config)


def initial_lenses(task: Task, d_k: int = 2, seed: int = 0, init: float = 0.3) -> tuple[Any, Any, Any]:
    """The seeded random start of train_lenses, as torch Parameters W_Q, W_K, W_V (float64), for a step by hand."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    d_model, d_v = task.X.shape[-1], task.targets.shape[-1]
    shapes = [(d_model, d_k), (d_model, d_k), (d_model, d_v)]
    return tuple(torch.nn.Parameter(init * torch.randn(*s, generator=generator, dtype=torch.float64)) for s in shapes)


def task_loss(task: Task, W_Q: Any, W_K: Any, W_V: Any) -> Any:
    """The mean squared error of the lenses on a task, with the causal mask: numpy in, a float out; torch in, a tensor out."""
    X, targets = task.X, task.targets
    if is_torch(W_Q):
        import torch

        X, targets = torch.as_tensor(X, dtype=W_Q.dtype), torch.as_tensor(targets, dtype=W_Q.dtype)
    Z, _ = self_attention(X, W_Q, W_K, W_V, mask=causal_mask(task.X.shape[-2]))
    loss = ((Z - targets) ** 2).mean()
    return loss if is_torch(loss) else float(loss)


def weight_before_by_position(A: Any) -> np.ndarray:
    """For query positions 1, 2, ..., n − 1: the weight on the key just before, averaged over the batch."""
    A = to_numpy(A)
    n = A.shape[-1]
    rows = np.arange(1, n)
    return A[..., rows, rows - 1].reshape(-1, n - 1).mean(axis=0)
