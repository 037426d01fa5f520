"""Chapter 10's claims: Z = AV is a weighted average of the value rows, and it matches PyTorch."""

import numpy as np
import pytest
from helpers import hint_for, passes
from hypothesis import given, settings
from hypothesis import strategies as st

import attncheck
import attnlib
from attncheck import _self_attention_samples as samples
from attncheck import get
from attncheck import weighted_sum as graders

torch = pytest.importorskip("torch")
F = torch.nn.functional

sizes = st.tuples(st.integers(1, 7), st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.integers(0, 10_000))


def _random_case(n, d_model, d_k, d_v, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d_model))
    return (X, rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v)))


@settings(max_examples=40, deadline=None)
@given(sizes)
def test_every_row_of_z_lies_between_the_value_rows(case):
    X, W_Q, W_K, W_V = _random_case(*case)
    Z, A = attnlib.self_attention(X, W_Q, W_K, W_V)
    V = X @ W_V
    assert Z.shape == (X.shape[0], W_V.shape[1])
    assert np.allclose(A.sum(axis=1), 1.0)
    assert np.all(Z >= V.min(axis=0) - 1e-9) and np.all(Z <= V.max(axis=0) + 1e-9)


@settings(max_examples=40, deadline=None)
@given(sizes, st.booleans())
def test_self_attention_matches_pytorch(case, causal):
    X, W_Q, W_K, W_V = _random_case(*case)
    n = X.shape[0]
    mask = np.tril(np.ones((n, n), dtype=bool)) if causal else None
    Z, _ = attnlib.self_attention(X, W_Q, W_K, W_V, mask=mask)
    Q, K, V = (torch.tensor(X @ W, dtype=torch.float64) for W in (W_Q, W_K, W_V))
    Z_torch = F.scaled_dot_product_attention(Q, K, V, is_causal=causal)
    assert np.abs(Z_torch.numpy() - Z).max() < 1e-10


def test_the_running_example_agrees_with_pytorch_in_float32():
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, W_K, W_V = attnlib.running_lenses()
    Z, _ = attnlib.self_attention(X, W_Q, W_K, W_V)
    Q, K, V = (torch.tensor(X @ W, dtype=torch.float32) for W in (W_Q, W_K, W_V))
    Z_torch = F.scaled_dot_product_attention(Q, K, V)
    assert Z_torch.dtype == torch.float32  # PyTorch computes in the dtype of its inputs
    assert np.abs(Z_torch.numpy() - Z).max() < 1e-6


def test_the_running_example_z_borrows_what_chapter_10_says():
    words = attnlib.words(attnlib.RUNNING_SENTENCE)
    X = attnlib.sentence_matrix(words)
    Z, A = attnlib.self_attention(X, *attnlib.running_lenses())
    sat, kitten = words.index("sat"), words.index("kitten")
    assert np.allclose(Z[sat], [0.72, 0.01, 0.81, 0.13], atol=0.005)
    assert round(float(Z[kitten, 3]), 2) == 0.53
    moved = np.linalg.norm(Z - X, axis=1)
    assert {words[i] for i in np.argsort(moved)[-2:]} == {"sat", "kitten"}


def test_exercise_constants_match_the_text():
    assert np.allclose(graders.A_EX.sum(axis=1), 1.0)
    assert np.allclose(graders.A_EX[graders.ROW] @ graders.V_EX, [0.9, 1.5])
    assert graders.FLOPS_FACTOR == 3  # n doubles (×4 for both products), AV's d_v halves: (4·64 + 2·64) / 128


# --- the graders -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "wrong, words",
    [
        (samples.no_scaling, "not scaled"),
        (samples.divide_by_d_k, "d_k itself"),
        (samples.scale_by_d_model, "√d_model"),
        (samples.softmax_down_columns, "columns"),
        (samples.transposed_scores, "transposed"),
        (samples.no_max_shift, "overflows"),
        (samples.returns_weights, "weights A"),
        (samples.zeroes_W_V, "changed its input W_V"),
        (samples.shifts_X_in_place, "changed its input X"),
        (samples.no_return, "return"),
    ],
)
def test_self_attention_hints_name_the_mistake(wrong, words, capsys):
    hint = hint_for("weighted_sum.self_attention", wrong, capsys)
    if words.startswith("changed its input"):  # attncheck.call may word this itself
        assert "chang" in hint.lower() and "input" in hint, hint
    else:
        assert words in hint, hint


def test_self_attention_hidden_cases_cover_the_space():
    shapes = [(X.shape[0], X.shape[1], W_Q.shape[1], W_V.shape[1]) for X, W_Q, _, W_V in graders._SA_CASES]
    assert any(n == 1 for n, *_ in shapes)
    assert all(d_k != d_v for _, _, d_k, d_v in shapes[:2])
    n, d_model, d_k, d_v = shapes[0]
    assert len({n, d_model, d_k, d_v, np.sqrt(d_model)}) == 5
    with np.errstate(all="ignore"):
        overflowing = [c for c in graders._SA_CASES if not np.isfinite(samples.no_max_shift(*c)).all()]
    assert overflowing, "no hidden case overflows without the max-subtraction"
    # ... and that case is not saturated, so it still tells scaled from unscaled scores apart
    X, W_Q, W_K, W_V = overflowing[0]
    _, A = graders._solution(X, W_Q, W_K, W_V)
    assert A.max() < 0.9


