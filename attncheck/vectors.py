"""Checkers for the chapter on the vector, its length and the angle between two arrows."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from attnlib.data import VOCAB, VOCAB_2D

from . import Wrong, call, describe, exercise, expect_word, fmt, normal_word, to_number, to_numpy

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "vectors", "the vector, its length and the angle between two arrows"

# Private copies: the learner's code never sees these objects.
_VOCAB_2D = {word: (float(v[0]), float(v[1])) for word, v in VOCAB_2D.items()}


def _vec_text(v: Any) -> str:
    return "[" + ", ".join(f"{float(x):g}" for x in v) + "]"


def _direction(x: float, y: float) -> float:
    """The direction of the arrow [x, y] in degrees, from -180 to 180."""
    return math.degrees(math.atan2(y, x))


def _gap(a: float, b: float) -> float:
    """The angle between two directions given in degrees, from 0 to 180."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


# --- vectors.angle_between --------------------------------------------------------------


def _cosine(a: Any, b: Any) -> float:
    products = sum(float(x) * float(y) for x, y in zip(a, b))
    return products / (math.sqrt(sum(float(x) ** 2 for x in a)) * math.sqrt(sum(float(y) ** 2 for y in b)))


def _between_solution(a: Any, b: Any) -> float:
    total = 0.0
    for i in range(len(a)):
        total += a[i] * b[i]
    cosine = total / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))
    return math.degrees(math.acos(max(-1.0, min(1.0, cosine))))


def _between_numpy(a: Any, b: Any) -> Any:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    cosine = np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b))
    return np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))


def _between_hypot(a: Any, b: Any) -> float:
    cosine = sum(x * y for x, y in zip(a, b)) / (math.hypot(*a) * math.hypot(*b))
    if cosine > 1:
        cosine = 1.0
    if cosine < -1:
        cosine = -1.0
    return math.degrees(math.acos(cosine))


def _between_radians(a: Any, b: Any) -> float:
    return math.acos(max(-1.0, min(1.0, _cosine(a, b))))


def _between_cosine(a: Any, b: Any) -> float:
    return _cosine(a, b)


def _between_no_lengths(a: Any, b: Any) -> float:
    products = sum(x * y for x, y in zip(a, b))
    return math.degrees(math.acos(max(-1.0, min(1.0, products))))


def _between_first_two(a: Any, b: Any) -> float:
    return _between_solution(list(a[:2]), list(b[:2]))


def _between_unclipped(a: Any, b: Any) -> float:
    return math.degrees(math.acos(_cosine(a, b)))


def _between_atan2(a: Any, b: Any) -> float:
    """The difference of the two directions from the x axis: right for 2 numbers only."""
    return abs(math.degrees(math.atan2(a[1], a[0]) - math.atan2(b[1], b[0])))


def _between_a_twice(a: Any, b: Any) -> float:
    """Divides by |a| |a|, a slip of the second length: uses every entry, so it must not hear "first two"."""
    products = sum(x * y for x, y in zip(a, b))
    return math.degrees(math.acos(max(-1.0, min(1.0, products / sum(x * x for x in a)))))


def _between_clips_top_only(a: Any, b: Any) -> float:
    """Guards the cosine at 1 only: opposite arrows whose cosine rounds below -1 make math.acos refuse it."""
    return math.degrees(math.acos(min(1.0, _cosine(a, b))))


def _between_catches_domain(a: Any, b: Any) -> float:
    """Catches math.acos's refusal and calls it 0°: wrong for opposite arrows, which are 180° apart."""
    try:
        return math.degrees(math.acos(_cosine(a, b)))
    except ValueError:
        return 0.0


def _between_asin(a: Any, b: Any) -> float:
    return math.degrees(math.asin(max(-1.0, min(1.0, _cosine(a, b)))))


