"""tools/lab_solutions.py folds every solution into one markdown block, and unfolds it exactly.

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
from conftest import make_commands

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
SPEC = importlib.util.spec_from_file_location("lab_solutions", ROOT / "tools" / "lab_solutions.py")
lab_solutions = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(lab_solutions)


def _notebook(*cells) -> nbformat.NotebookNode:
    """Markdown cells from strings, code cells from (source,) or (source, printed) tuples."""
    nb = nbformat.v4.new_notebook()
    for c in cells:
        if isinstance(c, str):
            nb.cells.append(nbformat.v4.new_markdown_cell(c))
        else:
            cell = nbformat.v4.new_code_cell(c[0], execution_count=len(nb.cells) + 1)
            if len(c) > 1:
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=c[1])]
            nb.cells.append(cell)
    return nb


GATE = (
    ":::{exercise}\n:label: e\nDo it.\n:::",
    ("answer = None",),
    "% Solution\n:::{solution-start} e\n:class: dropdown\n:::\n\nThe idea.",
    ("# Solution\nanswer = 42\nprint(answer)", "42\n"),
    "% Solution, continued\nWhy it works.",
    "% End of solution\n:::{solution-end}\n:::",
    "## Next section",
    ("print(1)", "1\n"),
)


def test_a_gate_becomes_one_folded_solution_with_its_code_and_what_it_printed():
    nb = _notebook(*GATE)
    assert lab_solutions.fold(nb) == (1, [])
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "markdown", "markdown", "code"]
    assert nb.cells[2].source == (
        "::::{admonition} Solution\n:class: dropdown\n\n:::{solution} e\n\nThe idea.\n\n"
        "```python\nanswer = 42\nprint(answer)\n```\n\nIt prints:\n\n```text\n42\n```\n\nWhy it works.\n:::\n::::"
    )
    assert lab_solutions.is_folded(nb.cells[2]) and not lab_solutions.is_folded(nb.cells[0])
    assert "jupyter" not in nb.cells[2].metadata  # nothing for Lab to open or close: it is markdown
    assert [c.execution_count for c in nb.cells if c.cell_type == "code"] == [1, 2]  # as Run All numbers them
    assert nb.cells[4].outputs[0].text == "1\n"  # other cells keep their outputs
    assert lab_solutions.fold(nb) == (0, [])  # idempotent


def test_unfold_gives_back_the_executable_gate_and_fold_of_it_is_the_same_bytes():
    nb = _notebook(*GATE)
    lab_solutions.fold(nb)
    folded = copy.deepcopy(nb)
    assert lab_solutions.unfold(nb) == 1
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.source for c in code] == ["answer = None", "# Solution\nanswer = 42\nprint(answer)", "print(1)"]
    assert code[1].outputs[0].text == "42\n" and code[1].execution_count is None
    assert nb.cells[2].source.startswith(":::{solution-start} e\n:class: dropdown\n:::")
    assert nb.cells[2].id == folded.cells[2].id
    assert lab_solutions.unfold(nb) == 0
    assert lab_solutions.solution_codes(nb) == lab_solutions.solution_codes(folded) == ["answer = 42\nprint(answer)"]
    lab_solutions.fold(nb)
    assert nbformat.writes(nb) == nbformat.writes(folded)


def test_a_solution_dropdown_is_put_in_a_bar_that_holds_no_link():
    """sphinx-exercise and jupyterlab-myst title a solution "Solution to Exercise N" with "Exercise N"
    a link: in the bar of a dropdown, a click on it jumped to the exercise (JupyterLab) and left the
    solution folded. So the bar is a plain "Solution" admonition, and the solution, with its title,
    is inside it; a solution written by hand in a markdown cell, or folded before, gets the same."""
    hand = "The statement.\n\n:::{solution} e\n:class: dropdown tip\n\nBecause.\n:::\n\nAfter."
    barred = lab_solutions.bar(hand)
    assert barred == (
        "The statement.\n\n::::{admonition} Solution\n:class: dropdown\n\n"
        ":::{solution} e\n:class: tip\n\nBecause.\n:::\n::::\n\nAfter."
    )
    assert lab_solutions.bar(barred) == barred and lab_solutions.unbar(barred) == hand
    assert lab_solutions.bar(":::{solution} e\n\nShown.\n:::") == ":::{solution} e\n\nShown.\n:::"  # not a fold
    older = nbformat.v4.new_markdown_cell(":::{solution} e\n:class: dropdown\n\n```python\nx = 1\n```\n:::")
    older.metadata[lab_solutions.MARK] = dict(lab_solutions.MARK_VALUE)
    nb = _notebook(hand)
    nb.cells.append(older)
    assert lab_solutions.fold(nb) == (2, [])
    assert [c.source for c in nb.cells] == [barred, lab_solutions.bar(older.source)]
    assert lab_solutions.solution_codes(nb) == ["x = 1"]
    assert lab_solutions.fold(nb) == (0, [])


def test_fences_inside_the_code_get_a_longer_fence():
    nb = _notebook(
        ":::{solution-start} e\n:::", ("# Solution\ns = '''\n```\n'''\nprint(s)", "```\n"), ":::{solution-end}\n:::"
    )
    lab_solutions.fold(nb)
    assert "````python\n" in nb.cells[0].source and "````text\n```\n````" in nb.cells[0].source
    lab_solutions.unfold(nb)
    assert nb.cells[1].source == "# Solution\ns = '''\n```\n'''\nprint(s)" and nb.cells[1].outputs[0].text == "```\n"


@pytest.mark.parametrize(
    "cells, complaint",
    [
        (["The exercise.\n\n:::{solution-start} e\n:::", ("print(1)",), ":::{solution-end}\n:::"], "text before"),
        ([":::{solution-start} e\n:::", ("print(1)",), ":::{solution-end}\n:::\n\n## Next"], "text after"),
        ([":::{solution-start} e\n:::", ("print(1)",)], "no {solution-end}"),
        ([":::{solution-start} e\n:::", "```python\nx\n```", ":::{solution-end}\n:::"], "``` block"),
        (["## Exercises", ("# Solution\nx = 1",)], "outside"),
    ],
)
def test_what_cannot_be_folded_is_named_and_left_as_it_was(cells, complaint, tmp_path):
    nb = _notebook(*cells)
    before = copy.deepcopy(nb)
    _, problems = lab_solutions.fold(nb)
    assert any(complaint in p for p in problems), problems
    assert nb == before
    path = tmp_path / "x.ipynb"
    nbformat.write(_notebook(*cells), path)
    assert lab_solutions.main([str(path)]) == 2


def test_an_output_that_is_not_printed_text_is_named():
    nb = _notebook(":::{solution-start} e\n:::", ("# Solution\n1",), ":::{solution-end}\n:::")
    nb.cells[1].outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "1"}, execution_count=2)]
    assert "only printed text" in lab_solutions.fold(nb)[1][0]


def test_the_script_is_idempotent_and_check_changes_nothing(tmp_path):
    path = tmp_path / "x.ipynb"
    nbformat.write(_notebook(*GATE), path)
    original = path.read_bytes()
    assert lab_solutions.main(["--check", str(path)]) == 1
    assert path.read_bytes() == original
    assert lab_solutions.main([str(path)]) == 0
    once = path.read_bytes()
    assert lab_solutions.main([str(path)]) == 0 and path.read_bytes() == once
    assert lab_solutions.main(["--check", str(path)]) == 0
    nbformat.validate(nbformat.reads(once.decode("utf-8"), as_version=4))


def test_make_execute_unfolds_first_and_folds_after_executing():
    commands = make_commands("execute")

    def first(part: str) -> int:
        return next(i for i, command in enumerate(commands) if part in command)

    assert first("tools/prepare_notebooks.py") < first("jupyter execute") < first("tools/lab_solutions.py chapters/")


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_chapter_solution_is_folded(notebook):
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    gates = [i for i, c in enumerate(nb["cells"]) if "{solution-start}" in lab_solutions.text_of(c)]
    solution_code = [i for i, c in enumerate(nb["cells"]) if lab_solutions.is_solution_code(c)]
    assert not gates and not solution_code, (
        f"{notebook.name}: cells {gates + solution_code} are a solution Run All would show in JupyterLab; run "
        "`.venv/bin/python tools/lab_solutions.py chapters/[0-9][0-9]_*.ipynb` (make execute does)"
    )
    assert all(not lab_solutions.is_folded(c) or lab_solutions.unfold_cell(c) for c in nb["cells"])
    unbarred = [
        i for i, c in enumerate(nb["cells"]) if lab_solutions.bar(lab_solutions.text_of(c)) != lab_solutions.text_of(c)
    ]
    assert not unbarred, (
        f"{notebook.name}: cells {unbarred} hold a solution dropdown whose bar is a link to the exercise; run "
        "`.venv/bin/python tools/lab_solutions.py chapters/[0-9][0-9]_*.ipynb`"
    )


def test_a_long_line_of_solution_code_is_wrapped_inside_its_brackets():
    """JupyterLab wraps long lines of code cells, not of a code block in markdown: a solution's long
    line ran out of its box. Folded, no line is longer than SHORT_LINE, and the code is the same Python."""
    import ast

    long_line = 'print("an arrow and 3 times it:", round(angle_between([1.1, 0.7, 0.3, 0.9], [3.3, 2.1, 0.9, 2.7]), 4))'
    assert len(long_line) > lab_solutions.SHORT_LINE
    cells = list(GATE)
    cells[3] = (f"# Solution\nanswer = 42\n{long_line}", "42\n")
    nb = _notebook(*cells)
    assert lab_solutions.fold(nb) == (1, [])
    code = nb.cells[2].source.split("```python\n", 1)[1].split("\n```", 1)[0]
    assert max(len(line) for line in code.splitlines()) <= lab_solutions.SHORT_LINE, code
    assert ast.dump(ast.parse(code)) == ast.dump(ast.parse(f"answer = 42\n{long_line}"))
    folded = copy.deepcopy(nb)
    lab_solutions.unfold(nb)
    lab_solutions.fold(nb)
    assert nb.cells[2].source == folded.cells[2].source  # fold(unfold(folded)) is still the same
