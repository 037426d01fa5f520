"""Chapter 9: the softmax exercises give specific hints, and the chapter's A is what the checker reads."""
import numpy as np

import attnlib
from attnlib import check
from attnlib.exercises import ch09


def test_the_checker_reads_the_same_A_as_the_chapter():
    X = attnlib.sentence_matrix(ch09.SENTENCE)
    W_Q, W_K, W_V = attnlib.random_weights(d_model=4, d_k=ch09.D_K, seed=ch09.SEED)
    _, A = attnlib.self_attention(X, W_Q, W_K, W_V)
    assert np.allclose(A, ch09.attention_weights())
    assert np.allclose(A.sum(axis=-1), 1)


def test_most_attended_wrong_answers_are_all_different_words():
    wrong = ["drove", ch09._COLUMN_MISTAKE, ch09._SECOND]
    assert ch09._ANSWER not in wrong and len(set(wrong)) == 3


def _hint(exercise_id, answer, capsys):
    assert check(exercise_id, answer) is False
    return " ".join(capsys.readouterr().out.split())  # check() may wrap long hints


def test_stable_softmax_hints_name_the_mistake(capsys):
    assert "largest score" in _hint("ch09.stable_softmax", ch09._naive, capsys)
    assert "row's own" in _hint("ch09.stable_softmax", ch09._whole_array_max, capsys)
    assert "columns add up to 1" in _hint("ch09.stable_softmax", ch09._columns, capsys)
    assert "keepdims" in _hint("ch09.stable_softmax", ch09._no_keepdims, capsys)


def test_stable_softmax_does_not_let_numpy_warn(recwarn, capsys):
    check("ch09.stable_softmax", ch09._naive)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_by_hand_hints(capsys):
    assert "add up to" in _hint("ch09.by_hand", np.exp([0.0, 2.0, -1.0]), capsys)
    assert "order" in _hint("ch09.by_hand", np.sort(ch09.BY_HAND), capsys)
    assert "column" in _hint("ch09.most_attended", ch09._COLUMN_MISTAKE, capsys)
