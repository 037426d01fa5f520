"""The page every interactive figure is built on: the figure object, stable ids, the shared style.

A figure is one self-contained piece of HTML: its own <style>, its markup and one <script>, with no
library, no CDN and no network. The style (page.css), the shared JavaScript helpers (helpers.js) and
each figure's script (NAME.js) are files of this package, read with importlib.resources and inlined
when the figure is made, so a stored output still stands alone. Its bytes depend only on the
arguments: element ids come from the figure's name and a hash of its parameters.

Readouts are written by Python for the starting setting, so a page whose scripts do not run still
shows those numbers. JupyterLab (4.6) runs the scripts of outputs it trusts: a cell you ran yourself,
or a notebook you trusted (`make lab` trusts the course's; in Lab, "Trust Notebook" in the command
palette). A notebook it does not trust is shown sanitised: no <script>, no <style>, the SVG tags
stripped to their bare text, and no notice or button of Lab's own. So each picture sits in a
`style="display:none"` wrapper (an inline style survives the sanitiser) that the script shows, and
the static note says how to switch the figure on. Inside JupyterLab the notebook's command mode
takes arrow keys and Space from the page, so the script keeps the keys of its controls to itself.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from functools import cache
from importlib import resources
from typing import Any

#: The backgrounds a figure's text must read on: the light page, and the dark page of the book and JupyterLab.
LIGHT_BACKGROUND, DARK_BACKGROUND = "#ffffff", "#121212"
MIN_CONTRAST = 4.5  # WCAG 2.1 AA for normal text


class InteractiveFigure:
    """One interactive figure: HTML that a notebook and the book display as it is."""

    def __init__(self, name: str, html_text: str):
        self.name = name
        self.html = html_text

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return (
            f"<attnlib interactive figure {self.name!r}: open it in the book, or in JupyterLab, to move its controls>"
        )


@cache
def asset(filename: str) -> str:
    """The text of one of this package's .css or .js files."""
    return resources.files(__package__).joinpath(filename).read_text(encoding="utf-8")


def fig_id(name: str, params: Any) -> str:
    """A stable element id: the figure's name and a short hash of its parameters."""
    digest = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]
    return f"attnfig-{name}-{digest}"


def f2(x: float) -> str:
    """A number with two decimals, as the page's JavaScript writes it (no "-0.00")."""
    x = float(x)
    if x == float("-inf"):
        return "−∞"
    return f"{0.0 if abs(x) < 0.005 else x:.2f}".replace("-", "−")


def rounded(value: Any) -> Any:
    """The figure's numbers to 6 significant digits, in the same lists and dicts.

    A page shows at most two decimals; the last bits of a float differ between processors (their
    matrix routines add in different orders), and a stored output must not.
    """
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(item) for item in value]
    return value


def esc(text: Any) -> str:
    return html.escape(str(text))


# --- colours that read on both pages ----------------------------------------------------


def contrast(a: str, b: str) -> float:
    """The WCAG 2.1 contrast ratio of two colours written #rrggbb."""
    from ..plot.style import luminance

    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _mix(colour: str, towards: str, amount: float) -> str:
    a = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(towards[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * amount):02x}" for x, y in zip(a, b))


def readable(colour: str, background: str) -> str:
    """The colour itself, or the least darkened (light page) or lightened (dark page) version of it
    that has a contrast of at least 4.5:1 on the background."""
    from ..plot.style import luminance

    towards = "#000000" if luminance(background) > 0.5 else "#ffffff"
    for step in range(101):
        mixed = _mix(colour.lower(), towards, step / 100)
        if contrast(mixed, background) >= MIN_CONTRAST + 0.05:
            return mixed
    return towards


def word_style(word: str) -> str:
    """The style attribute that colours a word as every figure does, readable in light and dark (class "w")."""
    from ..plot.style import word_colour

    colour = word_colour(word)
    return f"--c:{readable(colour, LIGHT_BACKGROUND)};--cd:{readable(colour, DARK_BACKGROUND)}"


def word_span(word: str, text: str | None = None, tag: str = "span") -> str:
    """A word in its colour, as HTML."""
    return f'<{tag} class="w" style="{word_style(word)}">{esc(word if text is None else text)}</{tag}>'


# --- one figure -----------------------------------------------------------------------------

STATIC_NOTE = (
    '<p class="attnfig-static">The picture and the controls need JavaScript. Below are the '
    "numbers for the starting setting. In JupyterLab, run this cell, or trust the notebook "
    "(command palette, Ctrl+Shift+C: &quot;Trust Notebook&quot;; <code>make lab</code> trusts the "
    "course's notebooks), to switch the figure on.</p>"
)
#: the keys a figure's controls use; inside JupyterLab they must not reach the notebook's shortcuts
CONTROL_KEYS = ("ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown", " ", "Enter")
#: what the script runs once the figure works: show the pictures, keep the controls' keys from Lab
GO_LIVE = (
    'qa(".attnfig-pic").forEach(function(e){ e.style.display = "contents"; });\n'
    'qa(".attnfig-still").forEach(function(e){ e.remove(); });\n'
    'root.setAttribute("data-lm-suppress-shortcuts", "true");\n'
    f"var KEYS = {json.dumps(list(CONTROL_KEYS))};\n"
    'root.addEventListener("keydown", function(e){ if(KEYS.indexOf(e.key) >= 0 && e.target.closest("input, button, [tabindex]")) e.stopPropagation(); });\n'
    # Notebook 7 takes the arrow keys on the way down (a capturing listener of the notebook, which
    # also cancels the slider's own move): a slider or radio button of this figure keeps them from
    # the window on, and the browser still moves it
    'window.addEventListener("keydown", function(e){ if(KEYS.indexOf(e.key) >= 0 && e.target && e.target.tagName === "INPUT" && root.contains(e.target)) e.stopPropagation(); }, true);\n'
    'root.dataset.live = "1";\n'
)


