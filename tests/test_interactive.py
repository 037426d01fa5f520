"""attnlib.interactive: the figures that run in the book's pages.

Unit tests: the bytes are deterministic, nothing points to the network, the JavaScript and CSS are
the package's files, the embedded numbers are attnlib's, word colours read on light and dark pages.
Browser tests (headless Chromium through Playwright, offline): each figure is written into a bare
page, every control is moved with the keyboard or the pointer, and the numbers on the page equal
attnlib's; no request leaves the page and the console shows no error. With ATTNLIB_SCREENSHOTS=1,
screenshots at 390 px, light and dark, go to _build/screenshots/interactive-*.png. Skipped, saying
why, without Chromium or Playwright.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

import attnlib
from attnlib import interactive
from attnlib.interactive import page as figpage
from attnlib.interactive.trained import trained_heads
from attnlib.scaling import dot_products, largest_weight, random_scores

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "_build" / "screenshots"
#: ATTNLIB_SCREENSHOTS=1 saves each figure's page, light and dark (as tests/test_browser.py does for the book)
SAVE_SCREENSHOTS = os.environ.get("ATTNLIB_SCREENSHOTS", "") not in ("", "0")

FIGURES = {
    "arrows": interactive.word_arrows,
    "lens": interactive.matrix_lens,
    "transpose": interactive.transpose_explorer,
    "dot": interactive.dot_product_arrows,
    "scaling": lambda: interactive.scaling_explorer(d_k=64),
    "stretch": interactive.softmax_stretch,
    "blend": lambda: interactive.attention_explorer("sat"),
    "mask": interactive.mask_explorer,
    "clocks": interactive.position_clocks,
    "heads": lambda: interactive.head_explorer(
        **chapter_12_heads(), labels=attnlib.words(attnlib.RUNNING_SENTENCE), names=["who?", "where?"]
    ),
    "replay": interactive.training_replay,
    "trained": trained_heads,  # the chapter inside a trained model; its own tests are in tests/test_trained.py
}


def embedded(fig: interactive.InteractiveFigure) -> dict:
    """The data a figure's script carries (the JSON after `var D =`)."""
    match = re.search(r"^var D = (.*);$", fig.html, flags=re.MULTILINE)
    assert match, "no embedded data found"
    return json.loads(match.group(1).replace("<\\/", "</"))


def assert_weights_are_fresh(fig: interactive.InteractiveFigure, runs: list, causal: bool = False) -> None:
    """The hundredths a real model's figure embeds (read from attnlib/figure_weights.npz for its default texts)
    are the ones `runs` (attnlib.interactive.trained.hundredths, run now) holds: each within one hundredth, a
    value on a rounding edge going either way on another processor, and at most 0.1 % of them differing."""
    data, differ, total = embedded(fig), 0, 0
    for k, (_, A) in enumerate(runs):
        n = A.shape[-1]
        stored = np.array([x for heads in data["A"][k] for M in heads for row in M for x in row])
        fresh = A[(..., *np.tril_indices(n, 0 if causal else n))].ravel().astype(int)  # row by row, as stored
        assert stored.shape == fresh.shape and np.abs(stored - fresh).max() <= 1
        differ, total = differ + np.count_nonzero(stored != fresh), total + stored.size
    assert differ <= total // 1000, f"{differ} of {total} stored hundredths differ from the model's now"


def chapter_12_heads() -> dict:
    """Chapter 12's two heads, "who?" (chapter 5's lenses) and "where?", with W_V = W_O = I."""
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q1, W_K1, _ = attnlib.running_lenses()
    W_Q2 = np.array([[0.0, 4.0], [0.0, 0.0], [0.0, 0.0], [4.0, 0.0]])
    W_K2 = np.array([[-3.0, -3.0], [3.0, 3.0], [3.0, 3.0], [0.0, 0.0]])
    return {
        "X": X,
        "W_Q": np.concatenate([W_Q1, W_Q2], axis=1),
        "W_K": np.concatenate([W_K1, W_K2], axis=1),
        "W_V": np.eye(4),
        "W_O": np.eye(4),
        "h": 2,
    }


def running() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    labels = attnlib.words(attnlib.RUNNING_SENTENCE)
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, W_K, W_V = attnlib.running_lenses()
    return labels, X @ W_Q, X @ W_K, X @ W_V


#: A figure stores its numbers to 6 significant digits (page.rounded): compare them that closely.
AS_STORED = {"rtol": 1e-5, "atol": 1e-12}


def shown(text: str) -> float:
    return float(text.replace("−", "-"))


# ----------------------------------------------------------------------------- unit tests


@pytest.mark.parametrize("name", FIGURES)
def test_same_bytes_every_call_and_no_network(name):
    first, second = FIGURES[name](), FIGURES[name]()
    assert first.html == second.html
    assert first._repr_html_() == first.html
    # the still pictures are data: images, written into the figure itself
    offline = re.sub(r'src="data:image/svg\+xml;base64,[A-Za-z0-9+/=]+"', 'src="data:"', first.html)
    for forbidden in ("http", "//", 'src="h', 'src="/', "import(", "fetch(", "XMLHttpRequest"):
        assert forbidden not in offline, f"{name}: {forbidden!r} in the output"
    assert offline.count("src=") == offline.count('src="data:"'), f"{name}: a source that is not in the figure"
    assert "0x" not in repr(first)  # nbval compares text/plain too: no memory address
    assert first.html.count("<script>") == 1
    for tag in re.findall(r"<[a-z][^<>]*>", first.html):  # an attribute written twice is silently dropped
        names = re.findall(r'\s([a-z-]+)="', tag)
        assert len(names) == len(set(names)), f"{name}: {tag}"


