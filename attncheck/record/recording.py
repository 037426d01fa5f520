"""Writing the record: one verdict added, or entries cleared, and one notice when it cannot be.

A record is never a reason for `check` to fail or wait. A record that cannot be read or written
(corrupt, read-only, from a newer attncheck) is left as it is: recording stops for the session,
and one notice says why.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

from . import store

off: dict[Path, str] = {}  # record file -> why recording stopped for this session
noticed = False  # the one notice of a session has been printed


def record(exercise_id: str, ok: bool) -> None:
    """Add one attempt at `exercise_id` to the record, solved when `ok`; a problem gives one notice."""
    path = store.record_path()
    if path is None or path in off:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with store.locked(path):
            data = store.read(path)
            add(data["exercises"], exercise_id, bool(ok), store.now())
            store.write(path, data)
    except store.Busy:
        notice("Another notebook was writing your exercise record, so this answer was not recorded.")
    except store.RecordError as exc:
        _stop(path, exc)
    except OSError as exc:
        why = f"{store.shown(path)} cannot be written: {store.reason(exc)}"
        _stop(path, store.RecordError(why, store.ELSEWHERE))


def add(exercises: dict, exercise_id: str, ok: bool, now: str) -> None:
    """Count one attempt in the entries; the latest check is listed last."""
    entry = exercises.setdefault(exercise_id, {"attempts": 0, "solved": False, "first": now, "last": now})
    entry["attempts"] += 1
    entry["solved"] = entry["solved"] or ok  # solved once is solved
    entry["last"] = now
    exercises[exercise_id] = exercises.pop(exercise_id)


def clear(path: Path | None, gone: Callable[[str], bool], where: str = "") -> None:
    """Remove the entries whose id `gone` picks, and print how many (`where` names them, such as a chapter)."""
    if path is None:
        print(f"Recording is off ({store.ENV}=off): there is no record to clear.")
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with store.locked(path):
            try:
                exercises = store.read(path)["exercises"]
            except store.RecordError as exc:  # an unreadable record: replaced by an empty one
                store.write(path, store.empty())
                print(f"{exc.why}; it is replaced by an empty record.")
                off.pop(path, None)
                return
            removed = [i for i in exercises if gone(i)]
            for i in removed:
                del exercises[i]
            store.write(path, {**store.empty(), "exercises": exercises})
    except store.Busy:
        print("Another notebook is writing your exercise record; try again in a moment.")
        return
    except store.RecordError as exc:
        print(f"Your exercise record was not cleared: {exc.why}; {exc.fix}.")
        return
    except OSError as exc:
        print(f"Your exercise record was not cleared: {store.shown(path)}: {store.reason(exc)}.")
        return
    off.pop(path, None)
    entries = "entry" if len(removed) == 1 else "entries"
    print(f"Cleared your exercise record{where}: {len(removed)} {entries} removed.")


def _stop(path: Path, problem: store.RecordError) -> None:
    off[path] = str(problem)
    notice(
        f"Your exercise record is off for this session: {problem.why}. Your answers are "
        f"still checked. To record them again, {problem.fix}."
    )


def notice(text: str) -> None:
    """Print `text` as the session's one notice about the record (later ones are dropped)."""
    global noticed
    if not noticed:
        noticed = True
        print(textwrap.fill(f"({text})", width=78, subsequent_indent="  "))
