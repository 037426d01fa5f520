"""The exercise checker: `check(exercise_id, answer)` prints ✓ or a kind hint, and never raises.

Each chapter registers its exercises in its own module (`ch01.py`, `ch02.py`, …) with the
`exercise` decorator. A registration carries one or more right answers and at least two typical
wrong ones, so the tests can prove that every checker accepts the right and rejects the wrong.
A checker is a function that takes the learner's answer and raises `Wrong("hint")` when it is off.
"""
from __future__ import annotations

import importlib
import math
import pkgutil
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..core import is_torch


class Wrong(Exception):
    """Raised by a checker with a hint for the learner."""


@dataclass
class Exercise:
    """One registered exercise: its checker and examples of right and wrong answers."""
    id: str
    checker: Callable[[Any], None]
    right: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    catches: str = ""     # which plausible wrong answers the hidden cases are built to catch
    solution: str = ""    # the solution cell's key code; no hint may contain it


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
        for module in pkgutil.iter_modules(__path__):
            if module.name.startswith("ch"):
                importlib.import_module(f"{__name__}.{module.name}")
        _loaded = True


def exercise_ids() -> list[str]:
    """Every registered exercise id, e.g. 'ch09.stable_softmax', in order."""
    _load_all()
    return sorted(_REGISTRY)


def get(exercise_id: str) -> Exercise:
    """The registered exercise with this id (KeyError if there is none)."""
    _load_all()
    return _REGISTRY[exercise_id]


def check(exercise_id: str, answer: Any) -> bool:
    """Check a learner's answer: print ✓ or a hint, return True or False, never raise."""
    _load_all()
    if not isinstance(exercise_id, str) or exercise_id not in _REGISTRY:
        close = [i for i in _REGISTRY if i.split(".")[0] == str(exercise_id).split(".")[0]]
        _say(f"✗ There is no exercise called {exercise_id!r}. "
             f"Check the spelling{'; this chapter has: ' + ', '.join(close) if close else ''}.")
        return False
    if answer is None or answer is ...:
        _say("✗ No answer yet: replace the placeholder (None or ...) with your answer and run the cell.")
        return False
    try:
        _REGISTRY[exercise_id].checker(answer)
    except Wrong as hint:
        text = str(hint)
        if text.startswith("your "):  # hints often begin with `what`, e.g. "your answer ..."
            text = "Y" + text[1:]
        _say(f"✗ Not yet. {text}")
        return False
    except Exception as exc:  # a broken answer must never kill the notebook
        _say(f"✗ Checking your answer raised {type(exc).__name__}: {_short(exc)}. "
             "Look at the types and shapes of what you gave.")
        return False
    _say("✓ Correct. Well done!")
    return True


def _say(message: str) -> None:
    """Print a message wrapped at 78 characters, so a hint reads on a narrow screen."""
    print(textwrap.fill(message, width=78, subsequent_indent="  ", break_on_hyphens=False))


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else "(no message)"


# --- helpers for writing checkers ---------------------------------------------

def to_numpy(answer: Any, what: str = "your answer") -> np.ndarray:
    """Turn a list, numpy array or torch tensor of numbers into a float numpy array, or raise Wrong."""
    if callable(answer):
        raise Wrong(f"{what} is a function; call it and check what it returns instead.")
    if isinstance(answer, (str, bytes)):
        raise Wrong(f"{what} is text ({answer!r}); write numbers without quotes.")
    if is_torch(answer):
        answer = answer.detach().cpu().numpy()
    try:
        arr = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise Wrong(f"{what} should be numbers (a list or an array), "
                    f"but it is a {type(answer).__name__}.") from None
    return arr


def expect_array(answer: Any, expected: Any, what: str = "your answer",
                 atol: float = 1e-6, rtol: float = 1e-5) -> None:
    """Raise Wrong with a shape or value hint unless `answer` equals `expected`."""
    expected = np.asarray(expected, dtype=float)
    got = to_numpy(answer, what)
    if got.shape != expected.shape:
        if got.size == expected.size and got.size > 1:
            raise Wrong(f"{what} has shape {got.shape}, but it should have shape {expected.shape}. "
                        "The right count of numbers, arranged differently: are rows and columns swapped?")
        raise Wrong(f"{what} has shape {got.shape}, but it should have shape {expected.shape}.")
    if not np.all(np.isfinite(got)):
        raise Wrong(f"{what} contains inf or nan; something overflowed or divided by zero.")
    if not np.allclose(got, expected, atol=atol, rtol=rtol):
        bad = np.argwhere(~np.isclose(got, expected, atol=atol, rtol=rtol))
        first = tuple(int(i) for i in bad[0]) if got.ndim else ()
        where = f" at position {first}" if got.ndim else ""
        raise Wrong(f"The shape is right, but {len(bad)} value(s) differ; the first{where} is "
                    f"{_fmt(got[first] if got.ndim else got)}. Recompute that entry carefully.")


