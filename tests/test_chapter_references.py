"""A chapter number cannot go stale silently: every "chapter N" is a link whose number is checked.

In prose (the notebooks' Markdown cells, intro.md, chapters/checklist.md, reference.md, README.md)
every mention of a chapter by number is a link to that chapter's file, and the number shown is
the file's place in `_toc.yml` (read through `attnlib.course`):
`[chapter 9](09_softmax.ipynb)`, "chapters [9](09_softmax.ipynb) and [10](10_weighted_sum.ipynb)",
`{doc}`9 <chapters/09_softmax>``. The file a link points to exists.

In Python (strings, docstrings and comments of attnlib/, benchmarks/ and tools/) no chapter
number is typed by hand: `attnlib.course.chapter_ref("softmax")` gives it at run time, and a
docstring names the chapter by its subject ("the softmax chapter").

What is not a reference to check:
- a chapter named without a number: "this chapter", "the next chapter", "the softmax chapter";
- text in `inline code` in prose (it quotes code or what code prints, e.g. `chapter_ref("softmax")`
  shown with its result); a fenced code block is checked, since its comments are prose;
- links to anything but a chapter file;
- attnlib/course.py, whose docstrings show what `chapter_ref` returns, and
  tools/renumber_chapters.py, whose docstrings show the links it rewrites.
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
PROSE_FILES = ["intro.md", "chapters/checklist.md", "reference.md", "README.md"]
NOTEBOOKS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
CODE_FOLDERS = ["attnlib", "benchmarks", "tools"]
NOT_CHECKED = {"attnlib/course.py", "tools/renumber_chapters.py"}

MD_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]*)\)")
DOC_LINK = re.compile(r"\{doc\}`([^`<]*?)\s*<([^>`]+)>`")
CHAPTER_FILE = re.compile(r"(?:\.{1,2}/)*(?:chapters/)?(\d\d_\w+?)(\.ipynb|\.md)?(#[^\s]*)?")
LINK_TEXT = re.compile(r"(?:[Cc]hapters? )?(\d+)")
INLINE_CODE = re.compile(r"(`+)(?!`)[^\n]*?\1")  # `code` on one line; a fenced block is checked
SHOWN = "§"  # where a checked link stood: a chapter reference that is fine
# "chapter 9", "Chapters 9 and 10": a chapter number in plain text
BARE = re.compile(r"\b[Cc]hapters?\s+\d")
# "chapters § and 10", "chapters §–12": a list of chapters, some of them linked
LIST = re.compile(
    rf"\b[Cc]hapters\s+(?:{SHOWN}|\d+)(?:(?:\s*,\s*|\s*,?\s+(?:and|or|to)\s+|\s*[–-]\s*)(?:{SHOWN}|\d+))+"
)


def _numbers() -> dict[str, int]:
    return {stem: number for number, _, stem in course.chapters()}


def check_prose(text: str, folder: Path) -> list[str]:
    """What is wrong with the chapter references of a Markdown text in `folder` (empty: nothing)."""
    numbers, wrong = _numbers(), []

    def link(match: re.Match, target: str) -> str:
        text_shown = match.group(1).strip()
        base = ROOT if target.startswith("/") else folder  # {doc}`9 </chapters/09_softmax>`: from the book's root
        chapter = CHAPTER_FILE.fullmatch(target.lstrip("/"))
        if chapter is None:
            return match.group(0)
        stem, suffix = chapter.group(1), chapter.group(2)
        where = base / Path(target.lstrip("/")).parent
        candidates = [where / f"{stem}{suffix}"] if suffix else [where / f"{stem}{s}" for s in (".ipynb", ".md")]
        if not any(p.is_file() for p in candidates):
            wrong.append(f"{match.group(0)}: there is no file {target} beside this text")
        if stem not in numbers:
            wrong.append(f"{match.group(0)}: {stem} is not a numbered chapter of _toc.yml")
            return SHOWN
        if not re.search(r"\d", text_shown):
            return "the chapter"
        shown = LINK_TEXT.fullmatch(text_shown)
        if shown is None:
            wrong.append(f"{match.group(0)}: a chapter link shows 'chapter N' or 'N', not {text_shown!r}")
        elif int(shown.group(1)) != numbers[stem]:
            wrong.append(f"{match.group(0)}: shows {shown.group(1)}, but {stem} is chapter {numbers[stem]} of _toc.yml")
        return SHOWN

    text = DOC_LINK.sub(lambda m: link(m, m.group(2).split("#")[0]), text)
    text = INLINE_CODE.sub(" ", text)
    text = MD_LINK.sub(lambda m: link(m, m.group(2)), text)
    for found in LIST.finditer(text):
        for number in re.findall(r"\d+", found.group(0)):
            wrong.append(f"{found.group(0)!r}: {number} is not a link to its chapter")
    text = LIST.sub(SHOWN, text)
    wrong += [f"{_around(text, m.start())!r}: a chapter number that is not a link" for m in BARE.finditer(text)]
    return wrong


def _around(text: str, at: int) -> str:
    return " ".join(text[max(0, at - 30) : at + 40].split())


def check_python(source: str) -> list[str]:
    """ "line: text" for every hand-typed chapter number in the strings and comments of Python code."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.STRING, tokenize.COMMENT):
            for match in BARE.finditer(token.string):
                line = token.start[0] + token.string[: match.start()].count("\n")
                found.append(f"{line}: {_around(token.string, match.start())}")
    return found


