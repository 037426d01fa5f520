"""Exercise ids of earlier editions of the course, and the ids they are now.

An id begins with its chapter's subject (`softmax.by_hand`). Until 2 December 2026 it began with
the chapter's number instead (`ch09.by_hand`), and the numbers moved twice:

- the first edition (30 November, the repository's first commit, to 1 December 11:22 UTC) had
  ten chapters and the CPU-and-GPU chapter as number 11 (`ch11.flops`, `ch10.causal_mask`);
- on the morning of 1 December, Part IV (masks, heads, word order, the lenses) took the numbers
  11 to 14 and the CPU-and-GPU chapter number 15 (`ch15.online_step`);
- the second edition (1 December 14:41 UTC to 2 December) split number 15 into counting and
  timing (15) and CPU versus GPU (16): `OLD_NUMBERS`, the numbers a bare `chNN.` id means.

`MOVED` holds the first edition's ids whose exercise now sits in another chapter than
`OLD_NUMBERS` says, and `RETIRED` those whose question no longer exists, with the exercise that
asks in its place. All three are frozen history (`_toc.yml`'s log): never edit them when chapters
move, so a record written by an earlier edition, or a notebook saved then, still finds its exercises.
"""

from __future__ import annotations

import re

# The chapters' numbers in the second edition (1-2 December 2026), frozen: never edit when chapters move.
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

# First-edition ids (number 11, then 15, was CPU versus GPU; the causal mask was asked under
# number 10, then 11) whose exercise asks the same today under another chapter.
MOVED = {
    "ch10.causal_mask": "masks.causal_mask",
    "ch11.causal_mask": "masks.causal_mask",
    "ch11.flops": "counting_and_timing.flops",
    "ch11.time_at_2n": "counting_and_timing.time_at_2n",
    "ch11.memory_of_a": "cpu_vs_gpu.memory_of_a",
    "ch11.online_step": "cpu_vs_gpu.online_step",
    "ch15.memory_of_a": "cpu_vs_gpu.memory_of_a",
    "ch15.online_step": "cpu_vs_gpu.online_step",
}

# Ids of questions an earlier edition asked and today's does not: the exercise that asks in their place.
RETIRED = {
    "ch01.angle": "vectors.angle_between",  # the angle from the x axis became the angle between two arrows
    "ch01.closest_to_kitten": "vectors.closest_to_sat",
    "ch01.d_model": "vectors.longer_arrow",
    "ch03.illegal_tag": "shapes_in_r.true_tags",
    "ch05.d_k_heads": "query_key_value.head_w_q",
    "ch06.ab_transpose": "transpose.transpose_order",
    "ch06.product_transpose": "transpose.transpose_order",
    "ch06.qkt_shape": "transpose.trap",
    "ch09.most_attended": "softmax.gap",
    "ch11.causal_zeros": "masks.masked_count",
    "ch11.crossover": "counting_and_timing.time_at_2n",
    "ch15.crossover": "counting_and_timing.time_at_2n",
}
OLD_ID = re.compile(r"\b(ch\d\d)\.([a-z]\w*)\b")  # an old id, wherever it is written


def current_id(exercise_id: str) -> str:
    """The id an exercise has now: current_id("ch09.by_hand") == "softmax.by_hand"; a current id as it is.

    A retired id keeps its name under its chapter's subject today ("ch01.angle" -> "vectors.angle"),
    which no exercise has: `retired_note` says which one asks in its place."""
    if exercise_id in MOVED:
        return MOVED[exercise_id]
    if exercise_id in RETIRED:
        return f"{RETIRED[exercise_id].partition('.')[0]}.{exercise_id.partition('.')[2]}"
    match = OLD_ID.fullmatch(exercise_id)
    if match is None or match.group(1) not in OLD_NUMBERS:
        return exercise_id
    return f"{OLD_NUMBERS[match.group(1)]}.{match.group(2)}"


def retired_note(exercise_id: str) -> str | None:
    """One line for an id of an earlier edition whose question is gone: which id asks in its place; else None."""
    instead = RETIRED.get(exercise_id)
    if instead is None:
        return None
    return (
        f"{exercise_id!r} was an exercise of an earlier edition of the course; today's edition asks "
        f"{instead!r} in its place (see its statement in the chapter)."
    )


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
