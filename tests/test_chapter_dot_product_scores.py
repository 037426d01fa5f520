"""Chapter 7: the dot-product figure and the graders of the score-matrix exercises."""

import numpy as np
import pytest
from helpers import said

import attncheck
import attnlib
from attncheck import check, get
from attnlib import plot

IDS = [i for i in attncheck.exercise_ids() if i.startswith("dot_product_scores.")]
WORD_ANSWERS = {
    "dot_product_scores.changed_key",
    "dot_product_scores.most_aligned",
}  # answered with words, so text is not junk there
ALL = [i for i in attncheck.exercise_ids() if i.startswith(("dot_product_scores.", "scaling."))]


def verdict(exercise_id, answer, capsys):
    ok = check(exercise_id, answer)
    return ok, said(capsys)


def test_chapter_7_has_its_exercises():
    assert set(IDS) >= {
        "dot_product_scores.dots_by_hand",
        "dot_product_scores.score_cell",
        "dot_product_scores.most_aligned",
        "dot_product_scores.changed_key",
        "dot_product_scores.key_design",
        "dot_product_scores.doubling",
        "dot_product_scores.distance",
    }


@pytest.mark.parametrize("exercise_id", ALL)
def test_registration_meets_the_contract(exercise_id):
    ex = get(exercise_id)
    assert len(ex.right) >= 3 and len(ex.wrong) >= 4
    assert ex.catches and ex.solution


@pytest.mark.parametrize("exercise_id", ALL)
def test_no_hint_gives_the_solution_away_and_every_hint_starts_with_a_capital(exercise_id, capsys):
    ex = get(exercise_id)
    for answer in ex.wrong:
        ok, out = verdict(exercise_id, answer, capsys)
        assert not ok
        hint = out.removeprefix("✗ Not yet. ")
        assert hint[:1].isupper(), out
        flat = " ".join(out.split())
        assert ex.solution not in flat
        assert len(out) < 400, f"hint floods the screen: {len(out)} characters"


@pytest.mark.parametrize("exercise_id", ALL)
def test_the_solution_line_is_in_the_notebook(exercise_id):
    from helpers import solution_codes

    chapter = "07_dot_product_scores" if exercise_id.startswith("dot_product_scores.") else "08_scaling"
    solutions = solution_codes(f"chapters/{chapter}.ipynb")
    assert any(get(exercise_id).solution in s for s in solutions)


@pytest.mark.parametrize("exercise_id", ALL)
def test_text_complex_ragged_and_huge_answers_are_named(exercise_id, capsys):
    for answer, word in [
        ([["2", "9"], ["16", "-5"]], "text"),
        ("x" * 20_000, ""),
        ([[1, 2], [3]], ""),
        (np.array([1 + 2j, 3]), ""),
    ]:
        ok, out = verdict(exercise_id, answer, capsys)
        assert not ok and out.startswith("✗") and len(out) < 400
        assert "Traceback" not in out and "Checking your answer raised" not in out, out
        if exercise_id not in WORD_ANSWERS:
            assert word in out


@pytest.mark.parametrize(
    "answer, says",
    [
        ([[3, 2, -1], [1, 0, -1], [-2, -2, 0]], "add up"),
        ([4, 0, 4], "sign"),
        ([-4, 0, 4], "reverse order"),
        ([4, 0], "three numbers"),
        ([6, 2, -4], "last entry of q"),
    ],
)
def test_dots_by_hand_hints(answer, says, capsys):
    ok, out = verdict("dot_product_scores.dots_by_hand", answer, capsys)
    assert not ok and says in out


@pytest.mark.parametrize(
    "answer, says",
    [
        (13, "how many times"),
        (40, "subtracted"),
        (2, "SQUARED"),
        (22, "dot product enters"),
        (-4, "cannot be negative"),
    ],
)
def test_distance_hints_name_the_slip(answer, says, capsys):
    ok, out = verdict("dot_product_scores.distance", answer, capsys)
    assert not ok and says in " ".join(out.split())


def test_distance_answer_is_the_identity_on_a_real_pair():
    from attncheck import dot_product_scores as graders

    q, k = np.array([2.0, 1.0]), np.array([4.0, 1.0])
    assert (q @ q, k @ k, q @ k) == (graders.Q_SQ, graders.K_SQ, graders.QK)
    assert np.isclose(np.sum((q - k) ** 2), graders.DISTANCE_SQ)


@pytest.mark.parametrize("answer, says", [(-2, "swapped"), (4, "Count from 0"), (3, "S[2, 2]"), (0, "KEY")])
def test_score_cell_hints(answer, says, capsys):
    ok, out = verdict("dot_product_scores.score_cell", answer, capsys)
    assert not ok and says in out


@pytest.mark.parametrize(
    "answer", [("column", 2), ["COLUMN", 2], "column 2", "(column, 2)", ("cols", np.int64(2)), ("column", 2.0)]
)
def test_changed_key_accepts_every_spelling_of_column_2(answer, capsys):
    assert check("dot_product_scores.changed_key", answer)


@pytest.mark.parametrize(
    "answer, says",
    [
        (("row", 2), "QUERY"),
        (("column", 3), "Count from 0"),
        (("column", 1), "'kitten'"),
        (("column", 9), "not a column"),
        (("column", 2.5), "whole number"),
        (("diagonal", 2), 'row" or'),
    ],
)
def test_changed_key_hints(answer, says, capsys):
    ok, out = verdict("dot_product_scores.changed_key", answer, capsys)
    assert not ok and says in out


