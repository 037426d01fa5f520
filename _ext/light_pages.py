"""Lighter pages: leave out of every page what it does not use.

- Font Awesome as JavaScript. pydata-sphinx-theme 0.17 loads `scripts/fontawesome.js` (1.5 MB,
  the whole icon library) on every page, only to swap its dozen icons for inline SVG; its
  stylesheet already draws them from the icon webfont (pydata-sphinx-theme issue 2379, pull
  request 2494). The template `_ext/templates/static/webpack-macros.html` replaces the theme's
  macro file without that script, and the script and its source map are removed from the output.
- matplotlib's comments and indentation in the figures (`_images/*.svg`): a comment before every
  text and patch (`<!-- PE col 0 -->`) and two spaces a level, about a tenth of each figure's bytes;
  and its coordinates' digits past the second decimal (matplotlib writes six: a millionth of a
  point, where a hundredth is already far below what a screen or a printer shows). The drawing is
  the same; the notebooks keep their figures as stored.
- Source maps (`*.js.map`, `*.css.map`) of the theme: a browser fetches them only with its
  developer tools open, but they are 3 MB of the built book.

The check that the theme still matches the copied template (same digest) fails the build loudly
when the theme is upgraded, rather than serving an old stylesheet. Registered in `_config.yml`
under `sphinx: local_extensions:`. Measured by tests/test_browser.py (page weights).
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

TEMPLATES = Path(__file__).resolve().parent / "templates"
MACROS = "static/webpack-macros.html"
#: files of the theme's output that no page loads any more
DROPPED = ["scripts/fontawesome.js", "scripts/fontawesome.js.LICENSE.txt"]
MAP_FOLDERS = ["scripts", "styles"]
SVG_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
SVG_INDENT = re.compile(r"\n[ \t]+")
SVG_GEOMETRY = re.compile(r'\b(d|transform|x|y|x1|x2|y1|y2|width|height|points)="([^"]*)"')
PAST_TWO_DECIMALS = re.compile(r"(\d\.\d\d)\d+")


def _two_decimals(match: re.Match) -> str:
    """An attribute of geometry with every number cut to two decimals."""
    cut = PAST_TWO_DECIMALS.sub(lambda number: number.group(1), match.group(2))
    return f'{match.group(1)}="{cut}"'


def _theme_macros() -> Path:
    import pydata_sphinx_theme

    return Path(pydata_sphinx_theme.__file__).resolve().parent / "theme" / "pydata_sphinx_theme" / MACROS


def use_templates(app: Sphinx, config) -> None:
    """Put our template folder first, after checking it was copied from this theme version."""
    ours, theirs = (TEMPLATES / MACROS).read_text(), _theme_macros().read_text()
    digest = theirs.split("?digest=")[1].split('"')[0]
    if f"?digest={digest}" not in ours:
        raise ExtensionError(
            f"light_pages: {_theme_macros()} has changed (digest {digest}); "
            f"copy it again into {TEMPLATES / MACROS}, without the fontawesome.js script"
        )
    config.templates_path = [str(TEMPLATES)] + list(config.templates_path or [])


def drop_unused(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    gone = 0
    for name in DROPPED + [
        str(p.relative_to(static)) for folder in MAP_FOLDERS for p in (static / folder).glob("*.map")
    ]:
        path = static / name
        if path.is_file():
            gone += path.stat().st_size
            path.unlink()
    logger.info(f"light_pages: {gone / 1e6:.1f} MB of unused theme files left out of _static/")


def minify_figures(app: Sphinx, exception) -> None:
    """Every figure of the built book without matplotlib's comments and indentation."""
    if exception is not None or app.builder.format != "html":
        return
    saved = 0
    for path in (Path(app.outdir) / "_images").glob("*.svg"):
        text = path.read_text(encoding="utf-8")
        lighter = SVG_GEOMETRY.sub(_two_decimals, SVG_INDENT.sub("\n", SVG_COMMENT.sub("", text)))
        if lighter != text:
            saved += len(text.encode()) - len(lighter.encode())
            path.write_text(lighter, encoding="utf-8")
    logger.info(f"light_pages: figures {saved / 1e6:.2f} MB lighter without comments, indentation and digits")


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", use_templates)
    app.connect("build-finished", drop_unused)
    app.connect("build-finished", minify_figures, priority=400)  # before the PDF is printed from the pages
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
