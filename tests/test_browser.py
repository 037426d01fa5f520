"""Every page of the built book, opened in a real browser (headless Chromium through Playwright).

Every page is opened once in each of three views, 1280 px light, 390 px light and 390 px dark
(the fixture `reader_views`), and every check below looks at that one opening: Chromium's time is
most of the suite's, so no page is loaded twice for the same view.

In every view: the ☰ and contents menus open from the visible buttons (light views), every live
figure starts, the console shows no error, no request fails, and nothing is fetched from outside
127.0.0.1 (the phone views block such a request; any is reported). At desktop width: the math is
typeset by the book's own MathJax, every image has loaded, Recall answers and solutions start
collapsed and open on click, and every local link points to a file and anchor that exist. With
ATTNLIB_SCREENSHOTS=1, a whole-page screenshot of every view goes to _build/screenshots/.

And, on every page at 1280 px and at 390 px light and dark (the rules in tests/browser_measures.py):
no display equation wider than its box, no table wider than its box unless it scrolls with a
visible cue and takes the keyboard, no printed table (rows meant to line up) that wraps at 390 px,
no axe-core violation of WCAG 2.0/2.1 A and AA, the page whole on paper (print media), and the
bytes a page brings on a first visit and for the next page. Each test prints what it measured.

Needs Debian's `chromium` (apt-get install -y chromium) and Playwright for Python; Playwright
drives the system Chromium (no browser download). Without them the module is skipped, saying why.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import browser_measures as measures
import pytest
from conftest import toc_files
from headless_chromium import MISSING, find_chromium

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "_build" / "screenshots"
#: ATTNLIB_SCREENSHOTS=1 saves every page, whole, as each view shows it (a whole-page PNG of a long
#: chapter costs a second of a 2-core machine's time, so the suite does not make them unasked)
SAVE_SCREENSHOTS = os.environ.get("ATTNLIB_SCREENSHOTS", "") not in ("", "0")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # nothing but the book's own server resolves: a request for anything else fails at once (and
    # is reported), with no network wait and no request routing, which would turn off the cache
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
MATHJAX_TIMEOUT_MS = 30_000
#: time for _static/book_fixes.js to mark the boxes that scroll (it waits 100 ms for the page to settle)
SETTLE_MS = 250
#: how long a menu may take to open or close after a tap (the theme's slide lasts 250 ms)
MENU_MS = 2_000

#: console errors that are known to be harmless, each with the reason. Empty on purpose: the
#: two that every page used to log are gone at their cause (see _ext/no_thebe.py for
#: "Identifier 'THEBE_JS_URL' has already been declared", and `html_context: default_mode`
#: in _config.yml for the theme's "Got invalid theme mode" on a fresh profile).
KNOWN_HARMLESS_CONSOLE_ERRORS: list[tuple[re.Pattern, str]] = []

#: requests the test's own tools make and that fail for a known reason, each with the reason; the
#: book never makes them (a page's own request for the same path would still be reported)
TOOL_REQUESTS_KNOWN_TO_FAIL: list[tuple[re.Pattern, str]] = [
    (
        re.compile(r"^/basic\.css$"),
        (
            "axe-core's CSS preload fetches the theme's `@import \"../basic.css\"` relative to the page, not to "
            "the style sheet that imports it (dequelabs/axe-core#5268); the browser itself loads _static/basic.css"
        ),
    ),
]


def _known_tool_failure(url: str, resource_type: str) -> bool:
    path = urlsplit(url).path
    return resource_type in ("xhr", "fetch") and any(p.search(path) for p, _why in TOOL_REQUESTS_KNOWN_TO_FAIL)


if find_chromium() is None:
    pytest.skip(MISSING + " to run the browser test of every page", allow_module_level=True)
sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="Playwright for Python is not installed (pip install playwright; no browser download needed)",
)


def pages_to_check() -> list[str]:
    """Every page the book builds: the documents in _toc.yml, the general and module indexes
    (the latter made by autodoc for reference.md) and the search page."""
    return toc_files() + ["genindex", "py-modindex", "search"]


PAGES = pages_to_check()


# ----------------------------------------------------------------------------- fixtures


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(built_book):
    """The built HTML, served by a local HTTP server on 127.0.0.1 at a free port."""
    handler = functools.partial(_QuietHandler, directory=str(built_book.html_dir))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def anchors(built_book):
    """file path relative to the HTML root -> the ids and names it defines (read once, on demand)."""
    cache: dict[str, set[str]] = {}

    def ids(relpath: str) -> set[str]:
        if relpath not in cache:
            collector = _Ids()
            collector.feed((built_book.html_dir / relpath).read_text(encoding="utf-8", errors="replace"))
            cache[relpath] = collector.ids
        return cache[relpath]

    return ids


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" or (tag == "a" and key == "name"):
                self.ids.add(value or "")


def _screenshot_name(docname: str) -> str:
    return docname.replace("/", "__") + ".png"


# ----------------------------------------------------------------------------- JavaScript probes

WAIT_FOR_MATHJAX = """async () => {
    const hasMath = document.querySelector('.math') !== null;
    if (!hasMath) return {hasMath, loaded: !!window.MathJax};
    const start = Date.now();
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
        if (Date.now() - start > __TIMEOUT__) return {hasMath, loaded: false};
        await new Promise(r => setTimeout(r, 50));
    }
    await MathJax.startup.promise;
    return {hasMath, loaded: true};
}""".replace("__TIMEOUT__", str(MATHJAX_TIMEOUT_MS))

MATH_REPORT = """() => {
    const math = Array.from(document.querySelectorAll('span.math, div.math'));
    const untypeset = math.filter(m => !m.querySelector('mjx-container'))
                          .map(m => m.textContent.trim().slice(0, 80));
    // TeX errors: <merror>, and (noundefined extension) an unknown macro drawn as red text
    const errors = [];
    if (window.MathJax && MathJax.startup && MathJax.startup.document) {
        for (const item of MathJax.startup.document.math) {
            let bad = false;
            item.root.walkTree(node => {
                if (node.isKind('merror') ||
                    (node.isKind('mtext') && node.attributes.get('mathcolor') === 'red')) bad = true;
            });
            if (bad) errors.push(item.math.trim().slice(0, 120));
        }
    }
    // visible text outside code, scripts and typeset math must hold no raw TeX delimiters
    // (text hidden on screen, e.g. the theme's print-only header, is not checked)
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
        acceptNode(node) {
            const el = node.parentElement;
            return el.closest('pre, code, script, style, textarea, mjx-container, .highlight')
                   || !el.checkVisibility() ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
        }});
    // and no TeX command either (e.g. a {doc} link showing "Why divide by \\sqrt{d_k}")
    const raw = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.textContent;
        if (/\\\\[\\(\\[]|\\\\[a-zA-Z]+\\b/.test(text)) raw.push(text.trim().slice(0, 80));
    }
    return {count: math.length, typeset: document.querySelectorAll('mjx-container').length,
            untypeset, errors, raw};
}"""

IMAGE_REPORT = """() => Array.from(document.images).map(img => ({
    src: img.getAttribute('src'), complete: img.complete, width: img.naturalWidth}))"""

LOCAL_LINKS = """() => Array.from(document.querySelectorAll('a[href]'),
                                 a => a.href).filter(h => h.startsWith(location.origin))"""

OVERFLOW = """() => document.documentElement.scrollWidth - document.documentElement.clientWidth"""


# ----------------------------------------------------------------------------- the reader's view

#: raw TeX where a reader sees plain text: a math delimiter, a TeX command the course writes, or a
#: braced sub/superscript. (Code such as "\n".join in a search snippet is not TeX.)
RAW_TEX = re.compile(
    r"\\[()\[\]]|\\(?:sqrt|mathbb|mathsf|mathrm|text|frac|times|in|top|cdot|left|right|"
    r"sum|operatorname|mathbf|boldsymbol|quad|approx|le|ge)\b|[_^]\{"
)

#: what a reader on a phone (or a desktop) sees; the dark views emulate prefers-color-scheme: dark
VIEWS = [("desktop", DESKTOP, "light"), ("phone", PHONE, "light"), ("phone", PHONE, "dark")]
#: the views in two sweeps of about equal cost, each a module of its own so that pytest-xdist
#: (`make test`, --dist loadfile) runs them on two cores at once: this module sweeps the desktop,
#: tests/test_browser_phone.py (which runs this module's tests again) the phone, light and dark
SWEEPS = {"desktop": VIEWS[:1], "phone": VIEWS[1:]}
SWEEP = "desktop"


#: smallest rendered figure text measured on a phone, per page (printed at the end of the run)
FIGURE_TEXT: dict[str, tuple[float, str]] = {}
#: the dpi of PNG figures (an older build's format); SVG figures carry their own font sizes
PNG_DPI = 100
#: text smaller than this (CSS px) on a 390 px phone fails the test, naming the figure (every
#: figure function is laid out for a phone; tests/test_figure_text.py checks each one without a
#: browser). ATTNLIB_STRICT_FIGURE_TEXT= (empty) turns the failure into a printed report.
MIN_FIGURE_TEXT_PX = 9.0
STRICT_FIGURE_TEXT_ENV = "ATTNLIB_STRICT_FIGURE_TEXT"
SMALL_FIGURE_TEXT: list[str] = []

TITLES = """() => ({
    tab: document.title,
    links: Array.from(document.querySelectorAll('link[rel=prev], link[rel=next]'),
                      l => `${l.rel}: ${l.title}`),
    prevnext: Array.from(document.querySelectorAll('.prev-next-area .prev-next-title'),
                         el => el.textContent.trim()),
})"""

PRINT_TEXT = """() => {
    // what the page prints: visible text under print media, outside code and typeset math
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
        acceptNode(node) {
            const el = node.parentElement;
            return el.closest('pre, code, script, style, mjx-container, .highlight')
                   || !el.checkVisibility() ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
        }});
    const out = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) out.push(n.textContent);
    const heading = document.querySelector('#jb-print-docs-body h1');
    return {text: out.join(' '), heading: heading ? heading.textContent.trim() : null};
}"""

#: every printed output box (and the output boxes holding it) must show all of its text:
#: nothing wider than its box (which hides the rest behind a scroll) or past the text column
OUTPUT_CUT = """() => {
    const article = document.querySelector('article.bd-article');
    if (!article) return [];
    const right = Math.min(article.getBoundingClientRect().right, document.documentElement.clientWidth);
    const bad = [];
    for (const pre of article.querySelectorAll('div.cell_output pre, div.output pre')) {
        if (!pre.checkVisibility()) continue;
        const line = pre.textContent.split('\\n').reduce((a, b) => b.length > a.length ? b : a, '');
        for (let el = pre; el && el !== article; el = el.parentElement) {
            const box = el.getBoundingClientRect();
            if (el.scrollWidth > el.clientWidth + 1 || box.right > right + 1) {
                bad.push(`${line.trim().slice(0, 70)}… (${el.scrollWidth - el.clientWidth} px hidden ` +
                         `in <${el.tagName.toLowerCase()} class="${el.className}">)`);
                break;
            }
            if (el.matches('div.cell_output')) break;
        }
    }
    // display math wider than the column must scroll in its own box, not be cut
    for (const m of article.querySelectorAll('div.math')) {
        if (m.scrollWidth > m.clientWidth + 1 && !/(auto|scroll)/.test(getComputedStyle(m).overflowX))
            bad.push(`equation cut: ${m.textContent.trim().slice(0, 60)}`);
    }
    return bad;
}"""

#: a table wider than the screen must scroll inside its own box; no row may be a tall sliver
TABLES = """() => {
    const width = document.documentElement.clientWidth;
    const bad = [];
    for (const table of document.querySelectorAll('article.bd-article table')) {
        if (!table.checkVisibility()) continue;
        const label = (table.querySelector('th, td') || table).textContent.trim().slice(0, 40);
        let scroller = null;
        for (let el = table; el && !el.matches('article'); el = el.parentElement) {
            if (/(auto|scroll)/.test(getComputedStyle(el).overflowX)) { scroller = el; break; }
        }
        const box = (scroller || table).getBoundingClientRect();
        if (box.right > width + 1 || box.left < -1)
            bad.push(`table "${label}" runs ${Math.round(box.right - width)} px off the screen`);
        if (table.matches('.indextable')) continue;  // the general index: one row per letter, by design
        for (const row of table.querySelectorAll('tr')) {
            const h = row.getBoundingClientRect().height;
            if (h > 0.4 * window.innerHeight) {
                bad.push(`table "${label}": a row ${Math.round(h)} px tall ` +
                         `("${row.textContent.trim().slice(0, 40)}")`);
                break;
            }
        }
    }
    return bad;
}"""

#: each figure's smallest text as rendered: for an SVG from matplotlib, its glyph scale (font
#: size / 100) over its viewBox; for a PNG, the known smallest font size at the known dpi
FIGURE_SIZES = """async ([pngDpi, pngPt]) => {
    const out = [];
    for (const img of document.querySelectorAll('article.bd-article img')) {
        if (!img.checkVisibility() || !img.naturalWidth || img.src.includes('/_static/')) continue;
        const shown = img.getBoundingClientRect().width;
        let pt = pngPt, units = img.naturalWidth * 72 / pngDpi, kind = 'png';
        if (/\\.svg(\\?|$)/.test(img.src)) {
            const svg = await (await fetch(img.src)).text();
            const box = /viewBox="[\\d.-]+ [\\d.-]+ ([\\d.]+)/.exec(svg);
            const scales = Array.from(svg.matchAll(/scale\\(([\\d.]+) -\\1\\)/g), m => 100 * +m[1]);
            if (!box || !scales.length) continue;
            pt = Math.min(...scales); units = +box[1]; kind = 'svg';
        }
        out.push({src: img.src.split('/').pop(), alt: (img.alt || '').slice(0, 60), kind, pt,
                  px: pt * shown / units, shown});
    }
    return out;
}"""

OPEN_DIALOG_LINKS = """(id) => {
    const d = document.getElementById(id);
    if (!d || !d.open) return null;
    const w = document.documentElement.clientWidth, h = window.innerHeight;
    return Array.from(d.querySelectorAll('a[href]')).filter(a => {
        const r = a.getBoundingClientRect();
        return a.checkVisibility() && r.width > 0 && r.left >= -1 && r.right <= w + 1 && r.top < h && r.bottom > 0;
    }).length;
}"""


def _visible(page, selector: str):
    """The first visible element matching selector, or None."""
    items = page.locator(selector)
    for i in range(items.count()):
        if items.nth(i).is_visible():
            return items.nth(i)
    return None


def _becomes(page, expression: str, arg=None) -> bool:
    """Whether expression turns true within MENU_MS (a menu's slide takes the theme 250 ms)."""
    try:
        page.wait_for_function(expression, arg=arg, timeout=MENU_MS, polling=50)
        return True
    except sync_api.TimeoutError:
        return False


#: the chapter list fully on screen (its slide finished), and fully gone
SIDEBAR_SHOWN = """() => { const s = document.querySelector('#pst-primary-sidebar');
    return !!s && s.checkVisibility({visibilityProperty: true}) && s.getBoundingClientRect().left >= 0
           && getComputedStyle(s).opacity === '1'; }"""
SIDEBAR_HIDDEN = """() => { const s = document.querySelector('#pst-primary-sidebar');
    return !s || !s.checkVisibility({visibilityProperty: true}) || s.getBoundingClientRect().right <= 0; }"""
DIALOG_SHOWS_LINKS = f"(id) => ({OPEN_DIALOG_LINKS})(id) > 0"
DIALOG_CLOSED = "(id) => { const d = document.getElementById(id); return !d || !d.open; }"


def check_menus(page, view: str, docname: str) -> list[str]:
    """Tap the visible ☰ and contents buttons as a reader would; the lists must appear on screen."""
    problems = []
    toggle = _visible(page, ".primary-toggle")
    if view == "desktop":
        if toggle is None:
            return ["desktop: no visible ☰ button"]
        if not page.evaluate(SIDEBAR_SHOWN):
            return ["desktop: the chapter list is not shown before a click"]
        toggle.click()
        if not _becomes(page, SIDEBAR_HIDDEN):
            problems.append("desktop: ☰ does not hide the chapter list")
        toggle.click()
        if not _becomes(page, SIDEBAR_SHOWN):
            problems.append("desktop: a second ☰ does not bring the chapter list back")
        return problems
    if toggle is None:
        return [f"{view}: no visible ☰ button"]
    toggle.click()
    if not _becomes(page, DIALOG_SHOWS_LINKS, "pst-primary-sidebar-modal"):
        shown = page.evaluate(OPEN_DIALOG_LINKS, "pst-primary-sidebar-modal")
        problems.append(
            f"{view}: ☰ does not open the chapter list"
            + ("" if shown is None else " on screen (the dialog is open but shows no link)")
        )
    page.keyboard.press("Escape")
    _becomes(page, DIALOG_CLOSED, "pst-primary-sidebar-modal")
    has_contents = (
        page.locator("#pst-secondary-sidebar nav.page-toc a, #pst-secondary-sidebar-modal nav.page-toc a").count() > 0
    )
    contents = _visible(page, ".secondary-toggle")
    if has_contents and contents is None:
        problems.append(f"{view}: the page has contents but no visible contents button")
    elif contents is not None and has_contents:
        contents.click()
        if not _becomes(page, DIALOG_SHOWS_LINKS, "pst-secondary-sidebar-modal"):
            problems.append(f"{view}: the contents button does not open this page's contents on screen")
        page.keyboard.press("Escape")
        _becomes(page, DIALOG_CLOSED, "pst-secondary-sidebar-modal")
    return problems


UNDERLINED_MATH_LINKS = """() => Array.from(document.querySelectorAll('a'))
    .filter(a => a.querySelector('mjx-container') && a.checkVisibility()
                 && getComputedStyle(a).textDecorationLine.includes('underline'))
    .map(a => a.textContent.trim().slice(0, 50))"""


def check_math_links(page) -> list[str]:
    """A link whose text holds typeset math is not underlined (the line ran through the gaps)."""
    return [
        f"link with math is underlined (through the gaps between formulas): {t!r}"
        for t in page.evaluate(UNDERLINED_MATH_LINKS)
    ]


def check_titles(page) -> list[str]:
    """Tab title, <link rel=prev/next> titles, prev/next buttons and the print heading: no raw TeX."""
    problems = []
    titles = page.evaluate(TITLES)
    for where, text in (
        [("tab title", titles["tab"])]
        + [("link " + t.split(":")[0], t) for t in titles["links"]]
        + [("prev/next button", t) for t in titles["prevnext"]]
    ):
        if RAW_TEX.search(text):
            problems.append(f"raw TeX in the {where}: {text!r}")
    page.emulate_media(media="print")
    try:
        printed = page.evaluate(PRINT_TEXT)
    finally:
        page.emulate_media(media="screen")
    if printed["heading"] is not None and RAW_TEX.search(printed["heading"]):
        problems.append(f"raw TeX in the print heading: {printed['heading']!r}")
    found = RAW_TEX.search(printed["text"])
    if found:
        around = printed["text"][max(0, found.start() - 40) : found.end() + 40]
        problems.append(f"raw TeX in the printed page: {around!r}")
    return problems


def check_dark_figures(page) -> list[str]:
    """In dark mode no figure may sit on a bright block: its border (the figure's background, as
    shown on the page) must be dark. The data inside may be any colour."""
    from io import BytesIO

    from PIL import Image

    problems = []
    if page.evaluate("() => document.documentElement.dataset.theme") != "dark":
        return ["dark mode: the page did not follow prefers-color-scheme: dark"]
    images = page.locator("article.bd-article img")
    for i in range(images.count()):
        img = images.nth(i)
        src = img.get_attribute("src") or ""
        if "_static/" in src or not img.is_visible():
            continue
        img.scroll_into_view_if_needed()
        shot = Image.open(BytesIO(img.screenshot())).convert("L")
        w, h = shot.size
        ring = [shot.getpixel((x, y)) for x in range(0, w, 4) for y in (1, h - 2)] + [
            shot.getpixel((x, y)) for y in range(0, h, 4) for x in (1, w - 2)
        ]
        light = sum(p > 150 for p in ring) / max(1, len(ring))
        if light > 0.25:
            problems.append(
                f"dark mode: figure {src.split('/')[-1]} sits on a light background "
                f"({light:.0%} of its edge is light): glare"
            )
    return problems


def check_figure_sharpness(page) -> list[str]:
    """SVG, or a PNG with at least 2 pixels per CSS pixel shown (sharp on a phone's screen)."""
    sizes = page.evaluate("""() => Array.from(document.querySelectorAll('article.bd-article img'))
        .filter(i => i.checkVisibility() && i.naturalWidth && !i.src.includes('/_static/'))
        .map(i => ({src: i.src.split('/').pop(), natural: i.naturalWidth, shown: i.getBoundingClientRect().width}))""")
    return [
        f"figure {s['src']} is a {s['natural']} px PNG shown {s['shown']:.0f} px wide (< 2x: blurred)"
        for s in sizes
        if not s["src"].endswith(".svg") and s["natural"] < 2 * s["shown"] - 1
    ]


def check_figure_text(page, docname: str) -> list[str]:
    from attnlib import plot

    png_pt = min(v for k, v in plot.STYLE.items() if k.endswith("size") and isinstance(v, (int, float)))
    sizes = page.evaluate(FIGURE_SIZES, [PNG_DPI, png_pt])
    if sizes:
        smallest = min(sizes, key=lambda s: s["px"])
        FIGURE_TEXT[docname] = (
            smallest["px"],
            (f"{smallest['src']} ({smallest['kind']}, {smallest['pt']:.0f} pt shown {smallest['shown']:.0f} px wide)"),
        )
    small = [
        f"phone: text in figure {s['src'][:12]}… ({s['alt']!r}) renders at {s['px']:.1f} px "
        f"(< {MIN_FIGURE_TEXT_PX} px; {s['pt']:.0f} pt text, shown {s['shown']:.0f} px wide)"
        for s in sizes
        if s["px"] < MIN_FIGURE_TEXT_PX
    ]
    SMALL_FIGURE_TEXT.extend(f"{docname}: {line}" for line in small)
    return small if os.environ.get(STRICT_FIGURE_TEXT_ENV, "1") else []


@pytest.fixture(scope="module")
def reader_views(request, built_book, server, browser, anchors) -> dict:
    """Every page in the views of the module's SWEEP (1280 px light; or 390 px light and dark), opened once
    per view for every check of this module that looks at a page as a reader meets it: "problems"
    holds what the reader's-view test reports, "measured" what the tests of equations, tables,
    printouts, axe-core, paper and page weight report (tests/browser_measures.py says how each is
    measured).

    The desktop view opens each page in a fresh profile, so that its bytes can be counted: the
    first load, and then the next page of the book. A phone view reads the book as a reader does,
    page after page in one tab of one profile (a fresh profile for every page took twice as long).
    In every view a request to anything but 127.0.0.1 is reported (Chromium resolves no other host)."""
    sweep = request.module.SWEEP
    views = SWEEPS[sweep]
    axe = measures.axe_source()
    problems: dict[str, list[str]] = {}
    measured: dict = {
        "equations": [],
        "tables": [],
        "printouts": [],
        "axe": [],
        "print": [],
        "weights": [],
        "axe_version": measures.axe_version(axe),
        "views": [f"{viewport['width']} px {scheme}" for _view, viewport, scheme in views],
    }
    html_dir = built_book.html_dir
    started = time.perf_counter()
    tabs: dict[str, Tab] = {}  # the phone views' tabs, kept from page to page
    light_visible: dict[str, str] = {}  # each page's visible elements in the light phone view (measures.VISIBLE)
    for i, docname in enumerate(PAGES):
        found = problems.setdefault(docname, [])
        for view, viewport, scheme in views:
            tag = f"{view}/{scheme}"
            if view == "desktop":
                tab = Tab(browser, viewport, scheme, server)
                tally = measures.start_counting_bytes(tab.context, tab.page)
            else:
                if tag not in tabs:
                    tabs[tag] = Tab(browser, viewport, scheme, server)
                tab, tally = tabs[tag], None
            page, events = tab.page, tab.events
            try:
                page.goto(f"{server}/{docname}.html", wait_until="load")
                mathjax = page.evaluate(WAIT_FOR_MATHJAX)
                page.evaluate("() => document.fonts.ready.then(() => true)")
                page.wait_for_timeout(SETTLE_MS)  # book_fixes.js marks the scroll boxes once MathJax is done
                first_load = tally["bytes"] if tally else 0
                size = f"{viewport['width']} px {scheme}"
                if SAVE_SCREENSHOTS:
                    save_screenshot(page, tag, docname)
                measured["equations"] += [(docname, size, e) for e in page.evaluate(measures.EQUATIONS)]
                measured["tables"] += [(docname, size, t) for t in page.evaluate(measures.TABLES, False)]
                measured["printouts"] += [
                    (docname, size, o) for o in page.evaluate(measures.PRINTOUTS, measures.ALIGNED_ROW)
                ]
                page.add_script_tag(content=axe)
                look = "desktop" if view == "desktop" else "phone"
                if view == "phone":  # a dark view that shows the light view's elements needs only the colour rules
                    visible = page.evaluate(measures.VISIBLE)
                    if scheme == "light":
                        light_visible[docname] = visible
                    elif light_visible.get(docname) == visible:
                        look = "colours"
                axe_found = page.evaluate(measures.AXE_RUN, measures.axe_args(look))
                measured["axe"] += [(docname, size, v) for v in axe_found]
                found += [f"{tag}: {p}" for p in page.evaluate(OUTPUT_CUT)]
                found += [f"{tag}: {p}" for p in check_live_figures(page)]
                if scheme == "light":
                    found += check_menus(page, view, docname)
                if view == "desktop" and scheme == "light":
                    found += check_titles(page)
                    found += check_figure_sharpness(page)
                    found += check_math_links(page)
                    measured["print"].append((docname, on_paper(page)))
                    # last, as they open every dropdown: what a reader clicks and follows
                    found += [f"{tag}: {p}" for p in check_reading(page, docname, mathjax, server, html_dir, anchors)]
                    page.wait_for_timeout(100)  # let late console messages arrive
                    found += [f"{tag}: {p}" for p in events.problems()]
                    following = PAGES[(i + 1) % len(PAGES)]
                    tally["bytes"] = 0
                    page.goto(f"{server}/{following}.html", wait_until="load")
                    page.evaluate(WAIT_FOR_MATHJAX)
                    page.evaluate("() => document.fonts.ready.then(() => true)")
                    page.wait_for_timeout(50)
                    measured["weights"].append((docname, following, first_load, tally["bytes"]))
                if view == "phone" and scheme == "light":
                    found += [f"phone: {p}" for p in page.evaluate(TABLES)]
                    overflow = page.evaluate(OVERFLOW)
                    if overflow > 1:
                        found.append(f"phone: the page scrolls sideways by {overflow} px")
                    found += check_figure_text(page, docname)
                if view == "phone" and scheme == "dark":
                    found += check_dark_figures(page)
                if view != "desktop":
                    found += [f"{tag}: {p}" for p in events.problems()]
            finally:
                if view == "desktop":
                    tab.close()
    for tab in tabs.values():
        tab.close()
    seconds = time.perf_counter() - started
    print(
        f"\nreader's view of {len(PAGES)} pages x {len(views)} view(s) ({sweep}; with axe-core"
        + (", paper and weights" if sweep == "desktop" else "")
        + f") in {seconds:.0f} s"
    )
    return {"problems": problems, "measured": measured}


def on_paper(page) -> dict:
    """The page under print media at an A4 page's text width, measured (then back to the screen)."""
    viewport = page.viewport_size
    page.set_viewport_size({"width": measures.PRINT_WIDTH, "height": 1000})
    page.emulate_media(media="print")
    try:
        page.wait_for_timeout(50)
        paper = page.evaluate(measures.PRINT_REPORT, [measures.PRINT_CHROME, measures.PRINT_CONTROLS])
        paper["equations"] = page.evaluate(measures.EQUATIONS)
        paper["tables"] = page.evaluate(measures.TABLES, True)
        paper["printouts"] = page.evaluate(measures.PRINTOUTS, measures.ALIGNED_ROW)
    finally:
        page.emulate_media(media="screen")
        page.set_viewport_size(viewport)
    return paper


@pytest.fixture(scope="module")
def measured(reader_views) -> dict:
    return reader_views["measured"]


def test_the_reader_view_of_every_page(reader_views):
    """Every page at 1280 and 390 px, light and dark, as a reader meets it: the menus open from the
    visible buttons, no title holds raw TeX, no output is cut, tables fit, figures stay legible and
    do not glare. One test for all pages so that every defect on every page is reported at once."""
    problems = reader_views["problems"]
    if FIGURE_TEXT:
        print("\nsmallest figure text on a 390 px phone, per page:")
    for docname, (px, what) in sorted(FIGURE_TEXT.items(), key=lambda kv: kv[1][0]):
        print(f"  {px:5.1f} px  {docname}: {what}")
    if SMALL_FIGURE_TEXT:
        print(
            f"{len(SMALL_FIGURE_TEXT)} figure(s) with text under {MIN_FIGURE_TEXT_PX} px on a phone"
            + (
                ""
                if os.environ.get(STRICT_FIGURE_TEXT_ENV, "1")
                else f" (reported; {STRICT_FIGURE_TEXT_ENV}=1 fails on them)"
            )
            + ":\n  "
            + "\n  ".join(SMALL_FIGURE_TEXT)
        )
    report = {d: p for d, p in problems.items() if p}
    assert not report, "\n".join(f"{d}:\n  " + "\n  ".join(p) for d, p in report.items())


def test_search_results_have_no_raw_tex(built_book, server, browser):
    """Search for "softmax" as a reader would: every result's title and snippet in plain text."""
    context = browser.new_context(viewport=DESKTOP, service_workers="block")
    page = context.new_page()
    try:
        page.goto(f"{server}/search.html?q=softmax", wait_until="load")
        page.wait_for_function(
            "() => /Search finished|found/.test("
            "(document.querySelector('#search-results .search-summary') || {}).textContent || '')",
            timeout=30_000,
        )
        page.wait_for_timeout(1500)  # snippets arrive one page fetch at a time
        results = page.evaluate("""() => Array.from(document.querySelectorAll('#search-results ul.search li'),
                                        li => li.textContent.replace(/\\s+/g, ' ').trim())""")
    finally:
        context.close()
    assert results, "searching for softmax found nothing"
    raw = [r[:160] for r in results if RAW_TEX.search(r)]
    print(f"{len(results)} results for softmax, {len(raw)} with raw TeX")
    assert not raw, f"{len(raw)} of {len(results)} search results for softmax show raw TeX:\n  " + "\n  ".join(raw)


# ----------------------------------------------------------------------------- the test


def test_every_built_page_is_checked(built_book):
    built = sorted(
        str(p.relative_to(built_book.html_dir).with_suffix(""))
        for p in built_book.html_dir.rglob("*.html")
        if not p.relative_to(built_book.html_dir).parts[0].startswith("_")
    )
    redirects = [
        p
        for p in built
        if 'http-equiv="refresh"' in (built_book.html_dir / f"{p}.html").read_text(encoding="utf-8").lower()
    ]
    unchecked = sorted(set(built) - set(PAGES) - set(redirects))
    assert not unchecked, f"pages built but not opened in the browser test: {unchecked}"


class PageEvents:
    """What a page reports while it is read: requests for anything outside the book, console errors,
    uncaught exceptions, web sockets, and requests that failed or came back 4xx/5xx."""

    def __init__(self, page, server: str):
        self.console: list[tuple[str, str]] = []  # (message, the URL it is about)
        self.failed: list[str] = []
        self.sockets: list[str] = []
        self.outside: list[str] = []
        self.ignored: set[str] = set()  # TOOL_REQUESTS_KNOWN_TO_FAIL, and their console lines
        page.on("request", lambda r: None if r.url.startswith(server + "/") else self.outside.append(r.url))
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.console.append((f"uncaught: {exc}", "")))
        page.on("websocket", lambda ws: self.sockets.append(ws.url))
        page.on("response", lambda r: self._failed(r.request, f"{r.status} {r.url}") if r.status >= 400 else None)
        page.on(
            "requestfailed", lambda r: self._failed(r, f"failed {r.url}") if r.url.startswith(server + "/") else None
        )

    def _failed(self, request, line: str) -> None:
        if _known_tool_failure(request.url, request.resource_type):
            self.ignored.add(request.url)
        else:
            self.failed.append(line)

    def _console(self, msg) -> None:
        if msg.type == "error":
            self.console.append((f"console.{msg.type}: {msg.text}", msg.location.get("url", "")))

    def problems(self) -> list[str]:
        """What went wrong since the last call (a tab reads page after page)."""
        found = [f"asked for something outside the book: {url}" for url in sorted(set(self.outside))]
        found += [f"opened a web socket: {url}" for url in sorted(set(self.sockets))]
        if self.failed:
            found.append(f"requests that failed: {self.failed}")
        for text, url in self.console:
            if url in self.ignored and text.startswith("console.error: Failed to load resource"):
                continue
            if not any(pattern.search(text) for pattern, _reason in KNOWN_HARMLESS_CONSOLE_ERRORS):
                found.append(f"console error: {text}" + (f" ({url})" if url else ""))
        for seen in (self.console, self.failed, self.sockets, self.outside):
            seen.clear()
        return found


