"""Chapter 13's graders: right forms pass, plausible wrong answers fail with the hint they are meant to get."""

import numpy as np
import pytest
from helpers import hint_for

import attnlib
from attncheck import check
from attncheck import word_order as graders


def test_the_experiment_in_the_statement_holds():
    Z_old, Z_new = graders._Z_OLD, graders._Z_NEW
    assert np.allclose(Z_new, Z_old[graders._ORDER])
    assert not np.allclose(Z_new, Z_old[graders._INVERSE])


@pytest.mark.parametrize(
    "answer, words",
    [
        ([0, 1, 2, 3, 4, 5], "no row of Z moves"),
        ([1, 2, 0, 3, 4, 5], "other way round"),
        ([3, 1, 2, 4, 5, 6], "from 0"),
        ([2, 0, 1], "6 row numbers"),
        ([2, 0, 1, 3, 4, 4], "Row 5"),
        (["2", "0", "1", "3", "4", "5"], "without quotes"),
        ([2.5, 0, 1, 3, 4, 5], "whole row numbers"),
    ],
)
def test_shuffled_rows_hints(answer, words, capsys):
    assert words in hint_for("word_order.shuffled_rows", answer, capsys)


@pytest.mark.parametrize(
    "wrong, words",
    [
        (graders._swapped, "swapped"),
        (graders._halves, "alternate"),
        (graders._off_by_one, "count from 0"),
        (graders._column_index_exponent, "speeds are off"),
        (graders._i_not_2i, "speeds are off"),
        (graders._times_not_divided, "differ"),
    ],
)
def test_pe_row_hints(wrong, words, capsys):
    assert words in hint_for("word_order.pe_row", wrong, capsys)


def test_pe_row_far_position_and_tiny_d_model_are_hidden_cases():
    assert (1000, 10) in graders._CASES and (3, 2) in graders._CASES and (0, 4) in graders._CASES


def test_pe_row_expected_is_the_library_table():
    for (pos, d), want in zip(graders._CASES, graders._EXPECTED):
        assert np.allclose(attnlib.positional_encoding(pos + 1, d)[pos], want)


def test_pe_row_accepts_float32_tensors_and_rejects_a_function_that_returns_nothing(capsys):
    torch = pytest.importorskip("torch")
    assert (
        bool(check("word_order.pe_row", lambda p, d: torch.tensor(graders._pe_row(p, d), dtype=torch.float32))) is True
    )
    capsys.readouterr()

    def no_return(p, d):
        row = [p, d]  # computes, but returns nothing  # noqa: F841

    assert "return" in hint_for("word_order.pe_row", no_return, capsys)
    assert "No answer yet" in hint_for("word_order.pe_row", lambda p, d: None, capsys)  # the untouched stub


def test_degrees_get_a_radians_hint(capsys):
    assert bool(check("word_order.pe_row", graders._degrees)) is False
    assert "radians" in capsys.readouterr().out


def test_a_shift_of_k_positions_is_one_rotation_for_every_position():
    from attnlib.positions import positional_encoding, shift_rotation

    PE = positional_encoding(60, 16)
    for k in (1, 3, 7):
        R = shift_rotation(k, 16)
        assert np.allclose(PE[: 60 - k] @ R, PE[k:], atol=1e-12)
        assert np.allclose(R @ R.T, np.eye(16), atol=1e-12)  # a turn: lengths kept
    G = PE @ PE.T
    assert np.allclose(G[3, 5], G[40, 42]) and np.allclose(G[3, 5], G[5, 3])
    with pytest.raises(ValueError):
        shift_rotation(1, 5)


def test_the_part_iv_figures_read_on_a_phone():
    import matplotlib.pyplot as plt
    from test_figure_text import MIN_PX, smallest_text_px

    from attnlib import plot

    figs = [
        plot.heads_flow(6, 4, 2),
        plot.turning_arrows(
            [(f"{a} rad", (np.cos(a), np.sin(a)), plot.PALETTE[a]) for a in range(6)],
            title="An arrow turned by 0, 1, ..., 5 radians",
        ),
        plot.weight_by_position(np.linspace(1, 0, 11), 6, title="Length test"),
    ]
    for fig in figs:
        assert fig.get_figwidth() <= 5.8
        assert smallest_text_px(fig)[0] >= MIN_PX
        plt.close(fig)


def test_a_wrong_column_is_named_as_a_column_not_a_position(capsys):
    def one_column_off(pos, d_model):
        row = graders._pe_row(pos, d_model)
        row[-1] += 0.5
        return row

    assert bool(check("word_order.pe_row", one_column_off)) is False
    out = capsys.readouterr().out.replace("\n  ", " ")
    assert "column 3, the cosine of pair f = 1" in out and "position (" not in out
