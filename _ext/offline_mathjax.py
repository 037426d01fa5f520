"""Serve MathJax 3 from the built book, so no page needs the network to show its math.

The files come from the installed package `django-static-mathjax` (MathJax 3.2.2's `es5/`
build, listed in requirements.txt); nothing of MathJax is kept in this repository. This
extension points Sphinx's `mathjax_path` at `_static/mathjax/startup.js`, MathJax's loader,
and tells it (in `mathjax3_config`) to load only what the book uses: the core, TeX input (with
its `autoload` of rarer macros), CommonHTML output and the assistive MathML that screen readers
read. That is about 650 kB where the combined `tex-mml-chtml.js` is 1.2 MB: the combined build
adds MathML input (no page has any) and the right-click menu (426 kB). Once the sources are
read and before the HTML pages are written, it copies into the output the part of `es5/` that
these can load:

- `startup.js`, `core.js`, `input/tex.js` and `output/chtml.js`, what the pages load, and
  `tex-mml-chtml.js`, the combined build (for a reader who wants the menu: see LOAD);
- `input/` (TeX extensions that `autoload` fetches on first use, e.g. `\\boldsymbol`),
  `output/chtml*` and its fonts, `ui/` (the right-click menu), `a11y/` and `sre/`
  (the accessibility explorer and speech rules the menu can switch on), `adaptors/`,
  `core.js`, `loader.js`, `startup.js`;
- MathJax's LICENSE (Apache-2.0 asks for it to travel with the files).

Left out: the SVG output and every other combined build (about 16 MB of 24 MB), `latest.js`
(which fetches MathJax from a CDN) and `node-main.js` (for Node, not browsers).
Registered in `_config.yml` under `sphinx: local_extensions:`.
"""

from __future__ import annotations

import filecmp
import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: where the files go, relative to the output's `_static/`
TARGET = "mathjax"
#: the combined build: TeX and MathML in, CommonHTML out, the menu (copied, not loaded)
ENTRY = "tex-mml-chtml.js"
#: what the pages load: MathJax's loader, which then loads the components of LOAD
STARTUP = "startup.js"
#: the MathJax components the book needs (TeX's autoload fetches a rare macro's package on use)
LOAD = ["core", "input/tex", "output/chtml", "a11y/assistive-mml"]
#: the CDN default Sphinx would use; we replace it only when nobody chose another path
_SPHINX_DEFAULT_PREFIX = "https://cdn.jsdelivr.net/npm/mathjax@3"

#: top-level entries of es5/ that are copied (everything else is left out)
KEEP = [
    ENTRY,
    "core.js",
    "loader.js",
    "startup.js",
    "adaptors",
    "input",
    "output/chtml",
    "output/chtml.js",
    "ui",
    "a11y",
    "sre",
]


def mathjax_root() -> Path:
    """The `mathjax/` folder of the installed django-static-mathjax package (holds `es5/`)."""
    import mathjax  # the django-static-mathjax package

    root = Path(mathjax.__file__).resolve().parent / "static" / "mathjax"
    if not (root / "es5" / ENTRY).is_file():
        raise FileNotFoundError(
            f"offline_mathjax: {root / 'es5' / ENTRY} not found; "
            "install the pinned requirements (django-static-mathjax)"
        )
    return root


def _copy(src: Path, dst: Path) -> int:
    """Copy one file unless an identical one is already there; return the bytes it takes."""
    if not (dst.is_file() and filecmp.cmp(src, dst, shallow=True)):
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    return dst.stat().st_size


def copy_mathjax(outdir: Path) -> tuple[int, int]:
    """Copy the needed MathJax files into `outdir/_static/mathjax`; return (files, bytes)."""
    root = mathjax_root()
    es5, target = root / "es5", Path(outdir) / "_static" / TARGET
    files = nbytes = 0
    for entry in KEEP:
        src = es5 / entry
        paths = sorted(p for p in src.rglob("*") if p.is_file()) if src.is_dir() else [src]
        for path in paths:
            nbytes += _copy(path, target / path.relative_to(es5))
            files += 1
    nbytes += _copy(root / "LICENSE", target / "LICENSE")
    return files + 1, nbytes


def set_mathjax_path(app: Sphinx, config) -> None:
    """Point Sphinx at the local copy, unless the book chose a MathJax of its own."""
    current = config.mathjax_path or ""
    if not current or current.startswith(_SPHINX_DEFAULT_PREFIX):
        config.mathjax_path = f"{TARGET}/{STARTUP}"  # relative paths are taken from _static/
        settings = dict(config.mathjax3_config or {})
        settings["loader"] = {**settings.get("loader", {}), "load": list(LOAD)}
        config.mathjax3_config = settings
    mathjax_root()  # fail early, before any page is written, if the package is missing


def install(app: Sphinx, env=None) -> None:
    """Copy MathJax into the HTML output (only files that are missing or changed)."""
    if app.builder.format != "html" or app.config.mathjax_path != f"{TARGET}/{STARTUP}":
        return
    files, nbytes = copy_mathjax(Path(app.outdir))
    logger.info(f"offline_mathjax: {files} MathJax files ({nbytes / 1e6:.1f} MB) in _static/{TARGET}/")


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.mathjax")
    # Load MathJax on every page, not only on pages whose own text has math: the sidebar lists
    # chapter titles with math (e.g. "the matrix product XW"), which the search, index and
    # reference pages would otherwise show as raw \(XW\).
    app.set_html_assets_policy("always")
    app.connect("config-inited", set_mathjax_path)
    # After reading and before the pages are written, so that Sphinx finds the file and gives
    # its <script> the same ?v=checksum on a clean build as on a rebuild.
    app.connect("env-updated", install)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
