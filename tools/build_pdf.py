"""Print the whole built book as one PDF: `_build/html/attention-from-the-ground-up.pdf`.

    python tools/build_pdf.py            # (or: make pdf) after the HTML is built; a minute or so

The book's own HTML, printed by the headless Chromium the browser test uses (Playwright, system
Chromium, no download), as ONE document: tools/pdf_assemble.js fetches every page of `_toc.yml`
into an empty page, prefixes every id with its page's name and points every link between pages at
those ids, moves Recall answers and solutions to the end of their chapter (linked both ways; a fold
that hides no answer prints open in place) and
shows each live figure at its starting setting. MathJax typesets the whole document once, and
Chromium prints it with the book's print style plus `pdf.css` (A4, page numbers in the footer),
making every link inside the document a link inside the PDF; it prints twice, so that the contents
can show the page each part and chapter begins on, read from the first print. pypdf then writes the outline
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
import html
import http.server
import json
import logging
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml
from headless_chromium import find_chromium  # tools/headless_chromium.py, shared with the tests' browser

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
#: each contents line's page number, from {id: page}; returns the ids it found no page for
FILL_CONTENTS = """(starts) => {
    const unplaced = [];
    for (const span of document.querySelectorAll('.pdf-contents-page')) {
        const page = starts[span.dataset.for];
        if (page === undefined) unplaced.push(span.dataset.for);
        else span.textContent = String(page);
    }
    return unplaced;
}"""
#: an empty page before each element of these ids (a part or chapter that would begin on a left-hand page)
INSERT_BLANKS = """(ids) => {
    for (const id of ids) document.getElementById(id).insertAdjacentHTML('beforebegin', '<div class="pdf-blank"></div>');
}"""
#: the text column in CSS px: (210 mm - 2 x 15 mm) / 0.85 at 96 px per inch
COLUMN_PX = 800
#: every box of the book that could run past the margin (code, outputs, math, tables, figures)
TOO_WIDE = """() => {
    const right = document.getElementById('pdf-book').getBoundingClientRect().right + 1;
    const bad = [];
    for (const el of document.querySelectorAll(
            '#pdf-book pre, #pdf-book table, #pdf-book div.math, #pdf-book mjx-container, ' +
            '#pdf-book img, #pdf-book svg, #pdf-book div.cell_output')) {
        if (!el.checkVisibility() || el.closest('.pdf-figure-index')) continue;
        const box = el.getBoundingClientRect();
        const hidden = ['PRE', 'DIV'].includes(el.tagName) ? el.scrollWidth - el.clientWidth : 0;
        if (box.right > right || hidden > 1)
            bad.push(`${el.tagName.toLowerCase()} in ${el.closest('.pdf-doc')?.dataset.doc}: ` +
                     `${Math.round(box.right - right)} px past the margin, ${hidden} px hidden: ` +
                     el.textContent.trim().slice(0, 50));
    }
    return bad;
}"""


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


def version() -> str:
    """The book's version, as its title page prints it: the date and id of the commit it was built
    from ("6 December 2026, commit ed7a63a"), or the day it was built outside a git checkout."""
    try:
        said = subprocess.run(
            ["git", "-C", str(ROOT), "log", "-1", "--format=%cd %h", "--date=format:%-d %B %Y"],
            capture_output=True,
            text=True,
            check=True,
            timeout=20,
        ).stdout.split()
        return f"{' '.join(said[:-1])}, commit {said[-1]}"
    except (OSError, subprocess.SubprocessError, IndexError):
        return time.strftime("%-d %B %Y") + " (built outside a git checkout)"


def book_info(config_file: Path = ROOT / "_config.yml") -> dict:
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    url = (config.get("html") or {}).get("baseurl") or ""
    web = (
        f'The web book, with its live figures: <a href="{html.escape(url)}">{html.escape(url)}</a>'
        if url
        else "The web book, with its live figures, is built from the course's folder: run "
        "<code>make book</code> and open <code>_build/html/intro.html</code> (this file is written beside it)."
        " The chapters' notebooks are in <code>chapters/</code>; <code>make lab</code> opens them."
    )
    return {
        "title": config.get("title", "The book"),
        "author": config.get("author", ""),
        "version": version(),
        "web": web,
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
            clock = time.perf_counter()
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
            # what pdf_assemble.js defines besides assemble(): called on the typeset book
            helpers = f"{ASSEMBLE_JS.read_text(encoding='utf-8')}\n"
            empty = page.evaluate(f"() => {{ {helpers} return emptyLiveFigures(); }}")
            if empty:
                raise RuntimeError(f"{len(empty)} live figure(s) print nothing drawn: {empty[:5]}")
            broken = page.evaluate(
                "() => Array.from(document.images).filter(i => !i.naturalWidth).map(i => i.getAttribute('src'))"
            )
            if broken:
                raise RuntimeError(f"{len(broken)} figure(s) did not load: {broken[:3]}")
            # laid out as on paper (print media, the text column's width): nothing wider than the column
            page.set_viewport_size({"width": COLUMN_PX, "height": 1100})
            meta["wrapped"] = page.evaluate(f"() => {{ {helpers} return wrapLongLines(); }}")
            wide = page.evaluate(TOO_WIDE)
            if wide:
                raise RuntimeError(f"{len(wide)} box(es) wider than the page's text column: {wide[:5]}")
            assembled = time.perf_counter()
            if errors:
                raise RuntimeError(f"the assembled book raised: {errors[:3]}")
            out.parent.mkdir(parents=True, exist_ok=True)
            options = {
                "print_background": True,
                "display_header_footer": True,
                "header_template": "<span></span>",
                "footer_template": FOOTER,
                **PAGE,
            }
            # printed twice: the first print says on which page each part and chapter begins; an
            # empty page goes before each that would begin on a left-hand (even) page, the contents
            # show the pages they begin on then (in placeholders as wide, so no line moves), and
            # the second print is kept
            first = {name: place[0] + 1 for name, place in destinations(page.pdf(**options)).items()}
            openers = [entry["id"] for entry in meta["docs"]]
            starts, blanks = recto_starts([first[name] for name in openers])
            meta["blank_before"] = [name for name, blank in zip(openers, blanks) if blank]
            page.evaluate(INSERT_BLANKS, meta["blank_before"])
            starts = {**first, **dict(zip(openers, starts))}
            unplaced = page.evaluate(FILL_CONTENTS, starts)
            if unplaced:
                raise RuntimeError(f"no page for {len(unplaced)} contents line(s): {unplaced[:5]}")
            page.pdf(path=str(out), **options)
            meta["openers"] = {name: starts[name] for name in openers}
            meta["heads"] = running_heads(meta, len(pypdf_reader(out).pages))
            meta["head_overlay"] = head_overlay(browser.new_page(), meta["heads"])
            meta["seconds"] = {"assemble and typeset": assembled - clock, "print": time.perf_counter() - assembled}
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    return meta


def recto_starts(first: list[int]) -> tuple[list[int], list[bool]]:
    """Where each part and chapter begins (pages from 1, in book order) once an empty page is put
    before each that would begin on a left-hand, even page; and which ones get it."""
    starts, blanks, shift = [], [], 0
    for page in first:
        blank = (page + shift) % 2 == 0
        shift += blank
        starts.append(page + shift)
        blanks.append(blank)
    return starts, blanks


def pypdf_reader(path: Path):
    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    return PdfReader(path)


def running_heads(meta: dict, pages: int) -> list[str]:
    """Each page's running head: the title of the chapter (or page of the book) it belongs to; none
    on the title page, the contents, a part's page, an empty page or the first page of a chapter."""
    heads = [""] * (pages + 1)  # by page number, from 1
    entries = meta["docs"]
    starts = [meta["openers"][entry["id"]] for entry in entries]
    empty = {start - 1 for start, entry in zip(starts, entries) if entry["id"] in meta["blank_before"]}
    for entry, start, end in zip(entries, starts, [*starts[1:], pages + 1]):
        if "doc" in entry:
            title = plain_title(entry["titleHtml"])
            for number in range(start + 1, end):
                heads[number] = "" if number in empty else title
    return heads[1:]


