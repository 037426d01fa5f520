"""Every figure cell of every chapter has its image stored, so the book shows every figure.

A figure cell is a code cell that carries alt text in its metadata ({"mystnb": {"image": {"alt": ...}}})
or that assigns `fig = ...`. A figure cell whose image is missing is exactly what happened when a
figure function switched inline display off: the cell ran, and nothing was stored.
"""

import json
import re
from pathlib import Path

import pytest

CHAPTERS = sorted((Path(__file__).resolve().parents[1] / "chapters").glob("[0-9][0-9]_*.ipynb"))
ASSIGNS_FIG = re.compile(r"^\s*fig\s*(,[^=]*)?=(?!=)", re.MULTILINE)
NEEDS_GPU = "needs-gpu"  # tag of a cell that draws only when the machine has a GPU, and says so otherwise


def figure_cells(path: Path) -> list[tuple[int, dict]]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        has_alt = bool(cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt"))
        if has_alt or ASSIGNS_FIG.search(source):
            cells.append((index, cell))
    return cells


def stored_images(cell: dict) -> int:
    return sum(
        1
        for out in cell.get("outputs", [])
        if "image/png" in out.get("data", {}) or "image/svg+xml" in out.get("data", {})
    )


def _skipped_for_want_of_a_gpu(cell: dict) -> bool:
    """A cell tagged needs-gpu may store no image, but only if its stored output says why."""
    said = "".join("".join(out.get("text", "")) for out in cell.get("outputs", []))
    return NEEDS_GPU in cell.get("metadata", {}).get("tags", []) and "No GPU here" in said


def test_the_rule_finds_figure_cells():
    assert CHAPTERS, "no chapter notebooks found"
    assert ASSIGNS_FIG.search("x = 1\nfig = plot.timings(panels)")
    assert ASSIGNS_FIG.search("fig, ax = plot._figure()")
    assert not ASSIGNS_FIG.search("config = 3\nfigure = None\nfig == 2")


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_figure_cell_has_a_stored_image(path):
    missing = [
        index for index, cell in figure_cells(path) if stored_images(cell) == 0 and not _skipped_for_want_of_a_gpu(cell)
    ]
    assert not missing, f"{path.name}: figure cells without a stored image: {missing} (re-execute the notebook)"
