"""Chapter 2: the figure that stacks word arrows into rows, and the chapter's exercise checkers."""
import matplotlib
import numpy as np

import attnlib
from attnlib import check, plot
from attnlib.exercises.ch02 import _make_x


def _said(capsys) -> str:
    """What check printed, with its line wrapping undone."""
    return " ".join(capsys.readouterr().out.split())


def test_arrows_to_rows_draws_one_arrow_and_one_row_per_word():
    vectors = {w: attnlib.VOCAB_2D[w] for w in ["cat", "dog", "car"]}
    fig = plot.arrows_to_rows(vectors)
    assert isinstance(fig, matplotlib.figure.Figure)
    left, right = fig.axes
    labels = [t.get_text() for t in left.texts if t.get_text()]
    assert labels == ["cat", "dog", "car"]             # one labelled arrow per word
    assert len(right.patches) == 3 * 2                  # one cell per number
    assert [t.get_text() for t in right.get_yticklabels()] == ["cat", "dog", "car"]
    assert "n = 3 rows" in right.get_ylabel() and "d_model = 2 columns" in right.get_xlabel()
    # the row of a word is tinted in the colour of its arrow
    assert right.patches[0].get_facecolor()[:3] == matplotlib.colors.to_rgb(plot.PALETTE[0])
    matplotlib.pyplot.close(fig)


def test_build_x_hints_name_the_mistake(capsys):
    X = attnlib.sentence_matrix("a puppy ran")
    assert check("ch02.build_x", X)
    check("ch02.build_x", X.T)
    assert "COLUMN per word" in _said(capsys)
    check("ch02.build_x", X[[1, 0, 2]])
    assert "wrong order" in _said(capsys)


def test_shapes_after_edit_points_at_d_model(capsys):
    check("ch02.shapes_after_edit", [(10, 768), (12, 770), (7, 768)])
    assert "never changes d_model" in _said(capsys)


def test_make_x_reference_solution_names_both_lengths():
    try:
        _make_x([[1.0, 2.0], [1.0, 2.0, 3.0]])
    except ValueError as err:
        assert "2" in str(err) and "3" in str(err)
    else:
        raise AssertionError("no ValueError")
    np.testing.assert_array_equal(_make_x([[1, 2, 3]]), [[1.0, 2.0, 3.0]])


def test_make_x_rejects_numpy_messages_that_name_no_lengths(capsys):
    assert not check("ch02.make_x", lambda vs: np.array(vs, dtype=float))
    assert "does not name both lengths" in _said(capsys)
