"""Chapter 12's multi-head attention equals torch.nn.MultiheadAttention to 1e-10 in float64."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlib
from attnlib.heads import merge_heads, multi_head_attention, split_heads
from attnlib.masks import causal_mask, padding_mask

torch = pytest.importorskip("torch")


def _weights(d_model, h, d_head, seed):
    rng = np.random.default_rng(seed)
    width = h * d_head
    return (
        rng.normal(size=(d_model, width)),
        rng.normal(size=(d_model, width)),
        rng.normal(size=(d_model, width)),
        rng.normal(size=(width, d_model)),
    )


def _torch_mha(W_Q, W_K, W_V, W_O, h):
    """torch's module holding our weights: in_proj_weight = [W_Q; W_K; W_V]ᵀ, out_proj.weight = W_Oᵀ."""
    d_model = W_Q.shape[0]
    mha = torch.nn.MultiheadAttention(d_model, h, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(np.concatenate([W_Q, W_K, W_V], axis=1).T))
        mha.out_proj.weight.copy_(torch.tensor(W_O.T))
    return mha


def test_split_then_merge_gives_back_the_matrix_and_heads_are_column_blocks():
    M = np.arange(24.0).reshape(3, 8)
    parts = split_heads(M, 2)
    assert parts.shape == (2, 3, 4)
    assert np.array_equal(parts[1], M[:, 4:])
    assert np.array_equal(merge_heads(parts), M)
    batched = np.arange(48.0).reshape(2, 3, 8)
    assert split_heads(batched, 4).shape == (2, 4, 3, 2)
    assert np.array_equal(merge_heads(split_heads(batched, 4)), batched)


def test_one_head_is_plain_self_attention():
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, W_K, W_V = attnlib.running_lenses()
    out, A = multi_head_attention(X, W_Q, W_K, W_V, np.eye(4), h=1)
    Z, A1 = attnlib.self_attention(X, W_Q, W_K, W_V)
    assert A.shape == (1, 6, 6)
    assert np.allclose(out, Z) and np.allclose(A[0], A1)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 6), st.sampled_from([(4, 1), (4, 2), (4, 4), (6, 3), (8, 2)]), st.booleans(), st.integers(0, 10_000)
)
def test_matches_torch_multihead_attention_in_float64(n, sizes, causal, seed):
    d_model, h = sizes
    W_Q, W_K, W_V, W_O = _weights(d_model, h, d_model // h, seed)
    X = np.random.default_rng(seed + 1).normal(size=(n, d_model))
    mask = causal_mask(n) if causal else None
    out, A = multi_head_attention(X, W_Q, W_K, W_V, W_O, h, mask=mask)
    mha = _torch_mha(W_Q, W_K, W_V, W_O, h)
    Xt = torch.tensor(X)
    torch_mask = torch.as_tensor(~causal_mask(n)) if causal else None  # torch's MHA: True = may NOT attend
    out_t, A_t = mha(Xt, Xt, Xt, attn_mask=torch_mask, need_weights=True, average_attn_weights=False)
    assert out.shape == (n, d_model) and A.shape == (h, n, n)
    assert np.abs(out_t.detach().numpy() - out).max() < 1e-10
    assert np.abs(A_t.detach().numpy() - A).max() < 1e-10


def test_padded_batch_matches_torch_key_padding_mask():
    W_Q, W_K, W_V, W_O = _weights(6, 3, 2, seed=5)
    X = np.random.default_rng(6).normal(size=(3, 4, 6))
    lengths = [4, 2, 1]
    out, A = multi_head_attention(X, W_Q, W_K, W_V, W_O, 3, mask=padding_mask(lengths, 4))
    mha = _torch_mha(W_Q, W_K, W_V, W_O, 3)
    Xt = torch.tensor(X)
    ignore = torch.as_tensor(~padding_mask(lengths, 4)[:, 0])  # (batch, n), True = padding
    out_t, A_t = mha(Xt, Xt, Xt, key_padding_mask=ignore, need_weights=True, average_attn_weights=False)
    assert A.shape == (3, 3, 4, 4)
    assert np.abs(out_t.detach().numpy() - out).max() < 1e-10
    assert np.abs(A_t.detach().numpy() - A).max() < 1e-10


def test_torch_tensors_in_torch_tensors_out():
    W = [torch.tensor(M) for M in _weights(4, 2, 2, seed=1)]
    X = torch.tensor(np.random.default_rng(2).normal(size=(5, 4)))
    out, A = multi_head_attention(X, *W, h=2, mask=causal_mask(5, like=X))
    out_np, _ = multi_head_attention(X.numpy(), *(w.numpy() for w in W), h=2, mask=causal_mask(5))
    assert isinstance(out, torch.Tensor) and A.shape == (2, 5, 5)
    assert np.abs(out.numpy() - out_np).max() < 1e-12


def test_shape_errors_name_both_shapes():
    W_Q, W_K, W_V, W_O = _weights(4, 2, 2, seed=0)
    X = np.ones((3, 4))
    with pytest.raises(ValueError, match=r"\(4, 4\).*\(4, 2\)"):
        multi_head_attention(X, W_Q, W_K[:, :2], W_V, W_O, 2)
    with pytest.raises(ValueError, match=r"\(4, 4\).*\(3, 4\)"):
        multi_head_attention(X, W_Q, W_K, W_V, W_O[:3], 2)
    with pytest.raises(ValueError, match=r"\(3, 5\).*\(4, 4\)"):
        multi_head_attention(np.ones((3, 5)), W_Q, W_K, W_V, W_O, 2)
    with pytest.raises(ValueError, match=r"h = 3"):
        multi_head_attention(X, W_Q, W_K, W_V, W_O, 3)
    with pytest.raises(ValueError, match=r"\(3, 7\).*h = 2"):
        split_heads(np.ones((3, 7)), 2)
    with pytest.raises(ValueError):
        split_heads(np.ones((3, 4)), 0)
    with pytest.raises(ValueError, match=r"\(3, 4\)"):
        merge_heads(np.ones((3, 4)))
