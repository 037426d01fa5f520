"""Exercise ids of earlier versions of the course, and the ids they are now.

An id begins with its chapter's subject (`softmax.by_hand`). Until December 2026 it began with
the chapter's number instead (`ch09.by_hand`). `OLD_NUMBERS` is that history: which subject each
number stood for then. It never changes when chapters move, so a record written by an earlier
version, or a notebook saved then, still finds its exercises.
"""

from __future__ import annotations

import re

# The chapters' numbers in the course of November 2026, frozen: never edit when chapters move.
OLD_NUMBERS = {
    "ch01": "vectors",
    "ch02": "the_matrix_x",
    "ch03": "shapes_in_r",
    "ch04": "matrix_multiplication",
    "ch05": "query_key_value",
    "ch06": "transpose",
    "ch07": "dot_product_scores",
    "ch08": "scaling",
    "ch09": "softmax",
    "ch10": "weighted_sum",
    "ch11": "masks",
    "ch12": "many_heads",
    "ch13": "word_order",
    "ch14": "learning_the_lenses",
    "ch15": "counting_and_timing",
    "ch16": "cpu_vs_gpu",
}
OLD_ID = re.compile(r"\b(ch\d\d)\.([a-z]\w*)\b")  # an old id, wherever it is written


def current_id(exercise_id: str) -> str:
    """The id an exercise has now: current_id("ch09.by_hand") == "softmax.by_hand"; a current id as it is."""
    match = OLD_ID.fullmatch(exercise_id)
    if match is None or match.group(1) not in OLD_NUMBERS:
        return exercise_id
    return f"{OLD_NUMBERS[match.group(1)]}.{match.group(2)}"


def migrated(entries: dict) -> dict:
    """A record's entries under the current ids; two entries that meet under one id are merged."""
    current: dict = {}
    for old, entry in entries.items():
        new = current_id(old)
        if new in current:
            entry = _merged(current.pop(new), entry)
        current[new] = entry
    return current


def _merged(a: dict, b: dict) -> dict:
    """One entry for two records of the same exercise: attempts added, solved once is solved."""
    firsts = [t for t in (a["first"], b["first"]) if t]
    lasts = [t for t in (a["last"], b["last"]) if t]
    return {
        "attempts": a["attempts"] + b["attempts"],
        "solved": a["solved"] or b["solved"],
        "first": min(firsts) if firsts else None,
        "last": max(lasts) if lasts else None,
    }
