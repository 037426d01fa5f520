"""Collapse every solution in JupyterLab, so a notebook shows no answer before the learner asks.

    .venv/bin/python tools/lab_solutions.py chapters/[0-9][0-9]_*.ipynb        # fix in place
    .venv/bin/python tools/lab_solutions.py --check chapters/[0-9][0-9]_*.ipynb  # exit 1 if any needs it

In the built book, sphinx-exercise hides a solution under a click: a `solution-start` markdown
cell opens it, the cells after it belong to it, and a `solution-end` cell closes it. JupyterLab
knows nothing of that gate: it shows the solution cells' code and stored outputs, and
jupyterlab-myst draws each `solution-start` / `solution-end` cell on its own, as an empty
"Start of Solution to Exercise 1 ›" dropdown bar with the explanation beside it, in plain view.

This script sets the metadata JupyterLab honours, and changes nothing the book shows:
- every cell from a `solution-start` cell to its `solution-end` cell, both included, and every
  code cell whose first line is "# Solution", gets "jupyter": {"source_hidden": true}; code cells
  also get "outputs_hidden": true. Lab shows each as a thin collapsed bar that opens on a click;
  myst-nb and sphinx-exercise ignore this metadata, so the book still gates the solution itself.
- Lab writes a collapsed cell's first line on its bar, so each such cell starts with a label:
  a MyST comment line in markdown ("% Solution", "% Solution, continued", "% End of solution"),
  which neither the book nor Lab renders, and "# Solution, continued" in a code cell inside a
  gate that lacks its "# Solution" line. The bar then never shows raw directives or a first line
  of the answer.
It is idempotent (a second run changes nothing) and writes a notebook only when it changed.
A gate cell that also holds text outside the solution (before `solution-start`, or after
`solution-end`) cannot be collapsed without hiding that text: the script names the cell and
exits with status 2, so the chapter can split it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

FENCE = r"(?::{3,}|`{3,})"
COMMENTS = r"(?:[ \t]*%[^\n]*\n)*"  # MyST comment lines, such as the label this script adds
START = re.compile(rf"^{COMMENTS}\s*{FENCE}\s*\{{solution-start\}}")
END_ONLY = re.compile(rf"^{COMMENTS}\s*({FENCE})\s*\{{solution-end\}}[^\n]*\n\s*\1\s*\Z")
START_ANYWHERE = re.compile(rf"^\s*{FENCE}\s*\{{solution-start\}}", re.MULTILINE)
END_LAST = re.compile(rf"^\s*({FENCE})\s*\{{solution-end\}}[^\n]*\n\s*\1\s*\Z", re.MULTILINE)
END_ANYWHERE = re.compile(rf"^\s*{FENCE}\s*\{{solution-end\}}", re.MULTILINE)


def is_solution_code(cell: dict) -> bool:
    """A code cell whose first line is "# Solution" (any case)."""
    return cell.get("cell_type") == "code" and cell.get("source", "").lstrip().lower().startswith("# solution")


def label(cell: dict, text: str) -> bool:
    """Give a collapsed cell a first line that says what it is: Lab shows that line on the collapsed bar.

    Markdown gets a MyST comment ("% Solution"), which neither the book nor Lab renders; code gets a
    Python comment. A cell whose first line already is such a label is left alone.
    """
    source = cell.get("source", "")
    first = source.lstrip().split("\n", 1)[0].strip().lower()
    if cell.get("cell_type") == "markdown":
        if first.startswith("%"):
            return False
        cell["source"] = f"% {text}\n{source}"
        return True
    if first.startswith("# solution"):
        return False
    cell["source"] = f"# {text}\n{source}"
    return True


def collapse(cell: dict) -> bool:
    """Mark one cell collapsed in JupyterLab (source, and outputs for code); True if it changed."""
    jupyter = cell.setdefault("metadata", {}).setdefault("jupyter", {})
    wanted = {"source_hidden": True}
    if cell.get("cell_type") == "code":
        wanted["outputs_hidden"] = True
    changed = any(jupyter.get(key) is not True for key in wanted)
    jupyter.update(wanted)
    return changed


def process(nb: dict) -> tuple[int, list[str]]:
    """Collapse (and label) the solution cells of one notebook; return (cells changed, problems found)."""
    changed, problems, in_gate = 0, [], False
    for i, cell in enumerate(nb.get("cells", [])):
        source = cell.get("source", "")
        hide = in_gate or is_solution_code(cell)
        name = "Solution, continued"
        if cell.get("cell_type") == "markdown":
            if START_ANYWHERE.search(source):
                if not START.match(source):
                    problems.append(
                        f"cell {i}: text before {{solution-start}} would be hidden with the solution; "
                        "put the directive at the start of its own cell"
                    )
                in_gate, hide, name = True, START.match(source) is not None, "Solution"
            if END_ANYWHERE.search(source):
                if in_gate and not END_LAST.search(source):
                    problems.append(
                        f"cell {i}: text after {{solution-end}} would be hidden with the solution; "
                        "end the cell with the directive"
                    )
                    hide = False
                if END_ONLY.match(source):
                    name = "End of solution"
                in_gate = False
        if hide:
            touched = label(cell, name)
            if collapse(cell) or touched:
                changed += 1
    if in_gate:
        problems.append("a {solution-start} has no {solution-end} after it")
    return changed, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Collapse every solution cell in JupyterLab (source and output).")
    parser.add_argument("notebooks", nargs="+", type=Path, help="chapter notebooks (.ipynb)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook needs this script")
    args = parser.parse_args(argv)
    status = 0
    for path in args.notebooks:
        if path.suffix != ".ipynb" or not path.is_file():
            print(f"{path}: not a notebook file", file=sys.stderr)
            return 2
        before = path.read_text(encoding="utf-8")
        nb = nbformat.reads(before, as_version=nbformat.NO_CONVERT)
        changed, problems = process(nb)
        for problem in problems:
            print(f"{path}: {problem}", file=sys.stderr)
            status = 2
        if changed and args.check:
            print(f"{path}: {changed} solution cell(s) would be collapsed")
            status = status or 1
        elif changed:
            path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
            print(f"{path}: collapsed {changed} solution cell(s)")
    return status


if __name__ == "__main__":
    sys.exit(main())
