"""Chapter 10's claims: Z = AV is a weighted average of the value rows, and it matches PyTorch."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlib
from attnlib.exercises import ch10

torch = pytest.importorskip("torch")
F = torch.nn.functional

sizes = st.tuples(st.integers(1, 7), st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.integers(0, 10_000))


def _random_case(n, d_model, d_k, d_v, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d_model))
    return (X, rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)),
            rng.normal(size=(d_model, d_v)))


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


def test_the_chapter_sentence_agrees_with_pytorch_in_float32():
    X = attnlib.sentence_matrix("the dog drove a truck")
    W_Q, W_K, W_V = attnlib.random_weights(d_model=4, d_k=3, d_v=2, seed=0)
    Z, _ = attnlib.self_attention(X, W_Q, W_K, W_V)
    Q, K, V = (torch.tensor(X @ W, dtype=torch.float32) for W in (W_Q, W_K, W_V))
    assert np.abs(F.scaled_dot_product_attention(Q, K, V).numpy() - Z).max() < 1e-6


def test_exercise_constants_match_the_text():
    assert np.allclose(ch10.A_EX.sum(axis=1), 1.0)
    assert np.allclose(ch10.A_EX[ch10.ROW] @ ch10.V_EX, [0.9, 1.5])
    assert ch10.FLOPS == 1_536_000_000