def head_overlay(page, heads: list[str]) -> bytes:
    """One A4 page per page of the book, blank but for its running head in the top margin: on a
    left-hand (even) page at the left, on a right-hand page at the right."""
    sheets = "".join(
        f'<div class="sheet"><div class="head" style="text-align:{"left" if number % 2 == 0 else "right"}">'
        f"{html.escape(head)}</div></div>"
        for number, head in enumerate(heads, 1)
    )
    page.set_content(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        "@page { size: A4; margin: 0 } html, body { margin: 0 }"
        ".sheet { height: 297mm; position: relative; break-after: page; overflow: hidden }"
        ".head { position: absolute; top: 7mm; left: 15mm; right: 15mm; font: italic 8pt 'DejaVu Sans', sans-serif;"
        " color: #444 }</style></head><body>" + sheets + "</body></html>"
    )
    return page.pdf(format="A4", print_background=False, margin={"top": "0", "bottom": "0", "left": "0", "right": "0"})


def draw_over(writer, page, over) -> None:
    """Draw page `over` (of another PDF) on top of `page`: its content as one more stream of the
    page, its fonts under names of their own. (pypdf's merge_page rewrites the page's whole
    content, which an incremental update then stores twice: 4 MB more for the running heads.)"""
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject

    data = over.get_contents().get_data()
    resources = page["/Resources"]
    for category, entries in over["/Resources"].items():
        if not isinstance(entries.get_object(), DictionaryObject):
            continue  # /ProcSet
        target = resources.get(category)
        if target is None:
            target = resources[NameObject(category)] = DictionaryObject()
        target = target.get_object()
        for name, value in entries.get_object().items():
            own = "/Head" + name[1:]
            data = re.sub(rb"/" + re.escape(name[1:].encode()) + rb"(?=[\s/\[\]<>()])", own.encode(), data)
            target[NameObject(own)] = value.clone(writer)
    before, after = DecodedStreamObject(), DecodedStreamObject()
    before.set_data(b"q\n")
    after.set_data(b"\nQ\n" + data)
    contents = page.raw_get("/Contents")
    streams = list(contents.get_object()) if isinstance(contents.get_object(), ArrayObject) else [contents]
    page[NameObject("/Contents")] = ArrayObject(
        [writer._add_object(before), *streams, writer._add_object(after.flate_encode())]
    )