class Tab:
    """A browser tab in a profile of its own, at one width and colour scheme, watched by PageEvents."""

    def __init__(self, browser, viewport: dict, scheme: str, server: str):
        self.context = browser.new_context(viewport=viewport, color_scheme=scheme, service_workers="block")
        self.page = self.context.new_page()
        self.events = PageEvents(self.page, server)

    def close(self) -> None:
        self.context.close()


#: a live figure (attnlib.interactive) marks itself data-live="1" once its script has run
DEAD_FIGURES = """() => Array.from(document.querySelectorAll('.attnfig'))
    .filter(f => f.dataset.live !== '1').map(f => f.dataset.attnfig || f.id)"""


def check_live_figures(page) -> list[str]:
    """Every live figure on the page started, offline, at this width and in this scheme."""
    return [f"live figure {name!r} did not start" for name in page.evaluate(DEAD_FIGURES)]


def save_screenshot(page, tag: str, docname: str) -> None:
    folder = SCREENSHOTS / tag.replace("/light", "").replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / _screenshot_name(docname)), full_page=True)


#: For each of the page's `items`: its title's text, whether it is open (matches `opened`, a CSS selector)
#: and whether its body (the first child that is not its title) shows, as Playwright's is_visible judges it:
#: rendered (a closed <details> renders no body), not visibility: hidden, in a box that is not empty.
#: All items in one call: a call per item and per question took 31 s of the desktop sweep.
COLLAPSIBLES = """([items, title, opened]) => Array.from(document.querySelectorAll(items), item => {
    const body = Array.from(item.children).find(child => !child.matches(title));
    const box = body ? body.getBoundingClientRect() : {width: 0, height: 0};
    return {label: ((item.querySelector(title) || {}).innerText || '').trim().slice(0, 60),
            open: item.matches(opened),
            shows: !!body && body.checkVisibility({visibilityProperty: true}) && box.width > 0 && box.height > 0};
})"""