def test_same_bytes_in_a_fresh_process():
    """Caches cannot hide a difference: a new Python process makes the same figures, byte for byte."""
    import hashlib
    import subprocess
    import sys

    script = (
        "import hashlib, sys; sys.path.insert(0, 'tests'); import test_interactive as t; "
        "print(' '.join(hashlib.sha1(make().html.encode()).hexdigest() for make in t.FIGURES.values()))"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    here = " ".join(hashlib.sha1(make().html.encode()).hexdigest() for make in FIGURES.values())
    assert out.stdout.strip() == here


@pytest.mark.parametrize("name", FIGURES)
def test_stored_numbers_leave_out_the_processors_last_bits(name):
    """A figure's numbers to 6 significant digits, so a notebook re-run on another processor stores the same bytes."""
    assert figpage.rounded({"x": [0.1 + 0.2, (1 / 3, -2.0)], "n": 3, "s": "w"}) == {
        "x": [0.3, [0.333333, -2.0]],
        "n": 3,
        "s": "w",
    }

    def floats(value):
        if isinstance(value, float):
            yield value
        elif isinstance(value, dict):
            for item in value.values():
                yield from floats(item)
        elif isinstance(value, list):
            for item in value:
                yield from floats(item)

    numbers = list(floats(embedded(FIGURES[name]())))
    assert all(float(f"{x:.6g}") == x for x in numbers)  # the trained heads store whole hundredths


@pytest.mark.parametrize("name", FIGURES)
def test_script_and_style_are_the_package_files(name):
    fig = FIGURES[name]()
    assert figpage.asset("page.css") in fig.html
    assert figpage.asset("helpers.js") in fig.html
    script = f"{fig.name}.js"
    assert figpage.asset(script).strip() and figpage.asset(script) in fig.html


def test_ids_follow_the_parameters():
    a, b = interactive.dot_product_arrows(key="kitten"), interactive.dot_product_arrows(key="sat")
    id_a = re.search(r'id="(attnfig-dot-[0-9a-f]{8})"', a.html).group(1)
    id_b = re.search(r'id="(attnfig-dot-[0-9a-f]{8})"', b.html).group(1)
    assert id_a != id_b
    assert interactive.attention_explorer("sat").html != interactive.attention_explorer("kitten").html


def test_contrast_is_wcag():
    assert figpage.contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert figpage.contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert figpage.contrast("#008A5C", "#ffffff") < 4.5  # "sat" as the figures draw it fails on white


def test_word_colours_read_on_light_and_dark_pages():
    from attnlib.plot.style import WORD_COLOURS

    for word in WORD_COLOURS:
        light, dark = re.fullmatch(r"--c:(#[0-9a-f]{6});--cd:(#[0-9a-f]{6})", figpage.word_style(word)).groups()
        assert figpage.contrast(light, figpage.LIGHT_BACKGROUND) >= 4.5, word
        assert figpage.contrast(dark, figpage.DARK_BACKGROUND) >= 4.5, word


def test_figure_colours_read_on_light_and_dark_pages():
    css = figpage.asset("page.css")
    light = re.search(r"\.attnfig\{[^}]*\}", css).group(0)
    dark = re.search(r"html\[data-theme=dark\] \.attnfig,[^{]*\{[^}]*\}", css).group(0)
    for block, background in ((light, figpage.LIGHT_BACKGROUND), (dark, figpage.DARK_BACKGROUND)):
        colours = re.findall(r"--attnfig-(?:q|k|mark):(#[0-9A-Fa-f]{6})", block)
        assert len(colours) == 3
        for colour in colours:  # the arrows' labels and the marks' captions are text in these colours
            assert figpage.contrast(colour, background) >= 4.5, (colour, background)


def test_chapter_7_reads_sat_against_the_real_keys():
    labels, Q, K, _ = running()
    data = embedded(interactive.dot_product_arrows())
    np.testing.assert_allclose(data["q"], Q[labels.index("sat")], **AS_STORED)
    np.testing.assert_allclose(data["K"], K, **AS_STORED)
    html = interactive.dot_product_arrows(key="kitten").html
    q, k = Q[2], K[1]
    assert f'<output class="attnfig-dot">{attnlib.dot(q, k):.2f}</output>' in html
    assert f'<output class="attnfig-shadowlen">{attnlib.dot(q, k) / np.linalg.norm(q):.2f}</output>' in html
    assert "q₁" not in html and "k1 " not in html.replace("k1 <", "")  # counted from 0: k0 … k5


def test_chapter_7_no_same_way_verdict_near_a_right_angle():
    html = interactive.dot_product_arrows(key="own", theta=89).html
    assert "same way" not in html
    assert "shadow falls along q" in html


def test_chapter_8_data_are_attnlib_draws_unclipped():
    data = embedded(interactive.scaling_explorer())
    assert data["dks"] == [2**i for i in range(10)]
    for i, d_k in enumerate(data["dks"]):
        dots = dot_products(d_k)
        assert data["spread"]["raw"][i] == pytest.approx(dots.std(), rel=AS_STORED["rtol"])
        assert data["spread"]["scaled"][i] == pytest.approx((dots / math.sqrt(d_k)).std(), rel=AS_STORED["rtol"])
        for mode, x in (("raw", dots), ("scaled", dots / math.sqrt(d_k))):
            assert sum(data["hist"][mode][i]) == len(dots)
            assert data["reach"][mode][i] >= np.abs(x).max()  # nothing clipped into the end bins
        np.testing.assert_allclose(data["row"][i], random_scores(d_k)[0], **AS_STORED)
        assert data["meanmax"]["raw"][i] == pytest.approx(largest_weight(random_scores(d_k)), rel=AS_STORED["rtol"])
        assert data["meanmax"]["scaled"][i] == pytest.approx(
            largest_weight(attnlib.scale(random_scores(d_k), d_k)), rel=AS_STORED["rtol"]
        )
    assert data["spread"]["raw"][6] == pytest.approx(8.0, abs=0.2)  # √64 = 8, as the chapter's table says
    html = interactive.scaling_explorer().html
    assert "even shares would be 0.125" in html and "<td>k0</td>" in html and "<td>k8</td>" not in html


def test_chapter_9_rows_are_the_running_example_scaled():
    labels, Q, K, _ = running()
    data = embedded(interactive.softmax_stretch())
    np.testing.assert_allclose(data["rows"], (Q @ K.T) / math.sqrt(2), **AS_STORED)
    assert data["labels"] == labels
    assert 'max="2.5"' in interactive.softmax_stretch().html
    assert "a tie: 6 keys share" in interactive.softmax_stretch(stretch=0).html


def test_chapter_10_data_are_attnlib_attention():
    labels, Q, K, V = running()
    data = embedded(interactive.attention_explorer())
    Z, A = attnlib.attention(Q, K, V)
    np.testing.assert_allclose(data["A"], A, **AS_STORED)
    np.testing.assert_allclose(data["V"], V, **AS_STORED)
    assert data["words"] == labels
    assert A[labels.index("sat"), labels.index("kitten")] == pytest.approx(0.89, abs=0.005)
    fig = interactive.attention_explorer("sat")
    assert "mask" not in fig.html  # the causal mask is chapter 11's
    values = re.findall(r'<td class="attnfig-z">([^<]*)</td>', fig.html)
    assert [shown(x) for x in values] == pytest.approx(Z[2], abs=0.005)


def test_chapter_11_starts_from_attnlib_causal_attention():
    labels, Q, K, V = running()
    html = interactive.mask_explorer().html
    _, A = attnlib.attention(Q, K, V, mask=attnlib.masks.causal_mask(6))
    values = [shown(x) for x in re.findall(r'<td class="attnfig-a">([^<]*)</td>', html)]
    assert values == pytest.approx(A.ravel(), abs=0.005)
    assert html.count('aria-pressed="true"') == 15  # the 15 cells above the diagonal
    after = interactive.mask.masked_weights(attnlib.masks.causal_mask(6), "zero_after")
    assert after.sum(axis=1)[0] < 1 and "row 0" in interactive.mask_explorer("zero_after").html


def test_chapter_1_readouts_are_the_vocabulary():
    cat, kitten = attnlib.VOCAB_2D["cat"], attnlib.VOCAB_2D["kitten"]
    html = interactive.word_arrows("kitten", "cat").html
    assert f'<output class="attnfig-len">{math.hypot(*kitten):.2f}</output>' in html
    assert f"{math.degrees(math.atan2(kitten[1], kitten[0])):.1f}°" in html
    gap = math.degrees(math.atan2(kitten[1], kitten[0]) - math.atan2(cat[1], cat[0]))
    assert f'<output class="attnfig-between">{gap:.1f}°</output>' in html
    assert embedded(interactive.word_arrows())["start"] == attnlib.VOCAB_2D


def test_chapter_4_readouts_are_attnlib_matmul():
    X = np.array(list(attnlib.VOCAB_2D.values()))
    W = [[1.0, 0.5], [0.0, 1.0]]
    html = interactive.matrix_lens(W).html
    values = re.findall(r'<td class="attnfig-xw">\[([^,]*), ([^\]]*)\]</td>', html)
    assert [shown(v) for pair in values for v in pair] == pytest.approx((X @ np.array(W)).ravel(), abs=0.005)
    assert "2.60 × [1.00, 0.50] + 0.80 × [0.00, 1.00] = [2.60, 2.10]" in html  # kitten


def test_chapter_6_cells_are_attnlib_matmul():
    labels, Q, K, _ = running()
    html = interactive.transpose_explorer().html
    S = attnlib.matmul(Q, attnlib.transpose(K))
    buttons = [shown(x) for x in re.findall(r'<button\b[^>]*class="attnfig-cell[^"]*"[^>]*>([^<]*)</button>', html)]
    assert buttons == pytest.approx(S.ravel(), abs=0.005)
    mirror = [shown(x) for x in re.findall(r'<td class="attnfig-mirror[^"]*">([^<]*)</td>', html)]
    assert mirror == pytest.approx(S.T.ravel(), abs=0.005)
    assert "3.60 × 1.60 + 0.20 × 0.20 = 5.80" in html  # sat's query against kitten's key


def test_chapter_13_numbers_are_attnlib_positions():
    PE = attnlib.positional_encoding(50, 8)
    data = embedded(interactive.position_clocks())
    np.testing.assert_allclose(data["PE"], PE, **AS_STORED)
    html = interactive.position_clocks(i=3, j=1).html
    assert f'<output class="attnfig-dot">{PE[3] @ PE[1]:.2f}</output>' in html


def test_chapter_12_numbers_are_attnlib_heads():
    w = chapter_12_heads()
    out, A = attnlib.multi_head_attention(**w)
    data = embedded(FIGURES["heads"]())
    np.testing.assert_allclose(data["A"], A, **AS_STORED)
    np.testing.assert_allclose(data["output"], out, **AS_STORED)
    assert A[0, 2, 1] == pytest.approx(0.89, abs=0.005)  # head "who?": sat looks at kitten


def test_chapter_14_replay_is_the_real_training():
    from attnlib import training

    data = interactive.replay.replay()
    task = training.make_task(n_sentences=128, n=6, seed=0)
    full = training.train_lenses(task, steps=200, lr=0.1, d_k=2, seed=0)
    assert data["history"] == full.history
    for s, k in enumerate(data["steps"][:-1]):  # the lenses after k steps give the loss the full run saw at step k
        assert data["loss"][s] == pytest.approx(full.history[k], rel=1e-9)
    X_run = training.task_input(attnlib.RUNNING_SENTENCE)
    _, A = attnlib.self_attention(X_run, full.W_Q, full.W_K, full.W_V, mask=attnlib.masks.causal_mask(6))
    np.testing.assert_allclose(data["A"][-1], A)
    assert data["previous"][0] < 0.4 and data["previous"][-1] > 0.95  # A sharpens onto the word before


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="d_k must be one of"):
        interactive.scaling_explorer(d_k=3)
    with pytest.raises(ValueError, match="word must be one of"):
        interactive.attention_explorer("dog")
    with pytest.raises(ValueError, match="3 scores but 2 labels"):
        interactive.softmax_stretch([1.0, 2.0, 3.0], ["a", "b"])
    with pytest.raises(ValueError, match="key must be one of"):
        interactive.dot_product_arrows(key="dog")


