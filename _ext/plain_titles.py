"""One plain-text title per page, with its math written in Unicode.

Sphinx writes a page's title as plain text in several places that MathJax never reaches: the
browser tab (`<title>`), the `<link rel="prev"/"next">` titles and the prev/next buttons, the
search index (page and section titles, the results list), the search result snippets, and the
theme's print-only heading. There "Why divide by $\\sqrt{d_k}$" used to show as the raw TeX
"Why divide by \\(\\sqrt{d_k}\\)". This extension gives all of them one plain-text form with
the math in Unicode, "Why divide by √dₖ", while the heading on the page keeps its typeset math:

- `html-page-context`: `title`, `pagetitle`, `prev`/`next`/`parents` titles;
- the search index: page titles, section titles and the words of math in the text;
- search snippets: `_static/book_fixes.js` reads `tex_unicode.js` (window.TEX_UNICODE), written here with
  the Unicode form of every piece of inline math in the book.

`tex_to_unicode` handles the TeX the course writes in prose (sub/superscripts, \\sqrt, \\mathbb,
\\mathsf/\\text/\\mathrm, \\top, \\times, \\in, Greek letters, ...); a subscript or superscript
with no Unicode form keeps the readable `d_model` / `^(n×d)` spelling, never braces or
backslashes. Registered in `_config.yml` under `sphinx: local_extensions:`.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

SUB = dict(zip("0123456789+-=()aehijklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ"))
SUP = dict(
    zip(
        "0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW×βγδθφχ",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂˣᵝᵞᵟᶿᵠᵡ",
    )
)

SYMBOLS = {
    "times": "×",
    "cdot": "·",
    "in": "∈",
    "notin": "∉",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "mapsto": "↦",
    "approx": "≈",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "ne": "≠",
    "neq": "≠",
    "pm": "±",
    "infty": "∞",
    "sum": "Σ",
    "prod": "Π",
    "top": "ᵀ",
    "intercal": "ᵀ",
    "ldots": "…",
    "dots": "…",
    "cdots": "⋯",
    "partial": "∂",
    "nabla": "∇",
    "sim": "∼",
    "propto": "∝",
    "equiv": "≡",
    "subset": "⊂",
    "cup": "∪",
    "cap": "∩",
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "theta": "θ",
    "lambda": "λ",
    "mu": "μ",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "varphi": "φ",
    "psi": "ψ",
    "omega": "ω",
    "Delta": "Δ",
    "Sigma": "Σ",
    "Omega": "Ω",
    "lvert": "|",
    "rvert": "|",
    "vert": "|",
    "lVert": "‖",
    "rVert": "‖",
    "langle": "⟨",
    "rangle": "⟩",
    "{": "{",
    "}": "}",
    "%": "%",
    "_": "_",
    "$": "$",
    "#": "#",
    "&": "&",
    ",": "\u2009",
    ";": " ",
    ":": " ",
    "!": "",
    " ": " ",
    "quad": " ",
    "qquad": "  ",
}
#: commands whose one argument is kept as it is (fonts and text)
KEEP_ARGUMENT = {
    "text",
    "textrm",
    "textit",
    "textbf",
    "mathrm",
    "mathit",
    "mathbf",
    "mathsf",
    "mathtt",
    "boldsymbol",
    "bm",
    "operatorname",
    "mbox",
    "textsf",
    "texttt",
}
#: commands that vanish (sizing, spacing and delimiters' size)
DROP = {
    "left",
    "right",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "displaystyle",
    "textstyle",
    "limits",
    "nolimits",
}
BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ"}
FUNCTIONS = {
    "exp",
    "log",
    "ln",
    "max",
    "min",
    "arg",
    "argmax",
    "softmax",
    "sin",
    "cos",
    "tan",
    "det",
    "dim",
    "lim",
    "sup",
    "inf",
}


class _Reader:
    """A small recursive reader of the TeX subset written in prose math."""

    def __init__(self, tex: str):
        self.s, self.i = tex, 0

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def group(self) -> str:
        """One argument: a {braced group}, a \\command or one character, as Unicode."""
        while self.peek().isspace():
            self.i += 1
        if self.peek() == "{":
            self.i += 1
            return self.sequence(stop="}")
        if self.peek() == "\\":
            return self.command()
        ch = self.peek()
        self.i += 1
        return ch

    def raw_group(self) -> str:
        """The literal text of a {braced group} (for \\mathbb{R})."""
        while self.peek().isspace():
            self.i += 1
        if self.peek() != "{":
            ch = self.peek()
            self.i += 1
            return ch
        depth, start = 0, self.i
        while self.i < len(self.s):
            depth += {"{": 1, "}": -1}.get(self.s[self.i], 0)
            self.i += 1
            if depth == 0:
                break
        return self.s[start + 1 : self.i - 1]

    def command(self) -> str:
        self.i += 1  # the backslash
        match = re.match(r"[A-Za-z]+|.", self.s[self.i :])
        if not match:
            return ""
        name = match.group(0)
        self.i += len(name)
        if name in KEEP_ARGUMENT:
            return self.group()
        if name in {"mathbb", "mathbf"} or name == "Bbb":
            inner = self.raw_group()
            return "".join(BLACKBOARD.get(c, c) for c in inner)
        if name == "sqrt":
            inner = self.group()
            return "√" + (inner if len(inner) <= 1 or _is_atom(inner) else f"({inner})")
        if name in {"frac", "tfrac", "dfrac"}:
            top, bottom = self.group(), self.group()
            wrap = lambda t: t if _is_atom(t) else f"({t})"
            return f"{wrap(top)}/{wrap(bottom)}"
        if name in DROP:
            return ""
        if name in FUNCTIONS:
            return name
        if name in SYMBOLS:
            return SYMBOLS[name]
        return name  # an unknown command: its name, without the backslash

    def script(self, table: dict[str, str], mark: str) -> str:
        body = self.group().replace(" ", "")
        if mark == "^" and body in {"T", "ᵀ"}:
            return "ᵀ"
        if body and all(c in table for c in body):
            return "".join(table[c] for c in body)
        if mark == "_" or len(body) == 1:
            return f"{mark}{body}"  # no Unicode form: d_model, W_Q, 2^n
        return f"^({body})"

    def sequence(self, stop: str = "") -> str:
        out: list[str] = []
        while self.i < len(self.s):
            ch = self.s[self.i]
            if stop and ch == stop:
                self.i += 1
                break
            if ch == "\\":
                out.append(self.command())
            elif ch == "{":
                self.i += 1
                out.append(self.sequence(stop="}"))
            elif ch == "^":
                self.i += 1
                out.append(self.script(SUP, "^"))
            elif ch == "_":
                self.i += 1
                out.append(self.script(SUB, "_"))
            elif ch == "~":
                self.i += 1
                out.append(" ")
            elif ch.isspace():
                self.i += 1
                if out and out[-1] and not out[-1].endswith(" "):
                    out.append(" ")
            else:
                self.i += 1
                out.append(ch)
        return "".join(out)


def _is_atom(text: str) -> bool:
    return re.fullmatch(r"√?\w+[\u2080-\u209c\u1d62-\u1d6a\u2c7c]*", text) is not None


def tex_to_unicode(tex: str) -> str:
    """'\\sqrt{d_k}' -> '√dₖ', 'K^{\\mathsf T}' -> 'Kᵀ', 'X \\in \\mathbb{R}^{3 \\times 4}' -> 'X ∈ ℝ³ˣ⁴'."""
    text = _Reader(tex.strip()).sequence()
    # spaces TeX would not show around operators; one space around relations
    text = re.sub(r"\s*([×·])\s*", r"\1", text) if "×" in text and "∈" not in text else text
    text = re.sub(r"\s*([=∈≈≤≥≠→])\s*", r" \1 ", text)
    return re.sub(r"\s{2,}", " ", text).strip()


_HTML_MATH = re.compile(r'<span class="math[^"]*">\\\((.*?)\\\)</span>', re.DOTALL)


def html_math_to_unicode(fragment: str) -> str:
    """Replace every inline-math span of an HTML fragment (a rendered title) by its Unicode text."""
    return _HTML_MATH.sub(lambda m: html.escape(tex_to_unicode(html.unescape(m.group(1))), quote=False), fragment or "")


def plain_text(node: nodes.Node) -> str:
    """A title node as plain text, its math in Unicode."""
    parts = []
    for child in node.findall(lambda n: isinstance(n, (nodes.Text, nodes.math))):
        if isinstance(child, nodes.math):
            parts.append(tex_to_unicode(child.astext()))
        elif not any(isinstance(p, nodes.math) for p in _ancestors(child)):
            parts.append(child.astext())
    return "".join(parts)


def _ancestors(node: nodes.Node):
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


# ----------------------------------------------------------------------------- Sphinx hooks


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Tab title, print heading, prev/next and breadcrumb titles: plain text, math in Unicode."""
    if context.get("title"):
        context["title"] = html_math_to_unicode(context["title"])
    if pagename in app.env.titles:
        context["pagetitle"] = plain_text(app.env.titles[pagename])
    for key in ("prev", "next"):
        if context.get(key) and context[key].get("title"):
            context[key] = {**context[key], "title": html_math_to_unicode(context[key]["title"])}
    context["parents"] = [
        {**p, "title": html_math_to_unicode(p.get("title", ""))} for p in context.get("parents") or []
    ]
    if pagename == "search":
        app.add_js_file("tex_unicode.js")  # written into the output at build-finished


