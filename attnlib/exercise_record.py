"""The learner's own record of the checked exercises, and `attnlib.progress()` to read it.

Every verdict of `check` is kept in a small JSON file on the learner's machine (nothing
leaves it): per exercise id, how many attempts, whether it was ever solved, and the first
and last time (ISO 8601, UTC). The file lives in the user's data folder:

- Linux and others: `$XDG_DATA_HOME/attnlib/progress.json` (`~/.local/share/attnlib/...`)
- macOS: `~/Library/Application Support/attnlib/progress.json`
- Windows: `%APPDATA%\\attnlib\\progress.json`

`ATTNLIB_PROGRESS=/some/file.json` names another file; `ATTNLIB_PROGRESS=off` turns the
record off (the tests, nbval and `make execute` run so, so stored outputs never depend on
anyone's history).

What counts as an attempt: a check of a registered exercise with an answer. A placeholder
left as it is (None, `...`, a function stub that computes nothing) and a check run from a
solution cell (its first line is "# Solution") are not the learner's attempts, so "Run All"
on a fresh notebook records nothing.

A record is never a reason for `check` to fail or wait: each write takes a lock file with a
short timeout, merges into what is on disk and replaces the file atomically (a temporary
file in the same folder, then `os.replace`), so two notebooks checking at once lose no
verdict. A record that cannot be read or written (corrupt, read-only, from a newer attnlib)
is left as it is: recording stops for the session, and one notice says why.
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

ENV = "ATTNLIB_PROGRESS"
FORMAT = 1  # the file's layout; a newer number is left alone
LOCK_TIMEOUT_S = 0.5  # longest a check waits for another notebook's write

_SOLVED, _TRIED, _NOT_STARTED = "solved", "tried", "not started"
_CHAPTER_ID = re.compile(r"^ch(\d+)\.")
_TITLE = re.compile(r"^Checkers for chapter \d+:\s*(.+?)\.?\s*$")

_off: dict[Path, str] = {}  # record file -> why recording stopped for this session
_noticed = False  # the one notice of a session has been printed


_RESET = "start a new record with attnlib.progress(reset=True)"
_ELSEWHERE = f"make the file writable or set {ENV} to another file"


class RecordError(Exception):
    """The record cannot be used: why, and what the learner can do about it."""

    def __init__(self, why: str, fix: str = _RESET) -> None:
        super().__init__(why)
        self.why, self.fix = why, fix

    def __str__(self) -> str:
        return f"{self.why} ({self.fix})"


class _Busy(Exception):
    """Another process held the record's lock for longer than LOCK_TIMEOUT_S."""


# --- where the record lives --------------------------------------------------------


def record_path() -> Path | None:
    """The record file: $ATTNLIB_PROGRESS, or the user's data folder; None when it is off."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen.lower() == "off":
        return None
    if chosen:
        return Path(chosen).expanduser()
    return _data_folder() / "attnlib" / "progress.json"


def _data_folder() -> Path:
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    if sys.platform == "darwin":
        return home / "Library" / "Application Support"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    return Path(xdg) if os.path.isabs(xdg) else home / ".local" / "share"


# --- reading and writing the file --------------------------------------------------


def _empty() -> dict:
    return {"format": FORMAT, "exercises": {}}


def _valid_entry(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and type(entry.get("attempts")) is int
        and entry["attempts"] >= 0
        and isinstance(entry.get("solved"), bool)
        and all(isinstance(entry.get(k), (str, type(None))) for k in ("first", "last"))
    )


def _read(path: Path) -> dict:
    """The record in `path`: a missing or empty file is an empty record; junk raises RecordError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _empty()
    except OSError as exc:
        raise RecordError(f"{_shown(path)} cannot be read: {_reason(exc)}", _ELSEWHERE) from None
    except UnicodeDecodeError:
        raise RecordError(f"{_shown(path)} cannot be read: it is not UTF-8 text") from None
    if not text.strip():
        return _empty()
    try:
        data = json.loads(text)
    except ValueError:
        raise RecordError(f"{_shown(path)} is not a record: not valid JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("exercises"), dict):
        raise RecordError(f"{_shown(path)} is not a record: no exercises in it")
    if type(data.get("format")) is not int or data["format"] > FORMAT:
        raise RecordError(f"{_shown(path)} was written by a newer attnlib", "update attnlib")
    if not all(_valid_entry(e) for e in data["exercises"].values()):
        raise RecordError(f"{_shown(path)} is damaged: an entry is not readable")
    return data


def _write(path: Path, data: dict) -> None:
    """Replace `path` with `data` in one step: a temporary file beside it, then os.replace."""
    import tempfile  # only when a record is written, so `import attnlib` stays light

    if path.exists() and not path.stat().st_mode & 0o200:
        raise RecordError(f"{_shown(path)} is read-only", _ELSEWHERE)
    fd, temporary = tempfile.mkstemp(prefix=".progress-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1, ensure_ascii=False)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


@contextmanager
def _locked(path: Path):
    """Hold `path`.lock for the block: retry for LOCK_TIMEOUT_S, then raise _Busy."""
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                raise _Busy
            time.sleep(0.002)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


def _try_lock(fd: int) -> bool:
    """Take the lock without waiting: True if taken (or if the file system has no locks)."""
    try:
        if sys.platform == "win32":
            import msvcrt

            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False  # another process holds it
    except OSError as exc:
        if sys.platform == "win32" and exc.errno == 36:  # msvcrt's "deadlock": busy
            return False
        return True  # a file system without locks: the atomic replace still holds
    return True


def _unlock(fd: int) -> None:
    try:
        if sys.platform == "win32":
            import msvcrt

            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_UN)
    except OSError:
        pass  # closing the file releases the lock too


def _shown(path: Path) -> str:
    """A path as the learner's notice shows it: the home folder as ~."""
    try:
        return "~" + os.sep + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _reason(exc: OSError) -> str:
    return (exc.strerror or type(exc).__name__).lower()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())  # ISO 8601, UTC


