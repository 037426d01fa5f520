"""The built book: a clean build, a page for every chapter, offline math, the attnlib reference.

Uses the session fixture `built_book` (tests/conftest.py), which builds the book once.
The browser checks of every page are in test_browser.py.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import toc_files

from attnlib import course

ROOT = Path(__file__).resolve().parents[1]

#: modules whose public functions the reference must document, as "module.function"
REFERENCE_MODULES = [
    "attnlib.plot",
    "attnlib.tiled",
    "attnlib.bench",
    "attnlib.counting",
    "attnlib.in_place",
    "attnlib.machine",
    "attnlib.sweep",
    "attnlib.results",
    "attnlib.timemodel",
    "attnlib.trained",
    "attnlib.causal_lm",
]
#: the most MathJax may add to the built book (the whole es5/ folder would be 24 MB)
MATHJAX_MAX_BYTES = 12_000_000


def source_of(docname: str) -> Path:
    for suffix in (".ipynb", ".md"):
        if (ROOT / f"{docname}{suffix}").is_file():
            return ROOT / f"{docname}{suffix}"
    raise FileNotFoundError(f"_toc.yml lists {docname!r}, but neither {docname}.ipynb nor {docname}.md exists")


def built_pages(html_dir: Path) -> list[Path]:
    """Every HTML page of the book (not the theme's templates in _static)."""
    return sorted(p for p in html_dir.rglob("*.html") if not p.relative_to(html_dir).parts[0].startswith("_"))


class Tags(HTMLParser):
    """Collects (tag, attributes, inside-a-<figure>-with-caption) for every start tag."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.figure_depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = {k: (v or "") for k, v in attrs}
        if tag == "figure":
            self.figure_depth += 1
        self.tags.append((tag, {**attrs, "_in_figure": str(self.figure_depth > 0)}))

    def handle_endtag(self, tag):
        if tag == "figure" and self.figure_depth:
            self.figure_depth -= 1


def tags_of(page: Path) -> list[tuple[str, dict]]:
    parser = Tags()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.tags


# ----------------------------------------------------------------------------- the build


def test_build_succeeded_without_warnings(built_book):
    assert built_book.returncode == 0, built_book.report()
    assert not built_book.warnings, "the build warned:\n" + built_book.report()


def test_every_toc_entry_has_a_page(built_book):
    missing = [d for d in toc_files() if not (built_book.html_dir / f"{d}.html").is_file()]
    assert not missing, f"no HTML page for {missing}"


def test_every_chapter_offers_its_notebook_for_download(built_book):
    html = built_book.html_dir
    chapters = [d for d in toc_files() if source_of(d).suffix == ".ipynb"]
    assert chapters, "_toc.yml lists no notebook"
    for docname in chapters:
        page = html / f"{docname}.html"
        hrefs = [a.get("href", "") for tag, a in tags_of(page) if tag == "a"]
        downloads = [h for h in hrefs if h.endswith(f"_sources/{docname}.ipynb")]
        assert downloads, f"{page.name}: no download button for {docname}.ipynb"
        target = (page.parent / downloads[0]).resolve()
        assert target.is_file(), f"{page.name}: the download link points to a missing {target}"
        assert json.loads(target.read_text(encoding="utf-8"))["cells"], f"{target} is not a notebook"


# ----------------------------------------------------------------------------- offline


REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
#: (tag, attribute) pairs that make the browser fetch something
FETCHING = {
    ("script", "src"),
    ("img", "src"),
    ("iframe", "src"),
    ("source", "src"),
    ("video", "src"),
    ("audio", "src"),
    ("embed", "src"),
    ("object", "data"),
    ("input", "src"),
    ("track", "src"),
}


def test_no_page_fetches_anything_from_the_network(built_book):
    remote = []
    for page in built_pages(built_book.html_dir):
        text = page.read_text(encoding="utf-8")
        for tag, attrs in tags_of(page):
            urls = [attrs.get(a, "") for t, a in FETCHING if t == tag]
            if tag == "link" and set(attrs.get("rel", "").split()) & {
                "stylesheet",
                "preload",
                "icon",
                "modulepreload",
                "prefetch",
            }:
                urls.append(attrs.get("href", ""))
            remote += [f"{page.name}: <{tag}> {u}" for u in urls if REMOTE.match(u)]
        remote += [f"{page.name}: {m}" for m in re.findall(r"(?:https?:)?//(?:unpkg|cdn|cdnjs|ajax)[\w.-]*/\S*", text)]
    for css in built_book.html_dir.glob("_static/**/*.css"):
        remote += [
            f"{css.name}: {m}"
            for m in re.findall(
                r"url\(\s*['\"]?(?:https?:)?//[^)]*\)|@import\s+['\"]https?:[^;]*",
                css.read_text(encoding="utf-8", errors="replace"),
            )
        ]
    assert not remote, "the built book fetches from the network:\n" + "\n".join(remote[:40])


def test_mathjax_is_served_from_the_book(built_book):
    html = built_book.html_dir
    mathjax = html / "_static" / "mathjax"
    assert (mathjax / "tex-mml-chtml.js").is_file()
    assert (mathjax / "output" / "chtml" / "fonts" / "woff-v2").is_dir(), "the CommonHTML fonts are missing"
    assert (mathjax / "LICENSE").is_file(), "MathJax's Apache-2.0 LICENSE must travel with its files"
    assert not (mathjax / "output" / "svg").exists(), "the SVG output is not used; leave it out"
    size = sum(p.stat().st_size for p in mathjax.rglob("*") if p.is_file())
    assert size < MATHJAX_MAX_BYTES, f"MathJax adds {size / 1e6:.1f} MB to the book"
    pages_with_math = 0
    for page in built_pages(html):
        text = page.read_text(encoding="utf-8")
        if 'class="math' not in text:
            continue
        pages_with_math += 1
        scripts = [a.get("src", "") for tag, a in tags_of(page) if tag == "script" and "mathjax" in a.get("src", "")]
        assert scripts, f"{page.name} has math but loads no MathJax"
        for src in scripts:
            assert not REMOTE.match(src), f"{page.name} loads MathJax from {src}"
            assert (page.parent / src.split("?")[0]).resolve().is_file(), f"{page.name}: {src} is missing"
    assert pages_with_math, "no page has math: is the build right?"


# ----------------------------------------------------------------------------- reading comfort

FILENAME_LIKE = re.compile(r"(^|/)[\w.-]+\.(png|jpe?g|gif|svg|webp)$", re.IGNORECASE)


def test_every_figure_has_alt_text_or_caption(built_book):
    """Notebook figures get alt text from the cell metadata `mystnb: image: alt:` (or a caption
    from `mystnb: figure: caption:`); without it myst-nb writes the image's file name as alt."""
    bad = []
    for page in built_pages(built_book.html_dir):
        for tag, attrs in tags_of(page):
            if tag != "img" or "_static/" in attrs.get("src", ""):
                continue  # theme images (logo, icons) are not figures
            alt = attrs.get("alt", "").strip()
            has_caption = attrs["_in_figure"] == "True"
            if not has_caption and (not alt or FILENAME_LIKE.search(alt)):
                bad.append(f"{page.relative_to(built_book.html_dir)}: {attrs.get('src')} (alt={alt!r})")
    assert not bad, (
        'figures without alt text or caption (add `"mystnb": {"image": {"alt": "..."}}` '
        "to the figure cell's metadata):\n" + "\n".join(bad)
    )


# ----------------------------------------------------------------------------- the reference


def public_functions() -> list[str]:
    """Every public function of attnlib (its __all__, and what the modules in REFERENCE_MODULES define) and
    what a learner calls of attncheck (`check`, `exercise_ids`, `progress`)."""
    import attncheck.learner
    import attnlib

    names = [f"attnlib.{n}" for n in attnlib.__all__ if inspect.isfunction(getattr(attnlib, n))]
    names += [f"attncheck.{n}" for n in attncheck.learner.__all__]
    for modname in REFERENCE_MODULES:
        module = importlib.import_module(modname)
        exported = getattr(module, "__all__", None)
        for name, obj in vars(module).items():
            if not inspect.isfunction(obj) or name.startswith("_"):
                continue
            if (exported is not None and name in exported) or (exported is None and obj.__module__ == modname):
                names.append(f"{modname}.{name}")
    return names


def reference_entries(html_dir: Path) -> dict[str, str]:
    """Documented object id -> the HTML of its entry, from reference.html."""
    text = (html_dir / "reference.html").read_text(encoding="utf-8")
    parts = re.split(r'<dt class="sig sig-object py" id="([^"]+)">', text)
    return {parts[i]: parts[i + 1].split('<dl class="py', 1)[0] for i in range(1, len(parts), 2)}


def test_reference_is_in_the_toc():
    assert "reference" in toc_files()


def test_reference_documents_every_public_function(built_book):
    documented = reference_entries(built_book.html_dir)
    expected = public_functions()
    assert {"attncheck.check", "attncheck.exercise_ids", "attncheck.progress"} <= set(expected)
    missing = [name for name in expected if name not in documented]
    assert not missing, f"reference.md does not document {missing}"


def test_reference_links_each_function_to_its_chapter(built_book):
    entries = reference_entries(built_book.html_dir)
    problems = []
    for name in public_functions():
        modname, _, func = name.rpartition(".")
        doc = inspect.getdoc(getattr(importlib.import_module(modname), func)) or ""
        if not doc.strip():
            problems.append(f"{name} has no docstring")
        for subject in _chapter_links().chapter_subjects(doc):
            stem = {s: stem for _, s, stem in course.chapters()}.get(subject, subject)
            if not re.search(rf'href="chapters/{stem}\.html"', entries.get(name, "")):
                problems.append(f"{name}: names the {subject} chapter, no link to it in the reference")
    assert not problems, "\n".join(problems)


def _chapter_links():
    import importlib.util

    spec = importlib.util.spec_from_file_location("chapter_links", ROOT / "_ext" / "chapter_links.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "doc, subjects",
    [
        ("Softmax along `axis` (the softmax chapter).", ["softmax"]),
        ("(the scaling and masks chapters)", ["scaling", "masks"]),
        ("(the masks, many heads and word order chapters)", ["masks", "many_heads", "word_order"]),
        ("(the counting and timing chapter), (the matrix x chapter)", ["counting_and_timing", "the_matrix_x"]),
        ("(the soft max chapter)", ["?soft max"]),
        ("Drawn as in this chapter (no number, no subject).", []),
    ],
)
def test_the_reference_reads_a_docstring_s_chapters_by_subject(doc, subjects):
    assert _chapter_links().chapter_subjects(doc) == subjects


# ----------------------------------------------------------------------------- plain-text titles


def _plain_titles():
    import importlib.util

    spec = importlib.util.spec_from_file_location("plain_titles", ROOT / "_ext" / "plain_titles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tex_in_titles_becomes_unicode():
    t = _plain_titles().tex_to_unicode
    assert t(r"\sqrt{d_k}") == "√dₖ"
    assert t(r"K^{\mathsf T}") == t(r"K^\top") == t("K^T") == "Kᵀ"
    assert t(r"S = QK^{\mathsf T}") == "S = QKᵀ"
    assert t(r"X \in \mathbb{R}^{3 \times 4}") == "X ∈ ℝ³ˣ⁴"
    assert t(r"X \in \mathbb{R}^{n \times d_{\text{model}}}") == "X ∈ ℝ^(n×d_model)"
    assert t(r"d_{\text{model}}") == "d_model" and t("W_Q") == "W_Q" and t("d_v") == "dᵥ"
    assert t(r"\mathrm{softmax}\left(\frac{QK^{\mathsf T}}{\sqrt{d_k}}\right)V") == "softmax(QKᵀ/√dₖ)V"
    assert t("O(n^2)") == "O(n²)" and t("Z = AV") == "Z = AV"


def test_search_index_titles_have_no_raw_tex(built_book):
    text = (built_book.html_dir / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    titles = list(index["titles"]) + list(index["alltitles"])
    raw = [t for t in titles if re.search(r"\\[a-zA-Z(]|[_^]\{", t)]
    assert not raw, f"search titles with raw TeX: {raw[:8]}"
    assert any("√dₖ" in t for t in titles), "chapter 8's title should read 'Why divide by √dₖ'"


def test_reference_shows_the_sweep_commands_as_literal_blocks(built_book):
    text = (built_book.html_dir / "reference.html").read_text(encoding="utf-8")
    blocks = [re.sub(r"<[^>]+>", "", b) for b in re.findall(r"<pre>(.*?)</pre>", text, flags=re.DOTALL)]
    commands = [b for b in blocks if "python -m benchmarks.sweep" in b]
    assert commands, "the sweep's commands are not in a literal block on the reference page"
    assert all("--device" in b for b in commands)
    assert "–device" not in text and "—device" not in text, "a -- became a dash"
