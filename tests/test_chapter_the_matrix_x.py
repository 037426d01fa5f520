"""Chapter 2: the figures that stack word arrows into rows, and the chapter's exercise checkers."""

import matplotlib
import numpy as np
import pytest
from helpers import said

import attncheck
import attnlib
from attncheck import check
from attncheck import the_matrix_x as graders
from attncheck.the_matrix_x import _make_x
from attnlib import plot

# --- figures ---------------------------------------------------------------------------------


def test_arrows_to_rows_draws_one_arrow_and_one_row_per_word_in_the_word_colours():
    vectors = {w: attnlib.VOCAB_2D[w] for w in ["cat", "dog", "car"]}
    fig = plot.arrows_to_rows(vectors, xlabel="animal-ness", ylabel="vehicle-ness", col_labels=["animal", "vehicle"])
    assert isinstance(fig, matplotlib.figure.Figure)
    left, right = fig.axes
    labels = [t.get_text() for t in left.texts if t.get_text()]
    assert labels == ["cat", "dog", "car"]  # one labelled arrow per word
    assert left.get_xlabel() == "animal-ness" and left.get_ylabel() == "vehicle-ness"
    assert len(right.patches) == 3 * 2  # one cell per number
    assert [t.get_text() for t in right.get_yticklabels()] == ["cat", "dog", "car"]
    assert [t.get_text() for t in right.get_xticklabels()] == ["animal", "vehicle"]
    assert right.get_ylabel() == ""  # n is not named before the text defines it
    for i, word in enumerate(["cat", "dog", "car"]):  # row i is tinted in its word's colour
        assert right.patches[2 * i].get_facecolor()[:3] == pytest.approx(
            matplotlib.colors.to_rgb(plot.word_colour(word))
        )
        assert matplotlib.colors.to_hex(right.get_yticklabels()[i].get_color()) == plot.word_colour(word).lower()
    matplotlib.pyplot.close(fig)


def test_stacked_rows_names_the_columns_by_feature_and_typesets_d_model():
    fig = plot.stacked_rows(["the", "cat", "sat"], attnlib.sentence_matrix("the cat sat"), col_labels=attnlib.FEATURES)
    left, right = fig.axes
    assert [t.get_text() for t in right.get_xticklabels()] == attnlib.FEATURES
    assert right.get_xlabel() == r"$d_{\mathrm{model}}$ = 4 columns"
    assert right.get_ylabel() == ""
    words = [t for t in left.texts if t.get_text()]
    assert [matplotlib.colors.to_hex(t.get_color()) for t in words] == [
        plot.word_colour(w).lower() for w in ["the", "cat", "sat"]
    ]
    matplotlib.pyplot.close(fig)


def test_grid_typesets_the_names_of_its_sides():
    fig = plot.grid(np.ones((3, 4)), rows_name="n", cols_name="d_model")
    (ax,) = fig.axes
    assert ax.get_xlabel() == r"$d_{\mathrm{model}}$ = 4 columns" and ax.get_ylabel() == "$n$ = 3 rows"
    fig.canvas.draw()  # mathtext parses
    matplotlib.pyplot.close(fig)


# --- the_matrix_x.build_x ------------------------------------------------------------------------------


def test_build_x_hints_name_the_mistake(capsys):
    X = attnlib.sentence_matrix("a puppy ran")
    assert check("the_matrix_x.build_x", X)
    check("the_matrix_x.build_x", X.T)
    assert "COLUMN per word" in said(capsys)
    check("the_matrix_x.build_x", X[[1, 0, 2]])
    assert "wrong order" in said(capsys)
    check("the_matrix_x.build_x", attnlib.sentence_matrix("the puppy ran"))
    assert "row 0 is not" in said(capsys)
    check("the_matrix_x.build_x", X[:2])
    assert "one row per word" in said(capsys)


def test_build_x_accepts_bfloat16(capsys):
    torch = pytest.importorskip("torch")
    X = attnlib.sentence_matrix("a puppy ran")
    assert check("the_matrix_x.build_x", torch.tensor(X, dtype=torch.float32)), said(capsys)


# --- the_matrix_x.shapes_after_edit ----------------------------------------------------------------------