def check_collapsed(page, items: str, title: str, button: str, opened: str, what: str) -> list[str]:
    """Every one of `items` starts collapsed (only its `title` shows) and opens when its `button` is clicked
    (a real click, as a reader's); an item that is open matches the CSS selector `opened`."""
    before = page.evaluate(COLLAPSIBLES, [items, title, opened])
    problems = [
        f"{what} {item['label']!r} shows its content before a click" for item in before if item["open"] or item["shows"]
    ]
    found = page.locator(items)
    for i, item in enumerate(before):
        if not (item["open"] or item["shows"]):
            # force: no wait for the button to be still; a covered one does not open and is reported below
            found.nth(i).locator(button).first.click(force=True)
    after = page.evaluate(COLLAPSIBLES, [items, title, opened])
    problems += [
        f"{what} {item['label']!r} does not open on click"
        for item, now in zip(before, after, strict=True)
        if not (item["open"] or item["shows"]) and not (now["open"] and now["shows"])
    ]
    return problems


def check_reading(page, docname: str, mathjax: dict, server: str, html_dir: Path, anchors) -> list[str]:
    """What a reader reads, clicks and follows on the page at desktop width: the math typeset by the
    book's own MathJax with no TeX left raw, every image loaded, Recall answers and solutions
    collapsed until clicked, and every local link to a file and anchor that exist."""
    problems: list[str] = []  # every check runs; all that is wrong is reported at once

    # --- math: typeset by the book's own MathJax, no TeX left raw, no MathJax errors
    if mathjax["hasMath"]:
        src = page.evaluate("() => (document.querySelector('script[src*=\"mathjax\"]') || {}).src")
        if not mathjax["loaded"]:
            problems.append(f"the page has math but MathJax never started (script: {src})")
        elif not (src or "").startswith(server + "/_static/mathjax/"):
            problems.append(f"MathJax comes from {src}, not from the book")
    math = page.evaluate(MATH_REPORT)
    if math["untypeset"]:
        problems.append(f"math left untypeset: {math['untypeset'][:5]}")
    if math["errors"]:
        problems.append(f"MathJax errors: {math['errors'][:5]}")
    if math["raw"]:
        problems.append(f"raw TeX in the visible text: {math['raw'][:5]}")

    # --- images: every one loaded
    try:
        page.wait_for_function("() => Array.from(document.images).every(i => i.complete)", timeout=15_000)
    except sync_api.TimeoutError:
        pass  # reported just below
    broken = [i["src"] for i in page.evaluate(IMAGE_REPORT) if not (i["complete"] and i["width"])]
    if broken:
        problems.append(f"images that did not load: {broken}")

    # --- Recall answers ({dropdown} -> <details>) and solutions (sphinx-exercise, :class: dropdown)
    problems += check_collapsed(page, "article details", "summary", "summary", "[open]", "dropdown")
    problems += check_collapsed(
        page,
        "article .admonition.dropdown",
        ".admonition-title",
        "button.toggle-button",
        ":not(.toggle-hidden)",
        "solution",
    )

    # --- local links: every one to an existing file, and to an existing anchor in it
    for href in sorted(set(page.evaluate(LOCAL_LINKS))):
        parts = urlsplit(href)
        path = unquote(parts.path).lstrip("/") or "index.html"
        if path.endswith("/"):
            path += "index.html"
        target = html_dir / path
        if not target.is_file():
            problems.append(f"broken link {href} (no file {path})")
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in anchors(path):
            problems.append(f"broken link {href} (no anchor #{parts.fragment} in {path})")
    return problems