def _prose_texts() -> list[tuple[str, str, Path]]:
    """(name, Markdown text, its folder) of every prose text whose references are checked."""
    texts = [(name, (ROOT / name).read_text(encoding="utf-8"), (ROOT / name).parent) for name in PROSE_FILES]
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for k, cell in enumerate(cells):
            if cell["cell_type"] == "markdown":
                texts.append((f"{path.relative_to(ROOT)} cell {k}", "".join(cell["source"]), path.parent))
    return texts


def _python_files() -> list[Path]:
    files = sorted(p for folder in CODE_FOLDERS for p in (ROOT / folder).rglob("*.py"))
    return [p for p in files if str(p.relative_to(ROOT)) not in NOT_CHECKED]


CHAPTERS = ROOT / "chapters"


@pytest.mark.parametrize(
    "text",
    [
        "as [chapter 9](09_softmax.ipynb) shows",
        "[Chapter 9](09_softmax.ipynb#the-formula) builds it",
        "chapters [9](09_softmax.ipynb) and [10](10_weighted_sum.ipynb)",
        "chapters [9](09_softmax.ipynb)–[11](11_masks.ipynb)",
        "see [the softmax chapter](09_softmax.ipynb), this chapter and the next chapter",
        "`chapter_ref('softmax')` is `\"chapter 9\"`",
        "```python\nfrom attnlib import scaling  # the scaling chapter's experiments\n```",
        "with {doc}`9 <09_softmax>` and [a page](https://example.org/chapter/9)",
    ],
)
def test_a_linked_or_numberless_chapter_reference_passes(text):
    assert check_prose(text, CHAPTERS) == []


@pytest.mark.parametrize(
    "text, complaint",
    [
        ("as chapter 9 shows", "not a link"),
        ("Chapter 9 builds it", "not a link"),
        ("[chapter 8](09_softmax.ipynb)", "shows 8, but 09_softmax is chapter 9"),
        ("chapters [9](09_softmax.ipynb) and 10", "10 is not a link"),
        ("chapters 9 and [10](10_weighted_sum.ipynb)", "9 is not a link"),
        ("chapters [9](09_softmax.ipynb) to 12", "12 is not a link"),
        ("chapters [8](08_scaling.ipynb), [9](09_softmax.ipynb) and 10", "10 is not a link"),
        ("[chapter 9](09_soft_max.ipynb)", "no file 09_soft_max.ipynb"),
        ("[chapters 9 and 10](09_softmax.ipynb)", "shows 'chapter N' or 'N'"),
        ("{doc}`10 <09_softmax>`", "shows 10, but 09_softmax is chapter 9"),
        ("```python\nfrom attnlib import scaling  # chapter 8's experiments\n```", "not a link"),
    ],
)
def test_a_bare_wrong_or_broken_chapter_reference_fails(text, complaint):
    wrong = check_prose(text, CHAPTERS)
    assert any(complaint in w for w in wrong), wrong


def test_a_reference_from_the_top_folder_links_into_chapters():
    assert check_prose("[chapter 9](chapters/09_softmax.ipynb)", ROOT) == []
    assert "no file" in check_prose("[chapter 9](09_softmax.ipynb)", ROOT)[0]


def test_the_python_rule_finds_numbers_in_strings_and_comments_only():
    source = (
        'def f():\n    """Softmax (chapter 9)."""\n    x = 1  # as Chapter 10 does\n    return "the softmax chapter"\n'
    )
    found = check_python(source)
    assert [line.split(":")[0] for line in found] == ["2", "3"], found
    assert "chapter 9" in found[0] and "Chapter 10" in found[1]
    assert check_python("chapter_9 = 1\nchapter = 9\n") == []


@pytest.mark.parametrize("name, text, folder", _prose_texts(), ids=[name for name, _, _ in _prose_texts()])
def test_every_chapter_number_in_the_prose_is_a_link_that_shows_its_toc_number(name, text, folder):
    wrong = check_prose(text, folder)
    assert not wrong, f"{name}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("path", _python_files(), ids=[str(p.relative_to(ROOT)) for p in _python_files()])
def test_no_chapter_number_is_typed_by_hand_in_python(path):
    found = check_python(path.read_text(encoding="utf-8"))
    assert not found, (
        f"{path.relative_to(ROOT)}: name the chapter by its subject or use attnlib.course.chapter_ref:\n"
        + "\n".join(found)
    )