# ----------------------------------------------------------------------------- in Chromium


class Page:
    """A page holding one figure, opened from a file, with every non-file request aborted and logged."""

    def __init__(self, browser, path: Path, width: int = 390, scheme: str = "light", js: bool = True):
        self.context = browser.new_context(
            viewport={"width": width, "height": 844}, color_scheme=scheme, java_script_enabled=js
        )
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
        return shown(self.text(selector))

    def numbers(self, selector: str) -> list[float]:
        return [shown(t) for t in self.page.locator(selector).all_text_contents()]

    def press(self, selector: str, key: str, times: int = 1):
        self.page.focus(selector)
        for _ in range(times):
            self.page.keyboard.press(key)

    def close(self):
        assert self.outside == [], f"requests left the page: {self.outside}"
        assert self.errors == [], f"console errors: {self.errors}"
        self.context.close()


def bare_page(folder: Path, name: str, fig: interactive.InteractiveFigure) -> Path:
    path = folder / f"{name}.html"
    path.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
        "content='width=device-width'><title>figure</title></head><body style='margin:16px'>"
        f"{fig._repr_html_()}</body></html>",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Each figure written into a standalone HTML file, as the book would hold it."""
    folder = tmp_path_factory.mktemp("interactive")
    return {name: bare_page(folder, name, make()) for name, make in FIGURES.items()}


def _smallest_text_px(page) -> float:
    return page.evaluate("""() => Math.min(...Array.from(document.querySelectorAll('svg text'))
        .filter(t => t.getBBox().width > 0 && getComputedStyle(t).display !== 'none').map(t => {
        const size = parseFloat(getComputedStyle(t).fontSize); const m = t.getScreenCTM();
        return size * Math.hypot(m.a, m.b); }))""")


def test_chapter_1_arrows(browser, pages):
    def direction(v):
        return math.degrees(math.atan2(v[1], v[0]))

    p = Page(browser, pages["arrows"])
    p.press(".attnfig-x", "ArrowRight", 4)  # kitten [2.6, 0.8] → [3.0, 0.8]
    p.press(".attnfig-y", "ArrowLeft", 3)  # → [3.0, 0.5], where cat is
    assert p.text(".attnfig-vec") == "3.00, 0.50"
    assert p.number(".attnfig-len") == pytest.approx(math.hypot(3.0, 0.5), abs=0.005)
    assert p.text(".attnfig-between") == "0.0°"
    p.press(".attnfig-other >> nth=0", "ArrowRight", 3)  # compare with car
    assert p.page.is_checked(".attnfig-other >> nth=3")
    car = attnlib.VOCAB_2D["car"]
    assert shown(p.text(".attnfig-between")[:-1]) == pytest.approx(direction(car) - direction([3.0, 0.5]), abs=0.05)
    p.press(".attnfig-move >> nth=1", "ArrowLeft")  # move cat now: its sliders follow
    assert p.page.input_value(".attnfig-x") == "3" and p.page.input_value(".attnfig-y") == "0.5"
    box = p.page.locator(".attnfig-plane").bounding_box()  # drag cat's tip to [-1, 2] with the pointer
    unit = box["width"] / 320
    x0, y0 = box["x"] + 70 * unit, box["y"] + 250 * unit  # the origin on the screen
    p.page.mouse.move(x0 + 3.0 * 60 * unit, y0 - 0.5 * 60 * unit)
    p.page.mouse.down()
    p.page.mouse.move(x0 - 1.0 * 60 * unit, y0 - 2.0 * 60 * unit, steps=5)
    p.page.mouse.up()
    assert p.text(".attnfig-vec") == "−1.00, 2.00"
    assert p.number(".attnfig-len") == pytest.approx(math.hypot(-1, 2), abs=0.005)
    assert shown(p.text(".attnfig-dir")[:-1]) == pytest.approx(direction([-1, 2]), abs=0.05)
    gap = abs(direction([-1, 2]) - direction(car))
    assert shown(p.text(".attnfig-between")[:-1]) == pytest.approx(min(gap, 360 - gap), abs=0.05)
    p.close()


def test_chapter_4_lens(browser, pages):
    X = np.array(list(attnlib.VOCAB_2D.values()))
    p = Page(browser, pages["lens"])

    def shown_xw():
        return [shown(x) for t in p.page.locator(".attnfig-xw").all_text_contents() for x in re.findall(r"[−\d.]+", t)]

    p.press(".attnfig-w >> nth=1", "ArrowDown", 5)  # W[0][1]: 0.5 → 0
    p.press(".attnfig-w >> nth=2", "ArrowUp", 10)  # W[1][0]: 0 → 1
    W = np.array([[1.0, 0.0], [1.0, 1.0]])
    assert shown_xw() == pytest.approx(attnlib.matmul(X, W).ravel(), abs=0.005)
    p.page.fill(".attnfig-w >> nth=3", "-1")  # typed in
    W[1, 1] = -1
    assert shown_xw() == pytest.approx(attnlib.matmul(X, W).ravel(), abs=0.005)
    p.press(".attnfig-word >> nth=1", "ArrowRight", 2)  # follow car
    car = attnlib.VOCAB_2D["car"]
    out = np.array(car) @ W
    assert p.text(".attnfig-sum") == (
        f"0.50 × [1.00, 0.00] + 3.00 × [1.00, −1.00] = [{out[0]:.2f}, {out[1]:.2f}]".replace("-", "−")
    )
    leg = p.page.locator(".attnfig-leg1")
    assert float(leg.get_attribute("x2")) == pytest.approx(out[0] * 33, abs=0.01)
    assert float(leg.get_attribute("y2")) == pytest.approx(-out[1] * 33, abs=0.01)
    p.close()


def test_chapter_6_transpose(browser, pages):
    labels, Q, K, _ = running()
    S = Q @ K.T
    p = Page(browser, pages["transpose"])
    p.page.hover(".attnfig-cell >> nth=22")  # cell (3, 4)
    assert p.text(".attnfig-how").endswith(f"= {S[3, 4]:.2f}")
    assert p.text(".attnfig-how").startswith("(Q Kᵀ)[3][4] = row 3 of Q · column 4 of Kᵀ = 0.80 × 0.20 + 0.00 × 0.20")
    lit = p.page.locator(".attnfig-lit").all_text_contents()
    assert lit == [
        f"{K[4, 0]:.2f}",
        f"{K[4, 1]:.2f}",
        f"{Q[3, 0]:.2f}",
        f"{Q[3, 1]:.2f}",
        f"{S[3, 4]:.2f}",
        f"{S[3, 4]:.2f}",
    ]
    assert p.page.locator(".attnfig-mirror.attnfig-lit").count() == 1
    mirror_index = p.page.evaluate(
        "() => Array.from(document.querySelectorAll('.attnfig-mirror')).findIndex(e => e.classList.contains('attnfig-lit'))"
    )
    assert mirror_index == 4 * 6 + 3  # (Q Kᵀ)ᵀ[4][3]
    p.page.focus(".attnfig-scroll")  # keyboard: the roving cell, then arrows
    p.page.keyboard.press("Tab")
    assert p.page.evaluate("document.activeElement.className").startswith("attnfig-cell")
    start = p.page.evaluate("[+document.activeElement.dataset.i, +document.activeElement.dataset.j]")
    p.page.keyboard.press("ArrowDown")
    p.page.keyboard.press("ArrowRight")
    i, j = start[0] + 1, start[1] + 1
    assert p.text(".attnfig-where") == f"(Q Kᵀ)ᵀ[{j}][{i}] = {S[i, j]:.2f}"
    for _ in range(6):
        p.page.keyboard.press("ArrowRight")  # stops at the edge
    assert p.text(".attnfig-how").startswith(f"(Q Kᵀ)[{i}][5]")
    p.close()


def test_chapter_13_clocks(browser, pages):
    PE = attnlib.positional_encoding(50, 8)
    p = Page(browser, pages["clocks"])
    hand = p.page.get_attribute(".attnfig-handi >> nth=0", "x2")
    p.press(".attnfig-i", "ArrowRight", 7)  # i = 10
    assert p.text(".attnfig-i-out") == "10"
    assert p.page.get_attribute(".attnfig-handi >> nth=0", "x2") != hand
    assert float(p.page.get_attribute(".attnfig-handi >> nth=1", "x2")) == pytest.approx(135 + 34 * PE[10, 2], abs=0.01)
    assert float(p.page.get_attribute(".attnfig-handi >> nth=1", "y2")) == pytest.approx(45 - 34 * PE[10, 3], abs=0.01)
    assert [shown(x) for x in p.text(".attnfig-pei").split(", ")] == pytest.approx(PE[10], abs=0.005)
    assert p.number(".attnfig-dot") == pytest.approx(PE[10] @ PE[1], abs=0.005)
    assert p.text(".attnfig-offset") == "9"
    p.press(".attnfig-j", "ArrowRight", 20)  # j = 21: the same offset, −11 …
    assert p.number(".attnfig-dot") == pytest.approx(PE[10] @ PE[21], abs=0.005)
    assert p.number(".attnfig-dot") == pytest.approx(PE[11] @ PE[0], abs=0.005)  # … gives the same dot product
    assert p.text(".attnfig-offset") == "−11"
    p.press(".attnfig-i", "End")
    p.press(".attnfig-j", "Home")
    assert p.number(".attnfig-dot") == pytest.approx(PE[49] @ PE[0], abs=0.005)
    p.close()


def test_chapter_12_heads(browser, pages):
    w = chapter_12_heads()
    out, A = attnlib.multi_head_attention(**w)
    V = attnlib.heads.split_heads(w["X"] @ w["W_V"], 2)
    Z = A @ V
    p = Page(browser, pages["heads"])

    def vector(text):
        return [shown(x) for x in text[text.rindex("[") + 1 : -1].split(", ")]

    assert p.numbers(".attnfig-a") == pytest.approx(A[0].ravel(), abs=0.005)
    assert vector(p.text(".attnfig-say")) == pytest.approx(Z[0, 2], abs=0.005)
    p.press(".attnfig-head >> nth=0", "ArrowRight")  # head 1, "where?"
    assert p.text(".attnfig-aname") == "A, head 1"
    assert p.numbers(".attnfig-a") == pytest.approx(A[1].ravel(), abs=0.005)
    assert "where?" in p.text(".attnfig-say")
    assert vector(p.text(".attnfig-say")) == pytest.approx(Z[1, 2], abs=0.005)
    p.press(".attnfig-word >> nth=2", "ArrowRight")  # word 3, "on"
    assert vector(p.text(".attnfig-say")) == pytest.approx(Z[1, 3], abs=0.005)
    assert p.page.locator(".attnfig-arow >> nth=3").get_attribute("class") == "attnfig-arow attnfig-lit"
    p.press(".attnfig-head >> nth=1", "ArrowRight")  # all heads, then W_O
    assert p.page.is_visible(".attnfig-allheads") and not p.page.is_visible(".attnfig-onehead")
    assert vector(p.text(".attnfig-say")) == pytest.approx(out[3], abs=0.005)
    p.close()


def test_chapter_14_replay(browser, pages):
    from attnlib import training

    task = training.make_task(n_sentences=128, n=6, seed=0)
    X_run = training.task_input(attnlib.RUNNING_SENTENCE)
    causal = attnlib.masks.causal_mask(6)

    def cells(A):
        return [A[i, j] for i in range(6) for j in range(i + 1)]

    p = Page(browser, pages["replay"])
    p.press(".attnfig-step", "ArrowRight", 13)  # the 14th checkpoint: step 50
    assert p.text(".attnfig-stepname") == "50"
    run = training.train_lenses(task, steps=50, lr=0.1, d_k=2, seed=0)
    _, A = attnlib.self_attention(X_run, run.W_Q, run.W_K, run.W_V, mask=causal)
    assert [shown(x) for x in p.page.locator(".attnfig-ctext").all_text_contents() if x] == pytest.approx(
        cells(A), abs=0.005
    )
    assert p.number(".attnfig-prev") == pytest.approx(training.weight_on_keys(A, task.keys, range(1, 6)), abs=0.005)
    Z, _ = attnlib.self_attention(task.X, run.W_Q, run.W_K, run.W_V, mask=causal)
    assert float(p.text(".attnfig-loss")) == pytest.approx(((Z - task.targets) ** 2).mean(), rel=0.005)
    assert len(p.page.get_attribute(".attnfig-curve", "points").split()) == 51
    p.press(".attnfig-step", "End")
    assert p.text(".attnfig-stepname") == "200"
    assert p.number(".attnfig-prev") > 0.95
    p.close()


def test_chapter_7_arrows(browser, pages):
    labels, Q, K, _ = running()
    q = Q[2]
    p = Page(browser, pages["dot"])
    assert p.page.get_attribute(".attnfig", "data-live") == "1"
    assert p.number(".attnfig-dot") == pytest.approx(attnlib.dot(q, K[2]), abs=0.005)  # sat · sat
    for j in range(6):  # every real key, by keyboard
        p.page.check(f".attnfig-key >> nth={j}")
        assert p.number(".attnfig-dot") == pytest.approx(attnlib.dot(q, K[j]), abs=0.005)
        assert p.number(".attnfig-shadowlen") == pytest.approx(attnlib.dot(q, K[j]) / np.linalg.norm(q), abs=0.005)
        assert p.number(".attnfig-lk") == pytest.approx(np.linalg.norm(K[j]), abs=0.005)
    assert "zero arrow" in p.text(".attnfig-verdict")  # mat's key is [0, 0]
    p.press(".attnfig-key >> nth=5", "ArrowLeft")  # back to k4 "the"
    assert p.page.is_checked(".attnfig-key >> nth=4")
    before = p.page.get_attribute(".attnfig-k", "x2")
    p.page.fill(".attnfig-klen", "2")  # moving a slider makes k your own
    p.page.fill(".attnfig-theta", "90")
    assert p.page.is_checked(".attnfig-key >> nth=6")
    assert p.page.get_attribute(".attnfig-k", "x2") != before
    assert p.number(".attnfig-dot") == 0.0 and "right angles" in p.text(".attnfig-verdict")
    p.press(".attnfig-theta", "ArrowLeft")  # 89°: positive, but not "the same way"
    k = interactive.dot.own_key(q, 89, 2.0)
    assert p.number(".attnfig-dot") == pytest.approx(attnlib.dot(q, k), abs=0.005)
    assert "along q" in p.text(".attnfig-verdict")
    p.press(".attnfig-theta", "End")  # 180°: opposite
    assert p.number(".attnfig-dot") == pytest.approx(-2 * np.linalg.norm(q), abs=0.005)
    assert "behind" in p.text(".attnfig-verdict")
    assert _smallest_text_px(p.page) >= 12
    p.close()


def test_chapter_8_scaling(browser, pages):
    p = Page(browser, pages["scaling"])
    heights = "() => Array.from(document.querySelectorAll('.attnfig-hbar-raw')).map(r => r.getAttribute('height'))"
    heights_64 = p.page.evaluate(heights)
    p.press(".attnfig-dk", "End")  # d_k = 512
    assert p.text(".attnfig-dk-out") == "512"
    assert p.page.evaluate(heights) != heights_64
    raw = random_scores(512)[0]
    assert p.numbers(".attnfig-s") == pytest.approx(raw, abs=0.005)
    assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(raw), abs=0.005)
    assert p.number(".attnfig-max") == pytest.approx(attnlib.softmax(raw).max(), abs=0.005)
    assert p.number(".attnfig-spread-raw") == pytest.approx(dot_products(512).std(), abs=0.005)
    assert p.number(".attnfig-spread-scaled") == pytest.approx((dot_products(512) / math.sqrt(512)).std(), abs=0.005)
    reach = math.ceil(max(np.abs(dot_products(2**i)).max() for i in range(10)))  # one axis for every d_k
    assert p.numbers(".attnfig-tick-raw") == [-reach, 0, reach]
    mark = float(p.page.get_attribute(".attnfig-mark-raw >> nth=1", "x1"))
    assert mark == pytest.approx(10 + 80 + 80 * math.sqrt(512) / reach, abs=0.01)  # the dash at +√512
    unscaled_max = p.number(".attnfig-max")
    p.page.click("label[for$='-div']")  # softmax of S / √d_k
    assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(raw / math.sqrt(512)), abs=0.005)
    assert p.number(".attnfig-max") < unscaled_max
    assert p.number(".attnfig-meanmax") == pytest.approx(
        largest_weight(attnlib.scale(random_scores(512), 512)), abs=0.005
    )
    p.page.keyboard.press("Space")  # untick by keyboard
    assert not p.page.is_checked(".attnfig-div")
    p.press(".attnfig-dk", "Home")  # d_k = 1
    assert p.text(".attnfig-dk-out") == "1"
    assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(random_scores(1)[0]), abs=0.005)
    assert _smallest_text_px(p.page) >= 12
    p.close()


def test_chapter_9_stretch(browser, pages):
    labels, Q, K, _ = running()
    S = (Q @ K.T) / math.sqrt(2)
    p = Page(browser, pages["stretch"])
    assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(S[2]), abs=0.005)
    pie = p.page.get_attribute(".attnfig-slice >> nth=1", "d")
    p.press(".attnfig-t", "Home")  # t = 0: even shares, a tie
    assert p.numbers(".attnfig-w") == pytest.approx([1 / 6] * 6, abs=0.005)
    assert p.page.get_attribute(".attnfig-slice >> nth=1", "d") != pie
    assert p.text(".attnfig-leader").startswith("a tie: 6 keys")
    assert p.text(".attnfig-temp") == "∞"
    p.press(".attnfig-t", "End")  # t = 2.5, the top of the range
    assert p.page.input_value(".attnfig-t") == "2.5"
    assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(2.5 * S[2]), abs=0.005)
    assert "kitten" in p.text(".attnfig-leader")
    assert p.text(".attnfig-temp") == "0.40"
    p.press(".attnfig-t", "ArrowLeft")
    assert p.page.input_value(".attnfig-t") == "2.4"
    assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(2.4 * S[2]), abs=0.005)
    for i in range(6):  # any row
        p.page.check(f".attnfig-row >> nth={i}")
        assert p.numbers(".attnfig-w") == pytest.approx(attnlib.softmax(2.4 * S[i]), abs=0.005)
        assert p.number(".attnfig-sum") == 1.0
    assert p.page.locator(".attnfig-slabel:visible").count() >= 1  # the slices carry their keys
    p.close()


def test_chapter_10_blend(browser, pages):
    labels, Q, K, V = running()
    Z, A = attnlib.attention(Q, K, V)
    p = Page(browser, pages["blend"])
    assert p.numbers(".attnfig-z") == pytest.approx(Z[2], abs=0.005)
    p.page.click(".attnfig-hrow[data-row='1']")  # click the row of "kitten"
    assert p.page.is_checked(".attnfig-word >> nth=1")
    assert p.text(".attnfig-rowname") == "1 kitten"
    assert p.numbers(".attnfig-a") == pytest.approx(A[1], abs=0.005)
    assert p.numbers(".attnfig-z") == pytest.approx(Z[1], abs=0.005)
    assert p.page.get_attribute(".attnfig-sel", "y") == str(22 + 30 - 1)
    p.page.keyboard.press("ArrowDown")  # the radio group: next word, "sat"
    assert p.page.is_checked(".attnfig-word >> nth=2")
    assert p.numbers(".attnfig-z") == pytest.approx(Z[2], abs=0.005)
    assert "v1 of “kitten”" in p.text(".attnfig-summary")  # 0-based
    assert _smallest_text_px(p.page) >= 11
    p.close()


def test_chapter_11_mask(browser, pages):
    labels, Q, K, V = running()
    S = (Q @ K.T) / math.sqrt(2)
    causal = attnlib.masks.causal_mask(6)
    p = Page(browser, pages["mask"])
    assert p.numbers(".attnfig-a") == pytest.approx(attnlib.attention(Q, K, V, mask=causal)[1].ravel(), abs=0.005)
    assert p.numbers(".attnfig-rowsum") == [1.0] * 6
    p.press(".attnfig-cell >> nth=12", "Enter")  # hide key 0 from query 2 "sat"
    allowed = causal.copy()
    allowed[2, 0] = False
    assert p.page.get_attribute(".attnfig-cell >> nth=12", "aria-pressed") == "true"
    assert p.numbers(".attnfig-a") == pytest.approx(attnlib.attention(Q, K, V, mask=allowed)[1].ravel(), abs=0.005)
    p.press(".attnfig-mode >> nth=0", "ArrowRight")  # 0 before softmax
    assert p.page.is_checked(".attnfig-mode >> nth=1")
    assert p.numbers(".attnfig-a") == pytest.approx(attnlib.softmax(np.where(allowed, S, 0.0)).ravel(), abs=0.005)
    assert "0 is not" in p.text(".attnfig-note")
    p.page.keyboard.press("ArrowRight")  # zero after softmax
    assert p.page.is_checked(".attnfig-mode >> nth=2")
    after = attnlib.softmax(S) * allowed
    assert p.numbers(".attnfig-a") == pytest.approx(after.ravel(), abs=0.005)
    assert p.numbers(".attnfig-rowsum") == pytest.approx(after.sum(axis=1), abs=0.005)
    assert "row 0" in p.text(".attnfig-note")
    p.press(".attnfig-clear", "Enter")  # no mask: every mode gives softmax(S)
    assert p.numbers(".attnfig-a") == pytest.approx(attnlib.softmax(S).ravel(), abs=0.005)
    p.press(".attnfig-mode >> nth=0", "Space")
    for j in range(6):  # hide every key of row 5: 0/0
        p.page.click(f".attnfig-cell >> nth={30 + j}")
    assert "row 5 hides every key" in p.text(".attnfig-note")
    p.press(".attnfig-causal", "Space")
    assert p.numbers(".attnfig-a") == pytest.approx(attnlib.attention(Q, K, V, mask=causal)[1].ravel(), abs=0.005)
    p.close()


def test_all_figures_on_one_page(browser, tmp_path):
    """As on a book page holding several figures: each runs, and each control moves only its own figure."""
    figures = "".join(make()._repr_html_() for make in FIGURES.values())
    path = bare_page(tmp_path, "all", interactive.InteractiveFigure("all", figures))
    p = Page(browser, path)
    assert p.page.locator(".attnfig[data-live='1']").count() == len(FIGURES)
    ch8, ch9 = "[data-attnfig=scaling] .attnfig-w", "[data-attnfig=stretch] .attnfig-w"
    before = p.numbers(ch8), p.numbers(ch9)
    p.press("[data-attnfig=stretch] .attnfig-t", "Home")  # chapter 9's stretch to 0
    assert p.numbers(ch9) == pytest.approx([1 / 6] * 6, abs=0.005) and p.numbers(ch9) != before[1]
    assert p.numbers(ch8) == before[0]
    p.close()


@pytest.mark.parametrize("name", FIGURES)
def test_without_javascript_the_numbers_still_show(browser, pages, name):
    p = Page(browser, pages[name], js=False)
    assert p.page.is_visible(".attnfig-static")
    assert p.page.locator(".attnfig-readout output").first.inner_text().strip() != ""
    p.close()


@pytest.mark.parametrize("name", FIGURES)
def test_keyboard_alone_reaches_every_control_with_visible_focus(browser, pages, name):
    p = Page(browser, pages[name])
    controls = p.page.locator(".attnfig input, .attnfig button, .attnfig [tabindex='0']")
    names = p.page.evaluate("""() => Array.from(document.querySelectorAll('.attnfig input, .attnfig button'))
        .map(e => (e.labels && e.labels.length ? e.labels[0].textContent : '') || e.getAttribute('aria-label') || e.textContent)""")
    assert all(n.strip() for n in names), f"{name}: a control without a name"
    reached = set()
    for _ in range(controls.count() + 2):
        p.page.keyboard.press("Tab")
        info = p.page.evaluate("""() => { const e = document.activeElement; if (!e.closest('.attnfig')) return null;
            const s = getComputedStyle(e); return [e.classList[0] + '|' + (e.name || e.id || e.textContent), s.outlineStyle, parseFloat(s.outlineWidth)]; }""")
        if info:
            reached.add(info[0].split("|")[0])
            assert info[1] == "solid" and info[2] >= 3, f"{name}: no visible focus on {info[0]}"
    classes = set(
        p.page.evaluate(
            "() => Array.from(document.querySelectorAll('.attnfig input, .attnfig button')).map(e => e.classList[0])"
        )
    )
    assert classes <= reached, f"{name}: not reached by Tab: {classes - reached}"
    p.close()


#: How each page says it is dark or light: the book's html data-theme, JupyterLab's body data-jp-theme-light.
THEMES = {
    "light": ("light", ""),
    "dark": ("dark", "document.documentElement.dataset.theme = 'dark'; "),
    "lab-dark": ("light", "document.body.dataset.jpThemeLight = 'false'; "),
    "lab-light-os-dark": ("dark", "document.body.dataset.jpThemeLight = 'true'; "),
}


@pytest.fixture(scope="module")
def all_figures(tmp_path_factory):
    """Every figure on one page, as a chapter holding several would show them (the checks of the
    whole page below look at every figure in one opening, and say which figure fails)."""
    folder = tmp_path_factory.mktemp("all_figures")
    figures = "".join(make()._repr_html_() for make in FIGURES.values())
    return bare_page(folder, "all", interactive.InteractiveFigure("all", figures))


def open_in_theme(browser, path: Path, theme: str) -> Page:
    """The page at 390 px in one of THEMES: the book's light or dark page, or JupyterLab's."""
    scheme, switch = THEMES[theme]
    p = Page(browser, path, scheme=scheme)
    if "dark" in switch or "'false'" in switch:
        p.page.evaluate(switch + "document.body.style.background = '#121212'; document.body.style.color = '#ced6dd'")
    elif switch:
        p.page.evaluate(switch + "document.body.style.background = '#ffffff'; document.body.style.color = '#000000'")
    return p


#: per figure: how far it reaches right, and the lowest contrast of a word colour with the page
WIDTH_AND_CONTRAST = """() => { const bg = getComputedStyle(document.body).backgroundColor;
    function lum(c){ const v = c.match(/[\\d.]+/g).slice(0,3).map(x => { x = x/255; return x <= 0.04045 ? x/12.92 : Math.pow((x+0.055)/1.055, 2.4); });
      return 0.2126*v[0] + 0.7152*v[1] + 0.0722*v[2]; }
    const b = bg === 'rgba(0, 0, 0, 0)' ? 1 : lum(bg);
    return Array.from(document.querySelectorAll('.attnfig')).map(f => ({
      name: f.dataset.attnfig,
      right: f.getBoundingClientRect().right,
      contrast: Math.min(...Array.from(f.querySelectorAll('.w')).filter(e => e.tagName !== 'text').map(e => {
        const l = lum(getComputedStyle(e).color); return (Math.max(l,b)+0.05)/(Math.min(l,b)+0.05); }), 21)})); }"""


@pytest.mark.parametrize("theme", THEMES)
def test_phone_width_and_contrast(browser, all_figures, theme):
    """At 390 px nothing is wider than the phone, and every word colour reads at 4.5:1 or more."""
    p = open_in_theme(browser, all_figures, theme)
    figures = p.page.evaluate(WIDTH_AND_CONTRAST)
    assert {f["name"] for f in figures} == set(FIGURES)
    wide = [f"{f['name']} reaches {f['right']:.0f} px" for f in figures if f["right"] > 390]
    page_width = p.page.evaluate("document.documentElement.scrollWidth")
    assert not wide and page_width <= 390, f"the page is {page_width} px wide at 390 px: {wide}"
    faint = [f"{f['name']}: a word colour at {f['contrast']:.2f}:1" for f in figures if f["contrast"] < 4.5]
    assert not faint, f"on the {theme} page: {faint}"
    if SAVE_SCREENSHOTS and theme in ("light", "dark"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        p.page.screenshot(path=str(SCREENSHOTS / f"interactive-all-{theme}.png"), full_page=True)
    p.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_wcag_violation(browser, all_figures, scheme):
    """axe-core (the copy pinned by the axe-playwright-python package), WCAG 2.0 and 2.1, A and AA,
    on every figure; each violation is named by its figure."""
    axe = pytest.importorskip("axe_playwright_python", reason="axe-playwright-python is not installed")
    from importlib import resources

    axe_js = resources.files(axe).joinpath("axe.min.js").read_text(encoding="utf-8")
    p = open_in_theme(browser, all_figures, scheme)
    p.page.evaluate(axe_js)
    found = p.page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations'],
               runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})).violations
           .flatMap(v => v.nodes.map(n => {
               const el = document.querySelector(n.target[0]);
               const fig = el && el.closest('.attnfig');
               return `${fig ? fig.dataset.attnfig : 'page'}: ${v.id}`; }))"""
    )
    p.close()
    assert found == []