# ----------------------------------------------------------------------------- measured in every page
# Nothing cut at 390 px (display equations, tables, printed tables), axe-core's WCAG 2.1 AA rules,
# the page on paper, and the page weights. The rules are written out in tests/browser_measures.py.
# Every page is opened once per view for all of these (the fixture reader_views above); each test
# then reports its own measure, every page at once, and prints what it measured.

#: the goals for the bytes a page brings: on a fresh profile, and for the next page (cache warm)
FIRST_LOAD_GOAL = 2_500_000
NEXT_PAGE_GOAL = 500_000


def _where(item: dict) -> str:
    return item["where"] or "top"


def test_no_display_equation_is_wider_than_its_box(measured):
    equations = measured["equations"]
    cut = [(d, tag, e) for d, tag, e in equations if e["need"] > e["have"] + 1]
    phone = [(d, tag, e) for d, tag, e in equations if tag.startswith(str(PHONE["width"]))]
    if phone:
        d, _tag, e = max(phone, key=lambda x: x[2]["need"] - x[2]["have"])
        print(
            f"\n{len(equations)} display equations measured; widest at {PHONE['width']} px: {d}{_where(e)} "
            f"{e['need']} px in a {e['have']} px box: {e['tex']}"
        )
    report = sorted(
        {
            f"{d} ({tag}, {_where(e)}): {e['need']} px in a {e['have']} px box, "
            f"{e['need'] - e['have']} px cut: {e['tex']}"
            for d, tag, e in cut
        }
    )
    print(f"{len(report)} display equation(s) wider than their box" + ("".join(f"\n  {r}" for r in report)))
    assert not report, f"{len(report)} display equation(s) wider than their box:\n  " + "\n  ".join(report)


