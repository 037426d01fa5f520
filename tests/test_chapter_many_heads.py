"""Chapter 12 (many heads): each grader accepts every right form and names each plausible slip."""

import numpy as np
import pytest
from helpers import said

from attncheck import check
from attncheck import many_heads as ch
from attnlib.heads import split_heads


def test_split_shape_is_what_the_library_gives():
    assert tuple(split_heads(np.zeros((2, 10, 512)), 8).shape) == ch.SPLIT_SHAPE
    torch = pytest.importorskip("torch")
    assert bool(check("many_heads.split_shape", torch.Size(ch.SPLIT_SHAPE))) is True


@pytest.mark.parametrize(
    "answer, words",
    [
        ((2, 10, 8, 64), "before the swap"),
        ((2, 8, 10, 512), "d_k = d_model / h"),
        ((16, 10, 64), "folds"),
        ((8, 2, 10, 64), "batch axis stays first"),
        ((2, 8, 64, 10), "n comes before d_k"),
        ((2, 10, 64), "four axes"),
    ],
)
def test_split_shape_hints(answer, words, capsys):
    assert bool(check("many_heads.split_shape", answer)) is False
    assert words in said(capsys)


@pytest.mark.parametrize(
    "fn, words",
    [
        (ch._mh_no_w_o, "W_O"),
        (ch._mh_reshape_without_swap, "cuts the rows"),
        (ch._mh_merge_without_swap, "swap the axes back"),
        (ch._mh_scale_d_model, "√d_k"),
        (ch._mh_one_head, "h in the arguments"),
        (ch._mh_softmax_over_heads, "across the heads"),
        (ch._mh_zeroes_w_v, "changed its input"),
        (ch._mh_no_return, "return"),
    ],
)
def test_multi_head_hints(fn, words, capsys):
    assert bool(check("many_heads.multi_head", fn)) is False
    assert words in said(capsys)


def test_multi_head_accepts_tuple_list_and_output_only(capsys):
    assert bool(check("many_heads.multi_head", lambda *a: list(ch._mh_solution(*a)))) is True
    assert bool(check("many_heads.multi_head", ch._mh_output_only)) is True
    assert bool(check("many_heads.multi_head", lambda *a: ch._mh_output_only(*a).tolist())) is True


def test_multi_head_cases_cover_the_edges():
    sizes = ch.MH_SIZES
    assert any(n == 1 for n, _, _ in sizes) and any(h == 1 for _, _, h in sizes)
    assert any(h == d for _, d, h in sizes) and any(n != d for n, d, _ in sizes)
    assert all(d % h == 0 for _, d, h in sizes)


def test_the_learner_cannot_reach_the_expected_answers(capsys):
    def vandal(X, W_Q, W_K, W_V, W_O, h):  # returns zeros and zeroes every array it can reach
        for value in vars(ch).values():
            if isinstance(value, np.ndarray):
                value[...] = 0
        return np.zeros_like(X)

    assert bool(check("many_heads.multi_head", vandal)) is False
    assert bool(check("many_heads.multi_head", ch._mh_solution)) is True


@pytest.mark.parametrize(
    "answer, words",
    [
        ((1, 2), "d_model is fixed"),
        ((4, 2), "projections"),
        ((0.5, 0.5), "upside down"),
        ((2, 1), "second is off"),
        ((1, 1), "Both factors are off"),
        ((3, 2), "first factor is off"),
        ((2 * 1000**2 * 64 * 8, 2 * 1000**2 * 64 * 16), "look like counts"),
        (2, "two ordinary numbers"),
    ],
)
def test_score_flops_hints(answer, words, capsys):
    assert bool(check("many_heads.score_flops", answer)) is False
    out = said(capsys)
    assert words in out and "(2, 2)" not in out


def test_score_flops_more_heads_at_a_fixed_d_k_double_both():
    assert ch.SCORE_FACTORS == (2, 2) and ch.D_K_COST * ch.H_TO == 1024


def test_multi_head_rejects_a_softmax_without_each_rows_max(capsys):
    for wrong in (ch._mh_no_max_shift, ch._mh_global_max_shift):
        assert bool(check("many_heads.multi_head", wrong)) is False
        assert "own largest score" in said(capsys)


def test_transposing_a_whole_stack_gets_a_hint_not_numpy_internals(capsys):
    assert bool(check("many_heads.multi_head", ch._mh_stack_dot_T)) is False
    out = capsys.readouterr().out.replace("\n  ", " ")
    assert "last two axes" in out and "gufunc" not in out


def test_a_batch_with_its_batch_and_word_axes_swapped_gets_the_batch_first_rule(capsys):
    assert bool(check("many_heads.split_shape", (10, 2, 8, 64))) is False
    assert "batch axis stays first" in capsys.readouterr().out.replace("\n  ", " ")
