"""Chapter 14's graders: right forms pass, plausible wrong answers fail with the hint they are meant to get."""
import numpy as np
import pytest

from attnlib import check
from attnlib.exercises import ch14
from helpers import hint_for



@pytest.mark.parametrize("answer, words", [
    (3, "query itself"), (4, "causal mask"), (1, "two words back"), (0, "first word"), (2.5, "whole number"),
    ([2, 3], "one whole number"), (True, "True/False")])
def test_expected_key_hints(answer, words, capsys):
    assert words in hint_for("ch14.expected_key", answer, capsys)


def test_expected_key_accepts_a_torch_number():
    torch = pytest.importorskip("torch")
    assert bool(check("ch14.expected_key", torch.tensor(2))) is True


@pytest.mark.parametrize("wrong, words", [
    (ch14._transposed, "swapped"), (ch14._whole_columns, "whole columns"), (ch14._strongest, "strongest weight"),
    (ch14._sum_not_mean, "total"), (ch14._hit_rate, "counts the rows"), (ch14._mutating, "changed its input")])
def test_weight_on_hints(wrong, words, capsys):
    assert words in hint_for("ch14.weight_on", wrong, capsys)


def test_weight_on_hidden_cases_are_soft_and_varied():
    sizes = [A.shape[0] for A, _ in ch14._HIDDEN]
    assert 1 in sizes and 6 in sizes
    for A, keys in ch14._HIDDEN[1:]:
        assert A.max() < 0.99                                       # soft: the strongest weight is not the answer
        assert isinstance(keys, list)                               # the statement promises a list of positions
    assert np.allclose(ch14._WANT, [ch14._weight_on(A, k) for A, k in ch14._HIDDEN])


def test_weight_on_rejects_a_function_whose_answer_is_a_row(capsys):
    assert "one number" in hint_for("ch14.weight_on", lambda A, keys: A[np.arange(len(keys)), keys], capsys)