#: first thing the script does: the buttons work now, and show pressed by the figure's style
ENABLE = (
    'Array.prototype.forEach.call(root.querySelectorAll("button[disabled]"), function(b){ '
    'b.disabled = false; b.style.textDecoration = ""; });\n'
)


def _xml_text(svg: str) -> str:
    """An inline SVG's markup as XML: HTML's named character references (&nbsp;) as characters."""
    keep = {"amp", "lt", "gt", "quot", "apos"}
    return re.sub(
        r"&([A-Za-z][A-Za-z0-9]*);", lambda m: m.group(0) if m.group(1) in keep else html.unescape(m.group(0)), svg
    )


def _still(svg: str) -> str:
    """The starting picture as an <img> of a standalone SVG (the figure's own style inside it, on a
    white ground): what a notebook JupyterLab does not trust shows, since its sanitiser strips
    inline SVG to bare text but keeps an <img> with a data: source. The script removes it."""
    box = re.search(r'viewBox="([^"]+)"', svg)
    x, y, width, height = (float(v) for v in box.group(1).split()) if box else (0.0, 0.0, 360.0, 200.0)
    desc = re.search(r"<desc[^>]*>(.*?)</desc>", svg, re.DOTALL)
    alt = html.unescape(re.sub(r"<[^>]+>", "", desc.group(1))) if desc else "the figure's starting picture"
    place = f'<svg x="{x:g}" y="{y:g}" width="{width:g}" height="{height:g}"'  # the outer box, in its own units
    inner = re.sub(r'^(<svg\b[^>]*?)\sstyle="[^"]*"', r"\1", svg.replace("<svg", place, 1), count=1)
    document = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{box.group(1) if box else "0 0 360 200"}" '
        f'width="{width:g}" height="{height:g}"><style>{asset("page.css")}</style>'
        f'<rect x="{x:g}" y="{y:g}" width="{width:g}" height="{height:g}" fill="#ffffff"/>'
        f'<g class="attnfig" style="color:#111">{_xml_text(inner)}</g></svg>'
    )
    source = "data:image/svg+xml;base64," + base64.b64encode(document.encode("utf-8")).decode("ascii")
    return (
        f'<img class="attnfig-still" src="{source}" alt="{esc(alt)}" '
        f'style="display:block;width:100%;max-width:{min(width * 1.5, 480):g}px;height:auto;background:#ffffff">'
    )


def _hidden_pictures(body: str) -> str:
    """Each <svg> inside a wrapper that stays hidden until the script shows it (as display: contents,
    no box), after a still <img> of it that the script removes (see _still)."""
    return re.sub(
        r"<svg\b.*?</svg>",
        lambda m: f'{_still(m.group(0))}<div class="attnfig-pic" style="display:none">{m.group(0)}</div>',
        body,
        flags=re.DOTALL,
    )


def _until_live(body: str) -> str:
    """Every button disabled until the script enables it (a sanitised copy keeps no script, so a
    button there could do nothing), and a pressed one struck through by its own style attribute."""
    body = re.sub(r"<button\b", "<button disabled", body)
    return re.sub(r'(<button disabled[^>]*aria-pressed="true")', r'\1 style="text-decoration:line-through"', body)


def wrap(figure_id: str, name: str, title: str, body: str, data: dict, script: str) -> InteractiveFigure:
    """One figure: the shared style, its markup, the static note and a script that finds its own figure.

    `script` names the package file holding the figure's JavaScript (e.g. "dot.js"); it reads its
    numbers from `D`, the JSON of `data` with its floats `rounded`.
    """
    payload = json.dumps(rounded(data), sort_keys=True, ensure_ascii=True).replace("</", "<\\/")
    js = (
        "(function(){\nvar here = document.currentScript, root = (here && here.closest && here.closest('.attnfig')) || "
        f"document.getElementById({json.dumps(figure_id)});\n"
        f"if(!root || root.dataset.live) return;\nvar D = {payload};\n{ENABLE}{asset('helpers.js')}"
        f"{asset(script)}{GO_LIVE}}})();"
    )
    text = (
        f'<figure class="attnfig" id="{figure_id}" data-attnfig="{name}">\n<style>\n{asset("page.css")}</style>\n'
        f'<figcaption class="attnfig-title">{esc(title)}</figcaption>\n'
        f"{STATIC_NOTE}\n{_hidden_pictures(_until_live(body))}\n<script>\n{js}\n</script>\n</figure>"
    )
    return InteractiveFigure(name, text)


def slider(p: str, key: str, label: str, lo: float, hi: float, step: float, value: float, shown: str) -> str:
    """A labelled range input with its value in an <output>; ids and classes from the figure's id and `key`."""
    return (
        f'<div><label for="{p}-{key}">{label}: <output class="attnfig-{key}-out">{shown}</output></label><br>'
        f'<input type="range" id="{p}-{key}" class="attnfig-{key}" min="{lo:g}" max="{hi:g}" step="{step:g}" '
        f'value="{value:g}" aria-valuetext="{esc(shown)}"></div>'
    )


def radios(p: str, key: str, legend: str, options: list[tuple[str, str]], checked: int) -> str:
    """A fieldset of radio buttons (arrow keys move between them); each option is (value, label HTML)."""
    items = "".join(
        f'<label><input type="radio" name="{p}-{key}" class="attnfig-{key}" value="{esc(v)}"'
        f"{' checked' if i == checked else ''}> {lab}</label>"
        for i, (v, lab) in enumerate(options)
    )
    return f'<fieldset class="attnfig-words"><legend>{legend}</legend>{items}</fieldset>'
