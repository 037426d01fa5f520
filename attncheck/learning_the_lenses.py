"""Checkers for the chapter on learning the lenses."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import Wrong, call, exercise, expect_number, to_numpy

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "learning_the_lenses", "learning the lenses"

# --- which keys do queries attend to in a two-back task? ----------------------------------------
# Every word brings in the features of the word two places before it; a word with none keeps its own.

_QUERIES = (1, 4)
_KEYS = (1, 2)  # row 1 has no word two back, so it keeps its own features (key 1); row 4 takes key 2


EDGES = {
    "learning_the_lenses.expected_key": (
        "a query with a word two places back",
        "a query with nothing two places back",
        "positions counted from 0",
    ),
    "learning_the_lenses.weight_on": (
        "soft weights, n = 1, 3, 5, 6",
        "keys in every order",
        "each input again with another companion",
    ),
}
_KEY_SLIPS = [
    ((2, 3), "counted from 1", "positions counted from 0"),
    ((1, 4), "the two queries' own positions", "positions counted from 0"),
    ((2, 4), "both keys are off", "a query with nothing two places back"),
    ((0, 3), "both keys are one place back", "a query with a word two places back"),
    ((0, 2), "key 0 is one place back from query 1", "a query with nothing two places back"),
    ((1, 3), "for query 4, key 3 is one place back", "a query with a word two places back"),
]
SLIPS = {"learning_the_lenses.expected_key": _KEY_SLIPS}


@exercise(
    "learning_the_lenses.expected_key",
    right=[(1, 2), [1, 2], np.array([1, 2]), (1.0, 2.0)],
    wrong=[(0, 2), (-1, 2), (0, 3), (1, 3), (3, 6), (2, 1), 2, *(slip for slip, _, _ in _KEY_SLIPS)],
    catches="both keys counted from 1 (2, 3), the queries' own positions (1, 4), both keys off (2, 4), row 1 sent to key 0 (the previous-word habit) or to -1 (i - 2 taken literally), one back instead "
    "of two (0, 3) and (1, 3), two ahead (3, 6), the pair swapped, one number",
    solution="answer = (1, 2)",
)
def _expected_key(answer: Any) -> None:
    got = to_numpy(answer, "your answer")
    if got.dtype == bool:
        raise Wrong("Your answer holds True/False values; give two key positions, such as (0, 0).")
    if got.ndim == 0:
        raise Wrong("Give two key positions, one for query 1 and one for query 4, as a pair such as (0, 0).")
    got = got.ravel()
    if got.size != 2:
        raise Wrong(
            f"Your answer holds {got.size} number{'' if got.size == 1 else 's'}; give two, one for query 1 "
            "and one for query 4."
        )
    if not np.all(np.isfinite(got)) or not np.allclose(got, np.round(got)):
        raise Wrong("Key positions are whole numbers, counted from 0.")
    first, second = (int(x) for x in np.round(got))
    # the whole answer first: one slip that explains both entries
    if (first, second) == tuple(k + 1 for k in _KEYS):
        raise Wrong(
            "Both of your keys are one more than they should be: they look counted from 1. Positions "
            "count from 0, so the first word is key 0."
        )
    if (first, second) == _QUERIES:
        raise Wrong("Those are the two queries' own positions. For each query, give the KEY its task sends it to.")
    if (first, second) == (0, 3):
        raise Wrong(
            "Both keys are one place back, the previous-word habit. This task looks two places back, "
            "and a word with nothing two places back keeps its own features."
        )
    if first > _QUERIES[0] and second > _QUERIES[1]:
        raise Wrong(
            "Both keys come later than their queries. The causal mask lets a word see only itself "
            "and earlier words: look two places BACK."
        )
    if first != _KEYS[0] and second != _KEYS[1] and (first, second) != _KEYS[::-1]:
        raise Wrong(
            "Both keys are off. For query 4, which position stands two places before it? For query 1, "
            "which has no word two places back, what does the task say it keeps?"
        )
    if (first, second) == _KEYS[::-1]:
        raise Wrong("The right two keys in the wrong order: first the key of query 1, then that of query 4.")
    if second != _KEYS[1]:
        if second == 3:
            raise Wrong("For query 4, key 3 is one place back. The task asks for the word two places before.")
        if second > 4:
            raise Wrong(
                "For query 4 that key comes later. The causal mask lets a word see only itself and earlier words."
            )
        raise Wrong("Query 4 is off: which position stands two places before position 4?")
    if first == -1:
        raise Wrong(
            "For query 1, 1 - 2 = -1 is not a position (Python would read -1 as the last key, which the "
            "causal mask hides). Query 1 has no word two places before it: what does the task say such a word keeps?"
        )
    if first == 0:
        raise Wrong(
            "Key 0 is one place back from query 1. Query 1 has no word two places before it, so the task "
            "says it keeps its own features: which key holds them?"
        )
    if first != _KEYS[0]:
        raise Wrong("Query 1 may see only keys 0 and 1 (the causal mask), and it has no word two places back.")


# --- the average weight on the expected keys -----------------------------------------------


def _weight_on(A: Any, keys: Any) -> float:
    rows = np.arange(len(keys))
    return float(np.asarray(A)[rows, np.asarray(keys)].mean())


def _cases() -> list[tuple[np.ndarray, list[int]]]:
    """Hidden (A, keys): A a numpy array, keys a plain list of ints, as the statement says."""
    rng = np.random.default_rng(14)
    out = []
    for n in (1, 3, 6, 5):
        scores = rng.normal(scale=1.5, size=(n, n))
        A = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
        keys = np.maximum(np.arange(n) - 1, 0) if n != 5 else rng.integers(0, n, size=n)
        out.append((A, [int(k) for k in keys]))
    # each input again with another companion: a function that remembers results by A or by keys alone fails
    (A3, keys3), (A6, _) = out[1], out[2]
    other = A6[:3, :3] / A6[:3, :3].sum(axis=1, keepdims=True)
    out += [(A3, [2, 1, 0]), (other, list(keys3))]
    return out


_HIDDEN = _cases()
_WANT = [_weight_on(A, k) for A, k in _HIDDEN]  # computed before any learner code runs


def _right_loop(A: Any, keys: Any) -> float:
    total = 0.0
    for i, j in enumerate(keys):
        total += A[i][j]
    return total / len(keys)


def _right_torch(A: Any, keys: Any) -> Any:
    import torch

    A = torch.as_tensor(A)
    return A[torch.arange(len(keys)), torch.as_tensor(keys)].mean()


def _right_list_comprehension(A: Any, keys: Any) -> float:
    return float(np.mean([A[i, keys[i]] for i in range(len(keys))]))


def _transposed(A: Any, keys: Any) -> float:
    return float(np.asarray(A)[np.asarray(keys), np.arange(len(keys))].mean())


def _whole_columns(A: Any, keys: Any) -> float:
    return float(np.asarray(A)[:, np.asarray(keys)].mean())


def _strongest(A: Any, keys: Any) -> float:
    return float(np.asarray(A).max(axis=1).mean())


def _sum_not_mean(A: Any, keys: Any) -> float:
    return float(np.asarray(A)[np.arange(len(keys)), np.asarray(keys)].sum())


def _hit_rate(A: Any, keys: Any) -> float:
    return float((np.asarray(A).argmax(axis=1) == np.asarray(keys)).mean())


def _skips_first_row(A: Any, keys: Any) -> float:
    rows = np.arange(1, len(keys))
    return float(np.asarray(A)[rows, np.asarray(keys)[rows]].mean()) if len(rows) else float("nan")


def _cached_by_a(A: Any, keys: Any) -> float:
    """Remembers its result by A alone: A again with other keys gets the old average."""
    key = repr(np.asarray(A).tolist())
    if key not in _WEIGHT_MEMORY:
        _WEIGHT_MEMORY[key] = _weight_on(A, keys)
    return _WEIGHT_MEMORY[key]


_WEIGHT_MEMORY: dict = {}


def _mutating(A: Any, keys: Any) -> float:
    A[:] = 0.0
    return _weight_on(A, keys)


SLIPS["learning_the_lenses.weight_on"] = [
    (_transposed, "rows and columns are swapped", "keys in every order"),
    (_whole_columns, "averages whole columns", "keys in every order"),
    (_strongest, "the strongest weight of each row", "soft weights, n = 1, 3, 5, 6"),
    (_hit_rate, "counts the rows whose strongest key", "soft weights, n = 1, 3, 5, 6"),
    (_sum_not_mean, "the total over the rows", "soft weights, n = 1, 3, 5, 6"),
    (_skips_first_row, "leave out row 0", "soft weights, n = 1, 3, 5, 6"),
    (_cached_by_a, "keeps results between calls", "each input again with another companion"),
]


@exercise(
    "learning_the_lenses.weight_on",
    right=[_weight_on, _right_loop, _right_torch, _right_list_comprehension],
    wrong=[
        _transposed,
        _whole_columns,
        _strongest,
        _sum_not_mean,
        _hit_rate,
        _mutating,
        _skips_first_row,
        _cached_by_a,
    ],
    catches="a result remembered by A alone (A again with other keys, keys again with another A), row and column swapped, whole columns averaged, the strongest weight instead of the expected "
    "one, the sum instead of the average, the share of rows whose strongest key is right, a function "
    "that zeroes A, row 0 left out (as the chapter's printout does); hidden A are soft (not one-hot), n = 1, 3, 5, 6, and keys in every order",
    solution="return A[np.arange(len(keys)), keys].mean()",
)
def _weight_on_checker(fn: Any) -> None:
    for k, ((A, keys), want) in enumerate(zip(_HIDDEN, _WANT)):
        got = call(fn, A, keys, what="your function `weight_on`")
        value = to_numpy(got, "what your function returned")
        if value.size != 1:
            raise Wrong(f"Your function should return one number, the average, but it returned shape {value.shape}.")
        v = float(value.reshape(()))
        if not np.isclose(v, want, atol=1e-9) and any(np.isclose(v, w, atol=1e-12) for w in _WANT[:k]):
            raise Wrong(
                "For one hidden A your function returned the average of an earlier call: it keeps results "
                "between calls. Compute each average from the A and keys it is given."
            )
        n = len(keys)
        if n == 1 and not np.isfinite(v):
            raise Wrong(
                "For an A of one row your function gives nan, the average of no numbers: it seems to "
                "leave out row 0. The question asks for the average over every row, row 0 included."
            )
        slips = [
            (_transposed, "Rows and columns are swapped: row i of A is query i, and its weight on key j is A[i, j]."),
            (
                _strongest,
                (
                    "That is the strongest weight of each row, whichever key holds it. Take the weight on "
                    "the EXPECTED key of each row."
                ),
            ),
            (
                _hit_rate,
                (
                    "That counts the rows whose strongest key is the expected one. The question asks for the "
                    "weight itself, averaged over the rows."
                ),
            ),
            (_sum_not_mean, "That is the total over the rows. Divide by the number of rows to get the average."),
            (_whole_columns, "That averages whole columns of A. Take one weight per row: row i at column keys[i]."),
            (
                _skips_first_row,
                (
                    "That leaves out row 0, as the chapter's printout did. The question asks for the "
                    "average over every row, row 0 included."
                ),
            ),
        ]
        if not np.isclose(v, want, atol=1e-9):
            for slip, hint in slips:
                if np.isclose(v, slip(A, keys), atol=1e-9) and not np.isclose(slip(A, keys), want, atol=1e-9):
                    raise Wrong(hint)
        expect_number(
            v,
            want,
            what=f"your average for an A with {n} row(s)",
            atol=1e-9,
            hint="Read the statement again: which weight of each row, and how are they combined?",
        )
