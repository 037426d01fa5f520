"""Chapter 5: the labelled-grids figure, and the chapter's checkers give the right hints."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import attnlib  # noqa: E402
from attnlib import check, plot  # noqa: E402


def test_labelled_grids_draws_one_panel_per_matrix():
    W_Q, W_K, W_V = attnlib.random_weights(4, 2, 3, seed=0)
    fig = plot.labelled_grids({"W_Q": W_Q, "W_K": W_K, "W_V": W_V}, row_labels=list("abcd"),
                              col_labels={"W_V": ["x", "y", "z"]}, title="lenses")
    assert isinstance(fig, matplotlib.figure.Figure)
    assert len(fig.axes) == 3
    assert [t.get_text() for t in fig.axes[2].get_xticklabels()] == ["x", "y", "z"]
    assert fig.axes[0].get_title().startswith("W_Q") and "4×2" in fig.axes[0].get_title()
    plt.close(fig)


def test_labelled_grids_accepts_a_single_matrix():
    fig = plot.labelled_grids({"W": np.eye(3)}, row_labels=["r0", "r1", "r2"])
    assert len(fig.axes) == 1
    plt.close(fig)


def test_w_shapes_hint_when_n_is_used_for_the_rows(capsys):
    assert check("ch05.w_shapes", [(5, 3), (5, 3), (5, 4)]) is False
    assert "number of words" in capsys.readouterr().out


def test_q_by_hand_hint_for_the_wrong_order(capsys):
    from attnlib.exercises.ch05 import HAND_W_Q, HAND_X
    assert check("ch05.q_by_hand", HAND_W_Q @ HAND_X) is False
    assert "W_Q times X" in capsys.readouterr().out


def test_heads_hint_for_multiplying(capsys):
    assert check("ch05.d_k_heads", 512 * 16) is False
    assert "divide" in capsys.readouterr().out
