"""attnlib.interactive: the figures that run in the book's pages (chapters 7-10).

Unit tests: the bytes are deterministic, nothing points to the network, the embedded numbers are
attnlib's. Browser tests (headless Chromium through Playwright, offline): every control is moved,
what the figure shows changes, and the numbers on the page equal attnlib's for chosen settings;
no request leaves the machine and the console shows no error. Screenshots at 390 px, light and
dark, go to _build/screenshots/interactive-*.png. Skipped, saying why, without Chromium or Playwright.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import attnlib
from attnlib import interactive
from attnlib.scaling import dot_products, largest_weight, random_scores

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "_build" / "screenshots"

FIGURES = {
    "dot": interactive.dot_product_arrows,
    "scaling": interactive.scaling_explorer,
    "stretch": interactive.softmax_stretch,
    "blend": interactive.attention_explorer,
}


def embedded(fig: interactive.InteractiveFigure) -> dict:
    """The data a figure's script carries (the JSON after `var D =`)."""
    match = re.search(r"^var D = (.*);$", fig.html, flags=re.M)
    assert match, "no embedded data found"
    return json.loads(match.group(1).replace("<\\/", "</"))


def running() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    labels = attnlib.words(attnlib.RUNNING_SENTENCE)
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, W_K, W_V = attnlib.running_lenses()
    return labels, X @ W_Q, X @ W_K, X @ W_V


# ----------------------------------------------------------------------------- unit tests


@pytest.mark.parametrize("name", FIGURES)
def test_same_bytes_every_call_and_no_network(name):
    first, second = FIGURES[name](), FIGURES[name]()
    assert first.html == second.html
    assert first._repr_html_() == first.html
    for forbidden in ("http", "//", "src=", "import(", "fetch(", "XMLHttpRequest"):
        assert forbidden not in first.html, f"{name}: {forbidden!r} in the output"
    assert "0x" not in repr(first)  # nbval compares text/plain too: no memory address
    assert first.html.count("<script>") == 1


def test_ids_follow_the_parameters():
    a, b = interactive.dot_product_arrows(theta=40), interactive.dot_product_arrows(theta=90)
    id_a = re.search(r'id="(attnfig-dot-[0-9a-f]{8})"', a.html).group(1)
    id_b = re.search(r'id="(attnfig-dot-[0-9a-f]{8})"', b.html).group(1)
    assert id_a != id_b
    assert interactive.attention_explorer("sat").html != interactive.attention_explorer("kitten").html


def test_chapter_8_data_are_attnlib_draws():
    data = embedded(interactive.scaling_explorer())
    assert data["dks"] == [2 ** i for i in range(10)]
    for i, d_k in enumerate(data["dks"]):
        dots = dot_products(d_k)
        assert data["spread"]["raw"][i] == pytest.approx(dots.std())
        assert data["spread"]["scaled"][i] == pytest.approx((dots / math.sqrt(d_k)).std())
        assert sum(data["hist"]["raw"][i]) == len(dots)
        np.testing.assert_allclose(data["row"][i], random_scores(d_k)[0])
        assert data["meanmax"]["raw"][i] == pytest.approx(largest_weight(random_scores(d_k)))
        assert data["meanmax"]["scaled"][i] == pytest.approx(largest_weight(attnlib.scale(random_scores(d_k), d_k)))
    assert data["spread"]["raw"][6] == pytest.approx(8.0, abs=0.2)  # √64 = 8, as the chapter's table says


def test_chapter_10_data_are_attnlib_attention():
    labels, Q, K, V = running()
    data = embedded(interactive.attention_explorer())
    Z, A = attnlib.attention(Q, K, V)
    mask = np.tril(np.ones((6, 6), dtype=bool))
    Zm, Am = attnlib.attention(Q, K, V, mask=mask)
    np.testing.assert_allclose(data["A"]["plain"], A)
    np.testing.assert_allclose(data["A"]["masked"], Am)
    np.testing.assert_allclose(data["V"], V)
    assert data["words"] == labels
    assert data["allowed"] == mask.tolist()
    # the contract's numbers: row "sat" puts 0.89 on "kitten"
    assert A[labels.index("sat"), labels.index("kitten")] == pytest.approx(0.89, abs=0.005)