def test_no_table_is_cut_without_a_scroll_cue(measured):
    tables = measured["tables"]
    wide = [(d, tag, t) for d, tag, t in tables if t["need"] > t["have"] + 1]
    cut = [(d, tag, t) for d, tag, t in wide if not (t["scrolls"] and t["cue"] and t["focusable"])]
    if wide:
        d, tag, t = max(wide, key=lambda x: x[2]["need"] - x[2]["have"])
        print(f"\nworst table: {d}{_where(t)} at {tag}, {t['need']} px in a {t['have']} px box ({t['label']!r})")
    print(
        f"{len(tables)} tables measured; {len(wide)} wider than their box, {len(cut)} of them without "
        f"a scroll box that shows a cue and takes the keyboard"
    )
    for d, tag, t in wide:
        print(
            f"  {d} ({tag}, {_where(t)}): {t['need']} px in {t['have']} px, scrolls={t['scrolls']} "
            f"cue={t['cue']} focusable={t['focusable']}: {t['label']!r}"
        )
    report = [
        f"{d} ({tag}, {_where(t)}): table {t['label']!r} is {t['need']} px in a {t['have']} px box "
        f"(scrolls: {t['scrolls']}, cue: {t['cue']}, keyboard: {t['focusable']})"
        for d, tag, t in cut
    ]
    assert not report, f"{len(report)} table(s) cut:\n  " + "\n  ".join(report)


