"""The pages that repeat the chapters are made from them (tools/course_pages.py, `make pages`):
the checklist's Recall questions, the intro's parts and chapters and its map's alt text, README's
chapter table. These tests fail when any of them is stale, and show that a new chapter flows through."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("course_pages", ROOT / "tools" / "course_pages.py")
course_pages = sys.modules["course_pages"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(course_pages)


def _toc_files(root: Path = ROOT) -> list[str]:
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    return [entry["file"] for part in toc["parts"] if part.get("numbered") for entry in part["chapters"]]


def _questions(root: Path, file: str) -> list[str]:
    """Every Recall question of a chapter, read line by line (not by the tool's own parser)."""
    notebook = json.loads((root / f"{file}.ipynb").read_text(encoding="utf-8"))
    lines = [
        line for c in notebook["cells"] if c["cell_type"] == "markdown" for line in "".join(c["source"]).split("\n")
    ]
    return [line.split("Recall:", 1)[1].strip() for line in lines if re.match(r":{3,}\{dropdown\}\s*Recall:", line)]


def test_pages_made_from_the_chapters_are_up_to_date():
    assert course_pages.stale() == [], "run `make pages` (python tools/course_pages.py) and commit the pages"


def test_checklist_has_every_recall_of_every_chapter_in_order_numbered_as_the_book():
    checklist = (ROOT / "chapters" / "checklist.md").read_text(encoding="utf-8")
    found = re.findall(r"^:{3,}\{dropdown\}\s*Recall (\d+)\.(\d+): (.*)$", checklist, re.MULTILINE)
    expected = [
        (str(number), str(k), question)
        for number, file in enumerate(_toc_files(), 1)
        for k, question in enumerate(_questions(ROOT, file), 1)
    ]
    assert found == expected
    assert len({n for n, _, _ in found}) == len(_toc_files())  # every chapter has a Recall


def test_recall_questions_start_as_sentences():
    lower = [
        (file, question)
        for file in _toc_files()
        for question in _questions(ROOT, file)
        if not (question[:1].isupper() or question.startswith(("$", "`")))
    ]
    assert lower == []


def test_intro_names_every_chapter_and_its_title_and_the_map_every_box():
    intro = (ROOT / "intro.md").read_text(encoding="utf-8")
    for number, chapter in enumerate(course_pages.chapters(), 1):
        assert f"{{doc}}`{number} <{chapter.file}>` {chapter.title}" in intro
    alt = re.search(r"^:alt: (.*)$", intro, re.MULTILINE).group(1)
    numbers = [int(n) for n in re.findall(r"(?:- |; )(\d+) ", alt)]
    assert numbers == list(range(1, len(_toc_files()) + 1))
    assert not re.search(r"[$\\{}]", alt), "alt text is plain text, no TeX"


def _timing_number() -> int:
    """The number of the first timing chapter today (where a new Part IV chapter would go)."""
    stems = [Path(file).name for file in _toc_files()]
    return next(int(stem[:2]) for stem in stems if stem.endswith("_counting_and_timing"))


def _course_with_a_new_chapter(tmp_path: Path) -> tuple[Path, int]:
    """A copy of the course's pages, _toc.yml and chapter titles and Recalls, with a chapter inserted
    at the end of Part IV and the two timing chapters after it renumbered; returns the new number."""
    for page in course_pages.PAGES + ["_toc.yml"]:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / page, tmp_path / page)
    t = _timing_number()
    renamed = {f"{t:02d}_counting_and_timing": f"{t + 1:02d}_counting_and_timing"}
    renamed[f"{t + 1:02d}_cpu_vs_gpu"] = f"{t + 2:02d}_cpu_vs_gpu"
    toc = (tmp_path / "_toc.yml").read_text(encoding="utf-8")
    for old, new in reversed(renamed.items()):
        toc = toc.replace(f"chapters/{old}", f"chapters/{new}")
    last = [Path(f).name for f in _toc_files()][t - 2]  # the chapter before the timing ones
    toc = toc.replace(
        f"      - file: chapters/{last}\n", f"      - file: chapters/{last}\n      - file: chapters/{t:02d}_new_idea\n"
    )
    (tmp_path / "_toc.yml").write_text(toc, encoding="utf-8")
    for file in _toc_files():
        stem = Path(file).name
        notebook = json.loads((ROOT / f"{file}.ipynb").read_text(encoding="utf-8"))
        notebook["cells"] = [c for c in notebook["cells"] if c["cell_type"] == "markdown"]
        (tmp_path / "chapters" / f"{renamed.get(stem, stem)}.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    source = (
        "# A new idea\n\nText.\n\n::::{dropdown} Recall: Why can a writing model not look ahead?\n"
        "It has not written it yet.\n\n:::{note}\nA directive inside the answer.\n:::\n::::\n"
    )
    notebook = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": source}], "metadata": {}}
    (tmp_path / "chapters" / f"{t:02d}_new_idea.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    return tmp_path, t


def test_a_new_chapter_flows_through_every_page(tmp_path):
    root, t = _course_with_a_new_chapter(tmp_path)
    assert set(course_pages.stale(root)) == set(course_pages.PAGES)  # every page changes
    checklist = course_pages.render(root, "chapters/checklist.md")
    assert (
        f"::::{{dropdown}} Recall {t}.1: Why can a writing model not look ahead?\nIt has not written it yet.\n\n"
        f":::{{note}}\nA directive inside the answer.\n:::\n\n*Taught in* {{doc}}`chapter {t} <{t:02d}_new_idea>`, "
        f"{{doc}}`{t:02d}_new_idea`\n::::\n" in checklist
    )
    assert f"### [Chapter {t + 2}]({t + 2:02d}_cpu_vs_gpu.ipynb)" in checklist and f"Recall {t + 2}.1:" in checklist
    assert f"Recall {t + 3}." not in checklist
    intro = course_pages.render(root, "intro.md")
    assert f"- {{doc}}`{t} <chapters/{t:02d}_new_idea>` A new idea" in intro
    assert f"- {{doc}}`{t + 2} <chapters/{t + 2:02d}_cpu_vs_gpu>` CPU versus GPU" in intro
    assert f"{t} new idea; {t + 1} counting and timing; {t + 2} CPU vs GPU." in intro
    readme = course_pages.render(root, "README.md")
    assert f"| | {t} `chapters/{t:02d}_new_idea.ipynb` | A new idea |" in readme
    assert (
        f"| V On real hardware | {t + 1} `chapters/{t + 1:02d}_counting_and_timing.ipynb` | FLOPs and bytes" in readme
    )  # its words kept
    for page in course_pages.PAGES:  # made once, the pages are up to date
        (root / page).write_text(course_pages.render(root, page), encoding="utf-8")
    assert course_pages.stale(root) == []


# reference.md tags each module's section with the chapters it belongs to: "([chapter 11](chapters/11_masks.ipynb))",
# "(chapters [5](…) to [14](…))". Those are tested, not generated: each chapter named (both ends of a range) uses
# the module in its code, by the module's name (`masks.`, `import masks`) or by one of its own functions.
TAG_LINK = re.compile(r"\[[^\]]*\]\((chapters/\d\d_\w+)\.ipynb\)")


def _code(root: Path, file: str) -> str:
    notebook = json.loads((root / f"{file}.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")


def _uses(module: str, code: str) -> bool:
    import importlib
    import inspect

    last, found = module.rsplit(".", 1)[-1], importlib.import_module(module)
    if re.search(rf"\b{last}\.\w|import[^\n]*\b{last}\b", code):
        return True
    own = [n for n, o in vars(found).items() if not n.startswith("_") and inspect.getmodule(o) is found]
    return any(re.search(rf"\b{re.escape(n)}\(|import[^\n]*\b{re.escape(n)}\b", code) for n in own)


def tags_not_used(reference: str, root: Path = ROOT) -> list[str]:
    wrong = []
    for heading in (line for line in reference.splitlines() if line.startswith("#")):
        module = re.search(r"`(attnlib(?:\.\w+)*)`", heading)
        files = TAG_LINK.findall(heading[module.end() :]) if module else []
        if " to " in heading and files:
            files = [files[0], files[-1]]
        wrong += [f"{module.group(1)}: {file}" for file in files if not _uses(module.group(1), _code(root, file))]
    return wrong


def test_reference_tags_name_chapters_that_use_the_module():
    assert tags_not_used((ROOT / "reference.md").read_text(encoding="utf-8")) == []
    wrong_tag = "### Masks: `attnlib.masks` ([chapter 1](chapters/01_vectors.ipynb))"
    assert tags_not_used(wrong_tag) == ["attnlib.masks: chapters/01_vectors"]  # the check can fail
    assert tags_not_used(wrong_tag.replace("01_vectors", "11_masks")) == []
