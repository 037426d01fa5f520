"""The course's chapters in book order: the one home of chapter numbers.

A chapter is named by its subject, the file name without its number (`"softmax"` for
`chapters/09_softmax.ipynb`), so a hint or a docstring that points to it stays right when a
chapter is inserted or moved: `chapter_ref("softmax")` is "chapter 9" as long as the softmax
chapter is the ninth numbered chapter of `_toc.yml`. The table is data in the package,
`course_data.CHAPTERS`, generated from `_toc.yml` by `make course-data`; the package never reads
the book's files.
"""

from __future__ import annotations

from .course_data import CHAPTERS


def chapters() -> tuple[tuple[int, str, str], ...]:
    """Every numbered chapter as (number, subject, file stem), in book order: (9, "softmax", "09_softmax")."""
    return CHAPTERS


def number(subject: str) -> int:
    """The chapter number of a subject, as the book shows it: number("softmax") == 9."""
    for chapter_number, chapter_subject, _ in chapters():
        if chapter_subject == subject:
            return chapter_number
    known = ", ".join(s for _, s, _ in chapters())
    raise ValueError(
        f"no chapter on {subject!r} in the course (the chapters are: {known}); "
        "a chapter new in _toc.yml is known after `make course-data`"
    )


def chapter_ref(subject: str, capital: bool = False) -> str:
    """How a sentence names the chapter: chapter_ref("softmax") == "chapter 9"."""
    return f"{'Chapter' if capital else 'chapter'} {number(subject)}"
