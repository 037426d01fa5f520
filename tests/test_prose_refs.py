"""The prose points at things the reader can see.

- An exercise is named the way the reader sees it ("Exercise 9.3", or its chapter and its place),
  never by its label: labels are not printed on the built page, in JupyterLab or on paper, and a
  stale one (`weighted-sum-stable`, left by a renaming) points at nothing.
- The comment of an answer cell ("replace None with ...") asks for the kind of answer its statement
  asks for: not "a whole number" where the statement asks for a factor such as 0.5, not a number
  where it asks for a pair.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
_LABEL = re.compile(r":label: (\S+)")
_TICKED = re.compile(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _labels() -> set[str]:
    return {m for path in CHAPTERS for c in _cells(path) for m in _LABEL.findall("".join(c["source"]))}


def _subject_prefixes() -> set[str]:
    """ "softmax-", "weighted-sum-": the start every exercise label of a chapter shares (its file's subject)."""
    return {path.stem.split("_", 1)[1].replace("_", "-") + "-" for path in CHAPTERS}


def test_the_rule_sees_a_label_named_in_prose():
    prose = "its exercise `weighted-sum-stable` built one; `plain-numpy` is an implementation"
    named = [t for t in _TICKED.findall(prose) if any(t.startswith(p) for p in _subject_prefixes())]
    assert named == ["weighted-sum-stable"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_prose_names_an_exercise_by_its_label(path):
    prefixes, labels = _subject_prefixes(), _labels()
    for k, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "markdown":
            continue
        for token in _TICKED.findall("".join(cell["source"])):
            if token in labels or any(token.startswith(p) for p in prefixes):
                state = "an exercise label" if token in labels else "no exercise label at all"
                raise AssertionError(
                    f"{path.name} cell {k}: `{token}` is {state}; the reader never sees labels: "
                    "name the exercise as the book numbers it (Exercise 9.3)"
                )


_PLACEHOLDER = re.compile(r"^\w+ = None\s+# replace None with (.+)$", re.MULTILINE)


def _statement_before(cells: list[dict], k: int) -> str:
    for cell in reversed(cells[:k]):
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and ":::{exercise}" in text:
            return text[text.rindex(":::{exercise}") :]
    return ""


def _mismatch(comment: str, statement: str) -> str | None:
    if "whole number" in comment and "whole number" not in statement:
        return "the comment asks for a whole number, the statement does not"
    if re.search(r"\bpair\b", statement, re.IGNORECASE) and re.search(r"\b(a|one) (whole )?number\b", comment):
        return "the statement asks for a pair, the comment for one number"
    return None


def test_the_rule_sees_a_placeholder_that_asks_for_the_wrong_kind():
    assert _mismatch("a whole number", "Give one number: 2 would mean twice as much work, 0.5 half as much.")
    assert _mismatch("a whole number", "Answer with the pair (factor a, factor b).")
    assert _mismatch("one number, the factor (2 means twice the work)", "Give one number: 0.5 half as much.") is None


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_placeholder_asks_for_what_its_statement_asks(path):
    cells = _cells(path)
    for k, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        for comment in _PLACEHOLDER.findall("".join(cell["source"])):
            problem = _mismatch(comment, _statement_before(cells, k))
            assert problem is None, f"{path.name} cell {k}: {problem}: {comment!r}"
