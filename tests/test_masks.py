"""Chapter 11's masks: the right pattern, attnlib.attention agrees with torch's attn_mask and is_causal."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlib
from attnlib.masks import apply_mask, causal_mask, hide, padding_mask

torch = pytest.importorskip("torch")
F = torch.nn.functional


def test_causal_mask_is_the_lower_triangle_with_the_diagonal():
    assert causal_mask(1).tolist() == [[True]]
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]
    assert causal_mask(5).dtype == bool


def test_padding_mask_marks_the_real_words_of_each_sentence():
    mask = padding_mask([3, 1], 4)
    assert mask.shape == (2, 1, 4) and mask.dtype == bool
    assert mask[:, 0].tolist() == [[True, True, True, False], [True, False, False, False]]
    assert padding_mask(np.array([2]), 2).tolist() == [[[True, True]]]


def test_masks_follow_a_torch_tensor_onto_its_kind():
    like = torch.zeros(2, dtype=torch.float64)
    c, p = causal_mask(3, like=like), padding_mask(torch.tensor([2, 1]), 3, like=like)
    assert isinstance(c, torch.Tensor) and c.dtype == torch.bool and c.tolist() == causal_mask(3).tolist()
    assert isinstance(p, torch.Tensor) and p.tolist() == padding_mask([2, 1], 3).tolist()


def test_bad_arguments_get_clear_errors():
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        padding_mask([[1, 2], [2, 1]], 3)
    with pytest.raises(ValueError, match=r"length of 5.*n = 4"):
        padding_mask([2, 5], 4)
    with pytest.raises(ValueError, match="at least 1"):
        causal_mask(0)
    with pytest.raises(TypeError):
        causal_mask(2.5)
    with pytest.raises(ValueError, match="negative"):
        padding_mask([2, -1], 3)


def test_a_mask_of_the_wrong_shape_names_both_shapes():
    Q = np.ones((3, 2))
    with pytest.raises(ValueError, match=r"\(4, 4\).*\(3, 3\)"):
        attnlib.attention(Q, Q, Q, mask=causal_mask(4))


def test_a_row_with_every_key_masked_is_refused():
    Q = np.ones((2, 2))
    with pytest.raises(ValueError, match="all False"):
        attnlib.attention(Q, Q, Q, mask=np.array([[True, False], [False, False]]))
    with pytest.raises(ValueError, match="all False"):
        attnlib.attention(Q[None], Q[None], Q[None], mask=padding_mask([0], 2))


cases = st.tuples(st.integers(1, 6), st.integers(1, 4), st.integers(1, 4), st.integers(0, 10_000))


@settings(max_examples=30, deadline=None)
@given(cases)
def test_causal_attention_matches_torch_is_causal_and_attn_mask(case):
    n, d_k, d_v, seed = case
    rng = np.random.default_rng(seed)
    Q, K, V = rng.normal(size=(n, d_k)) * 3, rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
    Z, A = attnlib.attention(Q, K, V, mask=causal_mask(n))
    Qt, Kt, Vt = (torch.tensor(M) for M in (Q, K, V))
    assert np.abs(F.scaled_dot_product_attention(Qt, Kt, Vt, is_causal=True).numpy() - Z).max() < 1e-10
    by_mask = F.scaled_dot_product_attention(Qt, Kt, Vt, attn_mask=torch.as_tensor(causal_mask(n)))
    assert np.abs(by_mask.numpy() - Z).max() < 1e-10
    assert np.all(A[~causal_mask(n)] == 0) and np.allclose(A.sum(-1), 1)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.integers(0, 10_000))
def test_padded_batch_matches_torch_and_ignores_the_padding(lengths, seed):
    rng = np.random.default_rng(seed)
    n, d = max(lengths) + 1, 3
    X = rng.normal(size=(len(lengths), n, d))
    mask = padding_mask(lengths, n)
    Z, A = attnlib.attention(X, X, X, mask=mask)
    Xt = torch.tensor(X)
    Z_torch = F.scaled_dot_product_attention(Xt, Xt, Xt, attn_mask=torch.as_tensor(mask))
    assert np.abs(Z_torch.numpy() - Z).max() < 1e-10
    for b, length in enumerate(lengths):  # each sentence alone gives the same rows for its real words
        alone, _ = attnlib.attention(X[b, :length], X[b, :length], X[b, :length])
        assert np.abs(Z[b, :length] - alone).max() < 1e-10
        assert np.all(A[b, :, length:] == 0)


def test_masks_work_on_torch_tensors_through_attention():
    Q = torch.randn(4, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    Z, A = attnlib.attention(Q, Q, Q, mask=causal_mask(4, like=Q))
    assert isinstance(Z, torch.Tensor)
    assert torch.allclose(Z, F.scaled_dot_product_attention(Q, Q, Q, is_causal=True), atol=1e-12)


# --- apply_mask (a copy) and hide (in place) share one check ----------------------------


@pytest.mark.parametrize("make", [np.array, torch.tensor])
def test_apply_mask_copies_and_hide_overwrites(make):
    S = make([[1.0, 2.0], [3.0, 4.0]])
    before = S.clone() if isinstance(S, torch.Tensor) else S.copy()
    mask = causal_mask(2, like=S)
    masked = apply_mask(S, mask)
    assert np.asarray(masked).tolist() == [[1.0, -np.inf], [3.0, 4.0]]
    assert np.asarray(S).tolist() == np.asarray(before).tolist()  # apply_mask left S alone
    assert hide(S, mask) is S
    assert np.asarray(S).tolist() == [[1.0, -np.inf], [3.0, 4.0]]


@pytest.mark.parametrize("masker", [apply_mask, hide])
def test_both_refuse_the_same_bad_masks(masker):
    S = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"\(2, 2\).*\(3, 3\)"):
        masker(S, causal_mask(2))
    with pytest.raises(TypeError, match="boolean"):
        masker(S, np.ones((3, 3)))
    with pytest.raises(ValueError, match="all False"):
        masker(S, np.zeros((3, 3), bool))
    assert np.all(S == 0)  # a refused mask changes nothing


def test_a_mask_broadcasts_over_a_batch_of_scores():
    S = np.zeros((2, 3, 3))
    assert np.isinf(apply_mask(S, causal_mask(3))).sum() == 2 * 3
    assert np.isinf(apply_mask(S, padding_mask([3, 1], 3))).sum() == 3 * 2
