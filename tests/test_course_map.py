"""The course map (drawn in the introduction): its chapters and parts come from the _toc.yml it is
given, every edge goes around the boxes, its labels are typeset, and the book's copy is up to date."""

import itertools
import re
from pathlib import Path

import course_map  # tools/course_map.py
import matplotlib
import numpy as np
import yaml
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from attnlib import course

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
TOC = ROOT / "_toc.yml"


def _boxes(ax):
    return [p.get_bbox() for p in ax.patches if isinstance(p, FancyBboxPatch)]


def _crosses(box, p, q, steps=200):
    """True when the segment p–q passes strictly inside box (its ends may touch the edge)."""
    for t in np.linspace(0, 1, steps)[1:-1]:
        x, y = p + t * (q - p)
        if box.x0 + 1e-6 < x < box.x1 - 1e-6 and box.y0 + 1e-6 < y < box.y1 - 1e-6:
            return True
    return False


def test_prerequisite_map_edges_go_around_every_box_and_end_on_an_edge():
    fig = course_map.prerequisite_map(TOC)
    ax = fig.axes[0]
    boxes = _boxes(ax)
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    chapters = course_map.course_chapters(TOC)
    assert len(boxes) == len(chapters) and len(arrows) == sum(len(c.needs) for c in chapters)
    for arrow in arrows:
        verts = arrow._path_original.vertices
        for p, q in itertools.pairwise(verts):
            assert not any(_crosses(b, np.array(p), np.array(q)) for b in boxes), (p, q)
        tip = verts[-1]
        on_edge = [b for b in boxes if b.x0 - 1e-6 <= tip[0] <= b.x1 + 1e-6 and b.y0 - 1e-6 <= tip[1] <= b.y1 + 1e-6]
        assert len(on_edge) == 1, "each arrowhead touches exactly the box it points to"
        assert arrow.get_zorder() > max(p.get_zorder() for p in ax.patches if isinstance(p, FancyBboxPatch))
    matplotlib.pyplot.close(fig)


def test_prerequisite_map_labels_are_typeset():
    for chapter in course_map.course_chapters(TOC):
        outside_math = re.sub(r"\$[^$]*\$", "", chapter.label)
        assert not re.search(r"[_^{}\\]", outside_math), chapter.label
        assert chapter.label.count("$") % 2 == 0, chapter.label


def test_prerequisite_map_in_the_book_is_up_to_date(tmp_path):
    fresh = tmp_path / "map.svg"
    course_map.save_svg(course_map.prerequisite_map(TOC), str(fresh))
    committed = ROOT / "_static" / "prerequisite_map.svg"
    assert fresh.read_bytes() == committed.read_bytes(), "run `make figures` and commit _static/prerequisite_map.svg"


def test_prerequisite_map_has_every_chapter_of_the_toc_in_its_part():
    chapters = course_map.course_chapters(TOC)
    notebooks = {p.stem for p in (ROOT / "chapters").glob("[0-9][0-9]_*.ipynb")}
    assert sorted(c.file.split("/")[-1] for c in chapters) == sorted(notebooks)  # every notebook, once
    assert [(c.number, c.file.split("/")[-1]) for c in chapters] == [(n, stem) for n, _, stem in course.chapters()]
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    for part in (p for p in toc["parts"] if p["caption"].startswith("Part ")):
        numeral = part["caption"].split()[1]
        in_part = {course.number(entry["file"].split("/")[-1].partition("_")[2]) for entry in part["chapters"]}
        assert {c.number for c in chapters if c.part == numeral} == in_part, numeral
    part_four = {c.number for c in chapters if c.part == "IV"}
    assert {course.number("masks"), course.number("learning_the_lenses"), course.number("trained_model")} <= part_four
    assert chapters[9].needs == [9, 5]  # Z = AV stands on softmax and on Q, K, V
    assert all(c.label.startswith(f"{c.number}  ") and "_" not in c.label.split("$")[0] for c in chapters)


def test_a_chapter_stands_on_every_chapter_its_opening_names():
    """A chapter whose opening names an earlier one ("... the causal mask of [chapter 11]") stands on it in the map."""
    import nbformat

    chapters = course_map.course_chapters(TOC)
    problems = []
    for chapter in chapters:
        notebook = nbformat.read(ROOT / f"{chapter.file}.ipynb", as_version=4)
        opening = next(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
        for named in {int(n) for n in re.findall(r"\]\((\d\d)_\w+\.ipynb\)", opening)}:
            if named < chapter.number and named not in chapter.needs:
                problems.append(f"chapter {chapter.number} opens with chapter {named}, the map has {chapter.needs}")
    assert not problems, "\n".join(problems)


def test_prerequisite_map_follows_the_toc_it_is_given():
    toc = {
        "parts": [
            {
                "caption": "Part I — First",
                "numbered": True,
                "chapters": [{"file": "chapters/01_vectors"}, {"file": "chapters/02_new_idea"}],
            },
            {"caption": "Part II — Second", "numbered": True, "chapters": [{"file": "chapters/03_masks"}]},
            {"caption": "Review", "chapters": [{"file": "chapters/checklist"}]},
        ]
    }
    chapters = course_map.course_chapters(toc)
    assert [(c.label, c.part, c.needs) for c in chapters] == [
        ("1  vector", "I", []),
        ("2  new idea", "I", [1]),
        ("3  masks", "II", [2]),
    ]
    fig = course_map.prerequisite_map(toc)
    labels = {t.get_text() for t in fig.axes[0].texts}
    assert {"1  vector", "2  new idea", "3  masks", "I", "II"} <= labels
    matplotlib.pyplot.close(fig)
