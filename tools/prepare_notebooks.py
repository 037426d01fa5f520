"""Put every chapter notebook in the form the reader and JupyterLab expect. Idempotent.

    .venv/bin/python tools/prepare_notebooks.py            # rewrite chapters/[0-9][0-9]_*.ipynb
    .venv/bin/python tools/prepare_notebooks.py --check    # exit 1 and list what would change
    .venv/bin/python tools/prepare_notebooks.py path.ipynb ...

Three things, none of which changes what a stored output shows:

1. The course-package guard. A notebook downloaded from the book (its download button) and
   opened anywhere else used to stop at `import attnlib` with a bare ModuleNotFoundError and its
   traceback. A small code cell, GUARD, now comes before the first code cell that imports
   attnlib: inside the course the import just works and the cell prints nothing; elsewhere the
   cell shows one line that says how to get the course, and "Run all" stops there. A learner
   does not read it: the book leaves the cell out (tag `remove-cell`; it prints nothing inside
   the course), and JupyterLab shows it collapsed, as one bar that reads its first line, LABEL.
   When the notebook's stored outputs are complete
   (execution counts 1..N), the guard cell gets count 1 and every later count moves up by one,
   as a fresh run gives (the guard prints nothing), so nothing else changes.

2. What JupyterLab rewrites on open. Opening a notebook in JupyterLab 4.6 and starting its
   kernel replaces `metadata.kernelspec` with the running kernel's own spec; ours said
   "display_name": "Python 3", ipykernel's spec says "Python 3 (ipykernel)", so every chapter
   opened already marked modified. (Found by opening each chapter headless in JupyterLab and
   saving it: that was the only difference.) Here the kernelspec is stored as ipykernel writes it,
   and the file is written as JupyterLab and nbformat write it (nbformat 4.5 with cell ids,
   indent 1, sorted keys, UTF-8, final newline).

3. The solutions made executable again. tools/lab_solutions.py folds each solution into one
   markdown `{solution}` block after `make execute` has run it; here each folded block becomes
   its executable gate again (`solution-start`, the "# Solution" code cell with the output it
   printed, `solution-end`), so that `make execute` runs every solution with its chapter and
   lab_solutions.py folds it again with its fresh output.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location("lab_solutions", Path(__file__).with_name("lab_solutions.py"))
lab_solutions = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(lab_solutions)
CHAPTERS = "chapters/[0-9][0-9]_*.ipynb"

#: the kernelspec of ipykernel's python3 kernel, as JupyterLab stores it once the kernel starts
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}

#: the guard cell's first line: what JupyterLab shows on its collapsed bar
LABEL = "# Setup: checks that attnlib, the course package, is installed (nothing to do here)"
MARKER = LABEL
#: the book leaves the guard cell out; JupyterLab shows it collapsed (jupyter.source_hidden)
TAG = "remove-cell"
#: the one line a learner sees when attnlib cannot be imported (two source lines, for a phone)
MESSAGE_LINES = (
    "This notebook needs attnlib, the package of the course 'Attention, from the ground up'. ",
    "Get the whole course folder, run `make lab` in it, and open the notebook from chapters/.",
)
MESSAGE = "".join(MESSAGE_LINES)
#: the guard cell. IPython shows an exception that has a _render_traceback_ method as the lines it
#: returns: here the one line of MESSAGE.
GUARD = f'''{LABEL}
try:
    import attnlib
except ModuleNotFoundError:
    class CourseNotFound(Exception):
        def _render_traceback_(self):
            return [str(self)]
    raise CourseNotFound(
        "{MESSAGE_LINES[0]}"
        "{MESSAGE_LINES[1]}") from None'''


def imports_attnlib(source: str) -> bool:
    return any(
        line.split("#")[0].strip().startswith(("import attnlib", "from attnlib")) for line in source.splitlines()
    )


def is_guard(cell) -> bool:
    return cell.cell_type == "code" and cell.source.startswith(LABEL)


def without_guard(source: str) -> str:
    """A cell's own lines: no plain `import attnlib` (the guard cell imports it)."""
    rest = [line for line in source.splitlines() if line.strip() != "import attnlib"]
    while rest and not rest[0].strip():
        rest.pop(0)
    return "\n".join(rest)


def guard_cell() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(GUARD)
    cell.metadata = {"jupyter": {"source_hidden": True}, "tags": [TAG]}
    return cell


def _fully_executed(nb) -> bool:
    counts = [c.get("execution_count") for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    return bool(counts) and counts == list(range(1, len(counts) + 1))


def _shift_counts(cells, by: int) -> None:
    for cell in cells:
        if cell.cell_type == "code" and cell.get("execution_count") is not None:
            cell.execution_count += by
            for output in cell.get("outputs", []):
                if output.get("execution_count") is not None:
                    output["execution_count"] += by


def add_guard(nb) -> None:
    """Put the guard cell before the first code cell that imports attnlib (once)."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    first = next((c for c in code if imports_attnlib(c.source)), None)
    if first is None or is_guard(first):
        return
    executed = _fully_executed(nb)
    rest = without_guard(first.source)
    if not rest:  # the cell held only the import: it becomes the guard cell
        first.source, first.metadata = GUARD, guard_cell().metadata
        return
    first.source = rest
    guard = guard_cell()
    if executed:  # the guard runs just before `first`: it takes first's count, and the rest move up one
        before = code.index(first)
        _shift_counts(code[before:], 1)
        guard.execution_count = before + 1
    nb.cells.insert(nb.cells.index(first), guard)


def prepare(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook with the guard cell, Lab's kernelspec, and its solutions executable (unfolded)."""
    nb.nbformat, nb.nbformat_minor = 4, max(5, nb.get("nbformat_minor", 0))
    lab_solutions.unfold(nb)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    add_guard(nb)
    _changed, nb = nbformat.validator.normalize(nb)  # adds a missing cell id, drops stray keys
    return nbformat.from_dict(nb)


def as_text(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"


def process(path: Path, check: bool = False) -> bool:
    """Rewrite one notebook in place (or, with check, only compare); True when it changes."""
    before = path.read_text(encoding="utf-8")
    after = as_text(prepare(nbformat.reads(before, as_version=4)))
    if after == before:
        return False
    if not check:
        path.write_text(after, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help=f"default: {CHAPTERS}")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook would change")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(ROOT.glob(CHAPTERS))
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    changed = [p for p in paths if process(p, check=args.check)]
    verb = "would change" if args.check else "changed"
    for p in changed:
        print(f"{verb}: {p}")
    print(f"{len(changed)} of {len(paths)} notebooks {verb}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
