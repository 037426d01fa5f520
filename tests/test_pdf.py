"""The whole book as one PDF, as the book build makes it (tools/build_pdf.py, run by `jupyter-book
build` as a Sphinx extension): its outline follows `_toc.yml`, every chapter's title and every
figure is in it, every live figure prints its starting picture, no text runs past the margins, no
answer stands before its chapter's questions are done, no sentence is true only on the web page,
every character has a glyph, code breaks only between tokens, chapters begin on right-hand pages
under running heads, and the file stays small enough to download.

Reads the PDF the session's book build wrote (the `built_book` fixture, one build per session),
once per module. Needs Chromium and Playwright for the build to make a PDF (skipped without them,
saying why). With ATTNLIB_BOOK_PDF set to a PDF, that file is tested instead (used to watch each
test fail on a PDF built wrong).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import subprocess
import unicodedata
from collections import Counter
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import toc_files

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("build_pdf", ROOT / "tools" / "build_pdf.py")
build_pdf = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(build_pdf)

pypdf = pytest.importorskip("pypdf", reason="pypdf is not installed (it is in requirements.txt)")
if build_pdf.find_chromium() is None:
    pytest.skip(
        "headless Chromium not found, so the book build makes no PDF; install it with "
        "`apt-get install -y chromium` to build and test the PDF",
        allow_module_level=True,
    )
pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed, so no PDF is made")

PDF_ENV = "ATTNLIB_BOOK_PDF"
MAX_MB = 15
#: how far past the text column a line may reach (points): the width of a hair, for rounding
SLACK_PT = 1.5
MM = 72 / 25.4
#: an answer is found in the PDF by its first run of this many characters without math (spaces left out)
ANSWER_CHARS = 16
QUESTION = re.compile(r"^Recall\b|[?…]$")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
#: the advance of every character of DejaVu Sans Mono, the book's code font (1233/2048 em)
MONO_EM = 0.602
#: the body text's size on paper (16 px at the print scale 0.85 is 10.2 pt)
MIN_BODY_PT = 9.5

logging.getLogger("pypdf").setLevel(logging.ERROR)  # Chromium's trailer size is off by a few objects


def key(doc: str) -> str:
    return doc.replace("/", "--")


class _Article(HTMLParser):
    """What the built HTML page holds: plain title, numbered sections, figures, questions, answers."""

    def __init__(self):
        super().__init__()
        self.title = ""
        self.h2 = 0
        self.figures: list[str] = []
        self.recalls = 0
        self.recall_names: list[str | None] = []  # "1.1" where a question carries its chapter's number (the checklist)
        self.solutions: list[str] = []  # "Exercise 9.1", from each solution's title
        self.answers: list[str] = []  # the first words of each Recall answer and solution, no math
        self._in_title = self._in_article = False
        self._solution_title: list[str] | None = None
        self._answer: list[str] | None = None
        self._math = 0
        self._summary: list[str] | None = None
        self._question = False
        self._depth = self._answer_depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "title":
            self._in_title = True
        if tag == "article" and "bd-article" in classes:
            self._in_article = True
        if not self._in_article:
            return
        if tag == "h2":
            self.h2 += 1
        # a live figure's still image (what an untrusted notebook shows) is not printed: its picture is
        if (tag == "img" and "attnfig-still" not in classes) or (tag == "figure" and "attnfig" in classes):
            self.figures.append(a.get("id") or f"pdf-figure-{len(self.figures) + 1}")
        if tag == "span" and "sd-summary-text" in classes:
            self._summary = [""]
        if self._math or "math" in classes or tag in ("pre", "code"):
            self._math += 1
            if self._answer is not None:
                self._answer = []  # words without math or code between them: typeset math reads back as other text
        if (tag == "div" and "sd-summary-content" in classes and self._question) or a.get("id") == "solution-content":
            self._answer, self._answer_depth = [], self._depth
        if tag not in VOID:
            self._depth += 1
        if tag == "p" and "admonition-title" in classes and self._solution_title == []:
            self._solution_title = [""]
        if tag == "div" and "solution" in classes:
            self._solution_title = []

    def handle_endtag(self, tag):
        in_math = self._math > 0
        if self._math:
            self._math -= 1
        self._depth -= 1
        if self._answer is not None and self._depth <= self._answer_depth:
            self._answer = None  # an answer of code and math only: nothing to look for
        if tag == "title":
            self._in_title = False
        if tag == "article":
            self._in_article = False
        if tag == "span" and self._summary is not None and not in_math:
            # a Recall question, as tools/pdf_assemble.js tells one from a fold that hides no answer
            self._question = bool(QUESTION.search(self._summary[0].strip()))
            self.recalls += self._question
            if self._question:
                given = re.match(r"\s*Recall\s+(\d+\.\d+)", self._summary[0])
                self.recall_names.append(given.group(1) if given else None)
            self._summary = None
        if tag == "p" and self._solution_title:
            self.solutions.append(re.sub(r"^\s*Solution to\s*", "", self._solution_title[0]).strip())
            self._solution_title = None

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._solution_title:
            self._solution_title[0] += data
        if self._summary is not None:
            self._summary[0] += data
        if self._answer is not None and not self._math:
            self._answer.append(data)
            words = _squash("".join(self._answer))
            if len(words) >= ANSWER_CHARS:
                self.answers.append(words[:ANSWER_CHARS])
                self._answer = None


@pytest.fixture(scope="module")
def pages(built_book) -> dict[str, _Article]:
    found = {}
    for doc in toc_files():
        article = _Article()
        article.feed((built_book.html_dir / f"{doc}.html").read_text(encoding="utf-8"))
        article.title = re.sub(r"\s+—\s+[^—]*$", "", unescape(article.title)).strip()
        found[doc] = article
    return found


@pytest.fixture(scope="module")
def book_pdf(built_book) -> Path:
    given = os.environ.get(PDF_ENV)
    path = Path(given) if given else built_book.html_dir / build_pdf.PDF_NAME
    if not path.is_file():
        pytest.fail(f"the book build made no PDF at {path} (see tools/build_pdf.py)", pytrace=False)
    return path


@pytest.fixture(scope="module")
def pdf(book_pdf):
    """The PDF read once: its reader, its named destinations (name -> page index) and every page's
    text runs as (x start, x end, font size, text), in points (the size 0 for code)."""
    reader = pypdf.PdfReader(book_pdf)
    dests = {name.lstrip("/"): reader.get_destination_page_number(d) for name, d in reader.named_destinations.items()}
    texts, runs = [], []
    for page in reader.pages:
        on_page = []

        def visit(text, cm, tm, font, size, on_page=on_page):
            # MathJax's glyphs are Type3 fonts, placed by their own font matrix; the margin of an
            # equation is the browser test's and build_pdf.py's to check (the box's width)
            if not text.strip() or font is None or font.get("/Subtype") == "/Type3":
                return
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            scale = (cm[0] ** 2 + cm[1] ** 2) ** 0.5 * (tm[0] ** 2 + tm[1] ** 2) ** 0.5
            # code and printed outputs (where a line can run long) are in a monospace font, every
            # character MONO_EM wide; a line of prose is wrapped by the browser, so its start is checked
            mono = "Mono" in str(font.get("/BaseFont", ""))
            width = len(text.rstrip()) * MONO_EM * size * scale if mono else 0.0
            on_page.append((x, x + width, size * scale if not mono else 0.0, text))

        texts.append(page.extract_text(visitor_text=visit))
        runs.append(on_page)
    # each page's monospace text (code and printed outputs) and its other text, without spaces
    mono = [_squash("".join(t for _, _, size, t in on_page if not size)) for on_page in runs]
    other = [_squash("".join(t for _, _, size, t in on_page if size)) for on_page in runs]
    return {"reader": reader, "dests": dests, "texts": texts, "runs": runs, "mono": mono, "other": other}


def _squash(text: str) -> str:
    """Text without spaces, ligatures as letters ("ﬁ" -> "fi"), to find the same words in HTML and PDF."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def _doc_pages(pdf, docs: list[str]) -> dict[str, range]:
    """doc -> the pages it covers, from its own start to the next page's start (named destinations)."""
    starts = [pdf["dests"][key(doc)] for doc in docs]
    ends = starts[1:] + [len(pdf["reader"].pages)]
    return {doc: range(start, max(end, start + 1)) for doc, start, end in zip(docs, starts, ends)}


