"""Chapter 3: the shape-blocks figure, the tag reader, and the chapter's exercise checkers."""

import matplotlib
import numpy as np
import pytest
from helpers import said
from hypothesis import given
from hypothesis import strategies as st

import attncheck
import attnlib
from attncheck import Wrong, check
from attncheck.shapes_in_r import parse_tag
from attnlib import plot


def test_shape_blocks_draws_one_cell_per_entry():
    X = np.zeros((3, 4))
    W = np.zeros((4, 2))
    v = np.zeros(5)  # a plain list is drawn as one row
    fig = plot.shape_blocks([{"X": X, "W": W}, {"v": v}], captions={"X": "n × d_model"})
    assert isinstance(fig, matplotlib.figure.Figure)
    (ax,) = fig.axes
    assert len(ax.patches) == 12 + 8 + 5
    texts = {t.get_text() for t in ax.texts}
    assert {"$X$", "$W$", "$v$", "3×4", "4×2", "1×5", r"$n \times d_{\mathrm{model}}$"} <= texts
    matplotlib.pyplot.close(fig)


def test_shape_blocks_typesets_every_label_and_fits_a_phone():
    fig = plot.shape_blocks(
        [{"X": np.zeros((3, 4)), "W_Q": np.zeros((4, 2)), "W_V": np.zeros((4, 5))}], captions={"W_Q": "d_model × d_k"}
    )
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "$W_Q$" in texts and r"$d_{\mathrm{model}} \times d_k$" in texts
    assert not any("_" in t and "$" not in t for t in texts), texts  # no raw underscores
    assert fig.get_figwidth() <= 6.4 + 1e-9
    fig.canvas.draw()  # every label parses as mathtext
    matplotlib.pyplot.close(fig)


@pytest.mark.parametrize(
    "plain, typeset",
    [
        ("d_model", r"$d_{\mathrm{model}}$"),
        ("W_Q", "$W_Q$"),
        ("n", "$n$"),
        ("n × d_v", r"$n \times d_v$"),
        ("XW_Q", "$XW_Q$"),
        ("3×4", "3×4"),
        ("$x$", "$x$"),
    ],
)
def test_math_label(plain, typeset):
    assert plot.math_label(plain) == typeset


@given(st.lists(st.integers(1, 999), min_size=1, max_size=3))
def test_parse_tag_reads_what_shape_tag_writes(dims):
    x = np.zeros(dims)
    for latex in (False, True):
        assert parse_tag(attnlib.shape_tag("P", x, latex=latex)) == ("P", tuple(dims))


@pytest.mark.parametrize(
    "text, dims",
    [("R^(2x3)", (2, 3)), ("P in R^{2 x 3}", (2, 3)), ("ℝ^{7}", (7,)), ("$P \\in \\mathbb{R}^{2 \\times 3}$", (2, 3))],
)
def test_parse_tag_accepts_plain_typing(text, dims):
    assert parse_tag(text)[1] == dims


@pytest.mark.parametrize("text", ["2x3", "P ∈ 2×3", "Z^{2×3}", "R^{2.5×3}", "R^{n×d}"])
def test_parse_tag_rejects_non_tags(text):
    with pytest.raises(Wrong):
        parse_tag(text)


def test_specific_hints(capsys):
    check("shapes_in_r.read_shapes", [(5, 2), 7, (1, 6)])
    assert "comma" in said(capsys)
    check("shapes_in_r.tag_of_array", "P ∈ ℝ^{6}")
    assert "rows and columns separately" in said(capsys)
    check("shapes_in_r.true_tags", ["a", "b", "d"])
    assert "plain list" in said(capsys)
    check("shapes_in_r.true_tags", ["a"])
    assert "stands for a count" in said(capsys)
    check("shapes_in_r.true_tags", ["a", "d", "e"])
    assert "d_model = 4" in said(capsys)
    check("shapes_in_r.read_shapes", [(5, 2), (7,), (6,)])
    assert "one row" in said(capsys)
    check("shapes_in_r.attention_shapes", {"W_V": (8, 3), "K": (6, 4), "S": (6, 6), "Z": (6, 4)})
    out = said(capsys)
    assert "shape of V" in out and "blend" not in out  # the table, not chapter 10


def test_true_tags_reads_every_way_of_writing_letters(capsys):
    for answer in (["a", "d"], "ad", "a, d", "(a) (d)", {"d", "a"}, ("A", "D")):
        assert check("shapes_in_r.true_tags", answer), answer
    assert not check("shapes_in_r.true_tags", "a, d, z")
    assert "Not one of the letters" in said(capsys)


def test_the_true_tags_are_the_true_ones():
    """The grader's answer agrees with numpy: c = X[:, 3:4] of 'the cat sat' has shape (3, 1), n = 3."""
    c = attnlib.sentence_matrix("the cat sat")[:, 3:4]
    n, d_model = 3, 4
    tags = {"a": (3, 1), "b": (3,), "c": (1, 3), "d": (n, 1), "e": (n, d_model)}
    from attncheck.shapes_in_r import TRUE_TAGS

    assert TRUE_TAGS == {k for k, shape in tags.items() if shape == c.shape}


def test_attention_shapes_solution_hint_works_on_real_arrays():
    """The solution confirms its shapes with a (6, 8) X and random_weights(8, 4, 3): that must not raise."""
    X = np.zeros((6, 8))
    W_Q, W_K, W_V = attnlib.random_weights(d_model=8, d_k=4, d_v=3)
    Z, A = attnlib.self_attention(X, W_Q, W_K, W_V)
    assert Z.shape == (6, 3) and A.shape == (6, 6)


CH03 = [i for i in attncheck.exercise_ids() if i.startswith("shapes_in_r.")]


def test_chapter_3_has_the_exercises_the_notebook_uses():
    assert sorted(CH03) == [
        "shapes_in_r.attention_shapes",
        "shapes_in_r.read_shapes",
        "shapes_in_r.tag_of_array",
        "shapes_in_r.true_tags",
    ]
