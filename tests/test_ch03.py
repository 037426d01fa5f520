"""Chapter 3: the shape-blocks figure, the tag reader, and the chapter's exercise checkers."""
import matplotlib
import numpy as np
import pytest
from hypothesis import given, strategies as st

import attnlib
from attnlib import check, plot
from attnlib.exercises import Wrong
from attnlib.exercises.ch03 import parse_tag


def _said(capsys) -> str:
    """What check printed, with its line wrapping undone."""
    return " ".join(capsys.readouterr().out.split())


def test_shape_blocks_draws_one_cell_per_entry():
    X = np.zeros((3, 4))
    W = np.zeros((4, 2))
    v = np.zeros(5)  # a plain list is drawn as one row
    fig = plot.shape_blocks([{"X": X, "W": W}, {"v": v}], captions={"X": "n × d_model"})
    assert isinstance(fig, matplotlib.figure.Figure)
    (ax,) = fig.axes
    assert len(ax.patches) == 12 + 8 + 5
    texts = {t.get_text() for t in ax.texts}
    assert {"X", "W", "v", "3×4", "4×2", "1×5", "n × d_model"} <= texts
    matplotlib.pyplot.close(fig)


@given(st.lists(st.integers(1, 999), min_size=1, max_size=3))
def test_parse_tag_reads_what_shape_tag_writes(dims):
    x = np.zeros(dims)
    for latex in (False, True):
        assert parse_tag(attnlib.shape_tag("P", x, latex=latex)) == ("P", tuple(dims))


@pytest.mark.parametrize("text, dims", [("R^(2x3)", (2, 3)), ("P in R^{2 x 3}", (2, 3)), ("ℝ^{7}", (7,)),
                                        ("$P \\in \\mathbb{R}^{2 \\times 3}$", (2, 3))])
def test_parse_tag_accepts_plain_typing(text, dims):
    assert parse_tag(text)[1] == dims


@pytest.mark.parametrize("text", ["2x3", "P ∈ 2×3", "Z^{2×3}", "R^{2.5×3}", "R^{n×d}"])
def test_parse_tag_rejects_non_tags(text):
    with pytest.raises(Wrong):
        parse_tag(text)


def test_specific_hints(capsys):
    check("ch03.read_shapes", [(5, 2), 7, (1, 6)])
    assert "comma" in _said(capsys)
    check("ch03.tag_of_array", "P ∈ ℝ^{6}")
    assert "rows and columns separately" in _said(capsys)
    check("ch03.illegal_tag", "c")
    assert "letters" in _said(capsys)
    check("ch03.attention_shapes", {"W_V": (8, 3), "K": (6, 4), "S": (6, 6), "Z": (6, 4)})
    assert "rows of V" in _said(capsys)
