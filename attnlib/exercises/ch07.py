"""Checkers for chapter 7: the dot product and the score matrix S."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import Wrong, exercise, expect_array, expect_number, expect_word, to_numpy

# Exercise "three dot products by hand": one query against three keys.
Q_VEC = [1, 2, -1]
KEYS_3 = [[3, 1, 1], [1, 0, 1], [-2, -1, 0]]
DOTS = [float(np.dot(Q_VEC, k)) for k in KEYS_3]                        # [4, 0, -4]
PRODUCTS = [[q * k for q, k in zip(Q_VEC, key)] for key in KEYS_3]      # not yet added up
DOTS_NO_SIGNS = [float(np.dot(np.abs(Q_VEC), np.abs(k))) for k in KEYS_3]  # minus signs dropped


@exercise("ch07.dots_by_hand", right=[DOTS, np.array(DOTS), (4, 0, -4)],
          wrong=[PRODUCTS, DOTS_NO_SIGNS, [4, 0, 4], [sum(Q_VEC) + sum(k) for k in KEYS_3]])
def _dots_by_hand(answer: Any) -> None:
    got = to_numpy(answer)
    if got.shape == (3, 3) and np.allclose(got, PRODUCTS):
        raise Wrong("these are the products q_i·k_i, but a dot product is ONE number: "
                    "add up each row of products.")
    if got.shape == (3,) and np.allclose(got, DOTS_NO_SIGNS):
        raise Wrong("the minus signs got lost. A negative entry times a positive one is negative, "
                    "and it must be subtracted.")
    if got.shape == (3,) and np.allclose(np.abs(got), np.abs(DOTS)) and not np.allclose(got, DOTS):
        raise Wrong("the sizes are right but a sign is not. Which key points away from q?")
    expect_array(got, DOTS, what="your list of three dot products")


# Exercise "fill one cell of S": S[2, 0] = q_2 · k_0.
Q_MAT = [[1, 0], [2, 1], [0, 3]]
K_MAT = [[1, 2], [3, -1], [-2, 1]]
ROW, COL = 2, 0
CELL = float(np.dot(Q_MAT[ROW], K_MAT[COL]))           # 6
CELL_SWAPPED = float(np.dot(Q_MAT[COL], K_MAT[ROW]))   # -2
CELL_PRODUCTS = [q * k for q, k in zip(Q_MAT[ROW], K_MAT[COL])]
CELL_Q_TWICE = float(np.dot(Q_MAT[ROW], Q_MAT[COL]))   # 0


@exercise("ch07.score_cell", right=[CELL, 6, np.float64(6.0)],
          wrong=[CELL_SWAPPED, CELL_PRODUCTS, CELL_Q_TWICE])
def _score_cell(answer: Any) -> None:
    if not isinstance(answer, bool):
        got = to_numpy(answer)
        if got.shape == (2,) and np.allclose(got, CELL_PRODUCTS):
            raise Wrong("those are the two products; a score is one number, so add them.")
        if got.size == 1 and np.isclose(float(got.reshape(())), CELL_SWAPPED):
            raise Wrong("that is S[0, 2]: row and column are swapped. The ROW number picks the query "
                        "(a row of Q), the COLUMN number picks the key (a row of K).")
        if got.size == 1 and np.isclose(float(got.reshape(())), CELL_Q_TWICE):
            raise Wrong("a score pairs a query with a KEY. Take row 2 from Q and row 0 from K.")
    expect_number(answer, CELL, what="your S[2, 0]",
                  hint="Take row 2 of Q and row 0 of K (counting from 0), multiply matching entries, add.")


# Exercise "which key scores highest against the query?"
QUERY = [1.0, 1.0]
KEYS = {"road": [0.6, 0.3], "truck": [2.0, 2.2], "cat": [2.5, -0.5], "sat": [-1.0, 0.5]}


def _best_by(score: Any) -> str:
    return max(KEYS, key=lambda w: score(np.array(QUERY), np.array(KEYS[w])))


BEST = _best_by(lambda q, k: q @ k)                                 # truck
NEAREST_TIP = _best_by(lambda q, k: -np.linalg.norm(q - k))         # road: the subtraction trap
WORST = min(KEYS, key=lambda w: np.dot(QUERY, KEYS[w]))             # sat


@exercise("ch07.most_aligned", right=[BEST, f" {BEST.upper()} "], wrong=[NEAREST_TIP, WORST, "cat"])
def _most_aligned(answer: Any) -> None:
    if isinstance(answer, str):
        word = answer.strip().strip("\"'“”").lower()
        if word == NEAREST_TIP:
            raise Wrong(f"{word!r} has the tip nearest to the query's tip (that is subtraction), "
                        "but its score q · k is small. Compute q · k for every key.")
        if word == WORST:
            raise Wrong(f"{word!r} gives the LOWEST score (it is negative: it points away). "
                        "We want the highest.")
        if word in KEYS and word != BEST:
            raise Wrong(f"{word!r} scores well, but another key scores higher. "
                        "Compute q · k for every key and compare.")
    expect_word(answer, BEST, list(KEYS), what="your word")