def _between_rounded(a: Any, b: Any) -> float:
    """Right, then rounded to one decimal, as the chapter's printouts are: the statement asks for the angle unrounded."""
    return round(_between_solution(a, b), 1)


def _between_int(a: Any, b: Any) -> int:
    """Right, then cut to whole degrees by int()."""
    return int(_between_solution(a, b))


def _between_cached_by_b(a: Any, b: Any) -> float:
    """Remembers each angle by the second arrow alone."""
    key = tuple(b)
    if key not in _BETWEEN_MEMORY:
        _BETWEEN_MEMORY[key] = _between_solution(a, b)
    return _BETWEEN_MEMORY[key]


_BETWEEN_MEMORY: dict = {}


def _between_no_return(a: Any, b: Any) -> None:
    _between_solution(a, b)


def _between_mutates(a: Any, b: Any) -> float:
    result = _between_solution(a, b)
    a[0] = 0.0
    return result


# Two, three and four entries; a right angle, opposite arrows, and arrows that point exactly the
# same way, where rounding can push the cosine a hair past 1 (or -1) and math.acos refuses it.
BETWEEN_CASES = [
    ([1.0, 0.0], [0.0, 2.0]),
    ([3.0, 0.5], [0.5, 3.0]),
    ([2.0, 1.0], [-4.0, -2.0]),
    ([1.0, 2.0, 2.0], [2.0, -1.0, 0.5]),  # the first entries with more than two: not parallel in their first two
    ([0.9, 0.0, 0.3, 0.1], [0.8, 0.0, 0.9, 0.1]),
    ([2.4, -2.8, -2.8], [7 * x for x in (2.4, -2.8, -2.8)]),
    ([1.1, 0.7, 0.3, 0.9], [3 * x for x in (1.1, 0.7, 0.3, 0.9)]),
    ([0.1, 0.2, 0.3], [-x for x in (0.1, 0.2, 0.3)]),
    ([2.6, -0.7, -2.0], [-5 * x for x in (2.6, -0.7, -2.0)]),  # opposite: the cosine rounds to just below -1
    ([0.1, 0.2, 0.3], [2 * x for x in (0.1, 0.2, 0.3)]),
    ([-1.0, 3.0], [2.0, 1.0]),
    ([-2.0, 1.0], [0.0, 2.0]),  # the second arrow of the first case again, with another first: a cache by b fails
]
_BETWEEN_WANT = [math.degrees(math.acos(max(-1.0, min(1.0, _cosine(a, b))))) for a, b in BETWEEN_CASES]


# What the statement promises the inputs hold, and the slips registered with the words of the hint each must get.
EDGES = {
    "vectors.angle_between": (
        "two, three, four or more entries",
        "a right angle",
        "arrows pointing exactly the same way or exactly opposite",
        "the angle in degrees, unrounded",
        "each arrow again with another companion",
    )
}
SLIPS = {
    "vectors.angle_between": [
        (_between_radians, "that is in radians", "the angle in degrees, unrounded"),
        (_between_rounded, "looks rounded to 1 decimal", "the angle in degrees, unrounded"),
        (_between_int, "looks rounded to whole degrees", "the angle in degrees, unrounded"),
        (_between_first_two, "used only the first two", "two, three, four or more entries"),
        (_between_catches_domain, "they are 180° apart", "arrows pointing exactly the same way or exactly opposite"),
        (_between_asin, "not math.asin", "a right angle"),
        (_between_a_twice, "the length of one arrow twice", "two, three, four or more entries"),
        (_between_cached_by_b, "keeps results between calls", "each arrow again with another companion"),
    ]
}


