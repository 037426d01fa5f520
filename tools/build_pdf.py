"""Print the whole built book as one PDF: `_build/html/attention-from-the-ground-up.pdf`.

    python tools/build_pdf.py            # (or: make pdf) after the HTML is built; a minute or so

The book's own HTML, printed by the headless Chromium the browser test uses (Playwright, system
Chromium, no download), as ONE document: tools/pdf_assemble.js fetches every page of `_toc.yml`
into an empty page, prefixes every id with its page's name and points every link between pages at
those ids, moves Recall answers and solutions to the end of their chapter (linked both ways) and
shows each live figure at its starting setting. MathJax typesets the whole document once, and
Chromium prints it with the book's print style plus `pdf.css` (A4, page numbers in the footer),
making every link inside the document a link inside the PDF. pypdf then writes the outline
(parts, chapters, sections), found through the named destinations Chromium makes for the targets
of those links, and the document's title.

Why one document and not one PDF per page joined: Chromium makes internal links and named
destinations only within one document, so page-by-page printing would leave every link between
chapters pointing at the web server and number each chapter's pages from 1 (README, "The book as
one PDF", has the measurements).

The PDF lands in the HTML folder, so it is served with the book and the intro links to it.
Without Chromium or Playwright it says so and writes nothing (exit status 0 with --if-possible).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import logging
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
HTML_DIR = ROOT / "_build" / "html"
PDF_NAME = "attention-from-the-ground-up.pdf"
HERE = Path(__file__).resolve().parent
ASSEMBLE_JS = HERE / "pdf_assemble.js"
PDF_CSS = HERE / "pdf.css"
#: the page the book is assembled in (served from memory, at the root of the HTML folder)
BOOK_PAGE = "/_pdf_book.html"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # nothing but the book's own server resolves: the PDF never depends on the network
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
#: A4 with 15 mm side margins; at scale 0.85 the text column is 180 mm / 0.85 = 800 CSS px wide,
#: near the screen's, and the body text prints at about 10 pt
PAGE = {"format": "A4", "scale": 0.85, "margin": {"top": "14mm", "bottom": "16mm", "left": "15mm", "right": "15mm"}}
FOOTER = (
    '<div style="width:100%;font-size:8pt;color:#555;text-align:center;font-family:sans-serif">'
    '<span class="pageNumber"></span></div>'
)
TIMEOUT_MS = 120_000


def find_chromium() -> str | None:
    """The system Chromium, where tests/test_browser.py looks for it (CHROMIUM overrides)."""
    for candidate in (
        os.environ.get("CHROMIUM"),
        "/usr/lib/chromium/chromium",
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def book_parts(toc_file: Path = ROOT / "_toc.yml") -> list[dict]:
    """The book in print order: [{"caption": None, "docs": ["intro"]}, {"caption": "Part I — …", "docs": [...]}, ...]."""
    toc = yaml.safe_load(toc_file.read_text(encoding="utf-8"))
    strip = functools.partial(re.sub, r"\.(md|ipynb)$", "")

    def files(node: dict) -> list[str]:
        found = [strip(node["file"])] if "file" in node else []
        for child in node.get("chapters", []) or node.get("sections", []) or []:
            found += files(child)
        return found

    parts = [{"caption": None, "docs": [strip(toc["root"])]}]
    for part in toc.get("parts", []):
        parts.append({"caption": part.get("caption"), "docs": files(part)})
    if "chapters" in toc:
        parts.append({"caption": None, "docs": files(toc)})
    return parts


def book_info(config_file: Path = ROOT / "_config.yml") -> dict:
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    return {
        "title": config.get("title", "The book"),
        "author": config.get("author", ""),
        "copyright": str(config.get("copyright", "")),
    }


def book_page(html_dir: Path) -> str:
    """The empty page the book is assembled in: the book's style sheets (as the intro links them),
    pdf.css, and MathJax as the book serves it, told to wait until the pages are in."""
    intro = (html_dir / "intro.html").read_text(encoding="utf-8")
    head = intro[: intro.index("</head>")]
    sheets = "\n".join(re.findall(r'<link[^>]*rel="stylesheet"[^>]*>', head))
    mathjax = re.search(r'<script[^>]*src="([^"]*mathjax/startup\.js[^"]*)"', head)
    config = {
        "loader": {"load": ["core", "input/tex", "output/chtml"]},
        "options": {"processHtmlClass": "tex2jax_process|mathjax_process|math|output_area"},
        "startup": {"typeset": False},
    }
    import json

    return f"""<!DOCTYPE html>
