"""Rewrite exercise ids of the number days (`ch09.by_hand`) as today's subject ids (`softmax.by_hand`).

    python tools/rename_exercise_ids.py            # every notebook, test, doc and grader of the repository
    python tools/rename_exercise_ids.py FILE ...   # only these files

An old id is rewritten only where it names a registered exercise (so `ch09.py`, a module's
attribute, or a test's deliberate typo stays as it is), and so is an old prefix quoted on its own
(`startswith("ch09.")`, `check("ch01.…", answer)`): in a notebook's cells and outputs, in Markdown,
and in Python. The text is replaced in place, byte for byte around each id, so a
notebook keeps its layout and its cell ids. Running it again changes nothing.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from attncheck import exercise_ids
from attncheck.record.ids import OLD_ID, OLD_NUMBERS, current_id

SUFFIXES = (".ipynb", ".md", ".py")
OLD_PREFIX = re.compile(r"\b(ch\d\d)\.(?=[\"'…])")  # "ch09." in quotes, or "ch01.…"
# these write old ids on purpose: the table of old ids, the porting note, this tool and its test
KEEP = {
    "attncheck/record/ids.py",
    "attncheck/registry.py",
    "tools/rename_exercise_ids.py",
    "tests/test_exercise_ids.py",
}


def renamed(text: str, known: set[str]) -> str:
    """`text` with every old id of a registered exercise written as its id today."""

    def new(match) -> str:
        now = current_id(match.group(0))
        return now if now in known else match.group(0)

    def prefix(match) -> str:
        return f"{OLD_NUMBERS[match.group(1)]}." if match.group(1) in OLD_NUMBERS else match.group(0)

    return OLD_PREFIX.sub(prefix, OLD_ID.sub(new, text))


def files() -> list[Path]:
    """The repository's tracked notebooks, Markdown and Python files, but those in KEEP."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / f for f in listed.splitlines() if f.endswith(SUFFIXES) and f not in KEEP]


def main(paths: list[str]) -> int:
    known = set(exercise_ids())
    changed = 0
    for path in [Path(p).resolve() for p in paths] or files():
        text = path.read_text(encoding="utf-8")
        new = renamed(text, known)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
            print(f"renamed ids in {path.relative_to(ROOT)}")
    print(f"{changed} file(s) changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