def destinations(pdf: bytes) -> dict:
    """Every named destination Chromium made (the target of a link inside the book): its page
    (from 0) and where on the page it is, as pypdf's fit for a bookmark."""
    from io import BytesIO

    from pypdf import PdfReader
    from pypdf.generic import Fit

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # Chromium's trailer size is off by a few objects
    reader = PdfReader(BytesIO(pdf))
    return {
        name.lstrip("/"): (reader.get_destination_page_number(dest), Fit.xyz(left=dest.left, top=dest.top))
        for name, dest in reader.named_destinations.items()
    }


def plain_title(fragment: str) -> str:
    """A heading's HTML as the plain text of a bookmark, its math in Unicode ("Why divide by √dₖ"),
    as the book's tab titles write it (_ext/plain_titles.py)."""
    sys.path.insert(0, str(ROOT / "_ext"))
    try:
        from plain_titles import html_math_to_unicode
    finally:
        sys.path.remove(str(ROOT / "_ext"))
    text = re.sub(r"<[^>]+>", "", html_math_to_unicode(fragment))
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


def write_outline(printed: Path, out: Path, meta: dict) -> None:
    """`printed` with bookmarks for every part, page (chapter) and section, at the page Chromium
    put it on, and the book's title, as `out`."""
    from io import BytesIO

    from pypdf import PdfWriter

    data = printed.read_bytes()
    # incremental: the printed file stays as it is, the outline and title are appended (seconds,
    # where rewriting Chromium's tens of thousands of structure elements takes half a minute)
    writer = PdfWriter(BytesIO(data), incremental=True)
    # each bookmark goes where Chromium's named destination for that heading does: page and height
    place = destinations(data)
    missing = []

    def mark(title: str, name: str, parent=None):
        if name not in place:
            missing.append(name)
            return None
        page_number, fit = place[name]
        return writer.add_outline_item(title=title, page_number=page_number, parent=parent, fit=fit)

    # each part and chapter begins on a right-hand page, where the contents say it does
    astray = [
        f"{entry['id']}: page {place[entry['id']][0] + 1}, the contents say {meta['openers'][entry['id']]}"
        for entry in meta["docs"]
        if entry["id"] in place
        and (place[entry["id"]][0] + 1 != meta["openers"][entry["id"]] or place[entry["id"]][0] % 2)
    ]
    if astray:
        raise RuntimeError(f"{len(astray)} part(s) or chapter(s) not on the right-hand page expected: {astray[:5]}")
    # the running heads, each page's drawn over it from a page of the overlay
    from pypdf import PdfReader

    overlay = PdfReader(BytesIO(meta["head_overlay"]))
    for index, head in enumerate(meta["heads"]):
        if head:
            draw_over(writer, writer.pages[index], overlay.pages[index])
    part = None
    for entry in meta["docs"]:
        if "doc" not in entry:
            part = mark(entry["part"], entry["id"])
            continue
        chapter = mark(plain_title(entry["titleHtml"]), entry["id"], parent=part if entry["part"] else None)
        for section in entry["sections"]:
            mark(plain_title(section["html"]), section["id"], parent=chapter)
    if missing:
        raise RuntimeError(f"no place in the PDF for {len(missing)} outline entries: {missing[:5]}")
    info = book_info()
    writer.add_metadata({"/Title": info["title"], "/Author": info["author"]})
    writer.page_mode = "/UseOutlines"
    with open(out, "wb") as handle:
        writer.write(handle)


