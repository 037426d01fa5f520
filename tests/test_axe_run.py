"""The axe-core run of the browser sweeps (tests/browser_measures.py, AXE_RUN) finds what it must on a page
made for it: text of too little contrast in the article and in the page's chrome, and in code, where it
looks at one element for each look code text has (CODE_LOOKS), so every look is judged and none twice."""

from __future__ import annotations

import browser_measures as measures
import pytest

PAGE = """<!doctype html><html lang="en"><head><title>contrast</title></head>
<body style="background: #fff; color: #222">
<header class="bd-header"><a href="#a" style="color: #bbb">faint link in the chrome</a></header>
<main><article class="bd-article">
  <h1>A page</h1>
  <p id="faint" style="color: #aaa">Faint prose.</p>
  <p>Plain prose.</p>
  <div class="highlight" style="background: #f5f5f5"><pre>x = <span class="n" style="color: #999">faint</span> + \
<span class="n" style="color: #999">faint_again</span> + <span class="k" style="color: #111">dark</span>
<span class="hidden" style="display: none; color: #eee">hidden</span><span class="m" style="color: #f0f0f0">faint_number</span></pre>
  </div>
</article></main></body></html>"""


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    yield context.new_page()
    context.close()


def faint(page, desktop: bool) -> list[str]:
    page.set_content(PAGE)
    page.add_script_tag(content=measures.axe_source())
    found = page.evaluate(measures.AXE_RUN, measures.axe_args("desktop" if desktop else "phone"))
    assert {v["id"] for v in found} <= {"color-contrast"}, found
    assert page.evaluate("() => document.querySelectorAll('[data-axe-look]').length") == 0  # the page as it was
    return sorted(node["html"].replace(' data-axe-look=""', "").split(">")[0] for v in found for node in v["nodes"])


def test_the_phone_views_find_faint_prose_chrome_and_each_faint_look_of_code_once(page):
    assert faint(page, desktop=False) == [
        '<a href="#a" style="color: #bbb"',
        '<p id="faint" style="color: #aaa"',
        '<span class="m" style="color: #f0f0f0"',
        '<span class="n" style="color: #999"',
    ]


def test_the_desktop_view_leaves_the_article_to_the_phone_views(page):
    assert faint(page, desktop=True) == ['<a href="#a" style="color: #bbb"']


def test_code_looks_are_the_visible_text_elements_that_differ(page):
    page.set_content(PAGE)
    looks = page.evaluate(f"() => ({measures.CODE_LOOKS})().map(el => el.tagName + '.' + el.className)")
    assert looks == ["PRE.", "SPAN.n", "SPAN.k", "SPAN.m"]  # one faint span.n of two; the hidden span left out


def test_the_colours_look_runs_only_the_rules_that_judge_colours(page):
    page.set_content(
        '<!doctype html><html lang="en"><head><title>t</title></head><body><main>'
        '<p style="color: #ccc">faint</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="9" height="9">'
        "</main></body></html>"
    )
    page.add_script_tag(content=measures.axe_source())
    found = {
        look: {v["id"] for v in page.evaluate(measures.AXE_RUN, measures.axe_args(look))}
        for look in ("phone", "colours")
    }
    assert found == {"phone": {"color-contrast", "image-alt"}, "colours": {"color-contrast"}}


def test_visible_tells_a_page_whose_elements_show_differently(page):
    page.set_content(PAGE)
    before = page.evaluate(measures.VISIBLE)
    count, bits = before.split(":")
    assert before == page.evaluate(measures.VISIBLE) and int(count) == len(bits) and "0" in bits  # the hidden span
    page.evaluate("() => { document.querySelector('#faint').style.display = 'none'; }")
    assert page.evaluate(measures.VISIBLE) != before
