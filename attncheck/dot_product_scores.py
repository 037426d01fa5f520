"""Checkers for the chapter on the dot product and the score matrix S."""

from __future__ import annotations

from typing import Any

import numpy as np

from attnlib.course import chapter_ref
from attnlib.data import RUNNING_SENTENCE, running_lenses, sentence_matrix, words

from . import (
    Wrong,
    counted_from_one,
    describe,
    exercise,
    expect_array,
    expect_number,
    expect_structure,
    to_count,
    to_numpy,
    torch_form,
)

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "dot_product_scores", "the dot product and the score matrix S"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

WHERE_DOT = "the section 'Multiply matching entries, then add'"
WHERE_S = "the section 'The score matrix S = QKᵀ'"


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


# --- dot_product_scores.dots_by_hand: one query against three keys -----------------------------------------

Q_VEC = [1, 2, -1]
KEYS_3 = [[3, 1, 1], [1, 0, 1], [-2, -1, 0]]
DOTS = [float(np.dot(Q_VEC, k)) for k in KEYS_3]  # [4, 0, -4]
PRODUCTS = [[q * k for q, k in zip(Q_VEC, key)] for key in KEYS_3]  # not yet added up
DOTS_NO_SIGNS = [float(np.dot(np.abs(Q_VEC), np.abs(k))) for k in KEYS_3]  # minus signs dropped
SUMS = [float(sum(Q_VEC) + sum(k)) for k in KEYS_3]  # added everything
Q_SIGN_LOST = [float(np.dot(np.abs(Q_VEC), k)) for k in KEYS_3]  # q's -1 read as +1


EDGES["dot_product_scores.dots_by_hand"] = ("multiply, then add", "negative entries", "one number per key, in order")
SLIPS["dot_product_scores.dots_by_hand"] = [
    (PRODUCTS, "these are the products q[t] k[t]", "multiply, then add"),
    (SUMS, "you added all the entries", "multiply, then add"),
    (DOTS_NO_SIGNS, "the minus signs got lost", "negative entries"),
    (Q_SIGN_LOST, "it is -1, not 1", "negative entries"),
    ([4, 0, 4], "which key points away from q?", "negative entries"),
    ([-4, 0, 4], "the numbers are in reverse order", "one number per key, in order"),
    ([4, 0], "give three numbers, one per key", "one number per key, in order"),
]


@exercise(
    "dot_product_scores.dots_by_hand",
    right=[DOTS, np.array(DOTS), (4, 0, -4), torch_form(DOTS, "float32"), torch_form(DOTS, "bfloat16")],
    wrong=[[["4", "0", "-4"]], *(a for a, _, _ in SLIPS["dot_product_scores.dots_by_hand"])],
    catches="products not added up; minus signs dropped; the minus of q's last entry dropped; one sign flipped; everything added; "
    "keys in the wrong order; a missing key; numbers as text",
    solution="1*(-2) + 2*(-1) + (-1)*0]",
)
def _dots_by_hand(answer: Any) -> None:
    got = to_numpy(answer, "Your list")
    expect_structure(got, DOTS, "Your list")
    if got.shape == (3, 3) and np.allclose(got, PRODUCTS):
        raise Wrong(
            f"These are the products q[t] k[t], but a dot product is ONE number: add up each "
            f"key's products. See {WHERE_DOT}."
        )
    if got.shape != (3,):
        raise Wrong(f"Your list has shape {got.shape}; give three numbers, one per key, in the order k₀, k₁, k₂.")
    if np.allclose(got, DOTS_NO_SIGNS):
        raise Wrong(
            "The minus signs got lost: a negative entry times a positive one is negative, and it must be subtracted."
        )
    if np.allclose(got, Q_SIGN_LOST):
        raise Wrong(
            "Look at the last entry of q: it is -1, not 1, so each key's last entry enters "
            "with its sign flipped. Two of your dot products read it as +1."
        )
    if np.allclose(got, SUMS):
        raise Wrong(
            f"You added all the entries of q and k. Multiply matching entries first, then add "
            f"the products. See {WHERE_DOT}."
        )
    if np.allclose(got, DOTS[::-1]):
        raise Wrong("The numbers are in reverse order: give q · k₀ first, then q · k₁, then q · k₂.")
    if np.allclose(np.abs(got), np.abs(DOTS)) and not np.allclose(got, DOTS):
        raise Wrong("The sizes are right but a sign is not. Which key points away from q?")
    expect_array(got, DOTS, what="Your list of three dot products")