def test_outline_follows_the_toc(pdf, pages):
    """Bookmarks: the intro, then each part of _toc.yml by its caption with its chapters, numbered
    and titled as online, each with its sections (and its answers), in the order of the pages."""
    outline = pdf["reader"].outline
    parts = build_pdf.book_parts()
    expected = []
    for part in parts:
        if part["caption"]:
            expected.append((part["caption"], [pages[d].title for d in part["docs"]]))
        else:
            expected += [(pages[d].title, None) for d in part["docs"]]
    found, i = [], 0
    while i < len(outline):
        item = outline[i]
        children = outline[i + 1] if i + 1 < len(outline) and isinstance(outline[i + 1], list) else []
        i += 2 if children else 1
        found.append((item.title, children))
    assert [t for t, _ in found] == [t for t, _ in expected], "the outline's top level is not _toc.yml's"
    for (title, children), (_, want) in zip(found, expected):
        if want is None:
            continue
        titles = [c.title for c in children if not isinstance(c, list)]
        assert titles == want, f"{title}: the outline lists {titles}, _toc.yml and the pages say {want}"
    chapters = {d: pages[d] for d in toc_files()}
    flat = []

    def walk(items, depth=0):
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                flat.append((depth, item.title, pdf["reader"].get_destination_page_number(item)))

    walk(outline)
    numbers = [page for _, _, page in flat]
    assert numbers == sorted(numbers), "the outline's entries are not in the order of the pages"
    # every numbered chapter's sections, and its answers when it has questions
    by_title = {p.title: d for d, p in chapters.items()}
    for index, (depth, title, _) in enumerate(flat):
        doc = by_title.get(title)
        if doc is None or depth == 0 and title != chapters[toc_files()[0]].title:
            continue
        sections = [t for d, t, _ in flat[index + 1 :]]
        depths = [d for d, _, _ in flat[index + 1 :]]
        count = next((n for n, d in enumerate(depths) if d <= depth), len(depths))
        answers = 1 if chapters[doc].recalls + len(chapters[doc].solutions) else 0
        assert count == chapters[doc].h2 + answers, (
            f"{title}: {count} section bookmarks, the page has {chapters[doc].h2} sections"
            + (" and the answers" if answers else "")
            + f": {sections[:count]}"
        )