BOOK_PAGES = [
    "01_vectors",
    "04_matrix_multiplication",
    "06_transpose",
    "07_dot_product_scores",
    "08_scaling",
    "09_softmax",
    "10_weighted_sum",
    "11_masks",
    "12_many_heads",
    "13_word_order",
    "14_learning_the_lenses",
]


@pytest.mark.parametrize("chapter", BOOK_PAGES)
def test_built_book_pages_hold_their_figures(built_book, chapter):
    """The built book's chapter pages carry their live figures, script and all. That each one starts,
    offline, at 1280 and 390 px, light and dark, is checked where every page is opened in Chromium:
    tests/test_browser.py (check_live_figures)."""
    path = built_book.html_dir / "chapters" / f"{chapter}.html"
    assert path.is_file(), f"the build made no {path.name}"
    html = path.read_text(encoding="utf-8")
    figures = re.findall(r'<figure class="attnfig" id="([^"]+)"', html)
    assert figures, f"{path.name} has no interactive figure"
    for figure_id in figures:
        assert f'document.getElementById("{figure_id}")' in html, f"{path.name}: figure {figure_id} has no script"


@pytest.mark.parametrize("name", FIGURES)
def test_a_sanitised_copy_draws_the_starting_picture_and_no_dead_button(name):
    """A notebook JupyterLab does not trust shows the figure sanitised: no script, no <style>, no
    inline SVG (its tags stripped to bare text). What is left still draws the starting picture
    (each SVG as a still <img> of a standalone SVG: its viewBox, the figure's style and a white
    ground), and no control that needs the script looks live: every button is disabled (inputs the
    sanitiser disables itself)."""
    import base64
    import xml.dom.minidom

    fig = FIGURES[name]()
    svgs = re.findall(r"<svg\b.*?</svg>", fig.html, re.DOTALL)
    stills = re.findall(r'<img class="attnfig-still" src="data:image/svg\+xml;base64,([^"]+)" alt="([^"]+)"', fig.html)
    assert len(stills) == len(svgs), f"{name}: {len(svgs)} pictures, {len(stills)} still images of them"
    for data, alt in stills:
        document = xml.dom.minidom.parseString(base64.b64decode(data)).documentElement
        assert document.tagName == "svg" and document.getAttribute("viewBox"), f"{name}: a still without a viewBox"
        assert document.getElementsByTagName("style"), f"{name}: a still without the figure's style"
        assert any(r.getAttribute("fill") == "#ffffff" for r in document.getElementsByTagName("rect"))
        assert alt.strip(), f"{name}: a still without alt text"
    buttons = re.findall(r"<button\b[^>]*>", fig.html)
    live = [b for b in buttons if " disabled" not in b]
    assert not live, f"{name}: {len(live)} of {len(buttons)} buttons work only with the script but look live"


