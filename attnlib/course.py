"""The course's chapters in book order, read from `_toc.yml`: the one home of chapter numbers.

A chapter is named by its subject, the file name without its number (`"softmax"` for
`chapters/09_softmax.ipynb`), so a hint or a docstring that points to it stays right when a
chapter is inserted or moved: `chapter_ref("softmax")` is "chapter 9" as long as the softmax
chapter is the ninth numbered chapter of `_toc.yml`.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

TOC = Path(__file__).resolve().parent.parent / "_toc.yml"
_CHAPTER_FILE = re.compile(r"^\s*-\s*file:\s*chapters/(\d\d)_(\w+)\s*$", re.MULTILINE)


@cache
def chapters() -> tuple[tuple[int, str, str], ...]:
    """Every numbered chapter as (number, subject, file stem), in book order: (9, "softmax", "09_softmax")."""
    found = _CHAPTER_FILE.findall(TOC.read_text(encoding="utf-8"))
    return tuple((number, subject, f"{prefix}_{subject}") for number, (prefix, subject) in enumerate(found, 1))


def number(subject: str) -> int:
    """The chapter number of a subject, as the book shows it: number("softmax") == 9."""
    for chapter_number, chapter_subject, _ in chapters():
        if chapter_subject == subject:
            return chapter_number
    known = ", ".join(s for _, s, _ in chapters())
    raise ValueError(f"no chapter on {subject!r} in _toc.yml (the chapters are: {known})")


def chapter_ref(subject: str, capital: bool = False) -> str:
    """How a sentence names the chapter: chapter_ref("softmax") == "chapter 9"."""
    return f"{'Chapter' if capital else 'chapter'} {number(subject)}"