def test_contents_give_the_page_each_part_and_chapter_begins_on(pdf):
    """On paper the contents are read by page number: each part's and chapter's line ends with the
    page (as the footer numbers it, from 1) where Chromium put its heading."""
    docs = toc_files()
    expected = []
    for p, part in enumerate(build_pdf.book_parts()):
        if part["caption"]:
            expected.append(pdf["dests"][f"pdf-part-{p + 1}"] + 1)
        expected += [pdf["dests"][key(doc)] + 1 for doc in part["docs"]]
    width = float(pdf["reader"].pages[0].mediabox.width)
    contents = range(1, pdf["dests"][key(docs[0])])  # after the title page, before the first chapter
    shown = [
        int(text)
        for index in contents
        for x, _end, _size, text in pdf["runs"][index]
        if text.strip().isdigit() and x > 0.8 * width  # a number at the right of its line
    ]
    assert shown == expected, f"the contents show the pages {shown}, the parts and chapters begin on {expected}"


def test_every_chapter_title_and_figure_is_in_the_pdf(pdf, pages):
    """Each page of the book starts where its title is printed; each of its figures (pictures and
    live figures) stands on one of its own pages, as many as the web page has."""
    docs = toc_files()
    missing = [doc for doc in docs if key(doc) not in pdf["dests"]]
    assert not missing, f"pages of the book not in the PDF: {missing}"
    spans = _doc_pages(pdf, docs)
    problems = []
    for doc, span in spans.items():
        # the title up to its first math (typeset by MathJax, whose glyphs read back as other text)
        title = re.match(r"[A-Za-z0-9 ,:;'’()-]*", pages[doc].title.split(". ", 1)[-1]).group()[:30]
        if _squash(title) not in _squash(pdf["texts"][span.start]):
            problems.append(f"{doc}: its title {title!r} is not on its first page ({span.start + 1})")
        placed = [pdf["dests"].get(f"{key(doc)}--{fig}") for fig in pages[doc].figures]
        lost = [fig for fig, page in zip(pages[doc].figures, placed) if page is None]
        astray = [fig for fig, page in zip(pages[doc].figures, placed) if page is not None and page not in span]
        if lost:
            problems.append(f"{doc}: {len(lost)} of its {len(placed)} figures are not in the PDF: {lost[:3]}")
        if astray:
            problems.append(f"{doc}: figures outside its pages {span.start + 1}-{span.stop}: {astray[:3]}")
    assert not problems, "\n  ".join(problems)
    total = sum(len(p.figures) for p in pages.values())
    print(f"\n{len(docs)} pages of the book and {total} figures in the PDF")


