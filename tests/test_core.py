"""attnlib's math: loop versions, scores, softmax, attention — against numpy and torch's SDPA."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attnlib
from attnlib import attention, dot, matmul, scores, self_attention, softmax, transpose

finite = st.floats(-10, 10, allow_nan=False, width=64)


def matrices(rows, cols):
    return hnp.arrays(np.float64, (rows, cols), elements=finite)


# --- loop versions -----------------------------------------------------------


@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5), st.data())
@settings(max_examples=40, deadline=None)
def test_matmul_loops_equal_numpy(r, k, c, data):
    A, B = data.draw(matrices(r, k)), data.draw(matrices(k, c))
    np.testing.assert_allclose(matmul(A, B), A @ B, atol=1e-9)


def test_matmul_small_example_by_hand():
    np.testing.assert_array_equal(matmul([[1, 2, 3], [4, 5, 6]], [[7, 8], [9, 10], [11, 12]]), [[58, 64], [139, 154]])


def test_matmul_keeps_torch_and_device():
    A = torch.arange(6.0).reshape(2, 3)
    out = matmul(A, A.T)
    assert isinstance(out, torch.Tensor) and out.dtype == A.dtype and out.device == A.device
    torch.testing.assert_close(out, A @ A.T)


def test_matmul_empty_shapes():
    assert matmul(np.ones((0, 3)), np.ones((3, 2))).shape == (0, 2)
    np.testing.assert_array_equal(matmul(np.ones((2, 0)), np.ones((0, 2))), np.zeros((2, 2)))


@given(st.integers(1, 5), st.integers(1, 5), st.data())
@settings(max_examples=30, deadline=None)
def test_transpose_loops_equal_dot_T(r, c, data):
    M = data.draw(matrices(r, c))
    np.testing.assert_array_equal(transpose(M), M.T)
    np.testing.assert_array_equal(transpose(transpose(M)), M)


def test_transpose_torch():
    M = torch.arange(6.0).reshape(2, 3)
    torch.testing.assert_close(transpose(M), M.T)


@given(st.integers(1, 8), st.data())
@settings(max_examples=30, deadline=None)
def test_dot_equals_numpy(n, data):
    u = data.draw(hnp.arrays(np.float64, n, elements=finite))
    v = data.draw(hnp.arrays(np.float64, n, elements=finite))
    assert math.isclose(float(dot(u, v)), float(u @ v), abs_tol=1e-9)


def test_dot_cases():
    assert dot([1, 0], [0, 1]) == 0
    assert dot([2, 1], [4, 2]) > 0
    assert dot([2, 1], [-2, -1]) < 0
    assert isinstance(dot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])), torch.Tensor)


# --- shape errors name both shapes --------------------------------------------


@pytest.mark.parametrize(
    "call, shapes",
    [
        (lambda: matmul(np.ones((3, 4)), np.ones((5, 2))), ["(3, 4)", "(5, 2)"]),
        (lambda: dot(np.ones(3), np.ones(4)), ["(3,)", "(4,)"]),
        (lambda: scores(np.ones((3, 4)), np.ones((3, 5))), ["(3, 4)", "(3, 5)"]),
        (lambda: attention(np.ones((3, 4)), np.ones((3, 5)), np.ones((3, 2))), ["(3, 4)", "(3, 5)"]),
        (lambda: attention(np.ones((3, 4)), np.ones((6, 4)), np.ones((5, 2))), ["(6, 4)", "(5, 2)"]),
        (lambda: attention(np.ones((2, 3, 4)), np.ones((3, 3, 4)), np.ones((3, 3, 4))), ["(2, 3, 4)", "(3, 3, 4)"]),
        (
            lambda: attention(np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 4)), mask=np.ones((2, 2), bool)),
            ["(2, 2)", "(3, 3)"],
        ),
        (
            lambda: self_attention(np.ones((3, 4)), np.ones((5, 2)), np.ones((4, 2)), np.ones((4, 2))),
            ["(3, 4)", "(5, 2)"],
        ),
        (
            lambda: self_attention(torch.ones(3, 4), torch.ones(4, 2), torch.ones(4, 2), torch.ones(3, 2)),
            ["(3, 4)", "(3, 2)"],
        ),
    ],
)
def test_shape_errors_name_both_shapes(call, shapes):
    with pytest.raises(ValueError) as err:
        call()
    for s in shapes:
        assert s in str(err.value), str(err.value)
    assert "torch.Size" not in str(err.value)


def test_shape_error_names_the_disagreeing_dimension():
    with pytest.raises(ValueError, match=r"M's columns \(4\) != N's rows \(5\)"):
        matmul(np.ones((3, 4)), np.ones((5, 2)))
    with pytest.raises(ValueError, match=r"d_k must match, but 4 != 5"):
        scores(np.ones((3, 4)), np.ones((3, 5)))


def test_mixing_numpy_and_torch_is_a_clear_type_error():
    with pytest.raises(TypeError, match="mix of numpy arrays and torch tensors"):
        scores(np.ones((2, 2)), torch.ones(2, 2))


def test_bad_masks():
    Q = np.ones((3, 4))
    with pytest.raises(TypeError, match="boolean"):
        attention(Q, Q, Q, mask=np.ones((3, 3)))
    with pytest.raises(ValueError, match="all False"):
        attention(Q, Q, Q, mask=np.zeros((3, 3), bool))


# --- softmax ----------------------------------------------------------------------

rows_of_scores = hnp.arrays(
    np.float64, st.tuples(st.integers(1, 4), st.integers(1, 6)), elements=st.floats(-1000, 1000, allow_nan=False)
)


@given(rows_of_scores)
@settings(max_examples=60, deadline=None)
def test_softmax_rows_sum_to_one_and_are_positive(x):
    p = softmax(x)
    assert np.all(np.isfinite(p)) and np.all(p >= 0)
    np.testing.assert_allclose(p.sum(-1), 1.0, rtol=1e-12)


@given(rows_of_scores, st.floats(-500, 500))
@settings(max_examples=60, deadline=None)
def test_softmax_is_shift_invariant(x, c):
    np.testing.assert_allclose(softmax(x + c), softmax(x), atol=1e-12)


@given(rows_of_scores)
@settings(max_examples=60, deadline=None)
def test_softmax_keeps_order(x):
    p = softmax(x)
    for row_x, row_p in zip(x, p):
        i, j = np.argmax(row_x), np.argmin(row_x)
        assert row_p[i] >= row_p[j]
        bigger = row_x[:, None] > row_x[None, :]
        assert np.all((row_p[:, None] >= row_p[None, :])[bigger])


def test_softmax_never_overflows_at_plus_minus_1000():
    for x in ([1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1002.0], [1000.0, -1000.0]):
        with np.errstate(over="raise", invalid="raise"):  # underflow to 0 is harmless
            p = softmax(np.array(x))
        assert np.all(np.isfinite(p))
        np.testing.assert_allclose(p, softmax(np.array(x) - max(x)))
    torch.testing.assert_close(
        softmax(torch.tensor([1000.0, 1001.0])), torch.softmax(torch.tensor([1000.0, 1001.0]), -1)
    )


def test_softmax_other_axis():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(softmax(x, axis=0).sum(0), 1.0)


def test_softmax_of_a_list():
    np.testing.assert_allclose(softmax([0.0, 0.0]), [0.5, 0.5])


# --- attention against torch's scaled_dot_product_attention ----------------------


@st.composite
def attention_inputs(draw):
    batch = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    d_k, d_v = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(*batch, n, d_k))
    K = rng.normal(size=(*batch, m, d_k))
    V = rng.normal(size=(*batch, m, d_v))
    mask = None
    if draw(st.booleans()):
        mask = rng.random((*batch, n, m)) < 0.6
        mask[..., 0] = True  # every query may attend to at least one key
        if draw(st.booleans()):  # a broadcast mask, shared across the batch
            mask = mask.reshape(-1, n, m)[0]
    return Q, K, V, mask


def _sdpa(Q, K, V, mask):
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))
    return F.scaled_dot_product_attention(t(Q), t(K), t(V), attn_mask=None if mask is None else t(mask)).numpy()


@given(attention_inputs())
@settings(max_examples=80, deadline=None)
def test_attention_matches_torch_sdpa_float64(inputs):
    Q, K, V, mask = inputs
    Z, A = attention(Q, K, V, mask=mask)
    np.testing.assert_allclose(Z, _sdpa(Q, K, V, mask), atol=1e-10, rtol=1e-10)
    np.testing.assert_allclose(A.sum(-1), 1.0)
    if mask is not None:
        assert np.all(np.broadcast_to(A, A.shape)[~np.broadcast_to(mask, A.shape)] == 0)


@given(attention_inputs())
@settings(max_examples=40, deadline=None)
def test_numpy_and_torch_inputs_give_the_same_numbers(inputs):
    Q, K, V, mask = inputs
    Z, A = attention(Q, K, V, mask=mask)
    tmask = None if mask is None else torch.from_numpy(mask)
    Zt, At = attention(torch.from_numpy(Q), torch.from_numpy(K), torch.from_numpy(V), mask=tmask)
    assert isinstance(Zt, torch.Tensor) and isinstance(At, torch.Tensor)
    np.testing.assert_allclose(Zt.numpy(), Z, atol=1e-12)
    np.testing.assert_allclose(At.numpy(), A, atol=1e-12)


def test_attention_float32_matches_sdpa():
    rng = np.random.default_rng(0)
    Q, K, V = (rng.normal(size=(2, 5, 8)).astype(np.float32) for _ in range(3))
    Z, _ = attention(Q, K, V)
    assert Z.dtype == np.float32
    np.testing.assert_allclose(Z, _sdpa(Q, K, V, None), atol=1e-6)


def test_attention_scales_by_sqrt_dk_not_dk():
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(4, 16)), rng.normal(size=(4, 16)), rng.normal(size=(4, 3))
    _, A = attention(Q, K, V)
    np.testing.assert_allclose(A, softmax(Q @ K.T / 4.0))
    assert not np.allclose(A, softmax(Q @ K.T / 16.0))


def test_attention_torch_mask_from_numpy():
    Q = torch.randn(3, 2, generator=torch.Generator().manual_seed(0))
    causal = np.tril(np.ones((3, 3), bool))
    _, A = attention(Q, Q, Q, mask=causal)
    assert torch.all(A[0, 1:] == 0) and torch.allclose(A.sum(-1), torch.ones(3))


def test_self_attention_equals_attention_of_projections():
    X = attnlib.sentence_matrix("the cat sat on the mat".replace(" on", ""))
    W_Q, W_K, W_V = attnlib.random_weights(4, 3, 5, seed=2)
    Z, A = self_attention(X, W_Q, W_K, W_V)
    Z2, A2 = attention(X @ W_Q, X @ W_K, X @ W_V)
    np.testing.assert_allclose(Z, Z2)
    assert Z.shape == (5, 5) and A.shape == (5, 5)


def test_scale_divides_by_the_square_root():
    assert attnlib.scale(np.array([8.0]), 16)[0] == 2.0


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU on this machine")
def test_attention_on_gpu_stays_on_gpu():
    Q = torch.randn(2, 4, 8, generator=torch.Generator().manual_seed(9)).to("cuda")
    Z, A = attention(Q, Q, Q)
    assert Z.device.type == "cuda"
    torch.testing.assert_close(Z, F.scaled_dot_product_attention(Q, Q, Q))


# --- attention leaves its inputs alone and keeps gradients right (chapter 10) ---


def test_attention_leaves_its_inputs_alone():
    rng = np.random.default_rng(5)
    for make in (lambda a: a, torch.from_numpy):
        Q, K, V = (make(rng.standard_normal((2, 6, 4))) for _ in range(3))
        mask = np.tril(np.ones((6, 6), dtype=bool))
        copies = [x.copy() if isinstance(x, np.ndarray) else x.clone() for x in (Q, K, V)]
        Z, A = attnlib.attention(Q, K, V, mask=mask)
        for x, c in zip((Q, K, V), copies):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(c))
        np.testing.assert_allclose(np.asarray(A).sum(-1), 1.0)
        assert float(np.asarray(A)[0, 0, 1]) == 0.0  # masked: exactly 0


def test_attention_of_integer_arrays_gives_floats():
    ints = np.arange(12).reshape(3, 4) % 3
    Z, A = attnlib.attention(ints, ints, ints)
    assert A.dtype == np.float64
    np.testing.assert_allclose(A, attnlib.softmax(ints @ ints.T / 2.0))


@pytest.mark.parametrize("use_mask", [False, True])
def test_attention_gradients_match_torch_sdpa(use_mask):
    gen = torch.Generator().manual_seed(7)
    leaves = [torch.randn(2, 5, 3, dtype=torch.float64, generator=gen, requires_grad=True) for _ in range(2)]
    leaves.append(torch.randn(2, 5, 4, dtype=torch.float64, generator=gen, requires_grad=True))
    mask = torch.tril(torch.ones(5, 5, dtype=torch.bool)) if use_mask else None
    weights = torch.randn(2, 5, 4, dtype=torch.float64, generator=gen)
    Z, A = attnlib.attention(*leaves, mask=mask)
    ours = torch.autograd.grad((Z * weights).sum(), leaves)
    ref_leaves = [x.detach().clone().requires_grad_(True) for x in leaves]
    Z_ref = F.scaled_dot_product_attention(*ref_leaves, attn_mask=mask)
    theirs = torch.autograd.grad((Z_ref * weights).sum(), ref_leaves)
    torch.testing.assert_close(Z, Z_ref)
    for g, g_ref in zip(ours, theirs):
        torch.testing.assert_close(g, g_ref)


def test_attention_gradient_when_only_v_requires_grad():
    gen = torch.Generator().manual_seed(8)
    Q, K = torch.randn(4, 3, dtype=torch.float64, generator=gen), torch.randn(4, 3, dtype=torch.float64, generator=gen)
    V = torch.randn(4, 2, dtype=torch.float64, generator=gen, requires_grad=True)
    (g,) = torch.autograd.grad(attnlib.attention(Q, K, V)[0].sum(), [V])
    (g_ref,) = torch.autograd.grad(F.scaled_dot_product_attention(Q, K, V).sum(), [V])
    torch.testing.assert_close(g, g_ref)


def test_attention_under_no_grad_gives_the_same_numbers_without_a_graph():
    Q = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(10), requires_grad=True)
    with torch.no_grad():
        Z, A = attnlib.attention(Q, Q, Q)
    torch.testing.assert_close(Z, F.scaled_dot_product_attention(Q.detach(), Q.detach(), Q.detach()))
    assert not Z.requires_grad
