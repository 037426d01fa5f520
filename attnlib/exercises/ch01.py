"""Checkers for chapter 1: the vector."""
from __future__ import annotations

import math
from typing import Any

from . import Wrong, call, exercise, expect_number, expect_word
from ..data import VOCAB, VOCAB_2D


@exercise("ch01.d_model", right=[4, 4.0], wrong=[2, len(VOCAB), "four"])
def _d_model(answer: Any) -> None:
    if isinstance(answer, (int, float)) and answer == len(VOCAB):
        raise Wrong("That is the number of words in the vocabulary. "
                    "d_model counts the numbers in ONE word's vector.")
    if isinstance(answer, (int, float)) and answer == 2:
        raise Wrong("2 is d_model of the small drawing vocabulary VOCAB_2D. Look at one vector of VOCAB.")
    expect_number(answer, 4, hint="Count the numbers in one word's vector, e.g. len(attnlib.embed('cat')).")


def _angle_solution(v: Any) -> float:
    return math.degrees(math.atan2(v[1], v[0]))


def _angle_radians(v: Any) -> float:
    return math.atan2(v[1], v[0])


def _angle_atan(v: Any) -> float:
    return math.degrees(math.atan(v[1] / v[0]))


def _angle_no_return(v: Any) -> None:
    math.degrees(math.atan2(v[1], v[0]))


ANGLE_CASES = [[3.0, 0.0], [1.0, 1.0], [-1.0, 1.0], [0.0, 2.0], [0.5, -0.5], [2.6, 0.8]]


@exercise("ch01.angle", right=[_angle_solution],
          wrong=[_angle_radians, _angle_atan, _angle_no_return])
def _angle(fn: Any) -> None:
    for v in ANGLE_CASES:
        got = call(fn, list(v), what="your function `angle`")
        want = math.degrees(math.atan2(v[1], v[0]))
        if abs(float(got) - math.radians(want)) < 1e-6 and abs(want) > 1e-6:
            raise Wrong(f"angle({v}) gave {float(got):.4g}: that is in radians. Convert with math.degrees.")
        expect_number(got, want, what=f"angle({v})", atol=1e-6,
                      hint="For arrows pointing left (negative x), math.atan(y / x) is off by 180°: "
                           "use math.atan2(y, x).")


@exercise("ch01.closest_to_kitten", right=["dog", " Dog "], wrong=["cat", "car", "kitten"])
def _closest(answer: Any) -> None:
    others = [w for w in VOCAB_2D if w != "kitten"]
    if isinstance(answer, str) and answer.strip().lower() == "kitten":
        raise Wrong("Every arrow points exactly its own way; pick one of the OTHER words.")
    expect_word(answer, "dog", others)