def test_figures_are_vector(pdf, built_book):
    """No picture of the PDF is a photo of a page: every raster image in it is one drawn inside a
    figure's own SVG (matplotlib's heat maps), never a JPEG Chromium made of a shadow or a figure."""
    embedded = sum(svg.read_text(errors="replace").count("<image") for svg in built_book.html_dir.glob("_images/*.svg"))
    reader = pdf["reader"]
    rasters = []  # every image object of the file (pages draw them through patterns and forms too)
    for number in range(1, int(reader.trailer["/Size"])):
        obj = reader.get_object(number)  # None for a free entry of the cross-reference table
        if hasattr(obj, "get") and obj.get("/Subtype") == "/Image":
            rasters.append((number, obj.get("/Filter"), obj.get("/Width"), obj.get("/Height")))
    jpegs = [r for r in rasters if r[1] == "/DCTDecode"]
    assert not jpegs, f"{len(jpegs)} JPEG(s) in the PDF, rasterized by Chromium: {jpegs[:5]}"
    assert len(rasters) <= embedded * 2, f"{len(rasters)} raster images, the figures' SVGs embed {embedded}"


def test_no_text_beyond_the_margins(pdf):
    """Every line of text, code and printed output starts inside the page's text column, and every
    line of code and printed output ends inside it."""
    reader = pdf["reader"]
    left = build_pdf.PAGE["margin"]["left"]
    right = build_pdf.PAGE["margin"]["right"]
    margin_left = float(left.removesuffix("mm")) * MM
    margin_right = float(right.removesuffix("mm")) * MM
    out = []
    for number, (page, runs) in enumerate(zip(reader.pages, pdf["runs"]), 1):
        width = float(page.mediabox.width)
        for start, end, _size, text in runs:
            if start < margin_left - SLACK_PT or end > width - margin_right + SLACK_PT:
                out.append(f"page {number}: {text.strip()[:50]!r} from {start:.0f} to {end:.0f} pt of {width:.0f}")
    assert not out, f"{len(out)} run(s) of text past the margins:\n  " + "\n  ".join(out[:30])
    # and nothing was made to fit by shrinking the whole page (Chromium's answer to a box too wide)
    sizes = Counter()  # characters of prose (not code) per font size
    for runs in pdf["runs"]:
        for _, _, size, text in runs:
            if size:
                sizes[round(size, 1)] += len(text)
    body = sizes.most_common(1)[0][0]
    assert body >= MIN_BODY_PT, f"the body text prints at {body} pt, under {MIN_BODY_PT} pt: shrunk to fit?"


