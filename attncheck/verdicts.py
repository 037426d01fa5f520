"""`judge`: an answer to an exercise in, a `Verdict` out (right or not, the hint, a real attempt or not).

Judging prints nothing and records nothing, and it never raises: a checker says an answer is off
by raising `Wrong("hint")`, and anything else it raises (a learner's function that called
sys.exit, recursed without end, raised an exception whose str() fails) is turned into a hint
about the answer by the checker's one guard, `hints.contained`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .answers import size_at_least, to_numpy
from .calling import NO_ANSWER_YET, inputs_may_change
from .hints import Wrong, contained, describe, is_array, polish, quietly, safe_str, shape_words, show
from .record.attempts import is_attempt
from .record.ids import current_id, retired_note
from .registry import FAILED, Exercise, exercises, find

SIZE_SLACK = 1000  # numbers beyond ten times the largest right answer an answer may hold before it is refused unread
RIGHT = "✓ Correct. Well done!"
NO_ANSWER = "✗ No answer yet: replace the placeholder (None or ...) with your answer and run the cell."
NOT_YET = "✗ Not yet. "
UNREADABLE = (
    "✗ Not yet. The checker could not read your answer. Check the type and shape of what you gave against the exercise."
)


class Verdict:
    """What `check` returns: true for a right answer; shows nothing as a cell's result in Jupyter."""

    __slots__ = ("attempt", "exercise_id", "message", "ok")

    def __init__(self, ok: bool, message: str = "", exercise_id: str | None = None, attempt: bool = False) -> None:
        self.ok = bool(ok)
        self.message = message  # the verdict as printed, before wrapping
        self.exercise_id = exercise_id  # the exercise's id as registered; None when there is no such exercise
        self.attempt = attempt  # the learner's own answer (not a placeholder, not a solution cell)

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: object) -> Any:
        if isinstance(other, Verdict):
            return self.ok == other.ok
        if isinstance(other, (bool, int, np.bool_)):
            return self.ok == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.ok)

    def __repr__(self) -> str:
        return repr(self.ok)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's pretty printer: the verdict was printed already, so show nothing."""

    def _ipython_display_(self) -> None:
        """Jupyter's display hook: nothing, so a `check(...)` cell shows its verdict once."""


def judge(exercise: Exercise | str, answer: Any) -> Verdict:
    """The verdict on `answer` to an exercise (registered, or its id); never raises (but KeyboardInterrupt)."""
    return contained(lambda: _judge(exercise, answer), lambda exc: Verdict(False, UNREADABLE))


def _judge(exercise: Any, answer: Any) -> Verdict:
    ex = exercise if isinstance(exercise, Exercise) else find(exercise)
    if ex is None:
        return Verdict(False, _no_such_exercise(exercise))
    if answer is None or answer is ...:
        return Verdict(False, NO_ANSWER, ex.id)
    hint = contained(lambda: _hint(ex, answer), lambda exc: _unreadable(ex, answer))
    message = RIGHT if hint is None else _not_yet(polish(hint, answer))
    return Verdict(hint is None, message, ex.id, contained(lambda: is_attempt(answer), lambda exc: False))


def _hint(ex: Exercise, answer: Any) -> str | None:
    """The checker's hint on the answer, None when it is right."""
    try:
        with quietly(), inputs_may_change(ex.in_place):
            _refuse_oversized(ex, answer)
            ex.checker(answer)
    except Wrong as hint:
        return safe_str(hint)
    return None


def _not_yet(hint: str) -> str:
    """The verdict on a wrong answer; an untouched stub hears one verdict, "No answer yet", not two."""
    return "✗ " + hint if hint == NO_ANSWER_YET else NOT_YET + hint


def _no_such_exercise(exercise_id: Any) -> str:
    note = retired_note(exercise_id) if isinstance(exercise_id, str) else None
    if note is not None:  # an id of an earlier edition whose question is gone: which id asks in its place
        return f"✗ {note}"
    prefix = current_id(safe_str(exercise_id)).partition(".")[0] + "."
    close = [ex.id for ex in exercises() if ex.id.startswith(prefix)]
    broken = [f"{name} failed to import ({why})" for name, why in FAILED.items() if name.endswith("." + prefix[:-1])]
    if broken:
        return f"✗ The checker cannot check {show(exercise_id)}: {broken[0]}. Tell the course's maintainers."
    return (
        f"✗ There is no exercise called {show(exercise_id)}. Check the spelling"
        f"{'; this chapter has: ' + ', '.join(close) if close else ''}."
    )


# --- answers far too big: refused before they are read ------------------------------


def _refuse_oversized(ex: Exercise, answer: Any) -> None:
    """Raise Wrong when the answer holds far more numbers (or text) than any right answer, without reading it all."""
    size = size_at_least(answer)
    largest = _largest_right(ex)
    if size is None or largest is None or size <= 10 * largest + SIZE_SLACK:
        return
    kind = "characters of text" if isinstance(answer, str) else "numbers"
    wanted = _wanted(ex)
    raise Wrong(
        f"Your answer holds {size:,} {kind} or more, far more than this exercise asks for"
        f"{': it wants ' + wanted if wanted else ''}."
    )


def _largest_right(ex: Exercise) -> int | None:
    """The most numbers (or characters) any registered right answer holds; None for function exercises."""
    sizes = []
    for right in ex.right:
        if callable(right) and not is_array(right):
            return None
        if isinstance(right, (str, dict, set, frozenset)):
            sizes.append(len(right) if isinstance(right, str) else 0)
            continue
        size = size_at_least(right)
        if size is not None:
            sizes.append(size)
    return max(sizes) if sizes else None


# --- hints for answers a checker could not read ---------------------------------------


def _unreadable(ex: Exercise, answer: Any) -> str:
    """The hint for an answer the checker could not handle: what the answer is, what is wanted."""
    wanted = _wanted(ex)
    if callable(answer) and not is_array(answer):
        return (
            "The checker could not use what your function returns. Check the type and shape "
            f"of its result against the exercise{': it wants ' + wanted if wanted else ''}."
        )
    return (
        f"The checker could not read your answer, which is {describe(answer)}. "
        f"{'This exercise wants ' + wanted + '. ' if wanted else ''}"
        "Check the type and shape of what you gave."
    )


def _wanted(ex: Exercise) -> str:
    """What the registered right answers look like, in words (never their values)."""
    if not ex.right:
        return ""
    first = ex.right[0]
    if callable(first) and not is_array(first):
        return ""
    if isinstance(first, str):
        return "a word in quotes"
    try:
        shape = to_numpy(first).shape
    except Exception:
        return ""
    return shape_words(shape)
