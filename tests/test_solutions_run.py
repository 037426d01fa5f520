"""Every solution's code still runs against its chapter and prints what its folded block says.

A solution is stored as markdown (tools/lab_solutions.py folds it, so that no Run All shows it), so
nbval, which runs the chapter as a learner's Run All does, never runs it on its own. tests/conftest.py
(`with_solutions`) adds one nbval cell for each solution after the chapter's last cell: its code runs in
the chapter's kernel and nbval compares what it prints with the text stored in its block. Here: that
those cells are there, and that a solution that answers an exercise says ✓ in what it stored.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import lab_solutions
import pytest
from conftest import ROOT

CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))


def _folded(path: Path) -> list[dict]:
    return [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if lab_solutions.is_folded(c)]


def _collected(*args: str) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", *args],
        check=False,  # its output is shown when it fails
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return [line for line in run.stdout.splitlines() if "::" in line]


def test_every_chapter_has_folded_solutions():
    assert CHAPTERS and all(_folded(path) for path in CHAPTERS), [p.name for p in CHAPTERS if not _folded(p)]


def test_a_chapter_run_whole_runs_each_solution_after_its_last_cell():
    chapter = "chapters/09_softmax.ipynb"
    here = "tests/test_solutions_run.py::test_every_chapter_has_folded_solutions"  # so that tests/conftest.py loads
    items = [i for i in _collected(here, chapter) if i.startswith(chapter)]
    solutions = [i for i in items if "::Solution " in i]
    assert len(solutions) == len(_folded(ROOT / chapter)), items
    assert items[-len(solutions) :] == solutions == [f"{chapter}::Solution {n}" for n in range(1, len(solutions) + 1)]
    assert not [i for i in _collected(here, f"{chapter}::Cell 0") if "::Solution " in i]  # one cell: no solution


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_a_solution_that_answers_an_exercise_stored_a_tick(path):
    for cell in _folded(path):
        text = lab_solutions.text_of(cell)
        code, _, printed = text.partition(lab_solutions.PRINTS)
        if "check(" in code:
            assert "✓" in printed, f"{path.name}: a solution calls check but its stored output has no ✓:\n{text[:600]}"