def test_no_answer_before_its_question(pdf, pages):
    """A reader on paper can try first: in each chapter every Recall question and every exercise
    comes before the first answer, which stands in the chapter's answers at its end."""
    spans = _doc_pages(pdf, toc_files())
    problems = []
    for doc, span in spans.items():
        page = pages[doc]
        if not page.recalls + len(page.solutions):
            continue
        text = "\n".join(pdf["texts"][i] for i in span)
        flat = _squash(text)
        number = page.title.split(".")[0] if page.title[:1].isdigit() else ""
        label = f"{number}." if number else ""
        names = [given or f"{label}{n}" for n, given in enumerate(page.recall_names, 1)]
        questions = [f"Recall{name}." for name in names]
        questions += [_squash(name) for name in page.solutions]
        answers = [f"AnswertoRecall{name}" for name in names]
        answers += [f"Solutionto{_squash(name)}" for name in page.solutions]
        missing = [a for a in answers if a not in flat]
        if missing:
            problems.append(f"{doc}: answers not labelled in the PDF: {missing[:4]}")
        # and the answers' own words, wherever they stand (they would stand under their questions
        # if they were not moved)
        found = [flat.rfind(a) for a in page.answers]  # the last: the same words may stand in the prose
        lost = [a for a, at in zip(page.answers, found) if at < 0]
        if lost:
            problems.append(f"{doc}: {len(lost)} answer(s) not found in the PDF by their first words: {lost[:3]}")
        first_answer = min([flat.index(a) for a in answers if a in flat] + [at for at in found if at >= 0])
        late = [q for q in questions if q not in flat[:first_answer]]
        if late:
            problems.append(f"{doc}: an answer stands before the question(s) {late[:4]}")
        if "Answersandsolutions" not in flat[:first_answer] and "Answers:" not in flat[:first_answer]:
            problems.append(f"{doc}: the first answer is not in the chapter's answers at its end")
    assert not problems, "\n  ".join(problems)


def test_links_stay_inside_the_pdf(pdf):
    """Every link between chapters, to a section or to an answer goes to a place in the PDF; none
    points at the local web server the book was printed from."""
    reader, internal, outside = pdf["reader"], 0, []
    for number, page in enumerate(reader.pages, 1):
        for ref in page.get("/Annots") or []:
            link = ref.get_object()
            action = link.get("/A") or {}
            if link.get("/Subtype") != "/Link":
                continue
            if "/Dest" in link or action.get("/S") == "/GoTo":
                internal += 1
            elif re.match(r"https?://(127\.0\.0\.1|localhost)[:/]", str(action.get("/URI", ""))):
                outside.append(f"page {number}: {action['/URI']}")
    assert not outside, f"{len(outside)} link(s) to the printing server, dead in the PDF: {outside[:5]}"
    # the contents alone links every page and section of the book
    assert internal >= len(pdf["dests"]) // 2, f"only {internal} links inside the PDF"
    print(f"\n{internal} links inside the PDF")


def test_size(book_pdf, pdf):
    size = book_pdf.stat().st_size / 1e6
    print(f"\nthe book's PDF: {len(pdf['reader'].pages)} pages, {size:.1f} MB")
    assert size <= MAX_MB, f"the PDF is {size:.1f} MB, over {MAX_MB} MB"


#: what is true only on the web page, and must not be printed (tools/pdf_assemble.js says it for paper)
WEB_ONLY = (
    "click to",
    "Show code cell",
    "Download the whole book",
    "hidden below each exercise",
    "one click away",
)


def _plain(html_text: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html_text))