def build(html_dir: Path = HTML_DIR, out: Path | None = None) -> tuple[Path, dict]:
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("headless Chromium not found (apt-get install -y chromium)")
    out = out or html_dir / PDF_NAME
    printed, written = out.with_suffix(".printed.pdf"), out.with_suffix(".tmp.pdf")
    meta = print_book(html_dir, printed, chromium)
    clock = time.perf_counter()
    write_outline(printed, written, meta)
    meta["seconds"]["outline"] = time.perf_counter() - clock
    printed.unlink()
    written.replace(out)  # the PDF appears whole or not at all
    return out, meta


def up_to_date(html_dir: Path, pdf: Path) -> bool:
    """The PDF is newer than every page, figure and piece of this tool."""
    if not pdf.is_file():
        return False
    sources = [*html_dir.rglob("*.html"), *(html_dir / "_images").glob("*"), *HERE.glob("*pdf*"), ROOT / "_toc.yml"]
    return pdf.stat().st_mtime > max(path.stat().st_mtime for path in sources if path.is_file())


# ----------------------------------------------------------------------------- as a Sphinx extension


def setup(app) -> dict:
    """`make book` (jupyter-book build) makes the PDF too, once the HTML is written: registered in
    _config.yml under `sphinx: local_extensions:`. A failure is a warning, so `-W` fails the build;
    without Chromium or Playwright the build says so and makes no PDF."""
    app.connect("build-finished", after_html_build)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def after_html_build(app, exception) -> None:
    if exception is not None or app.builder.name != "html":
        return
    from sphinx.util import logging as sphinx_logging

    logger = sphinx_logging.getLogger(__name__)
    html_dir = Path(app.outdir)
    if up_to_date(html_dir, html_dir / PDF_NAME):
        logger.info(f"build_pdf: {PDF_NAME} is up to date")
        return
    logger.info(f"build_pdf: printing the book to {PDF_NAME} ...")
    # its own process: Playwright's event loop and Chromium stay out of Sphinx's
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--html", str(html_dir), "--if-possible", "--force"],
        capture_output=True,
        text=True,
        check=False,
    )
    said = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        logger.warning("the book's PDF could not be made (tools/build_pdf.py):\n" + "\n".join(said.splitlines()[-15:]))
    else:
        logger.info(said)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=HTML_DIR, help="the built HTML (default: _build/html)")
    parser.add_argument("--out", type=Path, default=None, help=f"the PDF (default: HTML folder / {PDF_NAME})")
    parser.add_argument("--if-possible", action="store_true", help="without Chromium or Playwright, say so and exit 0")
    parser.add_argument("--force", action="store_true", help="print the book even if the PDF is up to date")
    args = parser.parse_args(argv)
    if not (args.html / "intro.html").is_file():
        print(f"build_pdf: no built book in {args.html} (run make book first)", file=sys.stderr)
        return 1
    target = args.out or args.html / PDF_NAME
    if not args.force and up_to_date(args.html, target):
        print(f"build_pdf: {target} is up to date")
        return 0
    start = time.perf_counter()
    try:
        import playwright  # noqa: F401

        out, meta = build(args.html, args.out)
    except (FileNotFoundError, ImportError) as exc:
        print(f"build_pdf: PDF not made: {exc}", file=sys.stderr)
        return 0 if args.if_possible else 1
    from pypdf import PdfReader

    pages = len(PdfReader(out).pages)
    size = out.stat().st_size / 1e6
    stages = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in meta["seconds"].items())
    wrapped = meta["wrapped"]
    print(
        f"build_pdf: {out} ({pages} pages, {size:.1f} MB) in {time.perf_counter() - start:.0f} s ({stages});"
        f" {wrapped['wrapped']} long code line(s) broken at a token, {len(wrapped['shrunk'])} block(s) printed smaller"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
