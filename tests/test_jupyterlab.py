"""The notebooks as a learner meets them in a real JupyterLab (4.6 with jupyterlab-myst), in headless Chromium.

One JupyterLab is started on a loopback port with empty Jupyter user folders (tests/jupyterlab_session.py)
on a copy of the chapters, nothing trusted. For each chapter of the sample:

1. fresh open: every stored figure is an image (none falls back to "<Figure size ...>"), every
   solution is a folded dropdown and none of its code or output is visible, every live figure
   draws its starting picture and shows no button that cannot work; Ctrl+S changes no byte;
2. Run All (the Run menu): no error, still no solution visible, and the saved file holds its
   solutions as it did; reopened, still none visible;
3. one click on a solution's bar shows the whole solution: its code and what it prints; a click on
   any word of any solution bar opens it ("Exercise N" was once a link that left it folded);
4. a wrong and a right answer typed into one exercise read ✗ and ✓;
5. a live figure's slider moves by keyboard (and the notebook keeps its active cell) and by pointer;
6. `attncheck.progress()` shows the exercise solved in 2 attempts.

Chapter 1 is also opened in Jupyter Notebook 7 (`jupyter notebook`), the other way a learner opens
the chapters: its figures show, its solutions stay folded through Run All and one click opens one,
and a live figure's slider takes the arrow keys (Notebook 7 takes them on the way down otherwise).

The sample is chapters 1, 9 and 14 and one more from chapters 2-13 that changes with the day of the
year (ATTNLIB_LAB_CHAPTERS="1 9" names others). What each chapter showed, and how long each step
took, is printed (and shown at the end of `make test`).
"""

from __future__ import annotations

import datetime
import importlib.util
import json
import os
import re
import time
from pathlib import Path

import pytest
from jupyterlab_session import LabServer

from attncheck import exercise_ids, get

ROOT = Path(__file__).resolve().parents[1]
#: the course folder under test: this one, or another checkout (to watch the checks fail on older notebooks)
SOURCE = Path(os.environ.get("ATTNLIB_LAB_SOURCE", ROOT))
NOTEBOOKS = {int(p.name[:2]): p.name for p in sorted((SOURCE / "chapters").glob("[0-9][0-9]_*.ipynb"))}
FIXED = (1, 9, 14)
ROTATING = [n for n in NOTEBOOKS if 2 <= n <= 13 and n not in FIXED]


def sample() -> list[int]:
    named = os.environ.get("ATTNLIB_LAB_CHAPTERS")
    if named:
        return [int(n) for n in named.split()]
    day = datetime.date.today().timetuple().tm_yday
    return [n for n in FIXED if n in NOTEBOOKS] + ([ROTATING[day % len(ROTATING)]] if ROTATING else [])


CHAPTERS = sample()

# lab_solutions, to read a stored notebook's solutions as the tools do
_SPEC = importlib.util.spec_from_file_location("lab_solutions", ROOT / "tools" / "lab_solutions.py")
lab_solutions = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(lab_solutions)


@pytest.fixture(scope="module")
def browser(browser, tmp_path_factory):
    """Headless Chromium (tests/conftest.py's) and a JupyterLab serving a copy of the sample chapters."""
    lab = LabServer(tmp_path_factory.mktemp("jupyterlab"), [NOTEBOOKS[n] for n in CHAPTERS], SOURCE)
    try:
        yield lab, browser
    finally:
        lab.close()


CURRENT = "window.jupyterapp.shell.currentWidget"
CELLS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell"
READY = f"""() => {{ const w = window.jupyterapp && {CURRENT};
  return !!(w && w.context && w.context.isReady && w.sessionContext.session && w.sessionContext.session.kernel
    && w.sessionContext.session.kernel.status === 'idle'); }}"""
IDLE = f"""() => {{ const w = {CURRENT}; return window.__ran && w.sessionContext.session.kernel.status === 'idle'
  && !Array.from(w.node.querySelectorAll('.jp-InputPrompt')).some(p => p.textContent.includes('*')); }}"""
WATCH = f"""() => {{ window.__ran = false;
  {CURRENT}.sessionContext.session.kernel.statusChanged.connect((k, s) => {{ if (s === 'busy') window.__ran = true; }}); }}"""