def expect_number(answer: Any, expected: float, what: str = "your answer",
                  atol: float = 1e-6, rtol: float = 1e-4, hint: str = "") -> None:
    """Raise Wrong unless `answer` is one number close to `expected`."""
    if isinstance(answer, bool):
        raise Wrong(f"{what} is True/False, but a number is wanted.")
    got = to_numpy(answer, what)
    if got.size != 1:
        raise Wrong(f"{what} should be a single number, but it has shape {got.shape}.")
    value = float(got.reshape(()))
    if not math.isfinite(value):
        raise Wrong(f"{what} is {value}; a finite number is wanted.")
    if not math.isclose(value, expected, abs_tol=atol, rel_tol=rtol):
        raise Wrong(f"{what} is {_fmt(value)}, which is not right yet. {hint}".strip())


def expect_shape(answer: Any, expected: tuple[int, ...], what: str = "your answer") -> None:
    """Raise Wrong unless `answer` is a tuple (or list) of whole numbers equal to `expected`."""
    if type(answer).__name__ == "Size":  # torch.Size is a tuple already
        answer = tuple(answer)
    if not isinstance(answer, (tuple, list)) or not all(isinstance(d, (int, np.integer)) and not
                                                        isinstance(d, bool) for d in answer):
        raise Wrong(f"{what} should be a shape: a tuple of whole numbers such as (3, 4), "
                    f"but it is {answer!r}.")
    got = tuple(int(d) for d in answer)
    if len(got) != len(expected):
        raise Wrong(f"{what} {got} has {len(got)} number(s), but this shape has {len(expected)}.")
    if got != tuple(expected):
        if got == tuple(reversed(expected)):
            raise Wrong(f"{what} {got} is the right numbers in the wrong order: rows come first, then columns.")
        raise Wrong(f"{what} {got} is not right yet: count the rows, then the columns.")


def call(fn: Any, *args: Any, what: str = "your function") -> Any:
    """Call the learner's function; turn anything it raises, or a missing return, into a Wrong hint."""
    if not callable(fn):
        raise Wrong(f"{what} should be a function (def ...), but it is a {type(fn).__name__}.")
    try:
        result = fn(*args)
    except Wrong:
        raise
    except Exception as exc:
        shapes = ", ".join(str(np.shape(a)) for a in args)
        raise Wrong(f"{what} raised {type(exc).__name__}: {_short(exc)} "
                    f"(when called with inputs of shape {shapes}).") from None
    if result is None:
        raise Wrong(f"{what} returned None: is a `return` missing?")
    return result


def expect_value_error(fn: Any, *args: Any, what: str = "your function") -> None:
    """Raise Wrong unless calling fn(*args) raises ValueError (a shape mismatch, say)."""
    shapes = " and ".join(str(np.shape(a)) for a in args)
    try:
        fn(*args)
    except ValueError:
        return
    except Exception as exc:
        raise Wrong(f"for shapes {shapes} {what} raised {type(exc).__name__}; "
                    "raise ValueError for a shape mismatch, naming both shapes.") from None
    raise Wrong(f"for shapes {shapes} {what} returned a result, but those shapes cannot be "
                "combined: raise ValueError naming both shapes.")


def _fmt(x: Any) -> str:
    try:
        return f"{float(x):.4g}"
    except (TypeError, ValueError):
        return repr(x)


def expect_word(answer: Any, expected: str, options: Sequence[str], what: str = "your answer") -> None:
    """Raise Wrong unless `answer` is the text `expected` (case and spaces ignored)."""
    if not isinstance(answer, str):
        raise Wrong(f"{what} should be a word in quotes, such as \"{options[0]}\", "
                    f"but it is a {type(answer).__name__}.")
    word = answer.strip().strip("\"'“”").lower()
    if word not in [o.lower() for o in options]:
        raise Wrong(f"{word!r} is not one of the choices: {', '.join(options)}.")
    if word != expected.lower():
        raise Wrong(f"{word!r} is a fair guess, but not the closest. Compare the numbers again.")
