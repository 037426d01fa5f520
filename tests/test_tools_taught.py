"""Every tool an exercise needs is taught, in the body of a chapter, no later than that exercise.

A learner who has read chapters 1 to N must be able to do chapter N's exercises. So each Python or
numpy tool that is more than "a loop, a list, a function" (what the introduction asks a learner to
know) has ONE teaching chapter in TOOLS, named by subject so that the table follows the chapters
when they move (`attnlib.course`). The test fails when

- an exercise of a chapter that comes BEFORE the tool's teaching chapter uses the tool, or
- the teaching chapter does not show the tool in its body (the cells before `## Exercises`).

What counts as "used by an exercise": everything a learner reads to do the exercises, that is every
cell from the chapter's `## Exercises` heading to its end: the statements, the code cells a learner
runs or fills in, and the solutions (markdown and code), since a solution that uses an untaught
tool teaches it by the back door. In markdown only code (`inline` and fenced) is searched, so that
prose such as "about 3" or an italic *Predict* is not read as code; in code cells comments are
left out. The checkers' hints are not searched: a hint may point to a tool, but it must not be the
first place a tool is met, and the chapter text is where this test looks for the teaching.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

import pytest

from attnlib import course

ROOT = Path(__file__).resolve().parents[1]

#: tool -> (what the learner writes, as a regex; the subject of the chapter that teaches it)
TOOLS: dict[str, tuple[str, str]] = {
    "math.sqrt": (r"\bmath\.sqrt\(", "vectors"),
    "key=, what min, max or sorted compare": (r"\bkey\s*=", "vectors"),
    "star: spread a list into arguments, f(*a)": (r"[(,]\s*\*(?![*\s])[A-Za-z_]", "vectors"),
    ".shape": (r"\.shape\b", "the_matrix_x"),
    "axis=": (r"\baxis\s*=", "the_matrix_x"),
    "keepdims": (r"\bkeepdims\b", "the_matrix_x"),
    "None for a new axis, [:, None]": (r"\[[^\[\]\n]*\bNone\b[^\[\]\n]*\]", "the_matrix_x"),
    ".copy() against aliasing": (r"\.copy\(\)", "the_matrix_x"),
    "raise": (r"\braise\b", "the_matrix_x"),
    "try/except": (r"\btry\s*:|\bexcept\b", "the_matrix_x"),
    "assert": (r"\bassert\b", "shapes_in_r"),
    "@, the matrix product": (r"[\w)\]]\s*@\s*[\w(]", "matrix_multiplication"),
    "//, division to a whole number": (r"(?<![:/])//(?!/)", "query_key_value"),
    "np.argmax": (r"\bargmax\(", "query_key_value"),
    ".T, the transpose": (r"\.T\b", "transpose"),
    "np.exp": (r"\bnp\.exp\(", "softmax"),
    ".reshape": (r"\.reshape\(", "many_heads"),
    "np.where / torch.where": (r"\b(?:np|torch)\.where\(", "masks"),
    "~, not, entry by entry": (r"~\s*[\w(]", "masks"),
    "np.arctan2": (r"\bnp\.arctan2\(", "learning_the_lenses"),
    "nn.Parameter": (r"\bParameter\b", "learning_the_lenses"),
    "optimisers, torch.optim": (r"\boptim\.", "learning_the_lenses"),
}

_INLINE = re.compile(r"``(.+?)``|`([^`\n]+)`")
_FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1", re.MULTILINE | re.DOTALL)


def _markdown_code(text: str) -> str:
    """The code in a markdown cell: its fenced blocks and its `inline` spans, nothing else."""
    blocks = [m.group(2) for m in _FENCE.finditer(text)]
    rest = _FENCE.sub("", text)
    spans = [a or b for a, b in _INLINE.findall(rest)]
    return "\n".join(blocks + spans)


def _without_comments(code: str) -> str:
    """A code cell's source with its comments left out (the source itself if it does not tokenize)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return code
    lines = code.splitlines(keepends=True)
    for tok in reversed(tokens):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col] + lines[row - 1][tok.end[1] :]
    return "".join(lines)


