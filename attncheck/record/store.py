"""The record's file: where it lives, read and written whole, under a lock.

A write takes a lock file with a short timeout, and replaces the file atomically (a temporary
file in the same folder, then `os.replace`), so two notebooks writing at once lose nothing and a
reader never sees half a file. Entries written under the ids of an earlier version of the
course are read under today's ids (`ids.migrated`).
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .ids import migrated

ENV = "ATTNLIB_PROGRESS"
FORMAT = 1  # the file's layout; a newer number is left alone
LOCK_TIMEOUT_S = 0.5  # longest a check waits for another notebook's write

RESET = "start a new record with attncheck.progress(reset=True)"
ELSEWHERE = f"make the file writable or set {ENV} to another file"


class RecordError(Exception):
    """The record cannot be used: why, and what the learner can do about it."""

    def __init__(self, why: str, fix: str = RESET) -> None:
        super().__init__(why)
        self.why, self.fix = why, fix

    def __str__(self) -> str:
        return f"{self.why} ({self.fix})"


class Busy(Exception):
    """Another process held the record's lock for longer than LOCK_TIMEOUT_S."""


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


def empty() -> dict:
    """A record with no entries."""
    return {"format": FORMAT, "exercises": {}}


def _valid_entry(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and type(entry.get("attempts")) is int
        and entry["attempts"] >= 0
        and isinstance(entry.get("solved"), bool)
        and all(isinstance(entry.get(k), (str, type(None))) for k in ("first", "last"))
    )


def read(path: Path) -> dict:
    """The record in `path`, under today's ids: a missing or empty file is an empty record; junk raises RecordError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return empty()
    except OSError as exc:
        raise RecordError(f"{shown(path)} cannot be read: {reason(exc)}", ELSEWHERE) from None
    except UnicodeDecodeError:
        raise RecordError(f"{shown(path)} cannot be read: it is not UTF-8 text") from None
    if not text.strip():
        return empty()
    try:
        data = json.loads(text)
    except ValueError:
        raise RecordError(f"{shown(path)} is not a record: not valid JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("exercises"), dict):
        raise RecordError(f"{shown(path)} is not a record: no exercises in it")
    if type(data.get("format")) is not int or data["format"] > FORMAT:
        raise RecordError(f"{shown(path)} was written by a newer attncheck", "update attncheck")
    if not all(_valid_entry(e) for e in data["exercises"].values()):
        raise RecordError(f"{shown(path)} is damaged: an entry is not readable")
    data["exercises"] = migrated(data["exercises"])
    return data


def write(path: Path, data: dict) -> None:
    """Replace `path` with `data` in one step: a temporary file beside it, then os.replace."""
    import tempfile  # only when a record is written, so `import attncheck` stays light

    if path.exists() and not path.stat().st_mode & 0o200:
        raise RecordError(f"{shown(path)} is read-only", ELSEWHERE)
    fd, temporary = tempfile.mkstemp(prefix=".progress-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1, ensure_ascii=False)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):  # the write failed: leave no temporary file behind
            os.unlink(temporary)


@contextmanager
def locked(path: Path):
    """Hold `path`.lock for the block: retry for LOCK_TIMEOUT_S, then raise Busy."""
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                raise Busy
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


def shown(path: Path) -> str:
    """A path as the learner's notice shows it: the home folder as ~."""
    try:
        return "~" + os.sep + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def reason(exc: OSError) -> str:
    """Why an OSError happened, in lower-case words."""
    return (exc.strerror or type(exc).__name__).lower()


def now() -> str:
    """The time now, ISO 8601, UTC."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