def test_chapter_9_default_row_is_sat_scaled():
    labels, Q, K, _ = running()
    data = embedded(interactive.softmax_stretch())
    np.testing.assert_allclose(data["scores"], (Q @ K.T)[labels.index("sat")] / math.sqrt(2))
    assert data["labels"] == labels


def test_static_readouts_are_attnlib_numbers():
    q, k = interactive.arrow_pair(40, 2.2, 2.5)
    assert f'<output class="attnfig-dot">{attnlib.dot(q, k):.2f}</output>' in interactive.dot_product_arrows().html
    fig = interactive.attention_explorer("sat")
    labels, Q, K, V = running()
    Z, _ = attnlib.attention(Q, K, V)
    shown = re.findall(r'<td class="attnfig-z">([^<]*)</td>', fig.html)
    assert [float(x.replace("−", "-")) for x in shown] == pytest.approx(Z[2], abs=0.005)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="d_k must be one of"):
        interactive.scaling_explorer(d_k=3)
    with pytest.raises(ValueError, match="word must be one of"):
        interactive.attention_explorer("dog")
    with pytest.raises(ValueError, match="3 scores but 2 labels"):
        interactive.softmax_stretch([1.0, 2.0, 3.0], ["a", "b"])


# ----------------------------------------------------------------------------- in Chromium


def _chromium() -> str | None:
    for candidate in ("/usr/lib/chromium/chromium", "/usr/bin/chromium"):
        if Path(candidate).is_file():
            return candidate
    return None