def _parts(stem: str) -> tuple[str, str]:
    """(body, exercises) of a chapter: the code a learner reads before and after `## Exercises`."""
    cells = json.loads((ROOT / "chapters" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    body, exercises, seen = [], [], False
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and re.search(r"^## Exercises\s*$", source, re.MULTILINE):
            seen = True
        if "remove-cell" in cell.get("metadata", {}).get("tags", []):
            continue  # the course-package guard: the book leaves it out, a learner never reads it
        code = _markdown_code(source) if cell["cell_type"] == "markdown" else _without_comments(source)
        (exercises if seen else body).append(code)
    return "\n".join(body), "\n".join(exercises)


def _uses(text: str, pattern: str) -> list[str]:
    """The lines of text where the tool appears."""
    return [line.strip() for line in text.splitlines() if re.search(pattern, line)]


CHAPTERS = course.chapters()


def test_every_tool_has_a_teaching_chapter_in_the_book():
    subjects = {subject for _, subject, _ in CHAPTERS}
    assert {teacher for _, teacher in TOOLS.values()} <= subjects


def test_the_patterns_find_the_tools_and_only_them():
    sample = {
        "math.sqrt": ["length = math.sqrt(s)"],
        "star: spread a list into arguments, f(*a)": ["math.hypot(*a)", "print(x, *rest)"],
        "None for a new axis, [:, None]": ["mask[:, None]", "x[None, :, :]"],
        "//, division to a whole number": ["d_model // h"],
        "~, not, entry by entry": ["~mask", "np.where(~ok, 0, x)"],
        "@, the matrix product": ["X @ W", "(Q @ K.T)"],
        ".T, the transpose": ["K.T", "M.T.T"],
    }
    for tool, lines in sample.items():
        for line in lines:
            assert re.search(TOOLS[tool][0], line), (tool, line)
    innocent = ["answer = None", "2 * x", "a * b", "[False] * 6", "https://example.org", "K.Tx", "x = 3  # ~ 3"]
    for tool, (pattern, _) in TOOLS.items():
        for line in innocent:
            assert not re.search(pattern, _without_comments(line)), (tool, line)


def test_markdown_is_searched_only_in_its_code():
    text = "*Predict first.* about ~3, `x[:, None]` and\n```python\nK_new = K.copy()\n```\n"
    code = _markdown_code(text)
    assert "Predict" not in code and "~3" not in code
    assert "x[:, None]" in code and "K.copy()" in code


@pytest.mark.parametrize("number, subject, stem", CHAPTERS, ids=[f"chapter {n} {s}" for n, s, _ in CHAPTERS])
def test_the_exercises_use_only_tools_taught_by_then(number, subject, stem):
    _, exercises = _parts(stem)
    problems = []
    for tool, (pattern, teacher) in TOOLS.items():
        found = _uses(exercises, pattern)
        if not found:
            continue
        taught_in = course.number(teacher)
        teacher_stem = next(s for _, subj, s in CHAPTERS if subj == teacher)
        if taught_in > number:
            problems.append(
                f"{tool}: used by the exercises ({found[0]!r}) but taught only in {course.chapter_ref(teacher)}"
            )
        elif not _uses(_parts(teacher_stem)[0], pattern):
            problems.append(
                f"{tool}: used by the exercises ({found[0]!r}); {course.chapter_ref(teacher)} is to teach it, "
                "but its body never shows it"
            )
    assert not problems, f"{course.chapter_ref(subject, capital=True)}:\n" + "\n".join(problems)


@pytest.mark.parametrize("tool", list(TOOLS))
def test_each_teaching_chapter_shows_its_tool_in_its_body(tool):
    pattern, teacher = TOOLS[tool]
    stem = next(s for _, subj, s in CHAPTERS if subj == teacher)
    body, _ = _parts(stem)
    assert _uses(body, pattern), (
        f"{course.chapter_ref(teacher)} ({teacher}) is to teach {tool}, but its body never shows it"
    )