SEEN = f"""() => {{ const w = {CURRENT}.node;
  const outs = Array.from(w.querySelectorAll('.jp-OutputArea-output'));
  return {{ text: w.querySelector('.jp-Notebook').innerText,
    images: w.querySelectorAll('.jp-OutputArea-output img:not(.attnfig-still), .jp-OutputArea-output .jp-RenderedSVG svg').length,
    figure_text: outs.filter(o => /<Figure size/.test(o.innerText)).length,
    figures: Array.from(w.querySelectorAll('.attnfig')).map(f => ({{ live: f.dataset.live === '1',
      note: (f.querySelector('.attnfig-static') || {{innerText: ''}}).innerText,
      pictures: Array.from(f.querySelectorAll('.attnfig-pic')).filter(p => getComputedStyle(p).display !== 'none').length,
      wrappers: f.querySelectorAll('.attnfig-pic').length,
      stills: Array.from(f.querySelectorAll('img.attnfig-still')).filter(i => i.naturalWidth > 0).length,
      live_buttons: Array.from(f.querySelectorAll('button')).filter(b => !b.disabled).length }})),
    errors: w.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').length,
    solutions: Array.from(w.querySelectorAll('.jp-MarkdownCell details')).filter(d =>
      /^Solution/.test((d.querySelector('summary') || d).innerText.trim())).map(d => d.open) }}; }}"""


def stored(name: str) -> dict:
    return json.loads((SOURCE / "chapters" / name).read_text(encoding="utf-8"))


def stored_figures(nb: dict) -> int:
    return sum(
        1 for c in nb["cells"] for o in c.get("outputs", []) if {"image/png", "image/svg+xml"} & set(o.get("data", {}))
    )


def secrets(nb: dict) -> list[str]:
    """One telling line of each solution's code: none may be visible before the learner asks."""
    elsewhere = {
        ln.strip()
        for c in nb["cells"]
        if not lab_solutions.is_folded(c) and not lab_solutions.is_solution_code(c)
        for ln in lab_solutions.text_of(c).splitlines()
    }
    lines = []
    for code in lab_solutions.solution_codes(nb):
        body = [ln.strip() for ln in code.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        own = [ln for ln in body if ln not in elsewhere] or body
        lines.append(max(own, key=len))
    return lines


def ticks(nb: dict) -> int:
    """How many ✓ the stored chapter shows outside its solutions (in prose, code and outputs)."""
    count = 0
    for c in nb["cells"]:
        if lab_solutions.is_folded(c) or lab_solutions.is_solution_code(c):
            continue
        count += lab_solutions.text_of(c).count("✓")
        count += sum(lab_solutions.text_of({"source": o.get("text", "")}).count("✓") for o in c.get("outputs", []))
    return count


def solution_shows(seen: dict, nb: dict, when: str) -> list[str]:
    """What of a solution is visible (nothing, when the list is empty)."""
    problems = []
    if not seen["solutions"] or any(seen["solutions"]):
        problems.append(f"{when}: solution dropdowns (open?) {seen['solutions']}")
    shown = [s for s in secrets(nb) if s in seen["text"]]
    if shown:
        problems.append(f"{when}: solution code visible: {shown}")
    if seen["text"].count("✓") > ticks(nb):
        problems.append(f"{when}: {seen['text'].count('✓') - ticks(nb)} solution output(s) with ✓ visible")
    return problems


def answerable(chapter: int) -> str | None:
    """A checked exercise of the chapter whose right and wrong answers can be typed as Python literals."""
    for i in exercise_ids():
        if i.startswith(f"ch{chapter:02d}."):
            e = get(i)
            if all(type(x) in (int, float, str, list, tuple) for x in (e.right[0], e.wrong[0])):
                return i
    return None


def run_all(page) -> None:
    """Run > Run All Cells, as a learner clicks it, until the kernel is idle and no cell waits."""
    page.evaluate(WATCH)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Run All Cells$")).click()
    page.wait_for_function(IDLE, timeout=300_000)


def open_notebook(page, lab, name: str) -> float:
    start = time.perf_counter()
    page.goto(lab.notebook_url(name))
    page.wait_for_function(READY, timeout=180_000)
    page.wait_for_timeout(1500)  # the last markdown cells typeset
    return time.perf_counter() - start


def save(page, lab, name: str) -> bytes:
    path = lab.chapters / name
    before = path.stat().st_mtime_ns
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while path.stat().st_mtime_ns == before and time.monotonic() < deadline:
        time.sleep(0.2)
    page.wait_for_function(f"() => !{CURRENT}.context.model.dirty", timeout=30_000)
    return path.read_bytes()


def run_cell_with(page, exercise_id: str, source: str) -> str:
    """Put `source` into the exercise's code cell, run it, and return what it printed."""
    index = page.evaluate(
        f"""(id) => Array.from({CURRENT}.node.querySelectorAll('.jp-CodeCell'))
        .findIndex(c => (c.querySelector('.cm-content') || {{textContent: ''}}).textContent.includes('check("' + id + '"'))""",
        exercise_id,
    )
    cell = page.locator(f"{CELLS} >> nth={index}")
    output = cell.locator(".jp-OutputArea")
    old = output.inner_text()
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(source)
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "([el, old]) => el.innerText !== old && /[✓✗]/.test(el.innerText)",
        arg=[output.element_handle(), old],
        timeout=60_000,
    )
    return output.inner_text()