def test_axe_finds_no_wcag_violation(measured):
    """axe-core, WCAG 2.0 and 2.1, levels A and AA, on every page in each view."""
    violations = measured["axe"]
    nodes = sum(len(v["nodes"]) for _d, _t, v in violations)
    by_rule: dict[str, int] = {}
    for _d, _t, v in violations:
        by_rule[v["id"]] = by_rule.get(v["id"], 0) + len(v["nodes"])
    print(
        f"\naxe-core {measured['axe_version']} ({', '.join(measures.AXE_TAGS)}) on {len(PAGES)} pages at "
        f"{' and '.join(measured['views'])}: {len(by_rule)} rule(s) violated, {nodes} element(s) "
        + ", ".join(f"{rule}: {n}" for rule, n in sorted(by_rule.items()))
    )
    report = []
    for d, tag, v in violations:
        for n in v["nodes"]:
            report.append(f"{d} ({tag}) {v['id']} [{v['impact']}]: {n['target']} {n['contrast']} {n['html'][:100]}")
    for line in report[:200]:
        print(f"  {line}")
    assert not report, f"axe-core: {nodes} element(s) violate {sorted(by_rule)}:\n  " + "\n  ".join(report[:80])


def test_every_page_prints_whole(measured):
    """Print media at an A4 page's text width: no navigation, no controls; formulas, figures,
    tables and printed tables whole (nothing scrolls on paper)."""
    report = []
    for d, paper in measured["print"]:
        report += [f"{d}: navigation on paper: {el}" for el in paper["chrome"]]
        report += [f"{d}: control on paper: {el}" for el in paper["controls"]]
        report += [f"{d}: {b}" for b in paper["bad"]]
        report += [
            f"{d} ({_where(e)}): equation {e['need']} px on a {e['have']} px line: {e['tex']}"
            for e in paper["equations"]
            if e["need"] > e["have"] + 1
        ]
        report += [
            f"{d} ({_where(t)}): table {t['label']!r} {t['need']} px on a {t['have']} px line"
            for t in paper["tables"]
            if t["need"] > t["have"] + 1
        ]
        report += [
            f"{d} ({_where(p)}): printed table wraps on paper: {p['first']!r}"
            for p in paper["printouts"]
            if p["aligned"] and p["need"] > p["have"] + 1
        ]
    print(
        f"\non paper ({measures.PRINT_WIDTH} px text width): {len(measured['print'])} pages, {len(report)} problem(s)"
    )
    assert not report, f"{len(report)} problem(s) on paper:\n  " + "\n  ".join(report)