def _math_as_text(doctree: nodes.document) -> nodes.document:
    """A copy of a page whose math nodes are plain Unicode text (for the search index only)."""
    copy = doctree.deepcopy()
    for math in list(copy.findall(nodes.math)):
        math.replace_self(nodes.Text(tex_to_unicode(math.astext())))
    for block in list(copy.findall(nodes.math_block)):
        block.replace_self(nodes.paragraph("", tex_to_unicode(block.astext())))
    return copy


def patch_search_index(app: Sphinx) -> None:
    """Feed the search index plain titles and Unicode math instead of raw TeX."""
    builder = app.builder
    if not hasattr(builder, "index_page"):
        return
    original = builder.index_page

    def index_page(pagename: str, doctree: nodes.document, title: str) -> None:
        original(pagename, _math_as_text(doctree), html_math_to_unicode(title))

    builder.index_page = index_page


def collect_math(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    found = app.env.__dict__.setdefault("plain_titles_math", {})
    for math in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        found[math.astext().strip()] = tex_to_unicode(math.astext())


def merge_math(app, env, docnames, other) -> None:
    env.__dict__.setdefault("plain_titles_math", {}).update(getattr(other, "plain_titles_math", {}))


def write_table(app: Sphinx, exception) -> None:
    """`_static/tex_unicode.js`: every inline math of the book as Unicode, for search snippets."""
    if exception is not None or app.builder.format != "html":
        return
    table = dict(sorted(getattr(app.env, "plain_titles_math", {}).items()))
    target = Path(app.outdir) / "_static" / "tex_unicode.js"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        "// Written by _ext/plain_titles.py: inline TeX of the book -> Unicode text.\n"
        f"window.TEX_UNICODE = {json.dumps(table, ensure_ascii=False, indent=0)};\n",
        encoding="utf-8",
    )


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", patch_search_index)
    app.connect("doctree-resolved", collect_math)
    app.connect("env-merge-info", merge_math)
    app.connect("html-page-context", page_context, priority=900)  # after the themes' own handlers
    app.connect("build-finished", write_table)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
