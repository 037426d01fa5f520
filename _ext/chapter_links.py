"""Link each documented attnlib function to the chapter that introduces it.

attnlib's docstrings name their chapter by its subject, never by its number (a number would go
stale when a chapter is inserted): "(the softmax chapter)", "(the scaling and masks chapters)",
"(the word order, many heads and learning the lenses chapters)". A subject is a chapter file's
name without its number, underscores read as spaces and a leading "the" dropped
(`chapters/02_the_matrix_x.ipynb` is "the matrix x chapter"). For the reference page
(`reference.md`, Sphinx autodoc), this extension

- appends "Introduced in Chapter N", linked to that chapter's page, N read from `_toc.yml` by
  `attnlib.course` (a subject that no chapter of `_toc.yml` has is a warning, so `-W` catches a
  stale docstring); and
- reads the docstrings' `single backticks` as inline code, as Markdown would, instead of
  reStructuredText's default (italic "title reference"), and a lone `*` (as in `fn(*args)`
  or `*.json`) as a plain asterisk, not as the start of an emphasis; *this* stays emphasis.

Registered in `_config.yml` under `sphinx: local_extensions:`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from attnlib import course  # the book's own attnlib, as autodoc imports it

logger = logging.getLogger(__name__)

# "(the softmax chapter)", "(the scaling and masks chapters)", "(the a, b and c chapters)"
_TAG = re.compile(r"\(the ([a-z0-9 ,]+?) chapters?\)")
_SINGLE_BACKTICKS = re.compile(r"(?<![`:\w])`([^`\n]+)`(?![`_\w])")
# *emphasis* or **strong** that opens and closes on the same line; any other * is literal
_EMPHASIS = re.compile(r"(?<![\w*\\])(\*\*?)(?=[^\s*]).*?(?<=[^\s*\\])\1(?![\w*])")


def _escape_stars(text: str) -> str:
    """Escape every * that does not open or close an *emphasis* on this line."""
    out, last = [], 0
    for match in _EMPHASIS.finditer(text):
        out += [text[last : match.start()].replace("*", "\\*"), match.group(0)]
        last = match.end()
    return "".join(out + [text[last:].replace("*", "\\*")])


def plain_to_rst(line: str) -> str:
    """`code` -> ``code``; outside code, a lone * (fn(*args), *.json) is escaped."""
    parts = re.split(r"(``[^`]*``)", _SINGLE_BACKTICKS.sub(r"``\1``", line))
    return "".join(part if part.startswith("``") else _escape_stars(part) for part in parts)


def spoken(subject: str) -> str:
    """How a docstring names a chapter's subject: "matrix_multiplication" -> "matrix multiplication"."""
    return subject.replace("_", " ").removeprefix("the ")


def chapter_subjects(docstring: str) -> list[str]:
    """The chapter subjects a docstring names, e.g. ["scaling", "masks"] for '(the scaling and masks chapters)'.

    A name that is no chapter's subject comes back as it is written, with a "?" in front.
    """
    by_name = {spoken(subject): subject for _, subject, _ in course.chapters()}
    one = "|".join(re.escape(name) for name in sorted(by_name, key=len, reverse=True))
    names = re.compile(rf"(?:^|, | and )({one}|[^,]+?)(?=, | and |$)")  # a known name first: "counting and timing"
    found: list[str] = []
    for match in _TAG.finditer(docstring):
        for name in names.findall(match.group(1)):
            found.append(by_name.get(name, "?" + name))
    return found


def process_docstring(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    for i, line in enumerate(lines):
        lines[i] = plain_to_rst(line)
    stems = {subject: stem for _, subject, stem in course.chapters()}
    links = []
    for subject in chapter_subjects(" ".join(lines)):
        if subject.startswith("?"):
            logger.warning(
                f"chapter_links: the docstring of {name} names the {subject[1:]!r} chapter, "
                "but no chapter of _toc.yml has that subject",
                type="chapter_links",
                subtype="missing",
            )
            continue
        # "Chapter N" as the link text: a chapter title with math in it would show raw TeX here.
        links.append(f":doc:`{course.chapter_ref(subject, capital=True)} </chapters/{stems[subject]}>`")
    if links:
        note = "**Introduced in** " + links[0]
        if len(links) > 1:
            note += "; also used in " + " and ".join(links[1:])
        lines += ["", note + "."]


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.autodoc")
    app.connect("autodoc-process-docstring", process_docstring)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