# --- dot_product_scores.score_cell: one cell of S by hand ----------------------------------------------------

Q_MAT = [[1, 0], [2, 1], [0, 3]]
K_MAT = [[1, 2], [3, -1], [-2, 1]]
ROW, COL = 2, 0
CELL = float(np.dot(Q_MAT[ROW], K_MAT[COL]))  # 6
CELL_SWAPPED = float(np.dot(Q_MAT[COL], K_MAT[ROW]))  # -2: S[0, 2]
CELL_PRODUCTS = [q * k for q, k in zip(Q_MAT[ROW], K_MAT[COL])]
CELL_Q_TWICE = float(np.dot(Q_MAT[ROW], Q_MAT[COL]))  # 0: a query met a query
CELL_FROM_ONE = float(np.dot(Q_MAT[ROW - 1], K_MAT[COL]))  # 4: row counted from 1
CELL_DIAGONAL = float(np.dot(Q_MAT[ROW], K_MAT[ROW]))  # 3: S[2, 2]


EDGES["dot_product_scores.score_cell"] = ("row: a query, column: a key", "counted from 0", "one number")
SLIPS["dot_product_scores.score_cell"] = [
    (CELL_SWAPPED, "that is S[0, 2]: row and column are swapped", "row: a query, column: a key"),
    (CELL_Q_TWICE, "a score pairs a query with a KEY", "row: a query, column: a key"),
    (CELL_DIAGONAL, "that is S[2, 2]", "row: a query, column: a key"),
    (CELL_FROM_ONE, "count from 0, as Python does", "counted from 0"),
    (CELL_PRODUCTS, "those are the two products", "one number"),
]


@exercise(
    "dot_product_scores.score_cell",
    right=[CELL, 6, np.float64(6.0), [6], torch_form(CELL, "float32")],
    wrong=["6", *(a for a, _, _ in SLIPS["dot_product_scores.score_cell"])],
    catches="row and column swapped; the two products not added; a query met with a query; "
    "rows counted from 1; the diagonal cell; text",
    solution="answer = 0*1 + 3*2",
)
def _score_cell(answer: Any) -> None:
    got = to_numpy(answer, "Your S[2, 0]")
    if got.shape == (2,) and np.allclose(got, CELL_PRODUCTS):
        raise Wrong("Those are the two products; a score is one number, so add them.")
    if got.size == 1:
        value = float(got.reshape(()))
        if np.isclose(value, CELL_SWAPPED):
            raise Wrong(
                "That is S[0, 2]: row and column are swapped. The ROW number picks the query "
                "(a row of Q), the COLUMN number picks the key (a row of K)."
            )
        if np.isclose(value, CELL_Q_TWICE):
            raise Wrong("A score pairs a query with a KEY: take the row from Q and the column's word from K.")
        if np.isclose(value, CELL_FROM_ONE):
            raise Wrong("That query is row 1 of Q. Count from 0, as Python does: row 0 is the first.")
        if np.isclose(value, CELL_DIAGONAL):
            raise Wrong("That is S[2, 2], word 2 against its own key. The column number picks the key.")
    expect_number(got, CELL, what="Your S[2, 0]", hint=f"Which query and which key does this cell pair? See {WHERE_S}.")


