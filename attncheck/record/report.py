"""Reading the record back: what `attncheck.progress()` shows, as text for a terminal and HTML for Jupyter.

The course's exercises come in as plain data (`Listed`: id, subject, chapter number, chapter
title, place in the chapter, in the course's order), so the report knows nothing of the checker
and reads nothing of the book.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import NamedTuple

from . import recording, store

SOLVED, TRIED, NOT_STARTED = "solved", "tried", "not started"


class Listed(NamedTuple):
    """One exercise of the course as the report needs it; `chapter` is None for a subject not in `_toc.yml`."""

    id: str
    subject: str
    chapter: int | None
    title: str  # the chapter's title
    place: int | None = None  # its number among its chapter's exercises, as the book numbers them


@dataclass(frozen=True)
class ExerciseStatus:
    """One exercise as the record has it: status is 'solved', 'tried' or 'not started'."""

    id: str
    status: str
    attempts: int = 0
    first: str | None = None  # first check, ISO 8601 UTC
    last: str | None = None  # last check


@dataclass(frozen=True)
class ChapterStatus:
    """A chapter's checked exercises, in the course's order."""

    number: int
    title: str
    exercises: list[ExerciseStatus]

    def count(self, status: str) -> int:
        return sum(e.status == status for e in self.exercises)


@dataclass
class Progress:
    """What `attncheck.progress()` returns: the record per chapter, shown as a table."""

    chapters: list[ChapterStatus]
    next: str | None  # the exercise to try next; None when every one shown is solved
    unknown: list[ExerciseStatus] = field(default_factory=list)  # ids this course lacks
    path: str | None = None  # the record file (~ for home); None when recording is off
    note: str = ""  # why the record could not be read, if it could not
    next_where: str = ""  # where the next exercise is, as the book numbers its chapter and exercise

    @property
    def exercises(self) -> dict[str, ExerciseStatus]:
        """Every exercise shown, by id."""
        return {e.id: e for c in self.chapters for e in c.exercises}

    def __repr__(self) -> str:
        return self.text()

    def text(self) -> str:
        """The table as plain text, for a terminal."""
        width = max([24] + [len(e.id) for e in [*self.exercises.values(), *self.unknown]])
        lines = [self._heading()]
        if self.note:
            lines.append(self.note)
        for c in self.chapters:
            lines += ["", f"Chapter {c.number}: {c.title} ({self._counts(c)})"]
            if not self._folded(c):
                lines += [f"  {_mark(e)} {e.id:<{width}} {_state(e)}" for e in c.exercises]
        if self.unknown:
            lines += ["", "Not in this version of the course (kept in the record):"]
            lines += [f"  {_mark(e)} {e.id:<{width}} {_state(e)}" for e in self.unknown]
        lines += ["", self._next_line()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The table as compact HTML, for Jupyter."""
        rows = []
        for c in self.chapters:
            head = f"{c.number}. {escape(c.title)}"
            rows.append(
                f'<tr><th colspan="3" scope="colgroup"{_LEFT}>{head} <small>({self._counts(c)})</small></th></tr>'
            )
            if not self._folded(c):
                rows += [_html_row(e) for e in c.exercises]
        if self.unknown:
            rows.append(f'<tr><th colspan="3" scope="colgroup"{_LEFT}>Not in this version of the course</th></tr>')
            rows += [_html_row(e) for e in self.unknown]
        note = f"<p>{escape(self.note)}</p>" if self.note else ""
        return (
            f"<div><p><strong>{escape(self._heading())}</strong></p>{note}"
            f'<table style="font-size:0.9em"><thead><tr><th scope="col"{_LEFT}>Exercise</th>'
            f'<th scope="col"{_LEFT}>Status</th><th scope="col"{_LEFT}>Last checked</th>'
            "</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
            f"<p>{escape(self._next_line())}</p></div>"
        )

    def _folded(self, c: ChapterStatus) -> bool:
        """In the whole course's view, a chapter not started shows as one line."""
        return len(self.chapters) > 1 and c.count(NOT_STARTED) == len(c.exercises)

    def _counts(self, c: ChapterStatus) -> str:
        if self._folded(c):
            return f"not started, {len(c.exercises)} exercises"
        return f"{c.count(SOLVED)} solved, {c.count(TRIED)} tried, {c.count(NOT_STARTED)} not started"

    def _heading(self) -> str:
        shown = [e for c in self.chapters for e in c.exercises]
        solved = sum(e.status == SOLVED for e in shown)
        where = f"record: {self.path}" if self.path else "recording is off"
        return f"Your exercises: {solved} of {len(shown)} solved ({where})"

    def _next_line(self) -> str:
        if self.next:
            where = f"{self.next_where} ({self.next})" if self.next_where else self.next
            return f"Next to try: {where}"
        return "Every exercise here is solved." if self.chapters else "No exercises here."


