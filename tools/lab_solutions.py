"""Fold every solution into one folded markdown block, so no run of the notebook shows an answer.

    .venv/bin/python tools/lab_solutions.py chapters/[0-9][0-9]_*.ipynb        # fold in place
    .venv/bin/python tools/lab_solutions.py --check chapters/[0-9][0-9]_*.ipynb  # exit 1 if any needs it

A chapter is written with executable solutions: a `solution-start` markdown cell, the solution's
cells (code whose first line is "# Solution", and explanations), and a `solution-end` cell.
`make execute` runs them with the rest of the chapter, then this script folds each such gate into
ONE markdown cell, a sphinx-exercise `{solution}` directive with `:class: dropdown`, that holds the
explanation, the code in a ```python block and what it printed in a ```text block after
"It prints:". Why not code cells: JupyterLab's Run All runs every code cell and shows its output
(CodeCell.execute sets outputHidden = false), so a collapsed solution cell opened its answer under
the learner's empty exercise cell, and autosave wrote it open. A markdown solution is never run:
the book (sphinx-exercise) and JupyterLab (jupyterlab-myst) both draw it as one folded "Solution"
bar, and one click opens the whole of it, code and output.

The bar is a plain `{admonition} Solution` with `:class: dropdown`, and the `{solution}` (not a
dropdown itself) is inside it: sphinx-exercise and jupyterlab-myst both title a solution "Solution
to Exercise N" with "Exercise N" a link to the exercise, and in a `<summary>` that link took the
click (JupyterLab jumped to the exercise and left the solution folded). So the bar holds no link,
and the title that names the exercise, link and all, is the first line of the opened solution.
Every `{solution}` with `:class: dropdown` in a markdown cell, written by hand or folded by an
older version of this script, is put in such a bar too (`bar`).

`unfold` turns a folded block back into the executable gate (tools/prepare_notebooks.py calls it
first in `make execute`, so a re-run refreshes every solution's output), and under nbval each
solution's code runs after its chapter and is compared with its stored output (tests/conftest.py).
Both directions are idempotent; fold(unfold(folded)) == folded. The script writes a notebook only
when it changed. A gate it cannot fold without losing or mixing up text (text before
`solution-start` or after `solution-end` in the same cell, a ``` fence in an explanation, an output
that is not printed text, a "# Solution" code cell outside any gate) is named, and the script exits
with status 2, so the chapter can be fixed.
"""

from __future__ import annotations

import argparse
import copy
import re
import subprocess
import sys
from pathlib import Path

import nbformat

FENCE = r"(?::{3,}|`{3,})"
COMMENTS = r"(?:[ \t]*%[^\n]*\n)*"  # MyST comment lines, such as the labels of the earlier layout
START = re.compile(
    rf"^{COMMENTS}\s*({FENCE})\s*\{{solution-start\}}[ \t]*(\S+)[^\n]*\n((?::[^\n]*\n)*)\s*\1[ \t]*(?:\n|\Z)"
)
START_ANYWHERE = re.compile(rf"^\s*{FENCE}\s*\{{solution-start\}}", re.MULTILINE)
END_LAST = re.compile(rf"^\s*({FENCE})\s*\{{solution-end\}}[^\n]*\n\s*\1\s*\Z", re.MULTILINE)
END_ANYWHERE = re.compile(rf"^\s*{FENCE}\s*\{{solution-end\}}", re.MULTILINE)
LABEL_LINE = re.compile(r"^[ \t]*%[ \t]*(?:solution|end of solution)[^\n]*(?:\n|\Z)", re.IGNORECASE)
CODE_LABEL = re.compile(r"^\s*#[ \t]*solution\b[^\n]*(?:\n|\Z)", re.IGNORECASE)
BACKTICKS = re.compile(r"^[ \t]*`{3,}", re.MULTILINE)