# --- dot_product_scores.most_aligned: which key scores highest? ---------------------------------------------

QUERY = [1.0, 1.0]
KEYS = {"road": [0.6, 0.3], "truck": [2.0, 2.2], "cat": [2.5, -0.5], "sat": [-1.0, 0.5]}


def _best_by(score: Any) -> str:
    return max(KEYS, key=lambda w: score(np.array(QUERY), np.array(KEYS[w])))


BEST = _best_by(lambda q, k: q @ k)  # truck
NEAREST_TIP = _best_by(lambda q, k: -np.linalg.norm(q - k))  # road: the subtraction trap
WORST = min(KEYS, key=lambda w: np.dot(QUERY, KEYS[w]))  # sat


def _word(answer: Any, options: list[str], what: str = "Your answer") -> str:
    """The answer as a lower-case word from `options`, or Wrong."""
    if not isinstance(answer, str):
        raise Wrong(f'{what} should be a word in quotes, such as "{options[0]}", but it is {describe(answer)}.')
    word = answer.strip().strip("\"'“”").strip().lower()
    if word not in options:
        raise Wrong(f"The word {_short(word)!r} is not one of the choices: {', '.join(options)}.")
    return word


EDGES["dot_product_scores.most_aligned"] = (
    "the highest score, not the nearest tip",
    "every key compared",
    "a word of the four",
)
SLIPS["dot_product_scores.most_aligned"] = [
    (NEAREST_TIP, "(that is subtraction)", "the highest score, not the nearest tip"),
    (WORST, "gives the LOWEST score", "the highest score, not the nearest tip"),
    ("cat", "another key scores higher", "every key compared"),
    ("trucks", "is not one of the choices", "a word of the four"),
    (4.2, "but it is the number 4.2", "a word of the four"),
]


@exercise(
    "dot_product_scores.most_aligned",
    right=[BEST, f" {BEST.upper()} ", f"'{BEST}'", BEST.title() + "\n"],
    wrong=["x" * 20_000, *(a for a, _, _ in SLIPS["dot_product_scores.most_aligned"])],
    catches="the nearest tip (subtraction); the lowest score; the runner-up; a word not offered; "
    "the score instead of the word",
    solution="answer = max(scores, key=scores.get)",
)
def _most_aligned(answer: Any) -> None:
    word = _word(answer, list(KEYS), "Your word")
    if word == NEAREST_TIP:
        raise Wrong(
            f"The word {word!r} has the tip nearest to the query's tip (that is subtraction), "
            "but its score q · k is small. Compute q · k for every key."
        )
    if word == WORST:
        raise Wrong(f"The word {word!r} gives the LOWEST score (it is negative: it points away). We want the highest.")
    if word != BEST:
        raise Wrong(
            f"The word {word!r} scores well, but another key scores higher. Compute q · k for every key and compare."
        )


# --- the running example, private copies for the next exercises ------------------------------

_WORDS = words(RUNNING_SENTENCE)  # the kitten sat on the mat
_X = sentence_matrix(RUNNING_SENTENCE).copy()
_W_Q, _W_K = (W.copy() for W in running_lenses()[:2])
SAT, MAT = 2, 5


# --- dot_product_scores.changed_key: predict which scores a new key can change ------------------------------

CHANGED = ("column", SAT)


