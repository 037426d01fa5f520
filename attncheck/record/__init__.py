"""The learner's own record of the checked exercises, read back by `attncheck.progress()`.

Every attempt `check` judges is kept in a small JSON file on the learner's machine (nothing
leaves it): per exercise id, how many attempts, whether it was ever solved, and the first
and last time (ISO 8601, UTC). The file lives in the user's data folder:

- Linux and others: `$XDG_DATA_HOME/attnlib/progress.json` (`~/.local/share/attnlib/...`)
- macOS: `~/Library/Application Support/attnlib/progress.json`
- Windows: `%APPDATA%\\attnlib\\progress.json`

(The folder keeps the name `attnlib` it had before the checker moved into a package of its own, so
a learner's earlier record is found where it was.)

`ATTNLIB_PROGRESS=/some/file.json` names another file; `ATTNLIB_PROGRESS=off` turns the
record off (the tests, nbval and `make execute` run so, so stored outputs never depend on
anyone's history).

One small module per job, none of which knows the checker (the checker hands them plain data):

- `store`: the file, its lock, reading and writing it whole;
- `ids`: the ids of earlier versions of the course, read as today's;
- `attempts`: what counts as the learner's attempt (not a placeholder, not a solution cell);
- `recording`: adding an attempt, clearing entries, the one notice when the record cannot be used;
- `report`: `Progress`, the table `attncheck.progress()` shows.
"""

from __future__ import annotations

from .recording import record
from .store import ENV, FORMAT, LOCK_TIMEOUT_S, RecordError, record_path

__all__ = ["ENV", "FORMAT", "LOCK_TIMEOUT_S", "RecordError", "record", "record_path"]
