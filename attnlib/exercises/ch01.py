"""Checkers for chapter 1: the vector, its direction and its length."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import Wrong, call, describe, exercise, expect_word, to_number, to_numpy
from ..data import VOCAB_2D

# Private copies: the learner's code never sees these objects.
_VOCAB_2D = {word: (float(v[0]), float(v[1])) for word, v in VOCAB_2D.items()}


def _direction(x: float, y: float) -> float:
    """The direction of the arrow [x, y] in degrees, from -180 to 180 (chapter 1)."""
    return math.degrees(math.atan2(y, x))


def _gap(a: float, b: float) -> float:
    """The angle between two directions given in degrees, from 0 to 180."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


# --- ch01.angle ----------------------------------------------------------------------

def _angle_solution(v: Any) -> float:
    x, y = v
    return math.degrees(math.atan2(y, x))


def _angle_0_to_360(v: Any) -> float:
    return math.degrees(math.atan2(v[1], v[0])) % 360


def _angle_numpy(v: Any) -> Any:
    return np.degrees(np.arctan2(v[1], v[0]))


def _angle_radians(v: Any) -> float:
    return math.atan2(v[1], v[0])


def _angle_atan(v: Any) -> float:
    return math.degrees(math.atan(v[1] / v[0]))


def _angle_left_fixed_only(v: Any) -> float:
    """The 'fix' for x < 0 that forgets x = 0: straight up and straight down divide by zero."""
    a = math.degrees(math.atan(v[1] / v[0]))
    return a + 180 if v[0] < 0 else a


def _angle_up_only(v: Any) -> float:
    """Handles x = 0 as 'straight up' always: wrong for an arrow pointing straight down."""
    if v[0] == 0:
        return 90.0
    a = math.degrees(math.atan(v[1] / v[0]))
    return a + 180 if v[0] < 0 else a


def _angle_mirror(v: Any) -> float:
    """abs(...) of the angle: wrong for every arrow below the x axis."""
    return abs(math.degrees(math.atan2(v[1], v[0])))


def _angle_swapped(v: Any) -> float:
    return math.degrees(math.atan2(v[0], v[1]))


def _angle_no_return(v: Any) -> None:
    math.degrees(math.atan2(v[1], v[0]))


def _angle_mutates(v: Any) -> float:
    """Zeroes the vector it was given, then measures it."""
    v[0], v[1] = 0.0, 0.0
    return math.degrees(math.atan2(v[1], v[0]))


# Every quadrant, every axis direction (right, up, left, straight down), and the edge x = 0.
ANGLE_CASES = [(3.0, 0.0), (0.0, 2.0), (-1.5, 0.0), (0.0, -2.0),
               (1.0, 1.0), (-1.0, 1.0), (-2.0, -1.0), (0.5, -0.5), (2.6, 0.8)]
_ANGLE_WANT = [_direction(x, y) for x, y in ANGLE_CASES]


@exercise("ch01.angle", right=[_angle_solution, _angle_0_to_360, _angle_numpy],
          wrong=[_angle_radians, _angle_atan, _angle_left_fixed_only, _angle_up_only, _angle_mirror,
                 _angle_swapped, _angle_no_return, _angle_mutates],
          catches="radians; atan(y/x) (off by 180° to the left, divides by zero on the y axis); a left-only fix; "
                  "x = 0 taken as always up; abs() of the angle (wrong below the x axis); atan2(x, y) swapped; "
                  "no return; a function that zeroes its input",
          solution="return math.degrees(math.atan2(y, x))")
def _angle(fn: Any) -> None:
    for (x, y), want in zip(ANGLE_CASES, _ANGLE_WANT):
        v = [x, y]
        got = call(fn, v, what="your function `angle`")
        if isinstance(got, (list, tuple, str)):
            raise Wrong(f"For the arrow [{x:g}, {y:g}] your `angle` returned {describe(got)}; return one "
                        "number, the angle in degrees.")
        value = to_number(got, f"For the arrow [{x:g}, {y:g}], what your `angle` returned")
        if not math.isfinite(value):
            raise Wrong(f"For the arrow [{x:g}, {y:g}] your `angle` gave {value}; a finite number of degrees "
                        "is wanted.")
        if _gap(value, want) < 1e-3:
            continue  # -180° to 180°, or 0° to 360°: the same direction
        if abs(want) > 1e-6 and math.isclose(value, math.radians(want), abs_tol=1e-6):
            raise Wrong(f"For the arrow [{x:g}, {y:g}] your `angle` gave {value:.4g}: that is in radians. Convert it to degrees "
                        "(section 'Similar meaning, similar direction').")
        where = ("straight down" if (x, y) == (0.0, -2.0) else "straight up" if x == 0 else
                 "straight left" if y == 0 and x < 0 else "below the x axis" if y < 0 else
                 "to the left" if x < 0 else "to the right")
        raise Wrong(f"For the arrow [{x:g}, {y:g}], pointing {where}, your `angle` gave {value:.4g}°, which is "
                    "not its direction. Check which of x and y your code reads first, and what it does when x is "
                    "negative or zero (section 'Similar meaning, similar direction').")