def _where(answer: Any) -> tuple[str, int]:
    """('row' | 'column', index) from ("column", 2), ["col", 2] or "column 2", or Wrong."""
    if isinstance(answer, str):
        parts = answer.replace(",", " ").replace("(", " ").replace(")", " ").split()
    elif isinstance(answer, (tuple, list)):
        parts = list(answer)
    else:
        raise Wrong(
            'Give a pair such as ("row", 0) or ("column", 0): the word row or column, '
            f"then a number; yours is {describe(answer)}."
        )
    if len(parts) != 2 or not isinstance(parts[0], str):
        raise Wrong('Give a pair such as ("row", 0) or ("column", 0): the word row or column, then one number.')
    kind = parts[0].strip().strip("\"'").lower()
    kind = {"rows": "row", "col": "column", "cols": "column", "columns": "column"}.get(kind, kind)
    if kind not in ("row", "column"):
        raise Wrong(f'The first part should be "row" or "column", not {_short(kind)!r}.')
    index = parts[1]
    if isinstance(index, str):
        if not index.strip().isdigit():
            raise Wrong(f"The second part should be a whole number, not {_short(index)!r}.")
        index = int(index)
    try:
        index = to_count(index, "The second part")
    except Wrong:
        raise Wrong(
            "The second part should be a whole number: the position of a row or column, counting from 0."
        ) from None
    return kind, index


EDGES["dot_product_scores.changed_key"] = ("a key is a column of S", "counted from 0", "a pair (word, number)")
SLIPS["dot_product_scores.changed_key"] = [
    (("row", SAT), "belongs to one word's QUERY", "a key is a column of S"),
    (counted_from_one(CHANGED), "count from 0, as Python does", "counted from 0"),
    (("column", 1), "the column of 'kitten'", "a key is a column of S"),
    ("row and column 2", "then one number", "a pair (word, number)"),
    (2, "yours is the number 2", "a pair (word, number)"),
]


@exercise(
    "dot_product_scores.changed_key",
    right=[CHANGED, list(CHANGED), ("Column", np.int64(SAT)), f"column {SAT}", ("col", float(SAT))],
    wrong=[("row", SAT + 1), *(a for a, _, _ in SLIPS["dot_product_scores.changed_key"])],
    catches="the row instead of the column; counting from 1; kitten's column; both; a bare number",
    solution="changed = np.argwhere(np.abs(S_new - S) > 1e-9)",
)
def _changed_key(answer: Any) -> None:
    kind, index = _where(answer)
    if kind == "row":
        raise Wrong(
            f"Row {index} of S belongs to one word's QUERY, and no query changed. A cell S[i, j] "
            f"uses query i and key j: which cells use sat's key? See {WHERE_S}."
        )
    if (kind, index) == counted_from_one(CHANGED):
        raise Wrong('Count from 0, as Python does: "the" is word 0.')
    if index != SAT:
        word = _WORDS[index] if 0 <= index < len(_WORDS) else None
        named = f" is the column of {word!r}" if word else " is not a column of this 6×6 S"
        raise Wrong(f"Column {index}{named}. Which word's key did you change?")


# --- dot_product_scores.key_design: build a W_K so that "sat" scores "mat" highest --------------------------

_GOOD_W_K = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 0.0], [0.0, 0.0]])  # mat advertises vehicle-ness
_OTHER_W_K = np.array([[0.0, 0.0], [0.0, 5.0], [0.0, 0.0], [0.0, 0.0]])  # ... in the second slot
_ALL_AWAY = -_W_K  # every other key points away


EDGES["dot_product_scores.key_design"] = (
    "mat strictly highest in sat's row",
    "4×2: a row per feature",
    "any W_K that works",
)
SLIPS["dot_product_scores.key_design"] = [
    (_W_K, "the highest score is at 'kitten'", "any W_K that works"),
    (_W_K + np.array([[0, 0], [1, 0], [0, 0], [0, 0]]), "the highest score is at 'kitten'", "any W_K that works"),
    (
        np.array([[0.0, 0.0], [0.0, 0.0], [5.0, 0.0], [0.0, 0.0]]),
        "the highest score is at 'kitten'",
        "any W_K that works",
    ),
    (np.zeros((4, 2)), "'mat' ties with", "mat strictly highest in sat's row"),
    (_GOOD_W_K.T, "your W_K is 2×4", "4×2: a row per feature"),
    (np.zeros((4, 3)), "your W_K has 3 columns", "4×2: a row per feature"),
    (np.full((4, 2), np.nan), "inf or nan", "4×2: a row per feature"),
]


