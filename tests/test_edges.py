"""The checker at the edges (issue 33): hidden inputs that hold the cases each statement warns
about, inputs compared on every path, in-place promises kept, one diagnosis per slip, echoes that
tell the answer from the right value, and section titles that exist.

Every test here was watched failing before its fix (see the commit that added it).
"""

from __future__ import annotations

import math

import numpy as np

from attnlib.exercises import judge


def _fails(exercise_id, answer):
    """The hint on a wrong answer (it must be judged wrong)."""
    verdict = judge(exercise_id, answer)
    assert not verdict.ok, f"{exercise_id} accepted a wrong answer"
    return verdict.message


# --- inputs are compared on every path, a raise included ---------------------------------------


def _make_x_sorts_then_raises(vectors):
    lengths = [len(v) for v in vectors]
    if len(set(lengths)) > 1:
        vectors.sort(key=len)
        raise ValueError(f"the lengths are {lengths}")
    return np.array(vectors, dtype=float)


def _make_x_drops_odd_then_raises(vectors):
    lengths = [len(v) for v in vectors]
    if len(set(lengths)) > 1:
        vectors.pop(lengths.index(max(lengths)))
        raise ValueError(f"the lengths are {lengths}")
    return np.array(vectors, dtype=float)


def _matmul_zeroes_then_raises(M, N):
    M, N = np.asarray(M), np.asarray(N)
    if M.shape[1] != N.shape[0]:
        M[...] = 0
        raise ValueError(f"shapes {M.shape} and {N.shape} do not fit")
    return M @ N


def test_an_input_changed_before_a_raise_is_named():
    for exercise_id, fn in [
        ("the_matrix_x.make_x", _make_x_sorts_then_raises),
        ("the_matrix_x.make_x", _make_x_drops_odd_then_raises),
        ("matrix_multiplication.my_matmul", _matmul_zeroes_then_raises),
    ]:
        assert "in place" in _fails(exercise_id, fn), fn.__name__


# --- hidden inputs hold the edge each statement names -----------------------------------------


def _cos(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def _angle_clipped_at_one(a, b):
    return math.degrees(math.acos(min(1.0, _cos(a, b))))


def _angle_error_as_zero(a, b):
    try:
        return math.degrees(math.acos(_cos(a, b)))
    except ValueError:
        return 0.0


def test_opposite_arrows_whose_cosine_rounds_below_minus_one_are_tried():
    assert "-1" in _fails("vectors.angle_between", _angle_clipped_at_one)
    assert "180°" in _fails("vectors.angle_between", _angle_error_as_zero)


# --- each slip gets its own diagnosis -----------------------------------------------------------


def _angle_asin(a, b):
    return math.degrees(math.asin(max(-1.0, min(1.0, _cos(a, b)))))


def _angle_a_twice(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return math.degrees(math.acos(max(-1.0, min(1.0, dot / sum(x * x for x in a)))))


def test_angle_between_names_asin_and_one_length_twice():
    asin = _fails("vectors.angle_between", _angle_asin)
    assert "asin" in asin and "cosine of the angle" not in asin
    twice = _fails("vectors.angle_between", _angle_a_twice)
    assert "twice" in twice and "first two" not in twice
