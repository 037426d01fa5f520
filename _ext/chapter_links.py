"""Link each documented attnlib function to the chapter that introduces it.

attnlib's docstrings end with "(chapter N)" or "(chapters 8 and 11)". For the reference page
(`reference.md`, Sphinx autodoc), this extension

- appends "Introduced in Chapter N", linked to that chapter's page, found as the
  document `chapters/NN_*` (a chapter named in a docstring but missing from the book is a
  warning, so `-W` catches a stale docstring); and
- reads the docstrings' `single backticks` as inline code, as Markdown would, instead of
  reStructuredText's default (italic "title reference"), and a lone `*` (as in `fn(*args)`
  or `*.json`) as a plain asterisk, not as the start of an emphasis; *this* stays emphasis.

Registered in `_config.yml` under `sphinx: local_extensions:`.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

_CHAPTERS = re.compile(r"\(chapters? ((?:\d+)(?:(?:,\s*|\s+and\s+)\d+)*)\)")
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


def chapter_numbers(docstring: str) -> list[int]:
    """The chapter numbers a docstring names, e.g. [8, 11] for '(chapters 8 and 11)'."""
    found: list[int] = []
    for match in _CHAPTERS.finditer(docstring):
        found += [int(n) for n in re.findall(r"\d+", match.group(1))]
    return found


def chapter_docname(app: Sphinx, number: int) -> str | None:
    """The document of chapter `number` (chapters/NN_something), or None if the book has none."""
    prefix = f"chapters/{number:02d}_"
    names = sorted(d for d in app.env.found_docs if d.startswith(prefix))
    return names[0] if names else None


def process_docstring(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    for i, line in enumerate(lines):
        lines[i] = plain_to_rst(line)
    links = []
    for number in chapter_numbers("\n".join(lines)):
        docname = chapter_docname(app, number)
        if docname is None:
            logger.warning(
                f"chapter_links: the docstring of {name} names chapter {number}, "
                f"but the book has no chapters/{number:02d}_* page",
                type="chapter_links",
                subtype="missing",
            )
            continue
        # "Chapter N" as the link text: a chapter title with math in it would show raw TeX here.
        links.append(f":doc:`Chapter {number} </{docname}>`")
    if links:
        note = "**Introduced in** " + links[0]
        if len(links) > 1:
            note += "; also used in " + " and ".join(links[1:])
        lines += ["", note + "."]


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.autodoc")
    app.connect("autodoc-process-docstring", process_docstring)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