def test_the_learner_cannot_change_the_hidden_cases(capsys):
    before = [tuple(M.copy() for M in case) for case in graders._SA_CASES]
    attncheck.check("weighted_sum.self_attention", samples.zeroes_W_V)
    attncheck.check("weighted_sum.self_attention", samples.shifts_X_in_place)
    for old, case in zip(before, graders._SA_CASES):
        assert all(np.array_equal(a, b) for a, b in zip(old, case))
    assert all(
        np.allclose(want, graders._solution(*case)[0]) for want, case in zip(graders._SA_WANT, graders._SA_CASES)
    )


def test_self_attention_accepts_a_list_pair_and_tensors(capsys):
    passes("weighted_sum.self_attention", lambda *a: list(graders._solution(*a)), capsys)
    passes("weighted_sum.self_attention", lambda *a: torch.as_tensor(graders._solution(*a)[0]), capsys)
    passes(
        "weighted_sum.self_attention", lambda *a: torch.as_tensor(graders._solution(*a)[0]).to(torch.float32), capsys
    )


def test_self_attention_demands_the_value_error(capsys):
    def no_check(X, W_Q, W_K, W_V):
        if W_Q.shape[0] != X.shape[1]:
            return np.zeros((X.shape[0], W_V.shape[1]))
        return graders._solution(X, W_Q, W_K, W_V)

    assert "ValueError" in hint_for("weighted_sum.self_attention", no_check, capsys)


def test_what_changes_hints_never_name_the_answer(capsys):
    for wrong in get("weighted_sum.what_changes").wrong:
        hint = hint_for("weighted_sum.what_changes", wrong, capsys)
        assert "Z" not in hint.replace("Z = AV", ""), hint
    assert "not one of" in hint_for("weighted_sum.what_changes", ["V", "W"], capsys)
    assert "names nothing" in hint_for("weighted_sum.what_changes", [], capsys)


def test_flops_hints_never_fill_in_the_formula(capsys):
    for wrong in get("weighted_sum.flops").wrong + [1, 10**12]:
        hint = hint_for("weighted_sum.flops", wrong, capsys)
        assert "2000" not in hint and "2,000" not in hint and "2·n²" not in hint, hint
        assert "3" not in hint, hint  # no hint gives the factor away


def test_flops_names_each_slip_and_a_count_is_not_a_factor(capsys):
    assert "upside down" in hint_for("weighted_sum.flops", 1 / 3, capsys)
    assert "halved d_v" in hint_for("weighted_sum.flops", 4, capsys)
    assert "d_k stayed 64" in hint_for("weighted_sum.flops", 2, capsys)
    assert "n²" in hint_for("weighted_sum.flops", 1.5, capsys)
    assert "count of FLOPs" in hint_for("weighted_sum.flops", 1_536_000_000, capsys)


def test_self_attention_rejects_a_shift_by_the_whole_matrix_max(capsys):
    hint = hint_for("weighted_sum.self_attention", graders._global_max_shift, capsys)
    assert "whole matrix" in hint and "+1,000" in hint, hint


def test_z_row_and_self_attention_name_the_slips_of_the_review(capsys):
    assert "row 2" in hint_for("weighted_sum.z_row", [1.3, 1.3], capsys)
    assert "A transposed" in hint_for("weighted_sum.self_attention", samples.blends_with_transpose, capsys)
    assert "√d_v" in hint_for("weighted_sum.self_attention", samples.scale_by_d_v, capsys)
    assert "weighted_sum.causal_mask" not in attncheck.exercise_ids()  # the causal mask is chapter 11's


def test_z_row_accepts_bfloat16(capsys):
    passes("weighted_sum.z_row", torch.tensor([0.9, 1.5], dtype=torch.bfloat16), capsys)


def test_before_after_draws_x_above_z_with_words_in_their_colours():
    import matplotlib.pyplot as plt

    from attnlib import plot

    words = attnlib.words(attnlib.RUNNING_SENTENCE)
    X = attnlib.sentence_matrix(words)
    Z, _ = attnlib.self_attention(X, *attnlib.running_lenses())
    fig = plot.before_after(X, Z, words, attnlib.FEATURES)
    top, bottom = fig.axes[:2]
    assert "$X$" in top.get_title() and "$Z = AV$" in bottom.get_title()
    labels = bottom.get_yticklabels()
    assert [t.get_text() for t in labels] == words
    assert labels[1].get_color() == plot.word_colour("kitten")
    assert [t.get_text() for t in bottom.texts][2 * 4 : 3 * 4] == ["0.72", "0.01", "0.81", "0.13"]
    fig.canvas.draw()
    plt.close(fig)


def test_softmax_shares_draws_one_bar_per_word_even_when_a_word_repeats():
    import matplotlib.pyplot as plt

    from attnlib import plot

    words = attnlib.words(attnlib.RUNNING_SENTENCE)
    fig = plot.softmax_shares(np.arange(6.0), words)
    assert all(len(ax.patches) == len(words) for ax in fig.axes)
    plt.close(fig)