def _live_figures(html_text: str) -> list[tuple[str, list[str]]]:
    """Each live figure of a built page: its id and the words and numbers its starting picture
    draws (the SVG's labels, the cells of its grids and tables), without its controls and notes."""
    found = []
    for match in re.finditer(r'<figure class="attnfig" id="([^"]+)".*?</figure>', html_text, re.DOTALL):
        body = re.sub(r"<(style|script)\b.*?</\1>", "", match.group(0), flags=re.DOTALL)
        body = re.sub(r'<p class="attnfig-static">.*?</p>', "", body, flags=re.DOTALL)
        body = re.sub(r'<div class="attnfig-controls".*?</div>', "", body, flags=re.DOTALL)
        body = re.sub(r"<fieldset\b.*?</fieldset>", "", body, flags=re.DOTALL)
        # a part that only a control shows (another state of the figure), not the starting picture
        body = re.sub(r'<div class="(?!attnfig-pic)[^"]*" style="display:none">.*?</div>', "", body, flags=re.DOTALL)
        drawn = re.findall(r"<text\b[^>]*>(.*?)</text>", body, re.DOTALL)
        drawn += re.findall(r'<button[^>]*class="attnfig-cell[^"]*"[^>]*>(.*?)</button>', body, re.DOTALL)
        drawn += re.findall(r"<td\b[^>]*>(.*?)</td>", body, re.DOTALL)
        words = [_squash(_plain(t)) for t in drawn]
        found.append((match.group(1), [w for w in words if len(w) >= 2]))
    return found


def test_every_live_figure_prints_its_starting_picture(pdf, built_book):
    """A live figure's picture is drawn by its script on the web; on paper, where no script runs,
    its starting picture must be there all the same: the labels of its SVG and the numbers of its
    grids (cells that are buttons on the web) are printed on the figure's page or the next."""
    problems, checked = [], 0
    for doc in toc_files():
        html_text = (built_book.html_dir / f"{doc}.html").read_text(encoding="utf-8")
        for fig, words in _live_figures(html_text):
            page = pdf["dests"].get(f"{key(doc)}--{fig}")
            if page is None:
                problems.append(f"{doc}: live figure {fig} is not in the PDF")
                continue
            checked += 1
            text = _squash("".join(pdf["texts"][page : page + 2]))
            missing = [w for w in words if w not in text]
            if not words or len(missing) > len(words) // 5:
                problems.append(
                    f"{doc}, page {page + 1}: live figure {fig} prints {len(words) - len(missing)} of the"
                    f" {len(words)} labels and numbers of its picture; missing {missing[:6]}"
                )
    assert checked, "no live figure found in the built book"
    assert not problems, "\n  ".join(problems)
    print(f"\n{checked} live figures print their starting picture")


def test_no_web_only_wording(pdf):
    """On paper there is nothing to click, download or unfold: no sentence says so."""
    found = [
        f"page {number}: {phrase!r} in ...{text[max(0, at - 50) : at + 40]!r}..."
        for number, text in enumerate(pdf["texts"], 1)
        for phrase in WEB_ONLY
        for at in [text.replace("\n", " ").find(phrase)]
        if at >= 0
    ]
    assert not found, f"{len(found)} web-only sentence(s) printed:\n  " + "\n  ".join(found[:20])


def test_every_character_has_a_glyph(pdf):
    """Every character of the text prints with a glyph of some installed font: a character no font
    has prints as an empty box, which Chromium writes as glyph 0 (read back as U+0000)."""
    found = [
        f"page {number}: {text[max(0, at - 40) : at + 20]!r}"
        for number, text in enumerate(pdf["texts"], 1)
        for at in [m.start() for m in re.finditer("\x00|\ufffd", text)]
    ]
    assert not found, f"{len(found)} character(s) printed without a glyph:\n  " + "\n  ".join(found[:20])


def _code_lines(html_text: str) -> list[str]:
    """Every line of code and printed output of a built page, as its <pre> blocks hold them."""
    blocks = re.findall(r"<pre\b[^>]*>(.*?)</pre>", html_text, re.DOTALL)
    return [line.strip() for block in blocks for line in _plain(block).splitlines() if line.strip()]


def _at_boundaries(piece: str, line: str) -> bool:
    """`piece` stands in `line` somewhere it begins and ends at a token boundary: the line's ends, a
    space, or just after , ; ( [ { (where tools/pdf_assemble.js breaks a long line)."""
    for match in re.finditer(re.escape(piece), line):
        start, end = match.start(), match.end()
        starts = start == 0 or line[start - 1] in " \t,;([{"
        ends = end == len(line) or line[end] == " " or line[end - 1] in " ,;([{"
        if starts and ends:
            return True
    return False


