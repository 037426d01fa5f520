"""A chapter stays runnable in any order of re-execution: no exercise stub rebinds a name the
chapter's body uses, and no solution's code rebinds a name a cell of the body takes from another. A learner who has run a stub (`def causal_mask(n): ...`, returning None) and
scrolls back to re-run a figure must get the chapter's numbers, not an AttributeError or, worse,
the numbers of a half-written answer.

A stub cell is a code cell after the chapter's `## Exercises` heading, as the notebook is stored
(each solution folded into a Markdown dropdown by tools/lab_solutions.py). The body is every code
cell before that heading.

A solution's code (folded, read as tools/lab_solutions.py reads it) is what a learner copies into a
cell of their own and runs. The names it binds at its top level (not a function's locals) must not
be one that a body cell reads without binding it itself: `n = 1000` in a solution made chapter 12's
earlier cells compute with 1000 words, and `X = np.zeros(...)` chapter 3's with zeros. A name that
each body cell binds before it reads it (a loop's `word`) is safe to reuse.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest
from helpers import solution_codes

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))

# Chapters whose stubs still rebind a body name, one entry each with the reason: strict, so the test
# says so the moment one is fixed and its entry must go. Empty: every chapter passes.
NOT_YET: dict[str, str] = {}


def _subject(path: Path) -> str:
    return path.stem.partition("_")[2]


def split(notebook) -> tuple[list[int], list[int]]:
    """The indices of the body's code cells and of the stub cells."""
    body, stubs, exercises = [], [], False
    for i, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown" and re.match(r"##\s+Exercises\b", cell.source):
            exercises = True
        elif cell.cell_type == "code":
            (stubs if exercises else body).append(i)
    return body, stubs


def names(source: str) -> tuple[set[str], set[str]]:
    """The names a cell binds (assignments, def, class, import, for, with) and the names it reads."""
    python = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    bound, read = set(), set()
    for node in ast.walk(ast.parse(python)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return bound, read


def rebound(path: Path) -> dict[str, list[int]]:
    """Each name the body uses (reads or binds) that a stub binds, with the stubs' cell indices."""
    notebook = nbformat.read(path, as_version=4)
    body, stubs = split(notebook)
    used = set().union(*(set().union(*names(notebook.cells[i].source)) for i in body))
    found: dict[str, list[int]] = {}
    for i in stubs:
        for name in sorted(names(notebook.cells[i].source)[0] & used):
            found.setdefault(name, []).append(i)
    return found


#: the scopes whose names are their own (a solution's function keeps its Q, K and V to itself)
OWN_SCOPE = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def top_level_names(source: str) -> set[str]:
    """The names a cell binds at its top level: what running it leaves behind in the notebook."""
    python = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    bound = set()

    def visit(node) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(child.name)
            elif isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
                bound.add(child.id)
            elif isinstance(child, ast.alias):
                bound.add((child.asname or child.name).split(".")[0])
            if not isinstance(child, OWN_SCOPE):
                visit(child)

    visit(ast.parse(python))
    return bound


def taken_from_elsewhere(source: str) -> set[str]:
    """The names a body cell reads but does not bind itself: it takes them from another cell."""
    return names(source)[1] - top_level_names(source)


def rebound_by_solutions(path: Path) -> dict[str, list[int]]:
    """Each name a body cell takes from another cell that a solution's code binds, with the
    solutions' numbers (0-based, in the chapter's order)."""
    notebook = nbformat.read(path, as_version=4)
    body, _ = split(notebook)
    taken = set().union(*(taken_from_elsewhere(notebook.cells[i].source) for i in body))
    found: dict[str, list[int]] = {}
    for k, code in enumerate(solution_codes(str(path.relative_to(ROOT)))):
        for name in sorted((top_level_names(code) - {"_"}) & taken):
            found.setdefault(name, []).append(k)
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_solution_rebinds_a_name_the_chapter_body_takes_from_another_cell(path):
    assert rebound_by_solutions(path) == {}, "give the solution's name one of its own (X_try, n_words, …)"


def test_the_solution_check_sees_top_level_names_only():
    assert taken_from_elsewhere("n = 6\nX = np.zeros((n, 4))") == {"np"}
    assert taken_from_elsewhere("print(X.shape, n_heads)") == {"print", "X", "n_heads"}
    solution = "def mine(X):\n    n, d = X.shape\n    return n\n\nrows = [n for n in range(3)]\nn_heads = 2"
    assert top_level_names(solution) == {"mine", "rows", "n_heads"}


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[_subject(p)]))
        if _subject(p) in NOT_YET
        else p
        for p in CHAPTERS
    ],
    ids=[p.stem for p in CHAPTERS],
)
def test_no_exercise_stub_rebinds_a_name_the_chapter_body_uses(path):
    assert rebound(path) == {}, "name the stub's function or variable my_… (or give it a name of its own)"


def test_the_static_check_catches_a_stub_that_shadows_a_library_function():
    body, stub = "from attnlib import causal_mask\nmask = causal_mask(4)", "def causal_mask(n):\n    ..."
    assert names(stub)[0] & set().union(*names(body)) == {"causal_mask"}
    assert names("def my_causal_mask(n):\n    ...")[0] & set().union(*names(body)) == set()


@pytest.mark.end_to_end
@pytest.mark.parametrize("subject", ["masks", "many_heads"])
def test_a_chapter_survives_its_stubs_run_twice_and_earlier_cells_run_again(subject):
    """Every stub run twice, then the cell before it again; at the end every cell of the body again
    but the imports, as a learner scrolling back would. An error fails the test, naming its cell."""
    from nbclient import NotebookClient

    path = next((ROOT / "chapters").glob(f"[0-9][0-9]_{subject}.ipynb"))
    notebook = nbformat.read(path, as_version=4)
    body, stubs = split(notebook)
    code = sorted(body + stubs)
    order = []
    for i in code:
        order.append(i)
        if i in stubs:
            order += [i, code[code.index(i) - 1]]
    order += [i for i in body if not re.search(r"^\s*(import|from)\s", notebook.cells[i].source, re.MULTILINE)]
    client = NotebookClient(notebook, timeout=300, resources={"metadata": {"path": str(path.parent)}})
    with client.setup_kernel():
        for i in order:
            client.execute_cell(notebook.cells[i], i)