def test_page_weight(measured):
    """Bytes on a first visit (fresh profile) and new bytes for the next page of the book (cache warm),
    every page at desktop width, as Chromium counts them."""
    rows = measured["weights"]
    heaviest = max(rows, key=lambda r: r[2])
    heaviest_next = max(rows, key=lambda r: r[3])
    print(
        f"\npage weight: first load {min(r[2] for r in rows) / 1e6:.2f}-{heaviest[2] / 1e6:.2f} MB "
        f"(heaviest {heaviest[0]}); next page {min(r[3] for r in rows) / 1e6:.2f}-{heaviest_next[3] / 1e6:.2f} MB "
        f"(heaviest {heaviest_next[1]} after {heaviest_next[0]})"
    )
    for docname, following, first, second in rows:
        print(f"  {docname}: {first / 1e6:.2f} MB; then {following}: {second / 1e6:.2f} MB")
    over = [
        f"{d}: {first / 1e6:.2f} MB on a first visit (goal {FIRST_LOAD_GOAL / 1e6} MB)"
        for d, _f, first, _s in rows
        if first > FIRST_LOAD_GOAL
    ]
    over += [
        f"{f} after {d}: {second / 1e6:.2f} MB of new bytes (goal {NEXT_PAGE_GOAL / 1e6} MB)"
        for d, f, _first, second in rows
        if second > NEXT_PAGE_GOAL
    ]
    assert not over, "pages heavier than the goal:\n  " + "\n  ".join(over)
