"""A tiny, fixed toy vocabulary: words as short vectors whose directions carry meaning (the vectors, matrix x and query key value chapters)."""

from __future__ import annotations

import numpy as np

# Four numbers per word (d_model = 4). Read the four axes as:
#   animal-ness, vehicle-ness, small-or-young-ness, action-ness.
# Words with similar meanings point in similar directions.
# fmt: off
VOCAB: dict[str, list[float]] = {
    "the":    [0.1, 0.1, 0.1, 0.1],
    "a":      [0.1, 0.1, 0.2, 0.1],
    "cat":    [0.9, 0.0, 0.3, 0.1],
    "kitten": [0.8, 0.0, 0.9, 0.1],
    "dog":    [0.9, 0.1, 0.2, 0.2],
    "puppy":  [0.8, 0.1, 0.8, 0.2],
    "car":    [0.0, 0.9, 0.2, 0.1],
    "truck":  [0.1, 1.0, 0.0, 0.1],
    "bike":   [0.0, 0.7, 0.5, 0.2],
    "sat":    [0.1, 0.0, 0.1, 0.9],
    "ran":    [0.2, 0.1, 0.0, 1.0],
    "drove":  [0.0, 0.6, 0.0, 0.9],
    "mat":    [0.0, 0.2, 0.3, 0.0],
    "road":   [0.0, 0.6, 0.0, 0.1],
    "on":     [0.0, 0.1, 0.0, 0.2],
}
# fmt: on

# The names of the four axes, in order (the shapes in r chapter labels X's columns with them).
FEATURES: list[str] = ["animal", "vehicle", "small", "action"]

# Two numbers per word, so a word can be drawn as an arrow in the plane.
# Axis 1: animal-ness, axis 2: vehicle-ness.
# fmt: off
VOCAB_2D: dict[str, list[float]] = {
    "cat":    [3.0, 0.5],
    "kitten": [2.6, 0.8],
    "dog":    [2.8, 1.0],
    "car":    [0.5, 3.0],
    "truck":  [0.8, 2.7],
}
# fmt: on


def words(sentence: str | list[str]) -> list[str]:
    """Split a sentence into lower-case words (a list of words is returned as it is)."""
    if isinstance(sentence, str):
        return sentence.lower().split()
    return list(sentence)


def embed(word: str, vocab: dict[str, list[float]] | None = None) -> np.ndarray:
    """The vector of one word from the toy vocabulary."""
    vocab = VOCAB if vocab is None else vocab
    key = word.lower()
    if key not in vocab:
        raise KeyError(f"{word!r} is not in the toy vocabulary; known words: {', '.join(sorted(vocab))}")
    return np.array(vocab[key], dtype=float)


def sentence_matrix(sentence: str | list[str], vocab: dict[str, list[float]] | None = None) -> np.ndarray:
    """Stack the vectors of a sentence's words as rows: the matrix X of shape (n, d_model)."""
    return np.stack([embed(w, vocab) for w in words(sentence)])


def random_weights(
    d_model: int, d_k: int, d_v: int | None = None, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeded stand-ins for learned W_Q, W_K (d_model × d_k) and W_V (d_model × d_v)."""
    d_v = d_k if d_v is None else d_v
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(d_model)
    W_Q = rng.normal(0.0, scale, size=(d_model, d_k))
    W_K = rng.normal(0.0, scale, size=(d_model, d_k))
    W_V = rng.normal(0.0, scale, size=(d_model, d_v))
    return W_Q, W_K, W_V


# --- the running example ---------------------------------------------------------
# One sentence the course comes back to from the query key value chapter to the weighted sum
# chapter. Who sat? The verb "sat" cannot say on its own; attention lets it pull in "kitten".
RUNNING_SENTENCE = "the kitten sat on the mat"

# Slot names of the hand-made lenses' columns.
QUERY_SLOTS: list[str] = ["animal?", "action?"]
KEY_SLOTS: list[str] = ["animal", "action"]
VALUE_SLOTS: list[str] = list(FEATURES)


def running_lenses() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hand-made W_Q, W_K (4 × 2) and W_V (4 × 4) of the running example."""
    # asker: an action word asks strongly "animal?"; an animal asks, less strongly, "action?"
    # fmt: off
    W_Q = np.array([[0.0, 2.0],
                    [0.0, 0.0],
                    [0.0, 0.0],
                    [4.0, 0.0]])
    # answerer: each word advertises its animal-ness and its action-ness
    W_K = np.array([[2.0, 0.0],
                    [0.0, 0.0],
                    [0.0, 0.0],
                    [0.0, 2.0]])
    # fmt: on
    # content-holder: a chosen word hands over all four of its features
    W_V = np.eye(4)
    return W_Q, W_K, W_V


def running_qkv() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The running example's words and its Q, K (d_k = 2) and V: X times each hand-made lens."""
    X = sentence_matrix(RUNNING_SENTENCE)
    W_Q, W_K, W_V = running_lenses()
    return words(RUNNING_SENTENCE), X @ W_Q, X @ W_K, X @ W_V
