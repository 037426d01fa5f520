"""The exercise checker accepts right answers, rejects wrong ones with a hint, and never raises."""
import math

import numpy as np
import pytest

import attnlib
from attnlib import check, exercise_ids
from attnlib.exercises import get

IDS = exercise_ids()


def _raises(*args):
    raise RuntimeError("boom")


JUNK = [None, "a string", float("nan"), _raises, [], {"a": 1}, object(), np.array([np.nan, np.inf]),
        [[1, 2], [3]], 1e308, -1, True]


def test_every_chapter_registers_exercises():
    chapters = {i.split(".")[0] for i in IDS}
    assert "ch01" in chapters
    assert all(i.count(".") == 1 and i.startswith("ch") for i in IDS)


@pytest.mark.parametrize("exercise_id", IDS)
def test_right_answers_pass(exercise_id, capsys):
    ex = get(exercise_id)
    assert ex.right, f"{exercise_id} registers no right answer"
    for answer in ex.right:
        assert check(exercise_id, answer) is True, f"{exercise_id} rejected a right answer {answer!r}"
        assert capsys.readouterr().out.startswith("✓")


@pytest.mark.parametrize("exercise_id", IDS)
def test_typical_wrong_answers_fail_with_a_hint(exercise_id, capsys):
    ex = get(exercise_id)
    assert len(ex.wrong) >= 2, f"{exercise_id} needs at least two typical wrong answers"
    for answer in ex.wrong:
        assert check(exercise_id, answer) is False, f"{exercise_id} accepted a wrong answer {answer!r}"
        out = capsys.readouterr().out
        assert out.startswith("✗"), out
        assert len(out.strip()) > 25, f"hint too short to help: {out!r}"
        assert "Traceback" not in out


@pytest.mark.parametrize("exercise_id", IDS)
def test_junk_returns_false_without_raising(exercise_id, capsys):
    for answer in JUNK:
        assert check(exercise_id, answer) is False, f"{exercise_id} accepted junk {answer!r}"
        assert capsys.readouterr().out.startswith("✗")


def test_unknown_id_is_a_hint_not_an_error(capsys):
    assert check("ch01.no_such_thing", 4) is False
    out = capsys.readouterr().out
    assert "no exercise called" in out and "ch01.d_model" in out


def test_none_placeholder_gets_a_nudge(capsys):
    assert check("ch01.d_model", None) is False
    assert "replace the placeholder" in capsys.readouterr().out


def test_a_raising_checker_is_contained(capsys, monkeypatch):
    ex = get("ch01.d_model")

    def broken(answer):
        raise ZeroDivisionError("inside the checker")

    monkeypatch.setattr(ex, "checker", broken)
    assert check("ch01.d_model", 4) is False
    assert "ZeroDivisionError" in capsys.readouterr().out


def test_hints_are_specific(capsys):
    check("ch01.d_model", 14)
    assert "number of words" in capsys.readouterr().out
    check("ch01.angle", lambda v: math.atan2(v[1], v[0]))
    assert "radians" in capsys.readouterr().out


def test_exercise_ids_are_listed_in_the_package():
    assert attnlib.exercise_ids() == sorted(attnlib.exercise_ids())
    assert "ch01.angle" in attnlib.exercise_ids()


def test_an_id_that_is_not_text_is_a_hint(capsys):
    assert check(["ch01.d_model"], 4) is False
    assert "no exercise called" in capsys.readouterr().out


def test_long_hints_are_wrapped_for_narrow_screens(capsys):
    check("ch01.angle", lambda v: math.atan(v[1] / v[0]) * 180 / math.pi)
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 78