@pytest.fixture(scope="module")
def browser():
    if _chromium() is None:
        pytest.skip("headless Chromium not found (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=_chromium(), headless=True,
                                              args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield chromium
        chromium.close()


class Page:
    """A page holding one figure, opened from a file, with every non-file request aborted and logged."""

    def __init__(self, browser, path: Path, width: int = 390, scheme: str = "light", js: bool = True):
        self.context = browser.new_context(viewport={"width": width, "height": 844}, color_scheme=scheme,
                                           java_script_enabled=js)
        self.outside: list[str] = []
        self.errors: list[str] = []

        def route(r):
            if r.request.url.startswith("file:"):
                r.continue_()
            else:
                self.outside.append(r.request.url)
                r.abort()
        self.context.route("**/*", route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(path.as_uri())

    def text(self, selector: str) -> str:
        return self.page.locator(selector).first.text_content()

    def number(self, selector: str) -> float:
        return float(self.text(selector).replace("−", "-"))

    def numbers(self, selector: str) -> list[float]:
        return [float(t.replace("−", "-")) for t in self.page.locator(selector).all_text_contents()]

    def close(self):
        assert self.outside == [], f"requests left the page: {self.outside}"
        assert self.errors == [], f"console errors: {self.errors}"
        self.context.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Each figure written into a standalone HTML file, as the book would hold it."""
    folder = tmp_path_factory.mktemp("interactive")
    paths = {}
    for name, make in FIGURES.items():
        path = folder / f"{name}.html"
        path.write_text("<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' "
                        "content='width=device-width'><title>figure</title></head><body style='margin:16px'>"
                        f"{make()._repr_html_()}</body></html>", encoding="utf-8")
        paths[name] = path
    return paths


def _smallest_text_px(page) -> float:
    return page.evaluate("""() => Math.min(...Array.from(document.querySelectorAll('svg text')).map(t => {
        const size = parseFloat(getComputedStyle(t).fontSize); const m = t.getScreenCTM();
        return size * Math.hypot(m.a, m.b); }))""")


def test_chapter_7_arrows(browser, pages):
    p = Page(browser, pages["dot"])
    assert p.page.get_attribute(".attnfig", "data-live") == "1"
    before = p.page.get_attribute(".attnfig-k", "x2")
    p.page.fill(".attnfig-theta", "90")
    assert p.number(".attnfig-dot") == 0.0 and p.number(".attnfig-cos") == 0.0
    assert "perpendicular" in p.text(".attnfig-verdict")
    assert p.page.get_attribute(".attnfig-k", "x2") != before
    p.page.fill(".attnfig-qlen", "3")
    p.page.fill(".attnfig-klen", "1.5")
    p.page.fill(".attnfig-theta", "60")
    q, k = interactive.arrow_pair(60, 3.0, 1.5)
    assert p.number(".attnfig-dot") == pytest.approx(float(attnlib.dot(q, k)), abs=0.005)
    assert p.number(".attnfig-lens") == pytest.approx(4.5, abs=0.005)
    assert p.number(".attnfig-cos") == pytest.approx(0.5, abs=0.005)
    p.page.focus(".attnfig-theta")
    for _ in range(120):
        p.page.keyboard.press("ArrowRight")        # 60° + 120° = 180°: opposite arrows
    assert p.page.input_value(".attnfig-theta") == "180"
    assert p.number(".attnfig-dot") == pytest.approx(-4.5, abs=0.005)
    assert "away" in p.text(".attnfig-verdict")
    assert _smallest_text_px(p.page) >= 12
    p.close()


def test_chapter_8_scaling(browser, pages):
    p = Page(browser, pages["scaling"])
    height_64 = p.page.get_attribute(".attnfig-hbar >> nth=40", "height")
    p.page.focus(".attnfig-dk")
    p.page.keyboard.press("End")                   # d_k = 512
    assert p.text(".attnfig-dk-out") == "512"
    assert p.page.get_attribute(".attnfig-hbar >> nth=40", "height") != height_64
    raw = random_scores(512)[0]
    assert p.numbers(".attnfig-row td:not(:first-child)") == pytest.approx(raw, abs=0.005)
    assert p.numbers(".attnfig-wtext") == pytest.approx(attnlib.softmax(raw), abs=0.005)
    assert p.number(".attnfig-max") == pytest.approx(attnlib.softmax(raw).max(), abs=0.005)
    assert p.number(".attnfig-spread") == pytest.approx(dot_products(512).std(), abs=0.005)
    unscaled_max = p.number(".attnfig-max")
    p.page.click("label[for$='-div']")             # divide by √d_k
    assert p.page.is_checked(".attnfig-div")
    assert p.numbers(".attnfig-wtext") == pytest.approx(attnlib.softmax(raw / math.sqrt(512)), abs=0.005)
    assert p.number(".attnfig-spread") == pytest.approx(1.0, abs=0.05)
    assert p.number(".attnfig-max") < unscaled_max
    assert p.number(".attnfig-meanmax") == pytest.approx(largest_weight(attnlib.scale(random_scores(512), 512)), abs=0.005)
    p.page.keyboard.press("Space")                 # the box has focus after the click: untick by keyboard
    assert not p.page.is_checked(".attnfig-div")
    p.page.fill(".attnfig-dk", "0")                # d_k = 1
    assert p.text(".attnfig-dk-out") == "1"
    assert p.numbers(".attnfig-wtext") == pytest.approx(attnlib.softmax(random_scores(1)[0]), abs=0.005)
    assert _smallest_text_px(p.page) >= 12
    p.close()


def test_chapter_9_stretch(browser, pages):
    labels, Q, K, _ = running()
    row = (Q @ K.T)[labels.index("sat")] / math.sqrt(2)
    p = Page(browser, pages["stretch"])
    assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(row), abs=0.005)
    pie = p.page.get_attribute(".attnfig-slice >> nth=1", "d")
    p.page.fill(".attnfig-t", "0")
    assert p.numbers(".attnfig-w") == pytest.approx([1 / 6] * 6, abs=0.005)
    assert p.page.get_attribute(".attnfig-slice >> nth=1", "d") != pie
    p.page.fill(".attnfig-t", "2.5")
    assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(2.5 * row), abs=0.005)
    assert p.number(".attnfig-max") == pytest.approx(attnlib.softmax(2.5 * row).max(), abs=0.005)
    assert p.text(".attnfig-argmax") == "kitten"
    p.page.focus(".attnfig-t")
    p.page.keyboard.press("ArrowLeft")
    assert p.page.input_value(".attnfig-t") == "2.4"
    assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(2.4 * row), abs=0.005)
    assert p.number(".attnfig-sum") == 1.0
    p.close()


def test_chapter_10_blend(browser, pages):
    labels, Q, K, V = running()
    Z, A = attnlib.attention(Q, K, V)
    Zm, Am = attnlib.attention(Q, K, V, mask=np.tril(np.ones((6, 6), dtype=bool)))
    p = Page(browser, pages["blend"])
    assert p.numbers(".attnfig-z") == pytest.approx(Z[2], abs=0.005)   # "sat" ≈ [0.72, 0.01, 0.81, 0.13]
    p.page.click(".attnfig-hrow[data-row='1']")                           # click the row of "kitten"
    assert p.page.is_checked(".attnfig-word >> nth=1")
    assert p.text(".attnfig-rowname") == "kitten"
    assert p.numbers(".attnfig-a") == pytest.approx(A[1], abs=0.005)
    assert p.numbers(".attnfig-z") == pytest.approx(Z[1], abs=0.005)
    assert p.page.get_attribute(".attnfig-sel", "y") == str(22 + 30 - 1)
    p.page.keyboard.press("ArrowDown")                                    # the radio group: next word, "sat"
    assert p.page.is_checked(".attnfig-word >> nth=2")
    assert p.numbers(".attnfig-z") == pytest.approx(Z[2], abs=0.005)
    cells = p.numbers(".attnfig-ctext")
    p.page.click("label[for$='-mask']")                                  # causal mask on
    assert p.page.is_checked(".attnfig-mask")
    assert p.numbers(".attnfig-a") == pytest.approx(Am[2], abs=0.005)
    assert p.numbers(".attnfig-z") == pytest.approx(Zm[2], abs=0.005)
    masked_cells = p.numbers(".attnfig-ctext")
    assert masked_cells != cells
    assert masked_cells == pytest.approx(Am.ravel(), abs=0.005)
    assert all(masked_cells[i * 6 + j] == 0 for i in range(6) for j in range(i + 1, 6))
    assert p.page.get_attribute(".attnfig-cell >> nth=1", "fill") == "none"  # the → kitten is masked
    assert "3 words" in p.text(".attnfig-summary")
    assert _smallest_text_px(p.page) >= 12
    p.close()


@pytest.mark.parametrize("name", FIGURES)
def test_without_javascript_the_numbers_still_show(browser, pages, name):
    p = Page(browser, pages[name], js=False)
    assert p.page.is_visible(".attnfig-static")
    assert p.page.locator(".attnfig-readout output").first.inner_text().strip() != ""
    p.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_at_phone_width(browser, pages, scheme):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, path in pages.items():
        p = Page(browser, path, scheme=scheme)
        if scheme == "dark":   # the book's dark theme: its html carries data-theme="dark"
            p.page.evaluate("document.documentElement.dataset.theme = 'dark'; "
                            "document.body.style.background = '#121212'; document.body.style.color = '#ced6dd'")
        assert p.page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than a phone
        p.page.screenshot(path=str(SCREENSHOTS / f"interactive-{name}-{scheme}.png"), full_page=True)
        p.close()


BOOK_PAGES = ["07_dot_product_scores", "08_scaling", "09_softmax", "10_weighted_sum"]


@pytest.mark.parametrize("chapter", BOOK_PAGES)
def test_built_book_pages(browser, chapter):
    """When a built book is there, its chapter pages run their figures offline too."""
    path = ROOT / "_build" / "html" / "chapters" / f"{chapter}.html"
    if not path.is_file() or "attnfig" not in path.read_text(encoding="utf-8"):
        pytest.skip(f"no built page with an interactive figure at {path.relative_to(ROOT)} (run `make book`)")
    for width in (1280, 390):
        p = Page(browser, path, width=width)
        figures = p.page.locator(".attnfig")
        assert figures.count() >= 1
        for i in range(figures.count()):
            assert figures.nth(i).get_attribute("data-live") == "1"
        p.page.locator(".attnfig input").first.focus()
        p.page.keyboard.press("ArrowRight" if p.page.locator(".attnfig input[type=range]").count() else "ArrowDown")
        p.close()