@exercise(
    "vectors.angle_between",
    right=[_between_solution, _between_numpy, _between_hypot],
    wrong=[
        _between_radians,
        _between_cosine,
        _between_no_lengths,
        _between_a_twice,
        _between_first_two,
        _between_unclipped,
        _between_atan2,
        _between_clips_top_only,
        _between_catches_domain,
        _between_asin,
        _between_no_return,
        _between_mutates,
        _between_rounded,
        _between_int,
        _between_cached_by_b,
    ],
    catches="the angle rounded to 1 decimal or cut by int(); radians; the cosine instead of the angle; no division by the lengths; |a| twice; only the first two "
    "entries; no guard for a cosine rounded past 1 (math domain error on parallel arrows); the "
    "2-D directions from the x axis subtracted; a guard at 1 only, or math.acos's error caught as 0° (opposite "
    "arrows whose cosine rounds below -1); math.asin for math.acos; no return; a function that changes its input",
    solution="return math.degrees(math.acos(max(-1.0, min(1.0, cosine))))",
)
def _angle_between(fn: Any) -> None:
    unsure = None  # a hint for a value two slips explain (0 at a right angle: the cosine, or math.asin's 0°)
    for k, ((a, b), want) in enumerate(zip(BETWEEN_CASES, _BETWEEN_WANT)):
        shown = f"{_vec_text(a)} and {_vec_text(b)}"
        try:
            got = call(fn, list(a), list(b), what="your function `angle_between`")
        except Wrong as wrong:
            if "domain" in str(wrong):
                raise Wrong(
                    f"For {shown}, which point exactly the same way (or exactly opposite), math.acos "
                    "refused your cosine: rounding made it a hair larger than 1 (or smaller than -1). "
                    "Keep the cosine between -1 and 1 before you take math.acos."
                ) from None
            raise
        if isinstance(got, (list, tuple, str)):
            raise Wrong(
                f"For {shown} your `angle_between` returned {describe(got)}; return one number, the angle in degrees."
            )
        value = to_number(got, f"For {shown}, what your `angle_between` returned")
        if not math.isfinite(value):
            raise Wrong(f"For {shown} your `angle_between` gave {value}; a finite number of degrees is wanted.")
        if math.isclose(value, want, abs_tol=1e-3, rel_tol=1e-6):  # acos is steep near 0° and 180°
            continue
        if any(
            math.isclose(value, w, abs_tol=1e-9) and (x == a or y == b)
            for (x, y), w in zip(BETWEEN_CASES[:k], _BETWEEN_WANT)
        ):
            raise Wrong(
                f"For {shown} your `angle_between` gave the angle of an earlier call that shared one of "
                "these arrows: it keeps results between calls. Compute each angle from both arrows it is given."
            )
        hint = _between_hint(a, b, want, value, shown)
        if hint is None:  # 0 at a right angle: the cosine, or math.asin's 0°
            unsure = (
                unsure or f"For {shown} your `angle_between` gave {value:.4g}, which is not the angle between them."
            )
            continue
        raise Wrong(hint)
    if unsure:
        raise Wrong(unsure)