@exercise(
    "dot_product_scores.key_design",
    right=[
        _GOOD_W_K,
        _GOOD_W_K.tolist(),
        _OTHER_W_K,
        _ALL_AWAY,
        torch_form(_GOOD_W_K.tolist(), "float32"),
        tuple(tuple(int(x) for x in row) for row in _GOOD_W_K),
    ],
    wrong=[a for a, _, _ in SLIPS["dot_product_scores.key_design"]],
    catches=f"{chapter_ref('query_key_value')}'s W_K (kitten wins); an added mat feature too weak against kitten's "
    "animal-ness; W_K transposed; all zeros (a tie); 'small' (kitten is smaller); "
    "a width other than d_k; nan",
    solution="W_K_new[1, 0] = 5.0",
)
def _key_design(answer: Any) -> None:
    W = to_numpy(answer, "Your W_K")
    if W.shape == (2, 4):
        raise Wrong(
            "Your W_K is 2×4: rows and columns are swapped. W_K has one row per feature "
            "(4) and one column per slot (d_k = 2)."
        )
    if W.ndim != 2 or W.shape[0] != 4:
        raise Wrong(f"Your W_K has shape {W.shape}; it needs 4 rows, one per feature of X.")
    if W.shape[1] != _W_Q.shape[1]:
        raise Wrong(
            f"Your W_K has {W.shape[1]} columns, but W_Q has {_W_Q.shape[1]}: queries and "
            "keys must have the same length d_k, or they cannot be dotted."
        )
    if not np.all(np.isfinite(W)):
        raise Wrong("Your W_K contains inf or nan; use ordinary numbers.")
    row = (_X @ _W_Q)[SAT] @ (_X @ W).T  # sat's row of S with the learner's keys
    others = np.delete(row, MAT)
    best = int(np.argmax(row))
    scale = max(1.0, float(np.abs(row).max()))
    if row[MAT] - others.max() > 1e-9 * scale:
        return
    if np.isclose(row[MAT], others.max(), atol=1e-9 * scale):
        raise Wrong(
            f"In sat's row, 'mat' ties with {_WORDS[best] if best != MAT else 'another word'!r}: "
            "it must score strictly highest. Which feature does mat have more of than every "
            "other word in the sentence?"
        )
    raise Wrong(
        f"In sat's row the highest score is at {_WORDS[best]!r} (column {best}), not at 'mat'. "
        "Which feature does mat have more of than every other word, and which slot does "
        "sat's query ask about most?"
    )


# --- dot_product_scores.doubling: what happens to S when every query (and every key) doubles? ---------------

DOUBLED = (2.0, 4.0)


EDGES |= {"dot_product_scores.doubling": ("queries alone, then queries and keys", "both factors")}
SLIPS |= {
    "dot_product_scores.doubling": [
        ((1, 1), "both factors are off", "both factors"),
        ((4, 2), "the two factors are swapped", "queries alone, then queries and keys"),
        ((2, 2), "the second is off", "both factors"),
        ((4, 4), "only the query doubles", "queries alone, then queries and keys"),
    ]
}