def test_shapes_after_edit_points_at_d_model(capsys):
    check("the_matrix_x.shapes_after_edit", [(10, 768), (12, 770), (7, 768)])
    assert "never changes d_model" in said(capsys)
    check("the_matrix_x.shapes_after_edit", [(768, 10), (768, 12), (768, 7)])
    assert "wrong order" in said(capsys)
    check("the_matrix_x.shapes_after_edit", [(10, 768), (12, 768), (9, 768)])
    assert "ORIGINAL" in said(capsys)


# --- the_matrix_x.make_x -------------------------------------------------------------------------------


def test_make_x_reference_solution_names_both_lengths():
    with pytest.raises(ValueError, match=r"\b2\b.*\b3\b|\b3\b.*\b2\b"):
        _make_x([[1.0, 2.0], [1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(_make_x([[1, 2, 3]]), [[1.0, 2.0, 3.0]])


def test_ragged_cases_put_the_odd_vector_in_every_position():
    positions = set()
    for case in graders.RAGGED_CASES:
        lengths = [len(v) for v in case]
        odd = [i for i, n in enumerate(lengths) if lengths.count(n) == 1]
        assert len(odd) == 1 or len(case) == 2
        positions.add("first" if odd[0] == 0 else "last" if odd[0] == len(case) - 1 else "inside")
        assert len(case) not in lengths and 1 not in lengths  # numpy's own message cannot name them by chance
    assert positions == {"first", "inside", "last"}


@pytest.mark.parametrize(
    "fn, hint",
    [
        (lambda vs: np.array(vs, dtype=float), "does not name the lengths"),  # numpy's message
        (graders._make_x_first_vs_last, "in the middle"),
        (graders._make_x_first_two, "last"),
        (graders._make_x_wrong_error, "raised TypeError"),
        (graders._make_x_columns, "COLUMN"),
        (graders._make_x_flat, "flat list"),
        (graders._make_x_no_return, "return"),
        (graders._make_x_mutates, "changed its input `vectors`"),
    ],
)
def test_make_x_rejects_plausible_wrong_functions(fn, hint, capsys):
    assert not check("the_matrix_x.make_x", fn)
    assert hint in said(capsys)


def test_make_x_rejects_a_function_that_returns_for_ragged_input(capsys):
    assert not check("the_matrix_x.make_x", lambda vs: [list(v) for v in vs])
    assert "returned a result" in said(capsys)


def test_make_x_accepts_other_right_forms(capsys):
    def lists_out(vs):
        if len({len(v) for v in vs}) > 1:
            raise ValueError("lengths " + ", ".join(str(len(v)) for v in vs))
        return [[float(x) for x in v] for v in vs]

    assert check("the_matrix_x.make_x", lists_out), said(capsys)


# --- every chapter 2 grader keeps the contract ---------------------------------------------------

CH02 = [i for i in attncheck.exercise_ids() if i.startswith("the_matrix_x.")]


def test_chapter_2_has_the_exercises_the_notebook_uses():
    assert sorted(CH02) == ["the_matrix_x.build_x", "the_matrix_x.make_x", "the_matrix_x.shapes_after_edit"]


def test_build_x_names_a_row_that_belongs_to_another_word(capsys):
    check("the_matrix_x.build_x", attnlib.sentence_matrix("a kitten ran"))
    out = " ".join(capsys.readouterr().out.split())
    assert "Row 1 is the vector of 'kitten'" in out and "Recompute" not in out


def test_sum_axes_writes_the_column_sums_below_and_the_row_sums_beside_the_matrix():
    X = attnlib.sentence_matrix("the cat sat")
    fig = plot.sum_axes(X, ["the", "cat", "sat"], attnlib.FEATURES)
    texts = [t.get_text() for t in fig.axes[0].texts]
    for total in X.sum(axis=0).round(10):  # axis 0: one per column
        assert f"{total:g}" in texts
    for total in X.sum(axis=1).round(10):  # axis 1: one per row
        assert f"{total:g}" in texts
    assert any("axis 0" in t for t in texts) and any("axis 1" in t for t in texts)
    assert {"the", "cat", "sat", *attnlib.FEATURES} <= set(texts)
    matplotlib.pyplot.close(fig)
