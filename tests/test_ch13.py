"""Chapter 13's graders: right forms pass, plausible wrong answers fail with the hint they are meant to get."""
import numpy as np
import pytest

import attnlib
from attnlib import check
from attnlib.exercises import ch13
from helpers import hint_for



def test_the_experiment_in_the_statement_holds():
    Z_old, Z_new = ch13._Z_OLD, ch13._Z_NEW
    assert np.allclose(Z_new, Z_old[ch13._ORDER])
    assert not np.allclose(Z_new, Z_old[ch13._INVERSE])


@pytest.mark.parametrize("answer, words", [
    ([0, 1, 2, 3, 4, 5], "no row of Z moves"), ([1, 2, 0, 3, 4, 5], "other way round"),
    ([3, 1, 2, 4, 5, 6], "from 0"), ([2, 0, 1], "6 row numbers"), ([2, 0, 1, 3, 4, 4], "Row 5"),
    (["2", "0", "1", "3", "4", "5"], "without quotes"), ([2.5, 0, 1, 3, 4, 5], "whole row numbers")])
def test_shuffled_rows_hints(answer, words, capsys):
    assert words in hint_for("ch13.shuffled_rows", answer, capsys)


@pytest.mark.parametrize("wrong, words", [
    (ch13._swapped, "swapped"), (ch13._halves, "alternate"), (ch13._off_by_one, "count from 0"),
    (ch13._column_index_exponent, "speeds are off"), (ch13._i_not_2i, "speeds are off"),
    (ch13._times_not_divided, "differ")])
def test_pe_row_hints(wrong, words, capsys):
    assert words in hint_for("ch13.pe_row", wrong, capsys)


def test_pe_row_far_position_and_tiny_d_model_are_hidden_cases():
    assert (1000, 10) in ch13._CASES and (3, 2) in ch13._CASES and (0, 4) in ch13._CASES


def test_pe_row_expected_is_the_library_table():
    for (pos, d), want in zip(ch13._CASES, ch13._EXPECTED):
        assert np.allclose(attnlib.positional_encoding(pos + 1, d)[pos], want)


def test_pe_row_accepts_float32_tensors_and_rejects_a_function_that_returns_nothing(capsys):
    torch = pytest.importorskip("torch")
    assert bool(check("ch13.pe_row", lambda p, d: torch.tensor(ch13._pe_row(p, d), dtype=torch.float32))) is True
    capsys.readouterr()
    assert "return" in hint_for("ch13.pe_row", lambda p, d: None, capsys)
