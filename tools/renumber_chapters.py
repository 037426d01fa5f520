"""Make every chapter file's number match its place in `_toc.yml`, and every link to a chapter show it.

Run after inserting, moving or splitting a chapter in `_toc.yml`:

    python tools/renumber_chapters.py

1. A chapter file whose number is not its place in the book is renamed with `git mv`
   (`chapters/15_counting_and_timing.ipynb` becomes `16_counting_and_timing.ipynb` when a new
   chapter 15 is inserted before it), and every mention of its old name in the repository's text
   files follows.
2. Every link to a chapter file (Markdown or {doc}) shows that chapter's number: `[chapter 9](09_softmax.ipynb)`,
   `chapters [9](09_softmax.ipynb) and [10](10_weighted_sum.ipynb)`.
Running it twice changes nothing the second time.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TEXT_SUFFIXES = {".ipynb", ".md", ".py", ".yml", ".yaml", ".toml", ".txt", ".json", ".sh", ".js", ".css"}
TEXT_NAMES = {"Makefile", "run"}
PROSE_SUFFIXES = {".ipynb", ".md"}
# [chapter 9](09_softmax.ipynb), [Chapter 9](chapters/09_softmax.ipynb#a-section), [9](../chapters/09_softmax.ipynb)
DOC_LINK = re.compile(
    r"\{doc\}`((?:[Cc]hapters? )?)(\d+) <((?:\.\./)?(?:chapters/)?)(\d\d)_(\w+)>`"
)  # {doc}`9 <chapters/09_softmax>`
LINK = re.compile(
    r"\[((?:[Cc]hapters? )?)(\d+)\]\(((?:\.\./)?(?:chapters/)?)(\d\d)_(\w+)(\.(?:ipynb|md))?(#[^)\s]*)?\)"
)


def toc_stems() -> list[str]:
    """The numbered chapters' file stems in book order, as `_toc.yml` lists them."""
    from course_data import chapters_in  # tools/course_data.py: the table the packages carry, read from _toc.yml

    return [stem for _, _, stem in chapters_in((ROOT / "_toc.yml").read_text())]


def repository_text_files() -> list[Path]:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    paths = [ROOT / line for line in tracked.splitlines()]
    this_script = Path(__file__).resolve()
    return [
        p
        for p in paths
        if p.is_file() and p.resolve() != this_script and (p.suffix in TEXT_SUFFIXES or p.name in TEXT_NAMES)
    ]


def renames(stems: list[str]) -> dict[str, str]:
    """Old stem -> new stem for every chapter whose number is not its place."""
    moves = {}
    for number, stem in enumerate(stems, 1):
        prefix, subject = stem.split("_", 1)
        if int(prefix) != number:
            moves[stem] = f"{number:02d}_{subject}"
    return moves


def rename_files(moves: dict[str, str]) -> None:
    for old, new in moves.items():
        for suffix in (".ipynb", ".md"):
            path = ROOT / "chapters" / f"{old}{suffix}"
            if path.exists():
                subprocess.run(
                    ["git", "mv", str(path), str(ROOT / "chapters" / f"{new}{suffix}")], cwd=ROOT, check=True
                )


def rewrite_mentions(text: str, moves: dict[str, str]) -> str:
    if not moves:
        return text
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, moves)) + r")\b")
    return pattern.sub(lambda m: moves[m.group(1)], text)


def fix_link_numbers(text: str, number_of: dict[str, int]) -> str:
    def shown(match: re.Match) -> str:
        words, _, where, prefix, subject, suffix, anchor = match.groups()
        stem = f"{prefix}_{subject}"
        if stem not in number_of:
            return match.group(0)
        return f"[{words}{number_of[stem]}]({where}{stem}{suffix or ''}{anchor or ''})"

    def shown_doc(match: re.Match) -> str:
        words, _, where, prefix, subject = match.groups()
        stem = f"{prefix}_{subject}"
        if stem not in number_of:
            return match.group(0)
        return f"{{doc}}`{words}{number_of[stem]} <{where}{stem}>`"

    return DOC_LINK.sub(shown_doc, LINK.sub(shown, text))


def main() -> None:
    stems = toc_stems()
    moves = renames(stems)
    rename_files(moves)
    number_of = {moves.get(stem, stem): number for number, stem in enumerate(stems, 1)}
    changed = []
    for path in repository_text_files():
        text = path.read_text(encoding="utf-8")
        new = rewrite_mentions(text, moves)
        if path.suffix in PROSE_SUFFIXES:  # links live in the prose; a test's examples of wrong links stay wrong
            new = fix_link_numbers(new, number_of)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path.relative_to(ROOT))
    for old, new in moves.items():
        print(f"renamed chapters/{old} -> chapters/{new}")
    print(f"{len(changed)} file(s) rewritten" + "".join(f"\n  {p}" for p in changed))


if __name__ == "__main__":
    main()