@pytest.mark.parametrize("name", FIGURES)
def test_the_starting_picture_is_drawn_by_python(name):
    """Where no script runs (the PDF, an untrusted notebook) the picture is what Python wrote: its
    shapes must already have their places, not wait for the script to set them. At most a third of
    a picture's lines, polygons and paths may start empty (an angle's arc before there is one)."""
    import xml.dom.minidom

    for svg in re.findall(r"<svg\b.*?</svg>", FIGURES[name]().html, re.DOTALL):
        document = xml.dom.minidom.parseString(figpage._xml_text(svg)).documentElement
        shapes = [e for tag in ("line", "polygon", "polyline", "path") for e in document.getElementsByTagName(tag)]
        needs = {"line": ("x1", "y1", "x2", "y2"), "polygon": ("points",), "polyline": ("points",), "path": ("d",)}
        empty = [e for e in shapes if not all(e.getAttribute(a).strip() for a in needs[e.tagName])]
        assert len(empty) * 3 <= len(shapes), (
            f"{name}: {len(empty)} of {len(shapes)} shapes wait for the script: "
            f"{[e.getAttribute('class') or e.tagName for e in empty]}"
        )


def test_the_stored_figure_weights_are_for_the_figures_default_texts():
    """Change SENTENCES or TEXTS without rewriting attnlib/figure_weights.npz (tools/figure_weights.py) and
    the figures would quietly run the model again, on any processor's last digits: this fails instead."""
    from attnlib.interactive import trained

    with np.load(trained.STORED) as data:
        assert data["trained_texts"].tolist() == list(trained.SENTENCES)
        assert data["causal_texts"].tolist() == list(trained.TEXTS)