def arrow_keys_move(page, slider, app: str) -> list[str]:
    """Focus a live figure's slider and press ArrowRight twice: what went wrong, if anything (the slider
    did not move, or `app` took the keys and moved the active cell instead)."""
    slider.scroll_into_view_if_needed()
    slider.focus()
    cell_before = page.evaluate(f"() => {CURRENT}.content.activeCellIndex")
    value = slider.input_value()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    found = [] if slider.input_value() != value else ["ArrowRight did not move the live figure's slider"]
    if page.evaluate(f"() => {CURRENT}.content.activeCellIndex") != cell_before:
        found.append(f"{app} took the arrow key: the active cell moved")
    return found


#: where each word of a solution bar's text is drawn, in the page's coordinates
BAR_WORDS = """(summary) => { const words = [];
  const walker = document.createTreeWalker(summary, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const box = range.getBoundingClientRect();
      if (box.width > 0 && box.height > 0) words.push({ word: m[0], x: box.x + box.width / 2, y: box.y + box.height / 2 });
    }
  }
  return words; }"""


def bar_words_that_do_not_open(page) -> tuple[int, list[str]]:
    """A learner clicks where a solution bar reads most clickable, its words ("Exercise N" was a link that
    jumped to the exercise and left the solution folded): every word of every solution bar must open it.
    The number of clicks, and each click that left its solution folded."""
    bars = page.locator(".jp-MarkdownCell details", has=page.locator("summary", has_text="Solution"))
    problems, clicks = [], 0
    for b in range(bars.count()):
        details = bars.nth(b)
        summary = details.locator("summary").first
        summary.scroll_into_view_if_needed()
        for w in range(len(summary.evaluate(BAR_WORDS))):
            summary.scroll_into_view_if_needed()
            word = summary.evaluate(BAR_WORDS)[w]
            page.mouse.click(word["x"], word["y"])
            page.wait_for_timeout(200)
            clicks += 1
            if not details.evaluate("d => d.open"):
                problems.append(f"solution bar {b} ({summary.inner_text().strip()!r}): a click on {word['word']!r}")
            details.evaluate("d => { d.open = false; }")
    return clicks, problems


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[f"ch{n:02d}" for n in CHAPTERS])
def test_a_learner_in_jupyterlab(browser, chapter):
    lab, chrome = browser
    name = NOTEBOOKS[chapter]
    nb = stored(name)
    times, saw, problems = {}, [], []
    folded = [c for c in nb["cells"] if lab_solutions.is_folded(c)]
    dropdowns = [c for c in nb["cells"] if c["cell_type"] == "markdown" and "{solution}" in lab_solutions.text_of(c)]

    def expect(ok, message: str) -> bool:
        if not ok:
            problems.append(message)
        return bool(ok)

    context = chrome.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        # 1. a fresh open, nothing trusted
        times["open"] = open_notebook(page, lab, name)
        seen = page.evaluate(SEEN)
        expect(seen["figure_text"] == 0, f"fresh open: {seen['figure_text']} figure(s) shown as '<Figure size ...>'")
        expect(
            seen["images"] == stored_figures(nb), f"fresh open: {seen['images']} of {stored_figures(nb)} figures shown"
        )
        problems += solution_shows(seen, nb, "fresh open")
        for f in seen["figures"]:  # untrusted: the sanitised fallback, no SVG text run together, true advice
            expect(not f["live"] and f["pictures"] == 0, f"fresh open: a live figure not in its fallback form: {f}")
            expect(
                "Trust Notebook" in f["note"] and '"Run"' not in f["note"], f"fresh open: fallback says {f['note']!r}"
            )
            # its starting picture drawn all the same (a still image of each picture), and no
            # button that looks live with no script behind it
            expect(f["stills"] == f["wrappers"], f"fresh open: a live figure's starting picture is not drawn: {f}")
            expect(not f["live_buttons"], f"fresh open: {f['live_buttons']} button(s) look live with no script: {f}")
        saw.append(
            f"{seen['images']}/{stored_figures(nb)} figures as images, {len(seen['figures'])} live figure(s) in their"
            f" fallback, {len(seen['solutions'])} solutions folded"
        )
        original = (lab.chapters / name).read_bytes()
        expect(save(page, lab, name) == original, "saving the unchanged notebook changed it")

        # 2. one click opens a whole solution
        if folded:
            solutions = page.locator(".jp-MarkdownCell details", has=page.locator("summary", has_text="Solution"))
            first = solutions.nth(dropdowns.index(folded[0]))
            first.locator("summary").click()
            page.wait_for_timeout(300)
            text = first.inner_text()
            expect(secrets({"cells": folded[:1]})[0] in text, "one click did not show the solution's code")
            expect(lab_solutions.PRINTS in text, "one click did not show what the solution prints")
            first.locator("summary").click()  # and closed again
        else:  # the earlier layout: a collapsed "# Solution" code cell
            index = page.evaluate(
                f"""() => Array.from({CURRENT}.node.querySelectorAll('.jp-CodeCell'))
                .findIndex(c => /^\\s*# Solution/.test(c.innerText))"""
            )
            cell = page.locator(f"{CELLS} >> nth={index}")
            cell.locator(".jp-Placeholder").first.click()
            page.wait_for_timeout(500)
            code = next(c for c in nb["cells"] if lab_solutions.is_solution_code(c))
            page.keyboard.press("Escape")
            printed = "".join("".join(o.get("text", "")) for o in code["outputs"]).strip().splitlines()
            expect(
                printed
                and printed[-1].strip() in cell.inner_text()
                and not cell.locator(".jp-OutputPlaceholder").count(),
                "one click on '# Solution' did not show the solution's output",
            )
        saw.append("one click on the first solution")
        if folded:  # and a click on any word of any solution bar opens it
            clicks, missed = bar_words_that_do_not_open(page)
            expect(clicks, "no solution bar")
            problems += [f"a click left the solution folded: {m}" for m in missed]
            saw.append(f"{clicks} clicks on the words of solution bars")

        # 3. Run All, from the Run menu; then save and reopen
        start = time.perf_counter()
        run_all(page)
        times["run all"] = time.perf_counter() - start
        seen = page.evaluate(SEEN)
        expect(seen["errors"] == 0, f"{seen['errors']} error output(s) after Run All")
        problems += solution_shows(seen, nb, "after Run All")
        expect(all(f["live"] for f in seen["figures"]), "after Run All a live figure is not live")
        saved = json.loads(save(page, lab, name))
        expect([c for c in saved["cells"] if lab_solutions.is_folded(c)] == folded, "Run All + save changed a solution")
        opened = [
            c["id"]
            for c in saved["cells"]
            if lab_solutions.is_solution_code(c) and not c["metadata"].get("jupyter", {}).get("outputs_hidden")
        ]
        expect(not opened, f"after Run All the saved file has solution cells open: {opened}")
        times["reopen"] = open_notebook(page, lab, name)
        problems += solution_shows(page.evaluate(SEEN), nb, "saved and reopened")
        # reopened in the same session, the notebook keeps its kernel: the steps below use that Run All's state
        saw.append(f"Run All {times['run all']:.1f} s, {seen['errors']} errors")

        # 4. a wrong and a right answer
        exercise = answerable(chapter)
        if exercise:
            ex = get(exercise)
            wrong = run_cell_with(page, exercise, f"check({json.dumps(exercise)}, {ex.wrong[0]!r})")
            right = run_cell_with(page, exercise, f"check({json.dumps(exercise)}, {ex.right[0]!r})")
            expect("✗" in wrong and "✓" not in wrong, f"a wrong answer to {exercise} read {wrong!r}")
            expect("✓" in right, f"a right answer to {exercise} read {right!r}")
            saw.append(f"{exercise}: ✗ then ✓")

        # 5. a live figure's slider, by keyboard and by pointer
        slider = page.locator(".attnfig[data-live] input[type=range]").first
        if slider.count():
            problems.extend(arrow_keys_move(page, slider, "Lab"))
            box = slider.bounding_box()
            value = slider.input_value()
            page.mouse.click(box["x"] + 3, box["y"] + box["height"] / 2)
            expect(slider.input_value() != value, "a click did not move the live figure's slider")
            saw.append("a slider by keyboard and pointer")

        # 6. the record
        if exercise:
            page.locator(f"{CELLS} .cm-content").last.click()
            page.keyboard.press("Escape")
            page.keyboard.press("b")  # a new cell below, in command mode
            page.keyboard.press("Enter")
            page.keyboard.insert_text("import attncheck; attncheck.progress()")  # the notebook imports only check
            page.keyboard.press("Shift+Enter")
            page.wait_for_selector(".jp-OutputArea-output >> text=Next to try", timeout=60_000)
            report = page.locator(".jp-OutputArea-output", has_text="Your exercises").last.inner_text()
            expect(re.search(rf"{re.escape(exercise)}\s+✓ solved \(2 attempts\)", report), f"progress(): {report!r}")
            expect("Next to try: chapter " in report, f"progress() names no chapter to try next: {report[-200:]!r}")
            saw.append(f"progress(): {exercise} solved in 2 attempts")
    finally:
        context.close()
        took = ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
        print(f"JupyterLab, chapter {chapter}: {'; '.join(saw)} | {took}" + "".join(f"\n  ✗ {p}" for p in problems))
    assert not problems, f"{name} in JupyterLab:\n" + "\n".join(problems)