def test_changed_key_is_what_the_code_shows():
    """Changing sat's key changes cells of column 2 only: the registered answer is the true one."""
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, W_K, _ = attnlib.running_lenses()
    Q, K = X @ W_Q, X @ W_K
    K_new = K.copy()
    K_new[2] = [-1.0, 3.0]
    moved = np.argwhere(~np.isclose(Q @ K_new.T, Q @ K.T))
    assert set(moved[:, 1]) == {2} and len(moved) >= 4


def _sat_row(W_K):
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, _, _ = attnlib.running_lenses()
    return (X @ W_Q)[2] @ (X @ np.asarray(W_K, dtype=float)).T


def test_key_design_accepts_every_valid_design_and_rejects_every_invalid_one(capsys):
    """The grader checks the property: sat's highest score is at mat, strictly."""
    rng = np.random.default_rng(7)
    accepted = rejected = 0
    for _ in range(300):
        W = rng.normal(0, 3, size=(4, 2)).round(1)
        row = _sat_row(W)
        valid = row[5] > np.delete(row, 5).max() + 1e-9
        assert check("dot_product_scores.key_design", W) == bool(valid), (W, row)
        accepted += valid
        rejected += not valid
    capsys.readouterr()
    assert accepted > 10 and rejected > 10


def test_key_design_hints(capsys):
    W_Q, W_K, _ = attnlib.running_lenses()
    ok, out = verdict("dot_product_scores.key_design", W_K, capsys)
    assert not ok and "'kitten'" in out
    ok, out = verdict("dot_product_scores.key_design", np.zeros((4, 2)), capsys)
    assert not ok and "ties" in out
    ok, out = verdict("dot_product_scores.key_design", np.zeros((2, 4)), capsys)
    assert not ok and "swapped" in out
    ok, out = verdict("dot_product_scores.key_design", np.zeros((4, 4)), capsys)
    assert not ok and "d_k" in out


def test_key_design_grader_keeps_its_own_copies(capsys):
    """A learner who overwrites the running example's lenses cannot change what the grader expects."""
    W_Q, W_K, _ = attnlib.running_lenses()
    W_Q[:] = 0
    from attncheck import dot_product_scores as graders

    assert not np.shares_memory(graders._W_Q, W_Q)
    assert not check("dot_product_scores.key_design", np.zeros((4, 2)))  # still a tie, not a pass


def test_doubling_hints(capsys):
    for answer, says in [
        ((2, 2), "second is off"),
        ((4, 2), "swapped"),
        ((1, 2), "Both factors are off"),
        ((4, 4), "first factor is off"),
    ]:
        ok, out = verdict("dot_product_scores.doubling", answer, capsys)
        assert not ok and says in out


def test_doubling_answer_is_what_the_code_shows():
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, W_K, _ = attnlib.running_lenses()
    S = (X @ W_Q) @ (X @ W_K).T
    S_q = (X @ (2 * W_Q)) @ (X @ W_K).T
    S_both = (X @ (2 * W_Q)) @ (X @ (2 * W_K)).T
    mask = S != 0
    ratios = (
        float(np.unique((S_q[mask] / S[mask]).round(9))[0]),
        float(np.unique((S_both[mask] / S[mask]).round(9))[0]),
    )
    assert check("dot_product_scores.doubling", ratios)


def test_running_example_is_not_symmetric_and_the_numbers_are_the_chapters():
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, W_K, _ = attnlib.running_lenses()
    S = (X @ W_Q) @ (X @ W_K).T
    assert S[2, 1] == pytest.approx(5.80) and S[1, 2] == pytest.approx(2.96)
    assert not np.allclose(S, S.T)


def test_dot_projection_draws_one_panel_per_pair_with_word_colours():
    v = attnlib.VOCAB_2D
    fig = plot.dot_projection(
        [("kitten", v["kitten"], "kitten", v["kitten"]), ("kitten", v["kitten"], "cat", v["cat"])]
    )
    axes = fig.axes
    assert len(axes) == 2
    titles = [ax.get_title() for ax in axes]
    assert "7.40" in titles[0] and "8.20" in titles[1] and "3.01" in titles[1]
    colours = {t.get_color() for t in axes[1].texts}
    assert plot.word_colour("cat") in colours and plot.word_colour("kitten") in colours
    assert all("_" not in t.get_text() or "$" in t.get_text() for ax in axes for t in ax.texts)


def test_word_ticks_colour_the_words_and_leave_other_labels_alone():
    fig = plot.word_ticks(plot.heatmap(np.eye(3), ["kitten", "sat", "row 2"], ["kitten", "sat", "row 2"]))
    labels = fig.axes[0].get_yticklabels()
    assert labels[0].get_color() == plot.word_colour("kitten")
    assert labels[1].get_color() == plot.word_colour("sat")
    assert labels[2].get_color() != plot.word_colour("row 2")


def test_cosine_triangle_draws_q_k_and_the_side_q_minus_k_joining_their_tips():
    import matplotlib.pyplot as plt

    q, k = np.array([1.0, 1.0]), np.array([1.0, 0.2])
    fig = plot.cosine_triangle(q, k)
    ax = fig.axes[0]
    ends = [(tuple(np.round(p._posA_posB[0], 6)), tuple(np.round(p._posA_posB[1], 6))) for p in ax.patches]
    assert ends == [((0, 0), (1, 1)), ((0, 0), (1, 0.2)), ((1, 0.2), (1, 1))]  # q, k, and q − k from k's tip to q's
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "θ" in texts and "1.41" in texts and "1.02" in texts and "0.80" in texts  # |q|, |k|, |q − k|
    plt.close(fig)
