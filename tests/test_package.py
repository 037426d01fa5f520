"""attnlib as a package: light to import, its toy data, shape tags and figures."""

import json
import re
import subprocess
import sys
from pathlib import Path

import course_map  # tools/course_map.py
import matplotlib
import numpy as np
import pytest

import attnlib
from attnlib import plot

ROOT = Path(__file__).resolve().parents[1]


def test_import_is_light():
    code = (
        "import sys, attnlib; heavy = [m for m in ('torch', 'matplotlib') if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "", f"`import attnlib` loaded {out.strip()}"


def test_plot_loads_on_first_use():
    assert attnlib.plot is plot
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = attnlib.no_such_thing


def test_every_public_name_is_there():
    missing = [name for name in attnlib.__all__ if not hasattr(attnlib, name)]
    assert not missing, f"attnlib.__all__ lists {missing}, which `from attnlib import *` cannot find"


def _names_used(module: str) -> set[str]:
    """Every `module.NAME` the chapters' code cells use, e.g. attnlib.attention or plot.heatmap."""
    found = set()
    for path in (ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                found |= set(re.findall(rf"\b{module}\.([A-Za-z_]\w*)", "".join(cell["source"])))
    return found


@pytest.mark.parametrize("module", ["attnlib", "plot"])
def test_every_name_the_chapters_use_exists(module):
    owner = attnlib if module == "attnlib" else plot
    used = _names_used(module)
    assert used, f"no chapter uses {module}.NAME: the search is broken"
    missing = sorted(name for name in used if not hasattr(owner, name))
    assert not missing, f"the chapters use {module}.{missing}, which do not exist"


def test_toy_vocabulary_similar_words_point_alike():
    def cos(a, b):
        a, b = attnlib.embed(a), attnlib.embed(b)
        return a @ b / np.linalg.norm(a) / np.linalg.norm(b)

    assert cos("cat", "kitten") > cos("cat", "car")
    assert cos("car", "truck") > cos("car", "dog")
    assert cos("sat", "ran") > cos("sat", "truck")
    assert {len(v) for v in attnlib.VOCAB.values()} == {4}


def test_sentence_matrix_stacks_rows():
    X = attnlib.sentence_matrix("The cat sat")
    assert X.shape == (3, 4)
    np.testing.assert_array_equal(X[1], attnlib.embed("cat"))
    assert attnlib.sentence_matrix(["cat"]).shape == (1, 4)


def test_unknown_word_says_which_words_exist():
    with pytest.raises(KeyError, match="kitten"):
        attnlib.embed("zebra")


def test_random_weights_are_seeded_and_shaped():
    a = attnlib.random_weights(4, 3, 5, seed=7)
    b = attnlib.random_weights(4, 3, 5, seed=7)
    assert [w.shape for w in a] == [(4, 3), (4, 3), (4, 5)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], attnlib.random_weights(4, 3, seed=8)[0])


def test_shape_tag():
    X = np.zeros((3, 4))
    # printed tags use Unicode superscripts, as the prose's typeset ℝ^{3×4} reads: one notation
    assert attnlib.shape_tag("X", X) == "X ∈ ℝ³ˣ⁴"
    assert attnlib.shape_tag("X", X, latex=True) == r"X \in \mathbb{R}^{3 \times 4}"
    assert attnlib.shape_tag("v", [1, 2]) == "v ∈ ℝ²"
    assert attnlib.shape_tag("c", 2.0) == "c ∈ ℝ"
    assert attnlib.shape_tag("W", np.zeros((12, 10))) == "W ∈ ℝ¹²ˣ¹⁰"
    assert "^" not in attnlib.shape_tag("S", np.zeros((6, 6))) and "{" not in attnlib.shape_tag("S", np.zeros((6, 6)))


FIGURES = {
    "arrows": lambda: plot.arrows(attnlib.VOCAB_2D),
    "grid": lambda: plot.grid(np.ones((3, 4)), rows_name="n", cols_name="d_model"),
    "stacked_rows": lambda: plot.stacked_rows(["the", "cat", "sat"], attnlib.sentence_matrix("the cat sat")),
    "heatmap": lambda: plot.heatmap(np.eye(3), ["a", "b", "c"], ["a", "b", "c"], title="A"),
    "matmul_cell": lambda: plot.matmul_cell(np.ones((2, 3)), np.ones((3, 2)), 1, 0),
    "projections": lambda: plot.projections(3, 4, 2, 2),
    "transpose_reflection": lambda: plot.transpose_reflection(np.arange(6).reshape(3, 2)),
    "dot_cases": lambda: plot.dot_cases(),
    "lines": lambda: plot.lines([1, 2], {"a": [1, 2]}, "x", "y"),
    "softmax_shares": lambda: plot.softmax_shares([1.0, 2.0], ["a", "b"]),
    "blend": lambda: plot.blend([0.25, 0.75], np.eye(2), ["a", "b"]),
    "prerequisite_map": lambda: course_map.prerequisite_map(ROOT / "_toc.yml"),
}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figures_draw_with_text(name):
    fig = FIGURES[name]()
    assert isinstance(fig, matplotlib.figure.Figure)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts + [ax.title, ax.xaxis.label, ax.yaxis.label]]
    texts.append(fig._suptitle.get_text() if fig._suptitle else "")
    assert any(t.strip() for t in texts), f"{name} has no labels or title"
    fig.canvas.draw()
    matplotlib.pyplot.close(fig)


def test_heatmap_uses_the_colour_blind_safe_map():
    fig = plot.heatmap(np.eye(2))
    assert fig.axes[0].images[0].get_cmap().name == "viridis"