<html lang="en" data-theme="light" data-mode="light">
<head><meta charset="utf-8"><title>{book_info()["title"]}</title>
{sheets}
<style>{PDF_CSS.read_text(encoding="utf-8")}</style>
<script>window.MathJax = {json.dumps(config)};</script>
{f'<script src="{mathjax.group(1)}"></script>' if mathjax else ""}
</head>
<body class="pdf-book"><main id="pdf-book" class="bd-main"></main></body></html>
"""


class _Handler(http.server.SimpleHTTPRequestHandler):
    page = ""

    def do_GET(self):
        if self.path == BOOK_PAGE:
            data = self.page.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            super().do_GET()

    def log_message(self, *args):
        pass


def print_book(html_dir: Path, out: Path, chromium: str) -> dict:
    """Assemble the book in Chromium, typeset its math and print it to `out`; returns what
    pdf_assemble.js reports (every page's title, number and sections)."""
    from playwright.sync_api import sync_playwright

    handler = type("Handler", (_Handler,), {"page": book_page(html_dir)})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(html_dir)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
            page = browser.new_page(color_scheme="light")
            page.set_default_timeout(TIMEOUT_MS)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"http://127.0.0.1:{httpd.server_address[1]}{BOOK_PAGE}")
            page.emulate_media(media="print", color_scheme="light")
            meta = page.evaluate(
                f"async (book) => {{ {ASSEMBLE_JS.read_text(encoding='utf-8')}\n return await assemble(book); }}",
                {**book_info(), "parts": book_parts()},
            )
            page.evaluate(
                """async () => {
                    if (window.MathJax) { await MathJax.startup.promise; await MathJax.typesetPromise(); }
                    await document.fonts.ready;
                    await Promise.all(Array.from(document.images, img => img.complete ? null :
                        new Promise(done => { img.onload = img.onerror = done; })));
                }"""
            )
            if errors:
                raise RuntimeError(f"the assembled book raised: {errors[:3]}")
            out.parent.mkdir(parents=True, exist_ok=True)
            page.pdf(
                path=str(out),
                print_background=True,
                display_header_footer=True,
                header_template="<span></span>",
                footer_template=FOOTER,
                **PAGE,
            )
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    return meta


def write_outline(pdf: Path, meta: dict) -> None:
    """Bookmarks for every part, page (chapter) and section, at the page Chromium put it on."""
    from pypdf import PdfReader, PdfWriter

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # Chromium's trailer size is off by a few objects
    reader = PdfReader(pdf)
    writer = PdfWriter(clone_from=reader)
    dests = reader.named_destinations
    page_of = {name.lstrip("/"): reader.get_destination_page_number(dest) for name, dest in dests.items()}
    missing = []

    def mark(title: str, name: str, parent=None):
        if name not in page_of:
            missing.append(name)
            return None
        return writer.add_outline_item(title=title, page_number=page_of[name], parent=parent)

    part = None
    for entry in meta["docs"]:
        if "doc" not in entry:
            part = mark(entry["part"], entry["id"])
            continue
        chapter = mark(entry["title"], entry["id"], parent=part if entry["part"] else None)
        for section in entry["sections"]:
            mark(section["title"], section["id"], parent=chapter)
    if missing:
        raise RuntimeError(f"no place in the PDF for {len(missing)} outline entries: {missing[:5]}")
    info = book_info()
    writer.add_metadata({"/Title": info["title"], "/Author": info["author"]})
    writer.page_mode = "/UseOutlines"
    with open(pdf, "wb") as handle:
        writer.write(handle)


def build(html_dir: Path = HTML_DIR, out: Path | None = None) -> Path:
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("headless Chromium not found (apt-get install -y chromium)")
    out = out or html_dir / PDF_NAME
    tmp = out.with_suffix(".tmp.pdf")
    meta = print_book(html_dir, tmp, chromium)
    write_outline(tmp, meta)
    tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=HTML_DIR, help="the built HTML (default: _build/html)")
    parser.add_argument("--out", type=Path, default=None, help=f"the PDF (default: HTML folder / {PDF_NAME})")
    parser.add_argument(
        "--if-possible", action="store_true", help="without Chromium or Playwright, say so and exit 0"
    )
    args = parser.parse_args(argv)
    if not (args.html / "intro.html").is_file():
        print(f"build_pdf: no built book in {args.html} (run make book first)", file=sys.stderr)
        return 1
    start = time.perf_counter()
    try:
        import playwright  # noqa: F401

        out = build(args.html, args.out)
    except (FileNotFoundError, ImportError) as exc:
        print(f"build_pdf: PDF not made: {exc}", file=sys.stderr)
        return 0 if args.if_possible else 1
    from pypdf import PdfReader

    pages = len(PdfReader(out).pages)
    size = out.stat().st_size / 1e6
    print(f"build_pdf: {out} ({pages} pages, {size:.1f} MB) in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
