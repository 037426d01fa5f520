"""Chapter 14's graders: right forms pass, plausible wrong answers fail with the hint they are meant to get."""

import numpy as np
import pytest
from helpers import hint_for

from attncheck import check
from attncheck import learning_the_lenses as graders


@pytest.mark.parametrize(
    "answer, words",
    [
        ((0, 2), "keeps its own features"),
        ((-1, 2), "not a position"),
        ((1, 3), "one place back"),
        ((1, 6), "causal mask"),
        ((2, 1), "wrong order"),
        (2, "two key positions"),
        ((1, 2, 3), "give two"),
        ((1.5, 2), "whole numbers"),
    ],
)
def test_expected_key_hints(answer, words, capsys):
    assert words in hint_for("learning_the_lenses.expected_key", answer, capsys)


def test_expected_key_accepts_a_torch_number():
    torch = pytest.importorskip("torch")
    assert bool(check("learning_the_lenses.expected_key", torch.tensor([1, 2]))) is True


@pytest.mark.parametrize(
    "wrong, words",
    [
        (graders._transposed, "swapped"),
        (graders._whole_columns, "whole columns"),
        (graders._strongest, "strongest weight"),
        (graders._sum_not_mean, "total"),
        (graders._hit_rate, "counts the rows"),
        (graders._mutating, "changed its input"),
        (graders._skips_first_row, "row 0 included"),
    ],
)
def test_weight_on_hints(wrong, words, capsys):
    assert words in hint_for("learning_the_lenses.weight_on", wrong, capsys)


def test_weight_on_hidden_cases_are_soft_and_varied():
    sizes = [A.shape[0] for A, _ in graders._HIDDEN]
    assert 1 in sizes and 6 in sizes
    for A, keys in graders._HIDDEN[1:]:
        assert A.max() < 0.99  # soft: the strongest weight is not the answer
        assert isinstance(keys, list)  # the statement promises a list of positions
    assert np.allclose(graders._WANT, [graders._weight_on(A, k) for A, k in graders._HIDDEN])


def test_weight_on_rejects_a_function_whose_answer_is_a_row(capsys):
    assert "one number" in hint_for(
        "learning_the_lenses.weight_on", lambda A, keys: A[np.arange(len(keys)), keys], capsys
    )


def test_the_step_by_hand_agrees_with_autograd_and_lowers_the_loss():
    torch = pytest.importorskip("torch")
    from attnlib import training

    task = training.make_task(n_sentences=16, n=6, seed=0)
    W_Q, W_K, W_V = training.initial_lenses(task)
    loss = training.task_loss(task, W_Q, W_K, W_V)
    loss.backward()
    eps = 1e-6
    with torch.no_grad():
        up, down = W_V.clone(), W_V.clone()
        up[4, 0] += eps
        down[4, 0] -= eps
        slope = (training.task_loss(task, W_Q, W_K, up) - training.task_loss(task, W_Q, W_K, down)) / (2 * eps)
        assert abs(slope.item() - W_V.grad[4, 0].item()) < 1e-7
        for W in (W_Q, W_K, W_V):
            W -= 0.5 * W.grad
    assert training.task_loss(task, W_Q, W_K, W_V).item() < loss.item()
    assert isinstance(training.task_loss(task, *(W.detach().numpy() for W in (W_Q, W_K, W_V))), float)


def test_initial_lenses_are_train_lenses_start():
    pytest.importorskip("torch")
    from attnlib import training

    task = training.make_task(n_sentences=8, n=6, seed=0)
    start = training.initial_lenses(task, seed=3)
    first = training.task_loss(task, *start).item()
    assert abs(training.train_lenses(task, steps=1, seed=3).history[0] - first) < 1e-12


def test_weight_before_by_position():
    from attnlib import training

    A = np.tile(np.eye(4)[[0, 0, 1, 2]], (3, 1, 1))  # every row on the key before it
    assert np.allclose(training.weight_before_by_position(A), [1, 1, 1])
