"""Chapter 14's training loop: deterministic, and it finds the previous-word pattern."""

import numpy as np
import pytest

import attnlib
from attnlib import training

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def task():
    return training.make_task()


@pytest.fixture(scope="module")
def trained(task):
    return training.train_lenses(task)


def test_task_targets_are_the_previous_words_features(task):
    assert task.X.shape == (128, 6, training.D_MODEL) and task.targets.shape == (128, 6, 4)
    assert list(task.keys) == [0, 0, 1, 2, 3, 4]
    s = task.sentences[5]
    assert np.allclose(task.targets[5, 3], training.word_rows(s)[2, 4:])
    assert np.allclose(task.X[5], training.word_rows(s) + attnlib_pe(6))


def attnlib_pe(n):
    from attnlib.positions import positional_encoding

    return positional_encoding(n, training.D_MODEL)


def test_two_runs_are_identical(task, trained):
    again = training.train_lenses(task)
    assert again.history == trained.history
    for name in ("W_Q", "W_K", "W_V", "A"):
        assert np.array_equal(getattr(again, name), getattr(trained, name))


def test_thread_count_is_restored(task):
    before = torch.get_num_threads()
    training.train_lenses(task, steps=2)
    assert torch.get_num_threads() == before


def test_loss_falls_and_attention_finds_the_previous_word(task, trained):
    assert trained.history[-1] < 0.01 * trained.history[0]
    assert training.weight_on_keys(trained.A, task.keys, rows=range(1, 6)) >= 0.8
    A = trained.A
    assert np.allclose(A.sum(-1), 1.0) and np.all(np.triu(A, 1) == 0)  # rows add to 1, no look-ahead


def test_the_value_lens_learns_to_hand_over_the_features(trained):
    assert np.abs(trained.W_V[4:] - np.eye(4)).max() < 0.1  # like chapter 5's W_V = identity


def test_new_sentence_gets_the_same_pattern(trained):
    X = training.task_input(attnlib.RUNNING_SENTENCE)
    _, A = attnlib.self_attention(X, trained.W_Q, trained.W_K, trained.W_V, mask=attnlib.causal_mask(6))
    assert list(A.argmax(axis=1)) == [0, 0, 1, 2, 3, 4]


def test_without_positions_the_task_cannot_be_learned():
    task = training.make_task(positions=False)
    result = training.train_lenses(task)
    assert training.weight_on_keys(result.A, task.keys, rows=range(1, 6)) < 0.5


def test_weight_on_keys_reads_the_right_cells():
    A = np.array([[1.0, 0.0, 0.0], [0.3, 0.7, 0.0], [0.1, 0.6, 0.3]])
    assert np.isclose(training.weight_on_keys(A, [0, 0, 1]), (1.0 + 0.3 + 0.6) / 3)
    assert np.isclose(training.weight_on_keys(A, [0, 0, 1], rows=[1, 2]), 0.45)
    assert np.isclose(training.weight_on_keys(np.stack([A, A]), [0, 0, 1]), 1.9 / 3)


def test_bad_task_sizes_are_refused():
    with pytest.raises(ValueError, match="n ≥ 2"):
        training.make_task(n=1)


def test_the_part_v_figures_draw_with_typeset_text(trained):
    import matplotlib.pyplot as plt

    from attnlib import plot
    from attnlib.positions import positional_encoding

    figures = [
        plot.position_waves(positional_encoding(50, 16)),
        plot.loss_curve(trained.history),
        plot.labelled_panels(
            [
                ("learned $W_V$", trained.W_V, [str(i) for i in range(8)], None),
                ("X", np.ones((2, 2)), ["0 the", "1 kitten"], ["a", "b"]),
            ],
            ncols=2,
        ),
        plot.word_heatmap(np.eye(2), ["0 the", "1 kitten"], ["0 the", "1 kitten"]),
    ]
    for fig in figures:
        texts = [t.get_text() for ax in fig.axes for t in ax.texts + [ax.title] + ax.get_yticklabels()]
        assert any(texts) and not any("_" in t and "$" not in t for t in texts)
        plt.close(fig)
    kitten = next(t for t in figures[3].axes[0].get_yticklabels() if t.get_text() == "1 kitten")
    assert kitten.get_color() == plot.word_colour("kitten")
    minus_zero = plot.labelled_panels([("M", np.array([[-0.001, 1.0]]), ["r"], ["a", "b"])], fmt="{:.1f}")
    assert "-0.0" not in [t.get_text() for t in minus_zero.axes[0].texts]