def _between_hint(a: Any, b: Any, want: float, value: float, shown: str) -> str | None:
    """The hint for an angle that is not `want`: the slip it matches, or None when two slips explain it."""
    for places in (2, 1, 0):
        if math.isclose(value, round(want, places), abs_tol=1e-9) or (
            places == 0 and math.isclose(value, math.trunc(want), abs_tol=1e-9)
        ):
            where = "whole degrees" if places == 0 else f"{places} decimal{'s' if places > 1 else ''}"
            return (
                f"For {shown} your `angle_between` gave {fmt(value, want)}°, which looks rounded to {where}. "
                "Return the angle unrounded: the chapter rounds only when it prints."
            )
    if want > 1e-6 and math.isclose(value, math.radians(want), abs_tol=1e-6):
        return (
            f"For {shown} your `angle_between` gave {value:.4g}: that is in radians. Convert it to "
            "degrees (section 'Similar meaning: the angle between two arrows')."
        )
    as_sine = math.isclose(value, 90.0 - want, abs_tol=1e-3)
    as_cosine = math.isclose(value, math.cos(math.radians(want)), abs_tol=1e-6)
    if as_sine and as_cosine:
        return None
    if as_sine:
        return (
            f"For {shown} your `angle_between` gave {value:.4g}°, which is 90° minus the angle: the "
            "angle comes from the cosine, and the function that turns a cosine back into an angle "
            "is math.acos, not math.asin."
        )
    if want > 179 and value == 0:
        return (
            f"For {shown}, which point in exactly opposite directions, your `angle_between` gave 0°. They "
            "are 180° apart. Rounding can push their cosine a hair below -1: keep it between -1 "
            "and 1 before math.acos, rather than catching the error."
        )
    if as_cosine:
        return (
            f"For {shown} your `angle_between` gave {value:.4g}, the cosine of the angle. Turn the "
            "cosine back into an angle, in degrees."
        )
    if len(a) > 2 and math.isclose(value, _between_solution(a[:2], b[:2]), abs_tol=1e-6):
        return (
            f"For {shown}, arrows of {len(a)} numbers, your `angle_between` used only the first two. "
            "The recipe takes every pair of entries."
        )
    if any(
        math.isclose(value, math.degrees(math.acos(max(-1.0, min(1.0, _dot(a, b) / _dot(v, v))))), abs_tol=1e-6)
        for v in (a, b)
    ):
        return (
            f"For {shown} your `angle_between` gave {value:.4g}°: the sum of products was divided by "
            "the length of one arrow twice. Divide by the length of each arrow once."
        )
    return (
        f"For {shown} your `angle_between` gave {fmt(value, want)}°, which is not the angle between them. "
        "Check each step: the products of matching entries, their sum, the division by both "
        "lengths, then the angle (section 'Similar meaning: the angle between two arrows')."
    )


def _dot(a: Any, b: Any) -> float:
    return sum(float(x) * float(y) for x, y in zip(a, b))


# --- vectors.closest_to_sat: a prediction -----------------------------------------------------

_VOCAB = {word: tuple(float(x) for x in v) for word, v in VOCAB.items()}
_SAT_GAPS = {
    w: math.degrees(math.acos(max(-1.0, min(1.0, _cosine(_VOCAB["sat"], v))))) for w, v in _VOCAB.items() if w != "sat"
}
_CLOSEST = min(_SAT_GAPS, key=_SAT_GAPS.get)


EDGES["vectors.closest_to_sat"] = ("the angle to every other word", "sat itself left out", "a word of the vocabulary")
SLIPS["vectors.closest_to_sat"] = [
    ("drove", "between sat and 'drove'", "the angle to every other word"),
    ("on", "between sat and 'on'", "the angle to every other word"),
    ("kitten", "between sat and 'kitten'", "the angle to every other word"),
    ("sat", "pick one of the OTHER words", "sat itself left out"),
    ("lion", "is not one of the choices", "a word of the vocabulary"),
    (3, "one word in quotes", "a word of the vocabulary"),
]


@exercise(
    "vectors.closest_to_sat",
    right=["ran", " Ran ", "RAN", "'ran'"],
    wrong=[a for a, _, _ in SLIPS["vectors.closest_to_sat"]],
    catches="another action word whose numbers look close (drove), the small word 'on', an animal, "
    "sat itself, a word outside the vocabulary, a number",
    solution="answer = min(angles, key=angles.get)",
)
def _closest(answer: Any) -> None:
    word = normal_word(answer) if isinstance(answer, str) else None
    if word == "sat":
        raise Wrong(
            "Every arrow points exactly its own way: the angle from sat to sat is 0°. Pick one of the OTHER words."
        )
    if word in _VOCAB and word != _CLOSEST:
        raise Wrong(
            f"The angle between sat and {word!r} is about {_SAT_GAPS[word]:.0f}°; another word's "
            "arrow is closer than that. Compute the angle for every word, not just the ones that "
            "look alike."
        )
    expect_word(answer, _CLOSEST, sorted(_SAT_GAPS))