# --- recording a verdict -----------------------------------------------------------


def record(exercise_id: str, answer: Any, ok: bool) -> None:
    """Add one verdict of `check` to the record; never raises (except KeyboardInterrupt)."""
    try:
        path = record_path()
        if path is None or path in _off or not _is_attempt(exercise_id, answer):
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with _locked(path):
                data = _read(path)
                _add(data["exercises"], exercise_id, bool(ok), _now())
                _write(path, data)
        except _Busy:
            _notice("Another notebook was writing your exercise record, so this answer was not recorded.")
        except RecordError as exc:
            _stop(path, exc)
        except OSError as exc:
            why = f"{_shown(path)} cannot be written: {_reason(exc)}"
            _stop(path, RecordError(why, _ELSEWHERE))
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001, S110 - a record must never take `check` down
        pass


def _add(exercises: dict, exercise_id: str, ok: bool, now: str) -> None:
    entry = exercises.setdefault(exercise_id, {"attempts": 0, "solved": False, "first": now, "last": now})
    entry["attempts"] += 1
    entry["solved"] = entry["solved"] or ok  # solved once is solved
    entry["last"] = now
    # move it to the end: the file lists the latest check last
    exercises[exercise_id] = exercises.pop(exercise_id)


def _is_attempt(exercise_id: Any, answer: Any) -> bool:
    """A check of a real exercise, with an answer, from the learner's own cell."""
    from .exercises import exercise_ids

    if not isinstance(exercise_id, str) or exercise_id not in exercise_ids():
        return False
    if answer is None or answer is ... or _is_placeholder_function(answer):
        return False
    return not _in_solution_cell()


def _is_placeholder_function(answer: Any) -> bool:
    """A function that computes nothing: the exercise's stub, not filled in yet.

    Its body reads none of its arguments, looks up no name and holds no constant but None
    (`...`, `pass`, or `x_new = None` lines returned as they are).
    """
    code = getattr(answer, "__code__", None)
    if code is None or not callable(answer):
        return False
    import dis

    args = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    for step in dis.get_instructions(code):
        read = step.argval if isinstance(step.argval, tuple) else (step.argval,)
        if step.opname.startswith("LOAD_FAST") and args.intersection(read):
            return False
    doc = getattr(answer, "__doc__", None)
    constants = [c for c in code.co_consts if c is not None and c is not ... and c != doc]
    return not code.co_names and not constants


