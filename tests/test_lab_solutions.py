"""tools/lab_solutions.py collapses every solution in JupyterLab, and only the solutions.

The last test checks the chapter notebooks themselves: it fails until the script has been run
over them (`make execute` runs it after executing every notebook).
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
SPEC = importlib.util.spec_from_file_location("lab_solutions", ROOT / "tools" / "lab_solutions.py")
lab_solutions = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(lab_solutions)


def _solution_cells(nb: dict) -> set[int]:
    """Indices of the cells a learner must not see before asking: gated solutions and '# Solution' code."""
    hidden, in_gate = set(), False
    for i, cell in enumerate(nb["cells"]):
        text = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        starts = cell["cell_type"] == "markdown" and "{solution-start}" in text
        if starts or in_gate or text.lstrip().lower().startswith("# solution"):
            hidden.add(i)
        if starts:
            in_gate = True
        if cell["cell_type"] == "markdown" and "{solution-end}" in text:
            in_gate = False
    return hidden


def _collapsed(cell: dict) -> bool:
    jupyter = cell.get("metadata", {}).get("jupyter", {})
    return jupyter.get("source_hidden") is True and (
        cell["cell_type"] != "code" or jupyter.get("outputs_hidden") is True
    )


LABELS = ("% Solution\n", "% Solution, continued\n", "% End of solution\n", "# Solution, continued\n")


def _as_written(nb: dict) -> dict:
    """A chapter as its author saved it, before the script ran: no Lab metadata, no labels."""
    for cell in nb["cells"]:
        cell.get("metadata", {}).pop("jupyter", None)
        if cell["source"] and cell["source"][0] in LABELS:
            cell["source"] = cell["source"][1:]
    return nb


@pytest.fixture
def chapter_9(tmp_path):
    source = next(p for p in CHAPTERS if p.name.startswith("09_"))
    copy_path = tmp_path / source.name
    nb = _as_written(json.loads(source.read_text(encoding="utf-8")))
    copy_path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return copy_path


def test_every_solution_cell_is_collapsed_and_nothing_else_changes(chapter_9):
    before = json.loads(chapter_9.read_text(encoding="utf-8"))
    assert lab_solutions.main([str(chapter_9)]) == 0
    after = json.loads(chapter_9.read_text(encoding="utf-8"))
    solutions = _solution_cells(before)
    assert len(solutions) >= 9  # three gated solutions of three cells each in chapter 9
    for i, (old, new) in enumerate(zip(before["cells"], after["cells"])):
        if i in solutions:
            assert _collapsed(new), f"cell {i} is not collapsed: {new['source'][:1]}"
            first = new["source"][0]
            assert first.startswith("% ") or first.lower().startswith("# solution"), first  # what Lab's bar shows
            rest, old_rest = copy.deepcopy(new), copy.deepcopy(old)
            rest["metadata"].pop("jupyter")
            old_rest["metadata"].pop("jupyter", None)
            if first.startswith("% "):
                rest["source"] = rest["source"][1:]
            assert rest == old_rest, f"cell {i} changed beyond its Lab metadata and label"
        else:
            assert new == old, f"cell {i} is not a solution but changed"
    assert len(after["cells"]) == len(before["cells"])


def test_the_script_is_idempotent_and_check_changes_nothing(chapter_9):
    original = chapter_9.read_bytes()
    assert lab_solutions.main(["--check", str(chapter_9)]) == 1
    assert chapter_9.read_bytes() == original
    assert lab_solutions.main([str(chapter_9)]) == 0
    once = chapter_9.read_bytes()
    assert lab_solutions.main([str(chapter_9)]) == 0
    assert chapter_9.read_bytes() == once
    assert lab_solutions.main(["--check", str(chapter_9)]) == 0
    nbformat.validate(nbformat.reads(once.decode("utf-8"), as_version=4))


def _notebook(*cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(c) if isinstance(c, str) else nbformat.v4.new_code_cell(c[0]) for c in cells
    ]
    return nb


def test_every_cell_inside_a_gate_is_collapsed_even_without_a_solution_line():
    nb = _notebook(
        ":::{exercise}\n:label: e\nDo it.\n:::",
        ("answer = None",),
        ":::{solution-start} e\n:class: dropdown\n:::\n\nThe idea.",
        ("print(42)",),
        "Why it works.\n\n:::{solution-end}\n:::",
        "## Next section",
        ("# Solution\nx = 1",),
    )
    changed, problems = lab_solutions.process(nb)
    assert problems == [] and changed == 4
    assert [_collapsed(c) for c in nb.cells] == [False, False, True, True, True, False, True]
    assert "outputs_hidden" not in nb.cells[2].metadata["jupyter"]  # markdown has no outputs
    assert [c.source.split("\n", 1)[0] for c in nb.cells[2:5]] == [
        "% Solution",
        "# Solution, continued",
        "% Solution, continued",
    ]  # Lab shows no raw directive, no answer
    assert nb.cells[6].source == "# Solution\nx = 1"
    assert lab_solutions.process(nb) == (0, [])
    end_only = _notebook(":::{solution-start} e\n:::", ("# Solution\nx = 1",), ":::{solution-end}\n:::")
    lab_solutions.process(end_only)
    assert end_only.cells[2].source.startswith("% End of solution\n:::{solution-end}")


@pytest.mark.parametrize(
    "cells, complaint",
    [
        (["The exercise.\n\n:::{solution-start} e\n:::", ("print(1)",), ":::{solution-end}\n:::"], "text before"),
        ([":::{solution-start} e\n:::", ("print(1)",), ":::{solution-end}\n:::\n\n## Next"], "text after"),
        ([":::{solution-start} e\n:::", ("print(1)",)], "no {solution-end}"),
    ],
)
def test_a_gate_cell_that_holds_other_text_is_named_not_hidden(cells, complaint, tmp_path):
    nb = _notebook(*cells)
    _, problems = lab_solutions.process(nb)
    assert any(complaint in p for p in problems), problems
    path = tmp_path / "x.ipynb"
    nbformat.write(_notebook(*cells), path)
    assert lab_solutions.main([str(path)]) == 2
    text_cell = 0 if complaint == "text before" else 2
    if complaint != "no {solution-end}":
        assert not _collapsed(nbformat.read(path, as_version=4).cells[text_cell])


def test_make_execute_runs_the_script_after_executing():
    recipe = (ROOT / "Makefile").read_text().split("\nexecute:", 1)[1].split("\n\n", 1)[0]
    assert recipe.index("jupyter execute") < recipe.index("tools/lab_solutions.py chapters/")


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_chapter_solution_is_collapsed_in_lab(notebook):
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    open_cells = [i for i in sorted(_solution_cells(nb)) if not _collapsed(nb["cells"][i])]
    assert not open_cells, (
        f"{notebook.name}: cells {open_cells} show a solution in JupyterLab; run "
        "`.venv/bin/python tools/lab_solutions.py chapters/[0-9][0-9]_*.ipynb`"
    )
