"""What the chapter tests share: run `check` and read what it printed, as one line of words."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from attncheck import check

ROOT = Path(__file__).resolve().parents[1]

NOT_YET = "✗ Not yet. "


def said(capsys) -> str:
    """What was printed since the last read, its wrapping undone."""
    return " ".join(capsys.readouterr().out.split())


def hint_for(exercise_id: str, answer, capsys) -> str:
    """The hint `check` printed for an answer it must refuse, after its "✗ Not yet." (fails the test if it accepted it).

    An untouched stub's one verdict, "✗ No answer yet: …", comes back after its "✗ "."""
    ok = check(exercise_id, answer)
    out = said(capsys)
    assert not ok, f"{exercise_id} accepted {answer!r}"
    if out.startswith("✗ No answer yet"):
        return out[len("✗ ") :]
    assert out.startswith(NOT_YET), out
    return out[len(NOT_YET) :]


def passes(exercise_id: str, answer, capsys) -> str:
    """What `check` printed for an answer it must accept (fails the test if it refused it)."""
    ok = check(exercise_id, answer)
    out = said(capsys)
    assert ok, f"{exercise_id} refused {answer!r}: {out}"
    assert out.startswith("✓"), out
    return out


def solution_codes(notebook: str) -> list[str]:
    """The code of every solution of a chapter notebook (folded or not), as tools/lab_solutions.py reads it."""
    spec = importlib.util.spec_from_file_location("lab_solutions", ROOT / "tools" / "lab_solutions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.solution_codes(json.loads((ROOT / notebook).read_text(encoding="utf-8")))