def _in_solution_cell() -> bool:
    """True when the running Jupyter cell's first line is "# Solution" (the book's answer)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    cells = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    cell = cells[-1] if cells else ""
    return isinstance(cell, str) and cell.lstrip().lower().startswith("# solution")


def _stop(path: Path, problem: RecordError) -> None:
    _off[path] = str(problem)
    _notice(
        f"Your exercise record is off for this session: {problem.why}. Your answers are "
        f"still checked. To record them again, {problem.fix}."
    )


def _notice(text: str) -> None:
    global _noticed
    if not _noticed:
        _noticed = True
        print(textwrap.fill(f"({text})", width=78, subsequent_indent="  "))


# --- reading the record back: attnlib.progress() -----------------------------------


@dataclass(frozen=True)
class Exercise:
    """One exercise as the record has it: status is 'solved', 'tried' or 'not started'."""

    id: str
    status: str
    attempts: int = 0
    first: str | None = None  # first check, ISO 8601 UTC
    last: str | None = None  # last check


@dataclass(frozen=True)
class Chapter:
    """A chapter's checked exercises, in the course's order."""

    number: int
    title: str
    exercises: list[Exercise]

    def count(self, status: str) -> int:
        return sum(e.status == status for e in self.exercises)


@dataclass
class Progress:
    """What `attnlib.progress()` returns: the record per chapter, shown as a table."""

    chapters: list[Chapter]
    next: str | None  # the exercise to try next; None when every one shown is solved
    unknown: list[Exercise] = field(default_factory=list)  # ids this course lacks
    path: str | None = None  # the record file (~ for home); None when recording is off
    note: str = ""  # why the record could not be read, if it could not

    @property
    def exercises(self) -> dict[str, Exercise]:
        """Every exercise shown, by id."""
        return {e.id: e for c in self.chapters for e in c.exercises}

    def __repr__(self) -> str:
        return self.text()

    def text(self) -> str:
        """The table as plain text, for a terminal."""
        lines = [self._heading()]
        if self.note:
            lines.append(self.note)
        for c in self.chapters:
            lines += ["", f"Chapter {c.number}: {c.title} ({self._counts(c)})"]
            if not self._folded(c):
                lines += [f"  {_mark(e)} {e.id:<24} {_state(e)}" for e in c.exercises]
        if self.unknown:
            lines += ["", "Not in this version of the course (kept in the record):"]
            lines += [f"  {_mark(e)} {e.id:<24} {_state(e)}" for e in self.unknown]
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

    def _folded(self, c: Chapter) -> bool:
        """In the whole course's view, a chapter not started shows as one line."""
        return len(self.chapters) > 1 and c.count(_NOT_STARTED) == len(c.exercises)

    def _counts(self, c: Chapter) -> str:
        if self._folded(c):
            return f"not started, {len(c.exercises)} exercises"
        return f"{c.count(_SOLVED)} solved, {c.count(_TRIED)} tried, {c.count(_NOT_STARTED)} not started"

    def _heading(self) -> str:
        shown = [e for c in self.chapters for e in c.exercises]
        solved = sum(e.status == _SOLVED for e in shown)
        where = f"record: {self.path}" if self.path else "recording is off"
        return f"Your exercises: {solved} of {len(shown)} solved ({where})"

    def _next_line(self) -> str:
        if self.next:
            return f"Next to try: {_where(self.next)} ({self.next})"
        return "Every exercise here is solved." if self.chapters else "No exercises here."


def _mark(e: Exercise) -> str:
    return {_SOLVED: "✓", _TRIED: "✗"}.get(e.status, "·")


def _state(e: Exercise) -> str:
    if e.status == _NOT_STARTED:
        return _NOT_STARTED
    tries = f"{e.attempts} attempt{'s' if e.attempts != 1 else ''}"
    return f"{e.status}, {tries}, last {(e.last or '?')[:10]}"


# JupyterLab right-aligns table cells; these read better from the left, and on one line
_LEFT = ' style="text-align:left"'
_NOWRAP = ' style="text-align:left; white-space:nowrap"'


def _html_row(e: Exercise) -> str:
    tries = f" ({e.attempts} attempt{'s' if e.attempts != 1 else ''})" if e.attempts else ""
    return (
        f"<tr><td{_LEFT}><code>{escape(e.id)}</code></td>"
        f"<td{_NOWRAP}>{_mark(e)} {e.status}{tries}</td>"
        f"<td{_NOWRAP}>{escape((e.last or '')[:10])}</td></tr>"
    )


def progress(chapter: int | None = None, reset: bool = False) -> Progress | None:
    """Your record of the checked exercises, per chapter, and the next one to try.

    `progress()` shows every chapter; `progress(chapter=9)` one chapter. In Jupyter it shows
    as a table, in a terminal as text, and in code it is data (see `Progress`).
    `progress(reset=True)` clears the record (with `chapter`, that chapter's entries only),
    prints how many entries it removed and returns None.
    """
    from .exercises import exercise_ids

    ids = exercise_ids()
    numbers = sorted({_chapter_of(i) for i in ids} - {None})
    if chapter is not None and (isinstance(chapter, bool) or not isinstance(chapter, int) or chapter not in numbers):
        raise ValueError(
            f"chapter={chapter!r} has no checked exercises; give a chapter number from {numbers[0]} to {numbers[-1]}."
        )
    path = record_path()
    if reset:
        _reset(path, chapter)
        return None
    entries, note = {}, ""
    if path is None:
        note = f"Recording is off ({ENV}=off): nothing is recorded."
    else:
        try:
            entries = _read(path)["exercises"]
        except RecordError as exc:
            note = f"{exc.why}. To record your answers again, {exc.fix}."
    return _summarise(ids, entries, chapter, path, note)