def test_code_breaks_only_between_tokens(pdf, built_book):
    """A line of code or output too long for the column goes on after a token, marked "↪": no
    printed line of code ends or begins inside a token (a number split as "1e-" / "12)")."""
    spans = _doc_pages(pdf, toc_files())
    problems, pieces = [], 0
    for doc, span in spans.items():
        lines = _code_lines((built_book.html_dir / f"{doc}.html").read_text(encoding="utf-8"))
        whole = set(lines)
        for index in span:
            for printed in pdf["texts"][index].splitlines():
                piece = printed.strip().removeprefix("↪").strip()
                if len(piece) < 3 or piece.isdigit() or piece in whole:
                    continue
                if _squash(piece) not in pdf["mono"][index] or _squash(piece) in pdf["other"][index]:
                    continue  # not printed as code (prose, a figure's label), or not only as code
                holding = [line for line in lines if piece in line]
                if not holding:
                    continue  # prose, or a line of code printed whole
                pieces += 1
                if not any(_at_boundaries(piece, line) for line in holding):
                    problems.append(f"{doc}, page {index + 1}: {piece!r} (a piece of {holding[0]!r})")
    assert not problems, f"{len(problems)} line(s) of code broken inside a token:\n  " + "\n  ".join(problems[:20])
    print(f"\n{pieces} pieces of long code lines, each broken between tokens")


def test_parts_and_chapters_begin_on_right_hand_pages(pdf):
    """As in a printed book: every part and every page of the book (chapter, checklist, reference)
    begins on a right-hand, odd page."""
    names = [f"pdf-part-{p + 1}" for p, part in enumerate(build_pdf.book_parts()) if part["caption"]]
    names += [key(doc) for doc in toc_files()]
    left = [f"{name}: page {pdf['dests'][name] + 1}" for name in names if pdf["dests"][name] % 2]
    assert not left, f"{len(left)} begin on a left-hand page: {left}"


def test_running_heads_name_the_chapter(pdf, pages):
    """Every page of a chapter but its first (and an empty page before the next) carries the
    chapter's title as its running head."""
    docs = toc_files()
    spans = _doc_pages(pdf, docs)
    parts = {pdf["dests"][f"pdf-part-{p + 1}"] for p, part in enumerate(build_pdf.book_parts()) if part["caption"]}
    missing = []
    for doc, span in spans.items():
        title = _squash(pages[doc].title)
        for index in span[1:]:
            text = pdf["texts"][index]
            if index in parts:
                continue  # a part's own page, after the chapter
            if not text.strip().replace(str(index + 1), "").strip():
                continue  # an empty page (its page number only)
            if title not in _squash(text):
                missing.append(f"page {index + 1} of {doc}")
    assert not missing, f"{len(missing)} page(s) without their chapter's running head: {missing[:10]}"


def test_recall_questions_start_as_sentences(pdf):
    """ "Recall 9.1. Two scores in a row ...": a question printed after its label starts with a capital."""
    text = " ".join(t.replace("\n", " ") for t in pdf["texts"])
    questions = re.findall(r"(?:Answer to )?Recall \d+\.\d+[.:] +(\S+)", text)
    lower = [word for word in questions if word[:1].islower()]
    assert questions, "no Recall question found in the PDF"
    assert not lower, f"{len(lower)} of {len(questions)} Recall questions start in lower case: {lower[:10]}"


def test_title_page_says_version_and_where_the_web_book_is(pdf):
    """The first page names the course, its version (the date and commit it was built from) and
    where the web book, with its live figures, is."""
    first = pdf["texts"][0].replace("\n", " ")
    assert build_pdf.book_info()["title"] in first, f"the title page reads {first[:200]!r}"
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%h"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if commit and not os.environ.get(PDF_ENV):
        assert f"commit {commit}" in first, f"the title page gives no version (commit {commit}): {first[:300]!r}"
    assert re.search(r"Version of \d{1,2} \w+ \d{4}", first), f"the title page gives no version: {first[:300]!r}"
    assert "web book" in first and ("intro.html" in first or "http" in first), (
        f"the title page does not say where the web book is: {first[:400]!r}"
    )