# --- vectors.longer_arrow: a design -------------------------------------------------------

_TRUCK = _VOCAB_2D["truck"]
_TRUCK_LENGTH = math.hypot(*_TRUCK)
LORRY_LENGTH = 6.0  # the length the exercise asks for, to within 0.01
_LORRY = [LORRY_LENGTH / _TRUCK_LENGTH * x for x in _TRUCK]


EDGES["vectors.longer_arrow"] = (
    "exactly 6 long, to within 0.01",
    "closest to truck's direction",
    "a list of two numbers",
)
SLIPS["vectors.longer_arrow"] = [
    ([0.8, 2.7], "your arrow is 2.816 long", "exactly 6 long, to within 0.01"),
    ([1.6, 5.4], "your arrow is 5.632 long", "exactly 6 long, to within 0.01"),
    ([1.7, 5.8], "your arrow is 6.044 long", "exactly 6 long, to within 0.01"),  # rounded to 1 decimal
    ([1.0, 3.0], "your arrow is 3.162 long", "exactly 6 long, to within 0.01"),
    ([2.7, 0.8], "only 1° from kitten's", "closest to truck's direction"),
    ([0.0, 6.0], "only 9° from car's", "closest to truck's direction"),
    ([-1.70, -5.75], "nearly the opposite way", "closest to truck's direction"),
    ([1.70, 5.75, 0.0], "shape (3,)", "a list of two numbers"),
    ([[1.70, 5.75]], "shape (1, 2)", "a list of two numbers"),
]


@exercise(
    "vectors.longer_arrow",
    right=[_LORRY, (1.70, 5.75), np.array(_LORRY), [1.5, 5.81]],
    wrong=[a for a, _, _ in SLIPS["vectors.longer_arrow"]],
    catches="truck itself, twice truck (5.63 long, not 6), x and y swapped, the opposite direction, a 6-long "
    "arrow nearer car than truck, a direction right but too short, three numbers, a nested list",
    solution="answer = [6 / math.hypot(*truck) * x for x in truck]",
)
def _longer_arrow(answer: Any) -> None:
    if callable(answer):
        raise Wrong("Give the vector itself, two numbers such as [1.0, 2.0], not a function.")
    got = to_numpy(answer, "your vector")
    if got.shape != (2,):
        raise Wrong(
            f"Your vector has shape {got.shape}; a drawing-vocabulary vector is a plain list of two numbers [x, y]."
        )
    if not np.all(np.isfinite(got)):
        raise Wrong("Your vector contains inf or nan; give two ordinary numbers.")
    x, y = float(got[0]), float(got[1])
    if x == 0 and y == 0:
        raise Wrong("[0, 0] is an arrow of length 0: it points nowhere.")
    mine = _direction(x, y)
    gaps = {w: _gap(_direction(*_VOCAB_2D[w]), mine) for w in _VOCAB_2D}
    nearest = min(gaps, key=gaps.get)
    if nearest != "truck":
        if gaps["truck"] > 90:
            raise Wrong(
                f"The angle between your arrow and truck's is about {gaps['truck']:.0f}°: it points "
                "nearly the opposite way. Keep truck's direction (section 'Similar meaning: the angle "
                "between two arrows')."
            )
        raise Wrong(
            f"Your arrow is about {gaps['truck']:.0f}° from truck's but only {gaps[nearest]:.0f}° from "
            f"{nearest}'s. Its direction must stay closest to truck's."
        )
    length = math.hypot(x, y)
    if abs(length - LORRY_LENGTH) > 0.01:
        raise Wrong(
            f"The direction is right, but your arrow is {fmt(length, LORRY_LENGTH)} long, and it must be {LORRY_LENGTH:g} "
            f"long (to within 0.01); truck's is {_TRUCK_LENGTH:.3g}. By what number must both of your "
            "numbers be multiplied to make the length 6? (section 'How long is an arrow?')"
        )