def _mark(e: ExerciseStatus) -> str:
    return {SOLVED: "✓", TRIED: "✗"}.get(e.status, "·")


def _state(e: ExerciseStatus) -> str:
    if e.status == NOT_STARTED:
        return NOT_STARTED
    tries = f"{e.attempts} attempt{'s' if e.attempts != 1 else ''}"
    return f"{e.status}, {tries}, last {(e.last or '?')[:10]}"


# JupyterLab right-aligns table cells; these read better from the left, and on one line
_LEFT = ' style="text-align:left"'
_NOWRAP = ' style="text-align:left; white-space:nowrap"'


def _html_row(e: ExerciseStatus) -> str:
    tries = f" ({e.attempts} attempt{'s' if e.attempts != 1 else ''})" if e.attempts else ""
    return (
        f"<tr><td{_LEFT}><code>{escape(e.id)}</code></td>"
        f"<td{_NOWRAP}>{_mark(e)} {e.status}{tries}</td>"
        f"<td{_NOWRAP}>{escape((e.last or '')[:10])}</td></tr>"
    )


def progress(listing: list[Listed], chapter: int | str | None = None, reset: bool = False) -> Progress | None:
    """The record of the course's exercises (`listing`, in the course's order); see `attncheck.progress`."""
    numbers = sorted({x.chapter for x in listing if x.chapter is not None})
    number_of = {x.subject: x.chapter for x in listing} | {x.id.partition(".")[0]: x.chapter for x in listing}
    if isinstance(chapter, str) and number_of.get(chapter) is not None:
        chapter = number_of[chapter]  # a chapter named by its subject
    if chapter is not None and (isinstance(chapter, bool) or not isinstance(chapter, int) or chapter not in numbers):
        raise ValueError(
            f"chapter={chapter!r} has no checked exercises; give a chapter number from {numbers[0]} to {numbers[-1]}."
        )

    def in_chapter(exercise_id: str) -> bool:
        return chapter is None or number_of.get(exercise_id.split(".")[0]) == chapter

    path = store.record_path()
    if reset:
        recording.clear(path, in_chapter, "" if chapter is None else f" of chapter {chapter}")
        return None
    entries, note = {}, ""
    if path is None:
        note = f"Recording is off ({store.ENV}=off): nothing is recorded."
    else:
        try:
            entries = store.read(path)["exercises"]
        except store.RecordError as exc:
            note = f"{exc.why}. To record your answers again, {exc.fix}."
    return _summarise([x for x in listing if in_chapter(x.id)], entries, in_chapter, path, note)


def _status(exercise_id: str, entries: dict) -> ExerciseStatus:
    entry = entries.get(exercise_id)
    if entry is None:
        return ExerciseStatus(exercise_id, NOT_STARTED)
    status = SOLVED if entry["solved"] else TRIED if entry["attempts"] else NOT_STARTED
    return ExerciseStatus(exercise_id, status, entry["attempts"], entry["first"], entry["last"])


def _summarise(wanted: list[Listed], entries: dict, in_chapter, path: Path | None, note: str) -> Progress:
    chapters: dict[int, ChapterStatus] = {}
    for x in wanted:
        number = x.chapter or 0
        chapters.setdefault(number, ChapterStatus(number, x.title, []))
        chapters[number].exercises.append(_status(x.id, entries))
    ids = [x.id for x in wanted]
    known = {x.id for x in wanted}
    unknown = [_status(i, entries) for i in sorted(entries) if i not in known and in_chapter(i)]
    after = _next(ids, entries)
    shown = store.shown(path) if path else None
    where = next((_where(x) for x in wanted if x.id == after), "")
    return Progress(list(chapters.values()), after, unknown, shown, note, where)


def _where(x: Listed) -> str:
    """Where a learner finds an exercise, as the book numbers its chapter and exercise (the chapter alone
    when the exercise's place is not known)."""
    if x.chapter is None:
        return ""
    return f"chapter {x.chapter}, exercise {x.place}" if x.place else f"chapter {x.chapter}"


def _next(ids: list[str], entries: dict) -> str | None:
    """Where to pick up: the last exercise checked if it is unsolved, else the next unsolved.

    "Next" goes on in the course's order from the last exercise checked and wraps round to
    the start, so an exercise skipped earlier is offered once the later ones are solved.
    """
    unsolved = [i for i in ids if not entries.get(i, {}).get("solved")]
    if not unsolved:
        return None
    order = {i: n for n, i in enumerate(entries)}  # the latest check is listed last
    checked = [i for i in ids if i in entries]
    if not checked:
        return unsolved[0]
    start = ids.index(max(checked, key=lambda i: (entries[i]["last"] or "", order[i])))
    return next(i for i in ids[start:] + ids[:start] if i in unsolved)
