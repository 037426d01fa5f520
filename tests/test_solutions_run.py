"""Every solution's code still runs against its chapter and prints what its folded block says.

A solution is stored as markdown (tools/lab_solutions.py folds it, so that no Run All shows it),
so nbval, which runs the chapter as a learner's Run All does, never runs it. Here each chapter is
unfolded again (the executable gate `make execute` runs) and executed from a fresh kernel, and what
each solution prints is compared with the text stored in its block, as nbval compares an output.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
SPEC = importlib.util.spec_from_file_location("lab_solutions", ROOT / "tools" / "lab_solutions.py")
lab_solutions = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(lab_solutions)


def _printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("name") == "stdout")


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_solution_runs_and_prints_what_is_stored(notebook):
    from nbclient import NotebookClient

    nb = nbformat.reads(notebook.read_text(encoding="utf-8"), as_version=4)
    if not any(lab_solutions.is_folded(c) for c in nb.cells):
        pytest.skip(f"{notebook.name} holds no folded solution (run `make execute`)")
    lab_solutions.unfold(nb)
    solutions = [i for i, c in enumerate(nb.cells) if lab_solutions.is_solution_code(c)]
    stored = {i: _printed(nb.cells[i]) for i in solutions}
    os.environ["ATTNLIB_PROGRESS"] = "off"  # the kernel inherits it: no record is written
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(notebook.parent)}}
    ).execute()
    for i in solutions:
        errors = [o for o in nb.cells[i].outputs if o.output_type == "error" or o.get("name") == "stderr"]
        assert not errors, f"{notebook.name}: the solution in cell {i} failed: {json.dumps(errors)[:800]}"
        assert _printed(nb.cells[i]) == stored[i], (
            f"{notebook.name}: the solution in cell {i} now prints\n{_printed(nb.cells[i])}\ninstead of\n{stored[i]}"
        )
        assert "✓" in _printed(nb.cells[i]) or "check(" not in nb.cells[i].source, f"{notebook.name}: cell {i} not ✓"