@exercise(
    "dot_product_scores.doubling",
    right=[DOUBLED, [2, 4], np.array(DOUBLED), torch_form(list(DOUBLED), "float32"), (2.0, 4)],
    wrong=[
        (2, 2),
        (4, 4),
        (4, 2),
        (2, 8),
        (1, 2),
        ("2", "4"),
        *(a for a, _, _ in SLIPS["dot_product_scores.doubling"]),
    ],
    catches="both doublings counted once; the first counted twice; swapped; doubled three times; no change; text",
    solution="S_both = (2 * Q) @ (2 * K).T",
)
def _doubling(answer: Any) -> None:
    got = to_numpy(answer, "Your pair")
    expect_structure(got, DOUBLED, "Your pair")
    if got.shape != (2,):
        raise Wrong(f"Give two numbers, (first factor, second factor); yours has shape {got.shape}.")
    first, second = (float(x) for x in got)
    if not np.isclose(first, DOUBLED[0]):
        if np.isclose(first, DOUBLED[1]) and np.isclose(second, DOUBLED[0]):
            raise Wrong("The two factors are swapped: first queries alone, then queries and keys together.")
        if not np.isclose(second, DOUBLED[1]):
            raise Wrong(
                "Both factors are off. A score is a sum of products q[t] k[t]: double one factor of "
                f"each product, then both, and see what the sum does. See {WHERE_DOT}."
            )
        raise Wrong(
            "The first factor is off. Only the query doubles: each product q[t] k[t] has one "
            f"factor doubled. See {WHERE_DOT}."
        )
    if not np.isclose(second, DOUBLED[1]):
        raise Wrong(
            "The first factor is right; the second is off. When query AND key double, both "
            f"factors of every product q[t] k[t] change. See {WHERE_DOT}."
        )


# --- dot_product_scores.distance: the squared distance from two lengths and a dot product -------------------

Q_SQ, K_SQ, QK = 5.0, 17.0, 9.0  # q = [2, 1], k = [4, 1], not shown to the learner
DISTANCE_SQ = Q_SQ + K_SQ - 2 * QK  # 4
WHERE_DISTANCE = "the section 'Why not subtraction?'"


EDGES["dot_product_scores.distance"] = ("the cross term twice", "its sign", "squared, not the distance")
SLIPS["dot_product_scores.distance"] = [
    (Q_SQ + K_SQ - QK, "how many times does the cross term", "the cross term twice"),
    (Q_SQ + K_SQ, "only part of it", "the cross term twice"),
    (Q_SQ + K_SQ + 2 * QK, "the dot product is subtracted, not added", "its sign"),
    (2 * QK - Q_SQ - K_SQ, "cannot be negative", "its sign"),
    (np.sqrt(DISTANCE_SQ), "that is the distance itself", "squared, not the distance"),
]


@exercise(
    "dot_product_scores.distance",
    right=[DISTANCE_SQ, 4, np.float32(4.0), [4.0], torch_form(DISTANCE_SQ, "float32")],
    wrong=["4", *(a for a, _, _ in SLIPS["dot_product_scores.distance"])],
    catches="the dot product not doubled; the dot product added; the distance, not squared; the dot "
    "product left out; the sign flipped; text",
    solution="answer = 5 + 17 - 2 * 9",
)
def _distance(answer: Any) -> None:
    got = to_numpy(answer, "Your squared distance")
    if got.size == 1:
        value = float(got.reshape(()))
        if np.isclose(value, Q_SQ + K_SQ - QK):
            raise Wrong(
                "Multiply out one squared difference (q[t] - k[t])²: how many times does the "
                f"cross term q[t] k[t] appear in it? See {WHERE_DISTANCE}."
            )
        if np.isclose(value, Q_SQ + K_SQ + 2 * QK):
            raise Wrong(
                "Look at the sign of the cross term in (q[t] - k[t])²: the dot product is subtracted, not added."
            )
        if np.isclose(value, np.sqrt(DISTANCE_SQ)):
            raise Wrong("That is the distance itself. The question asks for the SQUARED distance |q - k|².")
        if np.isclose(value, Q_SQ + K_SQ):
            raise Wrong(
                f"The two squared lengths are only part of it: the dot product enters too. See {WHERE_DISTANCE}."
            )
        if np.isclose(value, -DISTANCE_SQ):
            raise Wrong("A squared distance cannot be negative: check the signs of the three terms.")
    expect_number(
        got,
        DISTANCE_SQ,
        what="Your squared distance",
        hint=f"Use the identity that links |q - k|², the two lengths and q · k; see {WHERE_DISTANCE}.",
    )