def test_a_stored_figure_reads_on_labs_dark_theme():
    """JupyterLab shows a stored figure as it is, also in its dark theme: a transparent one puts the
    black titles, labels and ticks on near-black. A figure of attnlib.plot, as the kernel stores it
    (SVG and PNG), has an opaque white background."""
    import io

    import matplotlib
    from IPython.core.pylabtools import print_figure
    from PIL import Image

    from attnlib.plot.style import figure

    matplotlib.use("Agg")
    fig, ax = figure(3, 2)
    ax.plot([0, 1], [0, 1])
    ax.set_title("a title")
    png = Image.open(io.BytesIO(print_figure(fig, "png"))).convert("RGBA")
    corners = [png.getpixel((x, y)) for x in (0, png.width - 1) for y in (0, png.height - 1)]
    assert all(pixel == (255, 255, 255, 255) for pixel in corners), f"the PNG's corners are {corners}"
    svg = print_figure(fig, "svg")
    background = re.search(r"<g id=\"patch_1\">\s*<path d=[^>]*style=\"([^\"]*)\"", svg)
    assert background and "fill: #ffffff" in background.group(1), f"the SVG's background: {svg[:600]}"


NOTEBOOK_7_CHAPTER = 1


@pytest.fixture(scope="module")
def notebook7(browser, tmp_path_factory):
    """Jupyter Notebook 7 serving a copy of chapter 1, in this module's headless Chromium."""
    pytest.importorskip("notebook", reason="Jupyter Notebook 7 is not installed (it is in requirements.txt)")
    _, chrome = browser
    name = NOTEBOOKS[NOTEBOOK_7_CHAPTER]
    server = LabServer(tmp_path_factory.mktemp("notebook7"), [name], SOURCE, app="notebook")
    try:
        yield server, chrome, name
    finally:
        server.close()