def _chapter_of(exercise_id: str) -> int | None:
    match = _CHAPTER_ID.match(exercise_id)
    return int(match.group(1)) if match else None


def _status(exercise_id: str, entries: dict) -> Exercise:
    entry = entries.get(exercise_id)
    if entry is None:
        return Exercise(exercise_id, _NOT_STARTED)
    status = _SOLVED if entry["solved"] else _TRIED if entry["attempts"] else _NOT_STARTED
    return Exercise(exercise_id, status, entry["attempts"], entry["first"], entry["last"])


def _summarise(ids, entries, chapter, path, note) -> Progress:
    wanted = [i for i in ids if chapter is None or _chapter_of(i) == chapter]
    wanted.sort(key=_course_order)
    chapters: dict[int, list[Exercise]] = {}
    for i in wanted:
        chapters.setdefault(_chapter_of(i) or 0, []).append(_status(i, entries))
    unknown = [
        _status(i, entries) for i in sorted(entries) if i not in ids and (chapter is None or _chapter_of(i) == chapter)
    ]
    shown = [Chapter(n, _title(n, exs[0].id), exs) for n, exs in chapters.items()]
    return Progress(
        shown,
        _next(wanted, entries),
        unknown,
        _shown(path) if path else None,
        note,
    )


def _course_order(exercise_id: str) -> tuple[int, int]:
    """Chapter by chapter; in a chapter, the order its grader module defines them in."""
    from .exercises import get

    code = getattr(get(exercise_id).checker, "__code__", None)
    return _chapter_of(exercise_id) or 0, getattr(code, "co_firstlineno", 0)


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


def _title(number: int, exercise_id: str) -> str:
    """A chapter's title, from its grader module's docstring ("Checkers for chapter N: ...")."""
    from .exercises import get

    try:
        module = sys.modules[get(exercise_id).checker.__module__]
        first = (module.__doc__ or "").strip().splitlines()[0]
    except (KeyError, IndexError, AttributeError):
        first = ""
    match = _TITLE.match(first)
    if not match:
        return f"Chapter {number}"
    title = _TEX_SUPERSCRIPT.sub(r"^(\1)", match.group(1))  # no raw TeX: ℝ^{n×d_model} reads ℝ^(n×d_model)
    return title[0].upper() + title[1:]


_TEX_SUPERSCRIPT = re.compile(r"\^\{([^{}]*)\}")
_EXERCISE = re.compile(r"^[ \t]*:{3,}\{exercise\}", re.MULTILINE)


def _where(exercise_id: str) -> str:
    """Where a learner finds an exercise, as the book numbers it: "chapter 10, exercise 2".

    The number is the exercise's place among the chapter notebook's {exercise} blocks (sphinx-exercise
    numbers them so); without the notebook, the chapter alone."""
    number = _chapter_of(exercise_id)
    where = f"chapter {number}"
    from .course import TOC, chapters

    stems = {n: stem for n, _, stem in chapters()}
    try:
        nb = json.loads((TOC.parent / "chapters" / f"{stems[number]}.ipynb").read_text(encoding="utf-8"))
    except (KeyError, OSError, ValueError):
        return where
    seen = 0
    for cell in nb.get("cells", []):
        text = "".join(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            seen += len(_EXERCISE.findall(text))
        elif re.search(rf"check\(\s*[\"']{re.escape(exercise_id)}[\"']", text) and seen:
            return f"{where}, exercise {seen}"
    return where


def _reset(path: Path | None, chapter: int | None) -> None:
    if path is None:
        print(f"Recording is off ({ENV}=off): there is no record to clear.")
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path):
            try:
                exercises = _read(path)["exercises"]
            except RecordError as exc:  # an unreadable record: replaced by an empty one
                _write(path, _empty())
                print(f"{exc.why}; it is replaced by an empty record.")
                _off.pop(path, None)
                return
            gone = [i for i in exercises if chapter is None or _chapter_of(i) == chapter]
            for i in gone:
                del exercises[i]
            _write(path, {**_empty(), "exercises": exercises})
    except _Busy:
        print("Another notebook is writing your exercise record; try again in a moment.")
        return
    except RecordError as exc:
        print(f"Your exercise record was not cleared: {exc.why}; {exc.fix}.")
        return
    except OSError as exc:
        print(f"Your exercise record was not cleared: {_shown(path)}: {_reason(exc)}.")
        return
    _off.pop(path, None)
    where = "" if chapter is None else f" of chapter {chapter}"
    entries = "entry" if len(gone) == 1 else "entries"
    print(f"Cleared your exercise record{where}: {len(gone)} {entries} removed.")
