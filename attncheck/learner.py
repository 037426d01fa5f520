"""The learner's three calls: `check`, `exercise_ids` and `progress`.

`check` is `judge`, then print, then record: the verdict is printed wrapped at 78 columns, and
the learner's own attempts go to the record (`attncheck.record`), which gets plain data
(the id and whether it was right) and nothing of the checker.
"""

from __future__ import annotations

import textwrap
from typing import Any

from .exercise_places import PLACES
from .hints import contained
from .record import record
from .record.report import Listed, Progress
from .record.report import progress as _report
from .registry import chapter_number, exercise_ids, exercises
from .verdicts import Verdict, judge

__all__ = ["check", "exercise_ids", "progress"]


def check(exercise_id: str, answer: Any) -> Verdict:
    """Check a learner's answer: print ✓ or a hint and return a Verdict (true when right); never raise."""
    verdict = judge(exercise_id, answer)
    contained(lambda: _tell(verdict), lambda exc: None)  # a failure to print or record never reaches the learner
    return verdict


def _tell(verdict: Verdict) -> None:
    print(textwrap.fill(verdict.message, width=78, subsequent_indent="  ", break_on_hyphens=False))
    if verdict.attempt:
        record(verdict.exercise_id, verdict.ok)


def progress(chapter: int | str | None = None, reset: bool = False) -> Progress | None:
    """Your record of the checked exercises, per chapter, and the next one to try.

    `progress()` shows every chapter; `progress(chapter=9)` one chapter (or `chapter="softmax"`,
    by its subject). In Jupyter it shows as a table, in a terminal as text, and in code it is data
    (see `Progress`). `progress(reset=True)` clears the record (with `chapter`, that chapter's
    entries only), prints how many entries it removed and returns None.
    """
    listing = [
        Listed(ex.id, ex.subject, chapter_number(ex.subject), ex.title, PLACES.get(ex.subject, {}).get(ex.id))
        for ex in exercises()
    ]
    return _report(listing, chapter, reset)