# --- ch01.closest_to_kitten ------------------------------------------------------------

_KITTEN = _direction(*_VOCAB_2D["kitten"])
_OTHERS = [w for w in _VOCAB_2D if w != "kitten"]
_CLOSEST = min(_OTHERS, key=lambda w: _gap(_direction(*_VOCAB_2D[w]), _KITTEN))
_SECOND = sorted(_OTHERS, key=lambda w: _gap(_direction(*_VOCAB_2D[w]), _KITTEN))[1]


@exercise("ch01.closest_to_kitten", right=["dog", " Dog ", "DOG", "'dog'"],
          wrong=["cat", "car", "truck", "kitten", "lion"],
          catches="the other animal whose arrow is longest or whose numbers look closest (cat), kitten itself, "
                  "a vehicle, a word outside the vocabulary",
          solution="answer = min(gaps, key=gaps.get)")
def _closest(answer: Any) -> None:
    if isinstance(answer, str) and answer.strip().strip("\"'").lower() == "kitten":
        raise Wrong("Every arrow points exactly its own way; pick one of the OTHER words.")
    if isinstance(answer, str) and answer.strip().strip("\"'").lower() == _SECOND:
        raise Wrong(f"A fair guess: {_SECOND!r} points near kitten's direction, but it is not the nearest. "
                    "Compare the angles, not the numbers one by one.")
    if isinstance(answer, str) and answer.strip().strip("\"'").lower() in ("car", "truck"):
        raise Wrong("That is a vehicle: its arrow points steeply up, far from kitten's. Compare the angles.")
    if isinstance(answer, str) and answer.strip().strip("\"'").lower() not in _OTHERS:
        raise Wrong(f"That word is not one of the choices; answer with one of {', '.join(_OTHERS)}.")
    expect_word(answer, _CLOSEST, _OTHERS)


# --- ch01.longer_arrow: a design -------------------------------------------------------

_TRUCK = _VOCAB_2D["truck"]
_TRUCK_LENGTH = math.hypot(*_TRUCK)


@exercise("ch01.longer_arrow", right=[[1.6, 5.4], (2.0, 6.0), np.array([2.4, 8.1]), [3, 9]],
          wrong=[[0.8, 2.7], [2.7, 0.8], [-1.6, -5.4], [1.0, 6.0], [1.0, 3.0], [1.6, 5.4, 0.0], [[1.6, 5.4]]],
          catches="truck itself (not twice as long), x and y swapped, the opposite direction, a long arrow "
                  "nearer car than truck, a direction right but too short, three numbers, a nested list",
          solution="answer = [2 * x for x in attnlib.VOCAB_2D[\"truck\"]]")
def _longer_arrow(answer: Any) -> None:
    if callable(answer):
        raise Wrong("Give the vector itself, two numbers such as [1.0, 2.0], not a function.")
    got = to_numpy(answer, "your vector")
    if got.shape != (2,):
        raise Wrong(f"Your vector has shape {got.shape}; a drawing-vocabulary vector is a plain list of two "
                    "numbers [x, y].")
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
            raise Wrong(f"Your arrow points at about {mine:.0f}°, away from every word: it points nearly the "
                        f"opposite way to truck. Keep truck's direction (section 'Similar meaning, similar direction').")
        raise Wrong(f"Your arrow points at about {mine:.0f}°, nearest to {nearest!r}, not truck. Its direction "
                    "must stay closest to truck's.")
    length = math.hypot(x, y)
    if length < 2 * _TRUCK_LENGTH - 1e-9:
        raise Wrong(f"The direction is right, but your arrow is {length:.3g} long and it must be at least twice "
                    "as long as truck's (section 'How long is an arrow?').")
