"""The registry: each exercise registered once, as plain data, and found again by its id.

An id names its chapter by subject, never by number (`"softmax.by_hand"` for an exercise of
`chapters/09_softmax.ipynb`), so no id changes when a chapter is inserted or renumbered: the
chapter's number is looked up in `attnlib.course` (the table `make course-data` generates from
`_toc.yml`) when it is shown. Any module of this package may register
exercises (`softmax.py`, `trained_model.py`, named by subject as the ids are; none is found by its file name). It names its chapter
once, as data: the subject (the chapter file's name without its number, as `_toc.yml` has it) and
the title. Then it registers each exercise in the order the chapter asks them:

    CHAPTER = "softmax", "softmax and the attention matrix A"  # subject, title

    @exercise("softmax.by_hand", right=[...], wrong=[...], catches="...", solution="...")
    def _by_hand(answer): ...

An id's first part is the chapter's subject (`trained_model.find_head` for
`chapters/15_trained_model.ipynb`), and the `CHAPTER` line ties an exercise to its chapter, so a
chapter that moves keeps its ids.

Porting a grader written in the number-id days: the decorator call is unchanged, and an old id
still registers under the new one (`@exercise("ch09.by_hand", ...)` registers `softmax.by_hand`,
through `record.ids`). Add the module's `CHAPTER` line, then run
`tools/rename_exercise_ids.py`, which rewrites the old ids in place. A new chapter's grader
(`trained_model.py`, say) uses its subject ids from the start (`trained_model.name`): an old
`chNN.` id always means the chapter that had that number in November 2026.
"""

from __future__ import annotations

import importlib
import itertools
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from attnlib import course

from .record.ids import current_id

_PACKAGE = __name__.rpartition(".")[0]


@dataclass
class Exercise:
    """One registered exercise: its id, its chapter, its checker and examples of right and wrong answers."""

    id: str
    checker: Callable[[Any], None]
    right: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    catches: str = ""  # which plausible wrong answers the hidden cases are built to catch
    solution: str = ""  # the solution cell's key code; no hint may contain it
    subject: str = ""  # the chapter's subject in `_toc.yml`, from its module's CHAPTER (else the id's first part)
    title: str = ""  # the chapter's title, from its module's CHAPTER
    order: int = 0  # its place among all registrations: the order the chapter asks them in
    in_place: bool = False  # the statement lets the learner's function change its inputs (see calling.call)


_REGISTRY: dict[str, Exercise] = {}
_ORDER = itertools.count()  # the order of registration, the order a chapter asks its exercises in
_loaded = False
FAILED: dict[str, str] = {}  # a grader module that failed to import -> why, in one line; it registered nothing


def exercise(
    exercise_id: str, right: list, wrong: list, catches: str = "", solution: str = "", in_place: bool = False
) -> Callable:
    """Register a checker under `exercise_id` ("subject.name"), with examples of right and wrong answers.

    `in_place=True` when the statement lets the learner's function change its inputs (a running
    state updated in place, say); by default the statement promises to leave them as they were,
    and `call` refuses a function that changed one, on a normal return or a raise alike."""
    exercise_id = current_id(exercise_id)
    subject = exercise_id.partition(".")[0]

    def register(checker: Callable[[Any], None]) -> Callable[[Any], None]:
        if exercise_id in _REGISTRY:
            raise ValueError(f"exercise id {exercise_id!r} is registered twice")
        title = subject.replace("_", " ").capitalize()  # subject and title until its module's CHAPTER is read
        _REGISTRY[exercise_id] = Exercise(
            exercise_id, checker, list(right), list(wrong), catches, solution, subject, title, next(_ORDER), in_place
        )
        return checker

    return register


def _load_all() -> None:
    """Import every module of the package once, so each registers its exercises and names its chapter.

    A module registers all of its exercises or none: one that fails to import leaves nothing behind,
    is named in one line on stderr and in `FAILED`, and the other chapters' exercises work."""
    global _loaded
    if not _loaded:
        package = importlib.import_module(_PACKAGE)
        for found in pkgutil.iter_modules(package.__path__):
            if not found.name.startswith("_"):
                _load(f"{_PACKAGE}.{found.name}")
        _loaded = True


def _load(name: str) -> None:
    """Import one module of the package: its exercises and its CHAPTER line, or nothing if it fails."""
    before, imported = set(_REGISTRY), False
    try:
        module = importlib.import_module(name)
        imported = True
    except Exception as exc:
        FAILED[name] = f"{type(exc).__name__}: {exc}".splitlines()[0]
        print(f"attncheck: {name} failed to import ({FAILED[name]}); its exercises are not checked.", file=sys.stderr)
        return
    finally:  # whatever stopped the import (an error, the stop button), the module's registrations go with it
        for exercise_id in set(_REGISTRY) - before if not imported else ():
            del _REGISTRY[exercise_id]
    if hasattr(module, "CHAPTER"):
        _name_chapter(module.__name__, *module.CHAPTER)


def _name_chapter(module: str, subject: str, title: str) -> None:
    """Give the chapter's subject and title to every exercise its module registered."""
    for ex in _REGISTRY.values():
        if getattr(ex.checker, "__module__", None) == module:
            ex.subject, ex.title = subject, title[:1].upper() + title[1:]


def exercises() -> list[Exercise]:
    """Every registered exercise, in the course's order: chapter by chapter as the book has them."""
    _load_all()
    return sorted(_REGISTRY.values(), key=lambda ex: (chapter_number(ex.subject) or 10**6, ex.order))


def exercise_ids() -> list[str]:
    """Every registered exercise id, e.g. 'softmax.stable_softmax', in the course's order."""
    return [ex.id for ex in exercises()]


def get(exercise_id: str) -> Exercise:
    """The registered exercise with this id, or with the id it has now (KeyError if there is none)."""
    _load_all()
    return _REGISTRY[current_id(exercise_id)]


def find(exercise_id: Any) -> Exercise | None:
    """The registered exercise with this id, None for anything else (a typo, not a string)."""
    _load_all()
    return _REGISTRY.get(current_id(exercise_id)) if isinstance(exercise_id, str) else None


def chapter_number(subject: str) -> int | None:
    """The number the book gives the chapter on `subject`; None when no chapter has it."""
    return next((n for n, s, _ in course.chapters() if s == subject), None)
