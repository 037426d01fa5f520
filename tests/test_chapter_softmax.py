"""Chapter 9: the running example's A is sharp where the text says, and the softmax graders catch each slip."""

import numpy as np
import pytest
from helpers import hint_for, passes

import attnlib
from attncheck import check, get
from attncheck import softmax as graders

WORDS = attnlib.words(attnlib.RUNNING_SENTENCE)


# --- the running example, as chapter 9 shows it ----------------------------------------


def test_the_running_example_has_a_sharp_row_on_the_word_the_text_names():
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    _, A = attnlib.self_attention(X, *attnlib.running_lenses())
    assert np.allclose(A, graders.running_attention()[1])
    assert np.allclose(A.sum(axis=-1), 1)
    sat, kitten = WORDS.index("sat"), WORDS.index("kitten")
    assert A[sat].argmax() == kitten and round(float(A[sat, kitten]), 2) == 0.89
    assert A[kitten].argmax() == sat and round(float(A[kitten, sat]), 2) == 0.53
    assert WORDS[int(A.max(axis=1).argmax())] == "sat"  # the sharpest row of all


def test_mat_looks_for_nothing_so_its_row_is_the_even_share():
    W_Q, _, _ = attnlib.running_lenses()
    q_mat = attnlib.embed("mat") @ W_Q
    assert np.allclose(q_mat, 0)
    _, A = graders.running_attention()
    assert np.allclose(A[WORDS.index("mat")], 1 / len(WORDS))


def test_doubling_every_score_leaves_only_the_row_of_mat_unchanged():
    scaled, A = graders.running_attention()
    changed = ~np.all(np.isclose(attnlib.softmax(2 * scaled), A), axis=1)
    assert [w for w, c in zip(WORDS, changed) if not c] == ["mat"]
    assert check("softmax.doubled", "mat")  # the checker agrees with the computation


# --- softmax.by_hand -------------------------------------------------------------------------


def test_by_hand_accepts_tensors_of_any_float_dtype(capsys):
    torch = pytest.importorskip("torch")
    for dtype in (torch.float64, torch.float32, torch.float16, torch.bfloat16):
        passes("softmax.by_hand", torch.tensor(graders.BY_HAND.tolist(), dtype=dtype), capsys)


def test_by_hand_hints_name_the_mistake(capsys):
    assert "add up to" in hint_for("softmax.by_hand", np.exp([0.0, 2.0, -1.0]), capsys)
    assert "order" in hint_for("softmax.by_hand", np.sort(graders.BY_HAND), capsys)
    assert "order" in hint_for("softmax.by_hand", graders.BY_HAND[::-1], capsys)
    assert "rounded too coarsely" in hint_for("softmax.by_hand", [0.11, 0.84, 0.04], capsys)
    assert "Equal shares" in hint_for("softmax.by_hand", [1 / 3] * 3, capsys)
    assert "three in all" in hint_for("softmax.by_hand", [0.114, 0.844], capsys)


# --- softmax.gap ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer, says",
    [
        (0.4, "WEIGHTS"),
        (3, "undo the e"),
        (-graders.GAP, "sign"),
        (np.log10(3), "base-10"),
        (np.exp(3), "other way round"),
        (2, "Subtracting"),
    ],
)
def test_gap_hints_name_the_slip(answer, says, capsys):
    assert says in hint_for("softmax.gap", answer, capsys)


def test_gap_is_what_softmax_does_whatever_the_other_scores():
    for others in ([0.0], [5.0, -3.0], []):
        w = attnlib.softmax(np.array([graders.GAP + 1.7, 1.7, *others]))
        assert np.isclose(w[0] / w[1], 0.6 / 0.2)


def test_gap_accepts_two_decimals_as_the_statement_says(capsys):
    passes("softmax.gap", 1.10, capsys)
    passes("softmax.gap", round(graders.GAP, 3), capsys)


# --- softmax.stable_softmax -------------------------------------------------------------------


@pytest.mark.parametrize(
    "wrong, words",
    [
        (graders._naive, "inf or nan"),
        (graders._whole_array_max, "whole array's largest"),
        (graders._mean_shift, "mean"),
        (graders._columns, "columns add up to 1"),
        (graders._axis_one, "axis=-1"),
        (graders._no_keepdims, "keepdims"),
        (graders._in_place, "changed its input"),
        (graders._no_return, "return"),
    ],
)
def test_stable_softmax_hints_name_the_mistake(wrong, words, capsys):
    hint = hint_for("softmax.stable_softmax", wrong, capsys)
    if words == "changed its input":  # attncheck.call may word this itself
        assert "input" in hint and "chang" in hint.lower(), hint
    else:
        assert words in hint, hint


def test_stable_softmax_catches_a_softmax_without_the_max_even_on_one_row(capsys):
    def naive_rows_only(x):  # right on every input that cannot overflow
        e = np.exp(x)
        return e / e.sum(axis=-1, keepdims=True)

    assert bool(check("softmax.stable_softmax", naive_rows_only)) is False
    assert all(np.isfinite(graders._stable(x)).all() for x in graders._STABLE_CASES)
    with np.errstate(all="ignore"):
        overflowing = [x for x in graders._STABLE_CASES if not np.isfinite(naive_rows_only(x)).all()]
    assert len(overflowing) >= 3


def test_stable_softmax_hidden_cases_include_non_square_one_row_and_one_column_inputs():
    shapes = {x.shape for x in graders._STABLE_CASES}
    assert any(len(s) == 1 for s in shapes)
    assert (1, 3) in shapes and (3, 1) in shapes
    assert any(len(s) == 2 and s[0] != s[1] and s[0] > 1 and s[1] > 1 for s in shapes)


def test_stable_softmax_accepts_a_softmax_that_returns_a_list_or_a_tensor(capsys):
    passes("softmax.stable_softmax", lambda x: graders._stable(x).tolist(), capsys)
    torch = pytest.importorskip("torch")
    passes("softmax.stable_softmax", lambda x: torch.softmax(torch.as_tensor(x), dim=-1), capsys)


def test_stable_softmax_does_not_let_numpy_warn(recwarn, capsys):
    for wrong in get("softmax.stable_softmax").wrong:
        check("softmax.stable_softmax", wrong)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_the_learner_cannot_change_the_hidden_cases(capsys):
    before = [x.copy() for x in graders._STABLE_CASES]
    check("softmax.stable_softmax", graders._in_place)
    assert all(np.array_equal(a, b) for a, b in zip(before, graders._STABLE_CASES))


# --- softmax.doubled --------------------------------------------------------------------------


def test_doubled_hints_explain_without_naming_the_answer(capsys):
    for answer in get("softmax.doubled").wrong:
        hint = hint_for("softmax.doubled", answer, capsys)
        assert "mat" not in hint.lower(), hint
    assert "gaps" in hint_for("softmax.doubled", "sat", capsys)
    assert "fair guess" not in hint_for("softmax.doubled", "kitten", capsys)
    assert "not a word of the sentence" in hint_for("softmax.doubled", "puppy", capsys)
    assert len(hint_for("softmax.doubled", "x" * 20_000, capsys)) < 300


# --- every chapter 9 grader follows the contract ----------------------------------------
