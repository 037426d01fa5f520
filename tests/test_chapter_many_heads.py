"""Chapter 12 (many heads): each grader accepts every right form and names each plausible slip."""

import numpy as np
import pytest
from helpers import said

from attncheck import check
from attncheck import many_heads as ch
from attncheck import many_heads_capstone as cap
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


# --- many_heads.batched_masked: the capstone ---------------------------------------------------


@pytest.mark.parametrize("case", range(len(cap._bm_cases())))
def test_the_capstone_s_reference_is_torch_s_multi_head_attention_with_a_padding_mask(case):
    """The grader's answer for each hidden case is torch's nn.MultiheadAttention with our weights and
    `key_padding_mask` (True for a padded key), and SDPA given the mask as b × 1 × 1 × n."""
    torch = pytest.importorskip("torch")
    X, W_Q, W_K, W_V, W_O, h, mask = cap._bm_cases()[case]
    want, A = cap._bm_solution(X, W_Q, W_K, W_V, W_O, h, mask)
    b, n, d_model = X.shape
    assert A.shape == (b, h, n, n) and np.allclose(A.sum(axis=-1), 1)
    mha = torch.nn.MultiheadAttention(d_model, h, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(np.concatenate([W_Q, W_K, W_V], axis=1).T))
        mha.out_proj.weight.copy_(torch.tensor(W_O.T))
    X_t = torch.tensor(X)
    got, A_t = mha(X_t, X_t, X_t, key_padding_mask=torch.tensor(~mask[:, 0]), average_attn_weights=False)
    assert np.abs(got.detach().numpy() - want).max() < 1e-10
    assert np.abs(A_t.detach().numpy() - A).max() < 1e-10
    assert np.abs(cap._bm_torch(X, W_Q, W_K, W_V, W_O, h, mask).numpy() - want).max() < 1e-10


def test_the_capstone_has_b_equal_h_and_b_unequal_h_cases():
    shapes = [(case[0].shape[0], case[5]) for case in cap._bm_cases()]
    assert any(b == h > 1 for b, h in shapes) and any(b != h and b > 1 and h > 1 for b, h in shapes)
    # b = h: the mask on the wrong axis raises nothing and is wrong; b ≠ h: it cannot broadcast
    X, W_Q, W_K, W_V, W_O, h, mask = cap._bm_cases()[0]
    assert not np.allclose(
        cap._bm_mask_on_heads(X, W_Q, W_K, W_V, W_O, h, mask), cap._bm_output_only(X, W_Q, W_K, W_V, W_O, h, mask)
    )


@pytest.mark.parametrize(
    "fn, words",
    [
        (cap._bm_mask_on_heads, "met the head axis"),
        (cap._bm_mask_on_queries, "padded queries' rows"),
        (cap._bm_no_scale, "√d_k"),
        (cap._bm_scale_d_model, "√d_model"),
        (cap._bm_softmax_down_columns, "down the columns"),
        (cap._bm_heads_reversed, "wrong order"),
        (cap._bm_merge_without_swap, "mixes words of different heads"),
        (cap._bm_mask_after_softmax, "after the softmax"),
        (cap._bm_no_mask, "mask was not used"),
        (cap._bm_no_w_o, "W_O"),
    ],
)
def test_the_capstone_names_each_slip(fn, words, capsys):
    assert bool(check("many_heads.batched_masked", fn)) is False
    assert words in said(capsys)


def test_the_capstone_tells_a_mask_that_cannot_broadcast_where_to_look(capsys):
    def mask_as_given_on_b_unequal_h(X, W_Q, W_K, W_V, W_O, h, mask):
        if X.shape[0] == h:
            return cap._bm_output_only(X, W_Q, W_K, W_V, W_O, h, mask)
        return cap._bm_mask_on_heads(X, W_Q, W_K, W_V, W_O, h, mask)

    assert bool(check("many_heads.batched_masked", mask_as_given_on_b_unequal_h)) is False
    assert "line up your mask" in said(capsys)


def test_the_capstone_accepts_loops_torch_and_the_pair(capsys):
    for fn in (cap._bm_solution, cap._bm_output_only, cap._bm_loops, cap._bm_torch):
        assert bool(check("many_heads.batched_masked", fn)) is True, fn.__name__
    assert bool(check("many_heads.batched_masked", lambda *a: cap._bm_output_only(*a).tolist())) is True