#: the cell metadata that marks a markdown cell as a folded solution (unfold touches no other cell)
MARK = "attnlib"
MARK_VALUE = {"solution": "folded"}
#: the line between a solution's code and what it printed
PRINTS = "It prints:"
#: the longest line of a solution's code (an opened solution in JupyterLab, the book on a laptop)
SHORT_LINE = 88
#: the words of a folded solution's bar (plain text: a link there would take the click)
BAR_TITLE = "Solution"
#: a `{solution}` directive in a markdown cell: its fence, label, option lines and body
SOLUTION = re.compile(
    r"^(:{3,})\{solution\}[ \t]*(\S+)[ \t]*\n((?::[^\n]*\n)*)(.*?)\n\1[ \t]*$", re.MULTILINE | re.DOTALL
)
#: a solution in its bar: the bar's fence, then the solution's fence, label, option lines and body
BAR = re.compile(
    rf"^(:{{4,}})\{{admonition\}}[ \t]*{BAR_TITLE}[ \t]*\n:class:[ \t]*dropdown[ \t]*\n\n"
    r"(:{3,})\{solution\}[ \t]*(\S+)[ \t]*\n((?::[^\n]*\n)*)(.*?)\n\2[ \t]*\n\1[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
CLASS_OPTION = re.compile(r"^:class:[ \t]*(.*?)[ \t]*$")


def text_of(cell: dict) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def is_solution_code(cell: dict) -> bool:
    """A code cell whose first line is "# Solution" (any case)."""
    return cell.get("cell_type") == "code" and CODE_LABEL.match(text_of(cell)) is not None


def is_folded(cell: dict) -> bool:
    return cell.get("cell_type") == "markdown" and cell.get("metadata", {}).get(MARK) == MARK_VALUE


def _fence(text: str, char: str) -> str:
    """A fence of `char` longer than any run of it that starts a line of text."""
    runs = [len(m) for m in re.findall(rf"^[ \t]*({re.escape(char)}{{3,}})", text, re.MULTILINE)]
    return char * max([3] + [n + 1 for n in runs])


def _with_class(options: str, dropdown: bool) -> tuple[str, bool]:
    """The option lines with the class `dropdown` left out (dropdown=False) or put in (True), and
    whether they had it."""
    lines, had, placed = [], False, False
    for line in options.splitlines():
        match = CLASS_OPTION.match(line)
        if match:
            names = match.group(1).split()
            had = "dropdown" in names
            names = (["dropdown"] if dropdown else []) + [n for n in names if n != "dropdown"]
            placed = True
            if names:
                lines.append(":class: " + " ".join(names))
        else:
            lines.append(line)
    if dropdown and not placed:
        lines.insert(0, ":class: dropdown")
    return "".join(line + "\n" for line in lines), had


def _in_bar(match: re.Match) -> str:
    fence, label, options, body = match.groups()
    inner, dropdown = _with_class(options, dropdown=False)
    if not dropdown:
        return match.group(0)
    outer = fence + ":"
    return f"{outer}{{admonition}} {BAR_TITLE}\n:class: dropdown\n\n{fence}{{solution}} {label}\n{inner}{body}\n{fence}\n{outer}"


def bar(text: str) -> str:
    """The markdown with every `{solution}` that is a dropdown put, as a plain solution, in a folded
    "Solution" bar (see the module's docstring). Idempotent: a solution in its bar stays as it is."""
    return SOLUTION.sub(_in_bar, unbar(text))


def unbar(text: str) -> str:
    """The markdown with every solution in its bar written as the one `{solution}` dropdown it was."""

    def back(match: re.Match) -> str:
        _, fence, label, options, body = match.groups()
        return f"{fence}{{solution}} {label}\n{_with_class(options, dropdown=True)[0]}{body}\n{fence}"

    return BAR.sub(back, text)


def _printed(cell: dict) -> tuple[str, list[str]]:
    """What a solution's code printed, and what it shows that is not printed text (a problem)."""
    printed, other = "", []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            printed += text_of({"source": out.get("text", "")})
        else:
            other.append(out.get("name") or out.get("output_type"))
    return printed, other


def short_lines(code: str) -> str:
    """The code with no line longer than SHORT_LINE: a longer one is re-wrapped by ruff's formatter,
    which breaks it inside its brackets, so it stays the same Python. JupyterLab's "wrap long
    lines" is for code cells only: in a solution (a code block in markdown) a long line ran out of
    its box. Code that ruff cannot read is left as it is."""
    if max((len(line) for line in code.splitlines()), default=0) <= SHORT_LINE:
        return code
    ruff = Path(sys.executable).with_name("ruff")
    command = [str(ruff) if ruff.is_file() else "ruff", "format", f"--line-length={SHORT_LINE}", "--isolated", "-"]
    try:
        done = subprocess.run(command, input=code, capture_output=True, text=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return code
    return done.stdout.strip("\n")


def _code_block(cell: dict) -> str:
    code = short_lines(CODE_LABEL.sub("", text_of(cell), count=1).strip("\n"))
    printed = _printed(cell)[0].rstrip("\n")
    fence = _fence(code, "`")
    block = f"{fence}python\n{code}\n{fence}"
    if printed:
        out = _fence(printed, "`")
        block += f"\n\n{PRINTS}\n\n{out}text\n{printed}\n{out}"
    return block


def _explanation(cell: dict, first: bool, last: bool) -> str:
    text = text_of(cell)
    while LABEL_LINE.match(text):
        text = LABEL_LINE.sub("", text, count=1)
    if first:
        text = START.sub("", text, count=1)
    if last:
        text = END_LAST.sub("", text, count=1)
    return text.strip("\n")


def fold_gate(cells: list[dict]) -> dict:
    """One markdown cell for a gate: cells[0] opens it (`solution-start`), cells[-1] closes it."""
    match = START.match(text_of(cells[0]))
    label, options = match.group(2), match.group(3)
    parts = []
    for i, cell in enumerate(cells):
        if cell.get("cell_type") == "code":
            parts.append(_code_block(cell))
        else:
            parts.append(_explanation(cell, first=i == 0, last=i == len(cells) - 1))
    body = "\n\n".join(p for p in parts if p)
    fence = _fence(body, ":")
    options = _with_class(options, dropdown=True)[0]
    source = bar(f"{fence}{{solution}} {label}\n{options}\n{body}\n{fence}")
    metadata = {k: v for k, v in cells[0].get("metadata", {}).items() if k != "jupyter"}
    metadata[MARK] = dict(MARK_VALUE)
    cell = nbformat.v4.new_markdown_cell(source, metadata=metadata)
    if "id" in cells[0]:
        cell["id"] = cells[0]["id"]
    return cell


def _gate_problems(i: int, cells: list[dict]) -> list[str]:
    problems = []
    if not START.match(text_of(cells[0])):
        problems.append(
            f"cell {i}: text before {{solution-start}} would be hidden with the solution; "
            "put the directive at the start of its own cell"
        )
    if not END_LAST.search(text_of(cells[-1])):
        problems.append(
            f"cell {i + len(cells) - 1}: text after {{solution-end}} would be hidden with the solution; "
            "end the cell with the directive"
        )
    for j, cell in enumerate(cells, i):
        if cell.get("cell_type") == "markdown" and BACKTICKS.search(text_of(cell)):
            problems.append(f"cell {j}: a ``` block in a solution's explanation: write code in a code cell")
        if cell.get("cell_type") == "code":
            other = _printed(cell)[1]
            if other:
                problems.append(f"cell {j}: a solution shows {', '.join(other)}: only printed text can be folded")
        elif cell.get("cell_type") != "markdown":
            problems.append(f"cell {j}: a {cell.get('cell_type')} cell in a solution")
    return problems


def fold(nb: dict) -> tuple[int, list[str]]:
    """Fold every gate of one notebook in place, and put every solution dropdown in its bar; return
    (solutions folded or put in their bar, problems found)."""
    cells, out, problems, folded, barred, i = nb.get("cells", []), [], [], 0, 0, 0
    while i < len(cells):
        cell = cells[i]
        text = text_of(cell)
        if cell.get("cell_type") == "markdown" and START_ANYWHERE.search(text):
            end = next(
                (
                    j
                    for j in range(i, len(cells))
                    if cells[j].get("cell_type") == "markdown" and END_ANYWHERE.search(text_of(cells[j]))
                ),
                None,
            )
            if end is None:
                problems.append(f"cell {i}: a {{solution-start}} has no {{solution-end}} after it")
                out += cells[i:]
                break
            gate = cells[i : end + 1]
            found = _gate_problems(i, gate)
            problems += found
            out += gate if found else [fold_gate(gate)]
            folded += not found
            i = end + 1
            continue
        if is_solution_code(cell):
            problems.append(
                f"cell {i}: a '# Solution' code cell outside a {{solution-start}} ... {{solution-end}} gate"
            )
        if cell.get("cell_type") == "markdown" and bar(text) != text:
            cell = copy.deepcopy(cell)
            cell["source"] = bar(text)
            barred += 1
        out.append(cell)
        i += 1
    if folded or barred:
        nb["cells"] = out
    if folded:
        _renumber(out)
    return folded + barred, problems


def _renumber(cells: list[dict]) -> None:
    """Execution counts 1..N, as Run All of the folded notebook gives them (when every code cell has one)."""
    code = [c for c in cells if c.get("cell_type") == "code" and text_of(c).strip()]
    if not code or any(c.get("execution_count") is None for c in code):
        return
    for n, cell in enumerate(code, 1):
        cell["execution_count"] = n
        for output in cell.get("outputs", []):
            if output.get("execution_count") is not None:
                output["execution_count"] = n


FOLDED = re.compile(r"\A(:{3,})\{solution\}[ \t]*(\S+)[ \t]*\n((?::[^\n]*\n)*)(.*)\n\1[ \t]*\Z", re.DOTALL)
CODE_BLOCK = re.compile(
    r"^(`{3,})python[ \t]*\n(.*?)\n\1[ \t]*$"
    rf"(?:\n\n{re.escape(PRINTS)}\n\n(`{{3,}})text[ \t]*\n(.*?)\n\3[ \t]*$)?",
    re.MULTILINE | re.DOTALL,
)


def unfold_cell(cell: dict) -> list[dict]:
    """The executable gate a folded solution was made from: solution-start, its cells, solution-end."""
    match = FOLDED.match(unbar(text_of(cell)))
    if match is None:
        raise ValueError(f"cell {cell.get('id')}: marked as a folded solution but not a {{solution}} block")
    fence, label, options, body = match.groups()
    start_text = f"{fence}{{solution-start}} {label}\n{options}{fence}"
    parts, at = [], 0
    for block in CODE_BLOCK.finditer(body):
        parts.append(("markdown", body[at : block.start()].strip("\n")))
        parts.append(("code", block))
        at = block.end()
    parts.append(("markdown", body[at:].strip("\n")))
    cells = []
    if parts[0][1]:
        start_text += "\n\n" + parts[0][1]
    metadata = {k: v for k, v in cell.get("metadata", {}).items() if k != MARK}
    cells.append(nbformat.v4.new_markdown_cell(start_text, metadata=metadata))
    for kind, part in parts[1:]:
        if kind == "markdown" and part:
            cells.append(nbformat.v4.new_markdown_cell(part))
        elif kind == "code":
            code = nbformat.v4.new_code_cell("# Solution\n" + part.group(2))
            if part.group(4) is not None:
                code.outputs = [nbformat.v4.new_output("stream", name="stdout", text=part.group(4) + "\n")]
            cells.append(code)
    cells.append(nbformat.v4.new_markdown_cell(f"{fence}{{solution-end}}\n{fence}"))
    base = cell.get("id")
    for n, new in enumerate(cells):
        if base is None:
            new.pop("id", None)
        else:
            new["id"] = base if n == 0 else f"{base[:60]}-{n}"
    return cells


def unfold(nb: dict) -> int:
    """Unfold every folded solution of one notebook in place; return how many."""
    cells, count = [], 0
    for cell in nb.get("cells", []):
        if is_folded(cell):
            cells += unfold_cell(cell)
            count += 1
        else:
            cells.append(cell)
    nb["cells"] = cells
    return count


def solution_codes(nb: dict) -> list[str]:
    """The code of every solution, folded or not, without its "# Solution" line."""
    codes = []
    for cell in nb.get("cells", []):
        for part in unfold_cell(cell) if is_folded(cell) else [cell]:
            if is_solution_code(part):
                codes.append(CODE_LABEL.sub("", text_of(part), count=1))
    return codes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fold every solution into one folded markdown block.")
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
        folded, problems = fold(nb)
        for problem in problems:
            print(f"{path}: {problem}", file=sys.stderr)
            status = 2
        if folded and args.check:
            print(f"{path}: {folded} solution(s) would be folded")
            status = status or 1
        elif folded:
            path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
            print(f"{path}: folded {folded} solution(s)")
    return status


if __name__ == "__main__":
    sys.exit(main())
