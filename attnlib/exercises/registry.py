"""The registry and `check`: each exercise registered once, every answer judged, nothing raised.

A chapter's module (`ch01.py`, `ch02.py`, …) registers its exercises with the `exercise`
decorator: the checker, right answers in several forms, plausible wrong answers, one line on what
the hidden cases catch, and the solution's key line. `check` runs the checker; a checker says an
answer is off by raising `Wrong("hint")`.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import textwrap
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .answers import size_at_least, to_numpy
from .hints import Wrong, describe, is_array, polish, safe_str, shape_words, show

_PACKAGE = __name__.rpartition(".")[0]
_CHAPTER_MODULE = re.compile(r"ch\d\d$|trained_model$")  # trained_model: the chapter inside a trained model
_SIZE_SLACK = 1000  # numbers beyond ten times the largest right answer an answer may hold before it is refused unread


class Verdict:
    """What `check` returns: true for a right answer; shows nothing as a cell's result in Jupyter."""

    __slots__ = ("message", "ok")

    def __init__(self, ok: bool, message: str = "") -> None:
        self.ok = bool(ok)
        self.message = message  # the verdict as printed, before wrapping

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


@dataclass
class Exercise:
    """One registered exercise: its checker and examples of right and wrong answers."""

    id: str
    checker: Callable[[Any], None]
    right: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    catches: str = ""  # which plausible wrong answers the hidden cases are built to catch
    solution: str = ""  # the solution cell's key code; no hint may contain it


_REGISTRY: dict[str, Exercise] = {}
_loaded = False


def exercise(exercise_id: str, right: list, wrong: list, catches: str = "", solution: str = "") -> Callable:
    """Register a checker under `exercise_id`, with examples of right and wrong answers."""

    def register(checker: Callable[[Any], None]) -> Callable[[Any], None]:
        if exercise_id in _REGISTRY:
            raise ValueError(f"exercise id {exercise_id!r} is registered twice")
        _REGISTRY[exercise_id] = Exercise(exercise_id, checker, list(right), list(wrong), catches, solution)
        return checker

    return register


def _load_all() -> None:
    global _loaded
    if not _loaded:
        package = importlib.import_module(_PACKAGE)
        for module in pkgutil.iter_modules(package.__path__):
            if _CHAPTER_MODULE.match(module.name):
                importlib.import_module(f"{_PACKAGE}.{module.name}")
        _loaded = True


def exercise_ids() -> list[str]:
    """Every registered exercise id, e.g. 'ch09.stable_softmax', in order."""
    _load_all()
    return sorted(_REGISTRY)


def get(exercise_id: str) -> Exercise:
    """The registered exercise with this id (KeyError if there is none)."""
    _load_all()
    return _REGISTRY[exercise_id]


# --- check ----------------------------------------------------------------------


def check(exercise_id: str, answer: Any) -> Verdict:
    """Check a learner's answer: print ✓ or a hint and return a Verdict (true when right); never raise."""
    try:
        ok, message = _judge(exercise_id, answer)
    except KeyboardInterrupt:
        raise
    except BaseException:  # even a failure while writing the hint must not take the notebook down
        ok, message = (
            False,
            (
                "✗ Not yet. The checker could not read your answer. "
                "Check the type and shape of what you gave against the exercise."
            ),
        )
    try:
        _say(message)
    except KeyboardInterrupt:
        raise
    except BaseException:
        pass
    from ..exercise_record import record  # the learner's own record of verdicts; never raises

    record(exercise_id, answer, ok)
    return Verdict(ok, message)


def _judge(exercise_id: Any, answer: Any) -> tuple[bool, str]:
    _load_all()
    if not isinstance(exercise_id, str) or exercise_id not in _REGISTRY:
        close = [i for i in _REGISTRY if i.split(".")[0] == safe_str(exercise_id).split(".")[0]]
        return False, (
            f"✗ There is no exercise called {show(exercise_id)}. Check the spelling"
            f"{'; this chapter has: ' + ', '.join(close) if close else ''}."
        )
    if answer is None or answer is ...:
        return False, "✗ No answer yet: replace the placeholder (None or ...) with your answer and run the cell."
    ex = _REGISTRY[exercise_id]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            _refuse_oversized(ex, answer)
            ex.checker(answer)
    except KeyboardInterrupt:
        raise
    except Wrong as hint:
        return False, "✗ Not yet. " + polish(safe_str(hint), answer)
    except BaseException:  # the checker itself failed on this answer: say what the answer is instead
        return False, "✗ Not yet. " + polish(_unreadable(ex, answer), answer)
    return True, "✓ Correct. Well done!"


def _say(message: str) -> None:
    """Print a message wrapped at 78 characters, so a hint reads on a narrow screen."""
    print(textwrap.fill(message, width=78, subsequent_indent="  ", break_on_hyphens=False))


# --- answers far too big: refused before they are read ------------------------------


def _refuse_oversized(ex: Exercise, answer: Any) -> None:
    """Raise Wrong when the answer holds far more numbers (or text) than any right answer, without reading it all."""
    size = size_at_least(answer)
    largest = _largest_right(ex)
    if size is None or largest is None or size <= 10 * largest + _SIZE_SLACK:
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
