"""Every page of the built book, opened in a real browser (headless Chromium through Playwright).

For each page: the math is typeset by the book's own MathJax, every image has loaded, Recall
answers and solutions start collapsed and open on click, the console shows no error, every
local link points to a file and anchor that exist, and nothing is fetched from outside
127.0.0.1 (any such request is blocked and fails the test). A screenshot of every page, at
desktop width and at a 390 px phone width, is saved under _build/screenshots/.

Needs Debian's `chromium` (apt-get install -y chromium) and Playwright for Python; Playwright
drives the system Chromium (no browser download). Without them the module is skipped, saying why.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from conftest import toc_files

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "_build" / "screenshots"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MATHJAX_TIMEOUT_MS = 30_000

#: console errors that are known to be harmless, each with the reason. Empty on purpose: the
#: two that every page used to log are gone at their cause (see _ext/no_thebe.py for
#: "Identifier 'THEBE_JS_URL' has already been declared", and `html_context: default_mode`
#: in _config.yml for the theme's "Got invalid theme mode" on a fresh profile).
KNOWN_HARMLESS_CONSOLE_ERRORS: list[tuple[re.Pattern, str]] = []


def find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/lib/chromium/chromium", "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


CHROMIUM = find_chromium()
if CHROMIUM is None:
    pytest.skip("headless Chromium not found (looked for /usr/lib/chromium/chromium, /usr/bin/chromium, "
                "`chromium` on PATH); install it with `apt-get install -y chromium` to run the browser "
                "test of every page", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed "
                               "(pip install playwright; no browser download needed)")


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
def browser():
    """Headless Chromium. Playwright gives it a fresh temporary --user-data-dir of its own, and every
    page below gets a fresh context (no storage from a page before), as a first-time reader would."""
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


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
        if (Date.now() - start > %d) return {hasMath, loaded: false};
        await new Promise(r => setTimeout(r, 50));
    }
    await MathJax.startup.promise;
    return {hasMath, loaded: true};
}""" % MATHJAX_TIMEOUT_MS

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


def _is_visible(locator) -> bool:
    return locator.count() > 0 and locator.first.is_visible()


# ----------------------------------------------------------------------------- the test


def test_every_built_page_is_checked(built_book):
    built = sorted(str(p.relative_to(built_book.html_dir).with_suffix("")) for p in built_book.html_dir.rglob("*.html")
                   if not p.relative_to(built_book.html_dir).parts[0].startswith("_"))
    redirects = [p for p in built if "http-equiv=\"refresh\"" in
                 (built_book.html_dir / f"{p}.html").read_text(encoding="utf-8").lower()]
    unchecked = sorted(set(built) - set(PAGES) - set(redirects))
    assert not unchecked, f"pages built but not opened in the browser test: {unchecked}"


@pytest.mark.parametrize("docname", PAGES)
def test_page_in_a_real_browser(docname, built_book, server, browser, anchors):
    page_file = built_book.html_dir / f"{docname}.html"
    assert page_file.is_file(), f"the build made no {docname}.html"
    started = time.perf_counter()
    problems: list[str] = []  # every check runs; all that is wrong is reported at once
    blocked: list[str] = []
    failed: list[str] = []
    console_errors: list[str] = []

    context = browser.new_context(viewport=DESKTOP, service_workers="block")

    def route(route_obj):
        url = route_obj.request.url
        if url.startswith(server + "/"):
            route_obj.continue_()
        else:
            blocked.append(url)
            route_obj.abort()
    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda msg: console_errors.append(f"console.{msg.type}: {msg.text}")
            if msg.type == "error" else None)
    page.on("pageerror", lambda exc: console_errors.append(f"uncaught: {exc}"))
    page.on("websocket", lambda ws: blocked.append(ws.url))
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("requestfailed", lambda r: None if r.url in blocked else failed.append(f"failed {r.url}"))

    try:
        page.goto(f"{server}/{docname}.html", wait_until="load")

        # --- math: typeset by the book's own MathJax, no TeX left raw, no MathJax errors
        mathjax = page.evaluate(WAIT_FOR_MATHJAX)
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

        # --- screenshots, desktop and phone (before opening anything, as a reader first sees it)
        name = _screenshot_name(docname)
        for folder in ("desktop", "phone"):
            (SCREENSHOTS / folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "desktop" / name), full_page=True)
        page.set_viewport_size(PHONE)
        page.wait_for_timeout(200)
        page.screenshot(path=str(SCREENSHOTS / "phone" / name), full_page=True)
        overflow = page.evaluate(OVERFLOW)
        if overflow > 1:
            problems.append(f"at {PHONE['width']} px the page scrolls sideways by {overflow} px")
        page.set_viewport_size(DESKTOP)

        # --- Recall answers ({dropdown} -> <details>): closed at first, open on click
        details = page.locator("article details")
        for i in range(details.count()):
            item = details.nth(i)
            label = item.locator("summary").first.inner_text().strip()[:60]
            body = item.locator(":scope > :not(summary)")
            if item.get_attribute("open") is not None or _is_visible(body):
                problems.append(f"dropdown {label!r} shows its answer before a click")
                continue
            item.locator("summary").first.click()
            if item.get_attribute("open") is None or not _is_visible(body):
                problems.append(f"dropdown {label!r} does not open on click")

        # --- solutions (sphinx-exercise, :class: dropdown): hidden at first, open on the toggle button
        solutions = page.locator("article .admonition.dropdown")
        for i in range(solutions.count()):
            item = solutions.nth(i)
            label = item.locator(".admonition-title").first.inner_text().strip()[:60]
            body = item.locator(":scope > :not(.admonition-title)")
            if "toggle-hidden" not in (item.get_attribute("class") or "") or _is_visible(body):
                problems.append(f"{label!r} shows its content before a click")
                continue
            item.locator("button.toggle-button").first.click()
            if "toggle-hidden" in (item.get_attribute("class") or "") or not _is_visible(body):
                problems.append(f"{label!r} does not open on click")

        # --- local links: every one to an existing file, and to an existing anchor in it
        for href in sorted(set(page.evaluate(LOCAL_LINKS))):
            parts = urlsplit(href)
            path = unquote(parts.path).lstrip("/") or "index.html"
            if path.endswith("/"):
                path += "index.html"
            target = built_book.html_dir / path
            if not target.is_file():
                problems.append(f"broken link {href} (no file {path})")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in anchors(path):
                problems.append(f"broken link {href} (no anchor #{parts.fragment} in {path})")

        page.wait_for_timeout(100)  # let late console messages arrive
    finally:
        context.close()

    if blocked:
        problems.append(f"tried to reach the network (blocked): {sorted(set(blocked))}")
    if failed:
        problems.append(f"requests that failed: {failed}")
    problems += [f"console error: {e}" for e in console_errors
                 if not any(pattern.search(e) for pattern, _reason in KNOWN_HARMLESS_CONSOLE_ERRORS)]
    print(f"{docname}: checked in {time.perf_counter() - started:.1f} s")
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)
