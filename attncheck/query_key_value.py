"""Checkers for the chapter on the lenses W_Q, W_K, W_V and what they make of the running example.

Every expected answer is computed here, from private module-level constants, when the module is
imported: before any learner code runs, and never from an object the learner handed in.
Torch tensors and torch.Size are accepted as answers, but torch is never imported here
(tests/test_chapter_query_key_value.py tries those forms), so `check` stays fast without it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attnlib.data import RUNNING_SENTENCE, VOCAB, running_lenses, words

from . import (
    Wrong,
    exercise,
    expect_array,
    expect_no_slip,
    expect_structure,
    expect_word,
    normal_word,
    to_items,
    to_numpy,
    to_shape,
)

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "query_key_value", "the lenses W_Q, W_K, W_V and what they make of the running example"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

SECTION_LENSES = 'the section "Three lenses: queries, keys and values"'
SECTION_FIT = 'the section "Why three lenses: asker, answerer, content-holder"'
SECTION_HEADS = 'the section "d_k, d_v and heads"'


# --- query_key_value.q_by_hand: Q = X W_Q for a tiny X --------------------------------------------

HAND_X = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]])
HAND_W_Q = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
_HAND_Q = HAND_X @ HAND_W_Q  # the expected answer, fixed at import


EDGES["query_key_value.q_by_hand"] = (
    "X W_Q, not W_Q X",
    "row i of Q is word i",
    "three products a cell",
    "one row per word",
)
SLIPS["query_key_value.q_by_hand"] = [
    (_HAND_Q.T.tolist(), "rows and columns are swapped", "row i of Q is word i"),
    ((HAND_W_Q @ HAND_X).tolist(), "that is W_Q times X", "X W_Q, not W_Q X"),
    ((HAND_X[:, :2] @ HAND_W_Q[:2, :]).tolist(), "one product per cell is missing", "three products a cell"),
    ([[3, 2], [1, 2]], "row 1, column 1", "three products a cell"),
    ([3, 2, 1, 3], "arranged in shape (4,)", "one row per word"),
    ([[3, 2]], "Q needs one row per word", "one row per word"),
]


@exercise(
    "query_key_value.q_by_hand",
    right=[[[3, 2], [1, 3]], ((3.0, 2.0), (1.0, 3.0)), _HAND_Q.copy(), _HAND_Q.astype(np.float32), _HAND_Q.astype(int)],
    wrong=[[["3", "2"], ["1", "3"]], [[3 + 0j, 2], [1, 3]], *(a for a, _, _ in SLIPS["query_key_value.q_by_hand"])],
    catches="Q transposed, W_Q X instead of X W_Q, the third product left out, one slipped cell, "
    "the right numbers flat or only the first row, numbers written as text or complex",
    solution="answer = [[1*1 + 0*0 + 2*1, 1*0 + 0*2 + 2*1],",
)
def _q_by_hand(answer: Any) -> None:
    got = to_numpy(answer, "Your Q")
    expect_structure(got, _HAND_Q, "Your Q")
    if got.shape == (3, 3):
        raise Wrong(
            "Your Q is 3×3: that is W_Q times X. The order is Q = X W_Q, so Q has one row "
            f"per word, as in {SECTION_LENSES}."
        )
    if got.shape == (1, 2) or got.shape == (2,):
        raise Wrong("Your Q has one row, but the sentence has two words: Q needs one row per word.")
    if got.shape == (4,):
        raise Wrong(
            "Your Q is flat (4 numbers in one list). Write it as a list of rows, one row per word: [[…, …], […, …]]."
        )
    if got.shape == (2, 2) and np.all(np.isfinite(got)) and not np.allclose(got, _HAND_Q):
        if np.allclose(got, _HAND_Q.T):
            raise Wrong(
                "Rows and columns are swapped. Row i of Q belongs to word i: it is row i "
                "of X times each column of W_Q in turn."
            )
        if np.allclose(got, HAND_X[:, :2] @ HAND_W_Q[:2, :]):
            raise Wrong(
                "Each cell of Q is a whole row of X times a whole column of W_Q: three "
                "products, then their sum. One product per cell is missing."
            )
    expect_array(got, _HAND_Q, "Your Q")


# --- query_key_value.w_shapes: legal shapes for the three weight matrices -----------------------

SHAPES_N, SHAPES_D_MODEL, SHAPES_D_K, SHAPES_D_V = 5, 6, 3, 4
_W_SHAPES = ((SHAPES_D_MODEL, SHAPES_D_K), (SHAPES_D_MODEL, SHAPES_D_K), (SHAPES_D_MODEL, SHAPES_D_V))


EDGES["query_key_value.w_shapes"] = (
    "d_model rows, whatever n",
    "d_k for W_Q and W_K, d_v for W_V",
    "rows first",
    "three shapes",
)
_W_WHOLE = [  # slips of the whole answer, diagnosed before its shapes, with their hints
    (
        [(3, 6), (3, 6), (4, 6)],
        (
            f"Every shape has rows and columns swapped. X is (n, d_model), so every lens needs d_model rows; its "
            f"columns give the width of the result ({SECTION_LENSES})."
        ),
        "rows first",
    ),
    (
        [(6, 4), (6, 4), (6, 3)],
        "The widths d_k and d_v are swapped: queries and keys need d_k = 3 numbers per word, values d_v = 4.",
        "d_k for W_Q and W_K, d_v for W_V",
    ),
]
SLIPS["query_key_value.w_shapes"] = [
    *_W_WHOLE,
    ([(5, 3), (5, 3), (5, 4)], "that is n, the number of words", "d_model rows, whatever n"),
    ([(6, 3), (6, 3), (6, 3)], "the values should have d_v = 4", "d_k for W_Q and W_K, d_v for W_V"),
    ([(6, 3), (6, 4), (6, 4)], "W_K (6, 4): queries and keys both need", "d_k for W_Q and W_K, d_v for W_V"),
    ([(6, 3), (6, 4)], "give three shapes", "three shapes"),
]


@exercise(
    "query_key_value.w_shapes",
    right=[
        list(_W_SHAPES),
        ((6, 3), (6, 3), (6, 4)),
        [[6, 3], [6, 3], [6, 4]],
        [np.ones((6, 3)).shape, np.ones((6, 3)).shape, np.ones((6, 4)).shape],
        np.array([[6, 3], [6, 3], [6, 4]]),
        [(np.int64(6), np.int64(3))] * 2 + [(6, 4)],
    ],
    wrong=[
        [(6, 3), (6, 3), (6, 4.5)],
        [("6", "3"), (6, 3), (6, 4)],
        *(a for a, _, _ in SLIPS["query_key_value.w_shapes"]),
    ],
    catches="n rows (the shapes of Q, K, V), every shape transposed, d_v ignored or given to W_K, "
    "d_k and d_v swapped, a missing shape, non-whole numbers and text",
    solution="answer = [(6, 3), (6, 3), (6, 4)]",
)
def _w_shapes(answer: Any) -> None:
    items = to_items(answer)
    if len(items) != 3:
        raise Wrong(
            "Give three shapes, in the order W_Q, W_K, W_V: a list of three pairs such as [(1, 2), (1, 2), (1, 2)]."
        )
    names = ["W_Q", "W_K", "W_V"]
    got = [to_shape(item, f"Your shape for {name}", 2) for name, item in zip(names, items)]
    expect_no_slip(got, _W_WHOLE)
    for name, (shape, want) in zip(names, zip(got, _W_SHAPES)):
        if len(shape) != 2:
            raise Wrong(
                f"Your shape for {name} has {len(shape)} number(s); a matrix has two, rows first, then columns."
            )
        rows, cols = shape
        if shape == want:
            continue
        if (rows, cols) == (want[1], want[0]):
            raise Wrong(
                f"{name} {shape} has rows and columns swapped. X is (n, d_model), so every "
                f"lens needs d_model rows; its columns give the width of the result "
                f"({SECTION_LENSES})."
            )
        if rows == SHAPES_N:
            raise Wrong(
                f"{name} has {rows} rows: that is n, the number of words (the rows of Q, K "
                "and V). A weight matrix does not depend on how many words there are; its "
                "rows must match the columns of X."
            )
        if rows == want[0] and name == "W_V":
            raise Wrong(
                f"{name} {shape}: the values should have d_v = {SHAPES_D_V} numbers per "
                "word, and the columns of W_V set that width."
            )
        if rows == want[0]:
            raise Wrong(
                f"{name} {shape}: queries and keys both need d_k = {SHAPES_D_K} numbers "
                "per word, so W_Q and W_K have d_k columns."
            )
        raise Wrong(
            f"Your shape for {name} {shape} is not right yet: rows first (they must match "
            f"the columns of X), then columns (the width you want out). See {SECTION_LENSES}."
        )


# --- query_key_value.head_w_q: the shape of one head's W_Q in GPT-2 small ---------------------------

HEADS_D_MODEL, HEADS_H = 768, 12
_HEAD_W_Q = (HEADS_D_MODEL, HEADS_D_MODEL // HEADS_H)


EDGES["query_key_value.head_w_q"] = ("one head's share of d_model", "d_model rows", "rows first", "whole numbers")
SLIPS["query_key_value.head_w_q"] = [
    ((64, 768), "rows and columns are swapped", "rows first"),
    ((768, 768), "the width of all 12 heads together", "one head's share of d_model"),
    ((768, 12), "that is h, the number of heads", "one head's share of d_model"),
    ((768, 768 * 12), "more than a word has numbers", "one head's share of d_model"),
    ((64, 64), "your W_Q has 64 rows", "d_model rows"),
    (64, "a shape is wanted here", "whole numbers"),
    ((768, 768 / 12), "divide with //", "whole numbers"),
]


@exercise(
    "query_key_value.head_w_q",
    right=[(768, 64), [768, 64], np.zeros((768, 64)).shape, (768, 768 // 12), np.array([768, 64])],
    wrong=[(12, 64), (768, 64.5), *(a for a, _, _ in SLIPS["query_key_value.head_w_q"])],
    catches="the shape transposed, all heads' width d_model, h or d_model·h as the width, d_k or h "
    "as the rows, d_k alone instead of a shape, non-whole numbers, a decimal 64.0 from /",
    solution="answer = (d_model, d_model // h)",
)
def _head_w_q(answer: Any) -> None:
    shape = to_shape(answer, "Your shape", 2)
    if len(shape) != 2:
        raise Wrong(f"Your shape {shape} has {len(shape)} number(s); a matrix has two, rows first.")
    rows, cols = shape
    d_model, h = HEADS_D_MODEL, HEADS_H
    if shape == _HEAD_W_Q:
        return
    if shape == _HEAD_W_Q[::-1]:
        raise Wrong(
            "Rows and columns are swapped. A lens has one row per column of X, and its "
            f"columns give the width of one query ({SECTION_LENSES})."
        )
    if rows != d_model:
        raise Wrong(
            f"Your W_Q has {rows} rows. Every lens, in every head, reads the whole word: "
            f"it needs one row per column of X ({SECTION_LENSES})."
        )
    if cols == d_model:
        raise Wrong(
            f"Your W_Q has {cols} columns: the width of all {h} heads together. One head's queries "
            f"get only that head's share of the d_model numbers ({SECTION_HEADS})."
        )
    if cols == h:
        raise Wrong(
            f"Your W_Q has {cols} columns: that is h, the number of heads. The columns of W_Q give d_k, the number "
            f"of numbers in one query of one head ({SECTION_HEADS})."
        )
    if cols == d_model * h:
        raise Wrong(
            "That many columns is more than a word has numbers. The heads share the "
            f"d_model numbers between them; they do not each get all of them ({SECTION_HEADS})."
        )
    raise Wrong(f"The rows are right; the columns are not yet. They are d_k for one head: see {SECTION_HEADS}.")


# --- query_key_value.cat_changes: which cells of the fit table change when "kitten" becomes "cat" ------

_W_Q, _W_K, _ = running_lenses()
_WORDS = words(RUNNING_SENTENCE)
_SWAP_AT = _WORDS.index("kitten")


def _fit_table(sentence_words: list[str]) -> np.ndarray:
    """How well query i fits key j for every pair (products, then one sum), with the running lenses."""
    X = np.array([VOCAB[w] for w in sentence_words], dtype=float)
    return (X @ _W_Q) @ (X @ _W_K).T


_FIT_KITTEN = _fit_table(_WORDS)
_FIT_CAT = _fit_table(["cat" if w == "kitten" else w for w in _WORDS])
_CHANGES = ~np.isclose(_FIT_KITTEN, _FIT_CAT, rtol=0, atol=1e-12)  # the expected answer
_ROW_AND_COLUMN = np.zeros_like(_CHANGES)
_ROW_AND_COLUMN[_SWAP_AT, :] = True
_ROW_AND_COLUMN[:, _SWAP_AT] = True


def _mask(rows: list[int] = (), cols: list[int] = (), cells: list[tuple[int, int]] = ()) -> list:
    n = len(_WORDS)
    m = np.zeros((n, n), dtype=bool)
    for i in rows:
        m[i, :] = True
    for j in cols:
        m[:, j] = True
    for i, j in cells:
        m[i, j] = True
    return m.tolist()


EDGES["query_key_value.cat_changes"] = (
    "the swapped word's row and column",
    "an all-zero query or key",
    "True/False, 6×6",
)
SLIPS["query_key_value.cat_changes"] = [
    (_ROW_AND_COLUMN.tolist(), "is either of them all zeros, or unchanged? (2 cell(s)", "an all-zero query or key"),
    (np.ones((6, 6), dtype=bool).tolist(), "(27 cell(s) like this", "an all-zero query or key"),
    (_mask(cols=[_SWAP_AT]), "what does that do to its query?", "the swapped word's row and column"),
    (_mask(rows=[_SWAP_AT]), "what does that do to its key?", "the swapped word's row and column"),
    ((_FIT_CAT - _FIT_KITTEN).round(2).tolist(), "not the fit values or their differences", "True/False, 6×6"),
    (_CHANGES[:5, :5].tolist(), "your grid has shape (5, 5)", "True/False, 6×6"),
]


@exercise(
    "query_key_value.cat_changes",
    right=[_CHANGES.tolist(), _CHANGES.copy(), _CHANGES.astype(int).tolist(), _CHANGES.astype(float)],
    wrong=[_mask(cells=[(_SWAP_AT, _SWAP_AT)]), *(a for a, _, _ in SLIPS["query_key_value.cat_changes"])],
    catches="the whole row and column of the swapped word (forgetting that 'mat' has an all-zero "
    "query and key), only its column, only its row, only its diagonal cell, every cell, "
    "the table of differences instead of True/False, a grid of the wrong size",
    solution="answer = fit_cat != fit_kitten",
)
def _cat_changes(answer: Any) -> None:
    n = len(_WORDS)
    got = to_numpy(answer, "your grid", allow_bool=True)
    if got.shape != (n, n):
        raise Wrong(
            f"Your grid has shape {got.shape}, but the fit table of the {n}-word sentence is "
            f"{n}×{n}: one True/False per cell."
        )
    if not np.all(np.isfinite(got)) or not np.all(np.isin(got, [0.0, 1.0])):
        raise Wrong(
            "Give True (changes) or False (stays) for every cell, or 1 and 0, not the fit values or their differences."
        )
    said = got.astype(bool)
    if np.array_equal(said, _CHANGES):
        return
    if not said.any():
        raise Wrong(
            f"Your grid marks no cell as changing. The word at position {_SWAP_AT} has a new vector, "
            f"so its query and its key are new: which cells use them? See {SECTION_FIT}."
        )
    k = _SWAP_AT
    row_marked = np.delete(said[k, :], k).any()  # the swapped word's row, its own cell left out
    col_marked = np.delete(said[:, k], k).any()
    if not row_marked or not col_marked:
        missing = "row" if not row_marked else "column"
        part = "query" if not row_marked else "key"
        raise Wrong(
            f"Your grid marks nothing in the {missing} of the swapped word (position {k}) beyond "
            f"its own cell. The lenses stay, but the word's vector is new: what does that do "
            f"to its {part}? See {SECTION_FIT}."
        )
    extra = np.argwhere(said & ~_CHANGES)
    if len(extra):
        i, j = (int(k) for k in extra[0])
        raise Wrong(
            f"You marked cell ({i}, {j}) as changing, but it stays. Look at the query of "
            f"{_name(i)} and the key of {_name(j)}: is either of them all zeros, or "
            f"unchanged? ({len(extra)} cell(s) like this.)"
        )
    missed = np.argwhere(~said & _CHANGES)
    i, j = (int(k) for k in missed[0])
    raise Wrong(
        f"Cell ({i}, {j}), the query of {_name(i)} against the key of {_name(j)}, does "
        f"change. ({len(missed)} cell(s) like this.) One of the two vectors in it is new."
    )


def _name(i: int) -> str:
    """A word of the sentence for a hint; the swapped word is named both ways."""
    return "'kitten' (now 'cat')" if i == _SWAP_AT else f"'{_WORDS[i]}'"


# --- query_key_value.swap_slots: predict what happens when the key lens puts its meanings in the other slots ---

_W_K_SWAPPED = _W_K[:, ::-1]
_X_RUNNING = np.array([VOCAB[w] for w in _WORDS], dtype=float)
_SAT_ROW_SWAPPED = (_X_RUNNING @ _W_Q)[_WORDS.index("sat")] @ (_X_RUNNING @ _W_K_SWAPPED).T
_SWAPPED_BEST = _WORDS[int(np.argmax(_SAT_ROW_SWAPPED))]


EDGES["query_key_value.swap_slots"] = ("slot meets slot", "an all-zero key", "a word of the sentence")
SLIPS["query_key_value.swap_slots"] = [
    ("kitten", "the best fit with the lenses as they are", "slot meets slot"),
    ("on", "is not sat's best fit with the swapped keys", "slot meets slot"),
    ("mat", "mat's key is [0, 0] in either order", "an all-zero key"),
    ("dog", "not one of the choices", "a word of the sentence"),
    (2, "one word in quotes", "a word of the sentence"),
]


@exercise(
    "query_key_value.swap_slots",
    right=["sat", " Sat", "SAT", "'sat'"],
    wrong=["the", *(a for a, _, _ in SLIPS["query_key_value.swap_slots"])],
    catches="kitten (the answer with the slots in place), on (the other action-ish word), the, mat "
    "(all-zero key), a word outside the sentence, a position instead of a word",
    solution="answer = words[int(np.argmax(row_sat))]",
)
def _swap_slots(answer: Any) -> None:
    word = normal_word(answer) if isinstance(answer, str) else None
    if word == "kitten":
        raise Wrong(
            "That is the best fit with the lenses as they are. With the key's columns swapped, "
            "slot 0 of every key holds what slot 1 held before, and slot 0 of a query still meets "
            "slot 0 of a key. Redo sat's row with the swapped keys."
        )
    if word == "mat":
        raise Wrong("mat's key is [0, 0] in either order: its fit with every query is 0.")
    if word in _WORDS and word != _SWAPPED_BEST:
        raise Wrong(
            f"{word!r} is not sat's best fit with the swapped keys. Slot 0 of every key now holds what slot 1 "
            "held before: multiply sat's query slot by slot with each swapped key, then compare."
        )
    expect_word(
        answer,
        _SWAPPED_BEST,
        list(dict.fromkeys(_WORDS)),
        section='"Slot meets slot" in the section "Why three lenses: asker, answerer, content-holder"',
    )