def test_a_learner_in_notebook_7(notebook7):
    server, chrome, name = notebook7
    nb = stored(name)
    problems, saw = [], []
    page = chrome.new_context(viewport={"width": 1280, "height": 900}).new_page()
    try:
        open_notebook(page, server, name)
        seen = page.evaluate(SEEN)
        if seen["images"] != stored_figures(nb) or seen["figure_text"]:
            problems.append(f"fresh open: {seen['images']} of {stored_figures(nb)} figures shown")
        problems += solution_shows(seen, nb, "fresh open")
        page.evaluate(WATCH)
        page.evaluate(
            f"() => {CURRENT}.sessionContext.session.kernel && window.jupyterapp.commands.execute('notebook:run-all-cells')"
        )
        page.wait_for_function(IDLE, timeout=300_000)
        seen = page.evaluate(SEEN)
        problems += solution_shows(seen, nb, "after Run All")
        if seen["errors"]:
            problems.append(f"{seen['errors']} error output(s) after Run All")
        saw.append(f"Run All: {seen['errors']} errors, {len(seen['solutions'])} solutions folded")
        summary = page.locator(".jp-MarkdownCell details summary", has_text="Solution").first
        summary.click()
        page.wait_for_timeout(300)
        opened = summary.locator("xpath=..")
        if lab_solutions.PRINTS not in opened.inner_text():
            problems.append("one click did not open a solution whole")
        summary.click()
        slider = page.locator(".attnfig[data-live] input[type=range]").first
        if not slider.count():
            problems.append("after Run All no live figure has a slider")
        else:
            value = slider.input_value()
            problems.extend(arrow_keys_move(page, slider, "Notebook 7"))
            saw.append(f"slider {value} -> {slider.input_value()} by ArrowRight")
    finally:
        page.context.close()
        print(f"Notebook 7, chapter {NOTEBOOK_7_CHAPTER}: {'; '.join(saw)}" + "".join(f"\n  ✗ {p}" for p in problems))
    assert not problems, f"{name} in Notebook 7:\n" + "\n".join(problems)
