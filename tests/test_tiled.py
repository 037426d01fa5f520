"""attnlib.tiled and attnlib.in_place (chapters 16 and 17): the same Z as attention and SDPA, causal blocks skipped, gradients, errors."""

import tracemalloc

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlib
from attnlib.in_place import naive_attention
from attnlib.tiled import tiled_attention

batch_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple)


@st.composite
def problems(draw, with_mask: bool):
    """Random Q, K, V (float64) with batch dims, a block size, and maybe a mask with a True in every row."""
    batch = draw(batch_shapes)
    n, m = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    d_k, d_v = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    block = draw(st.one_of(st.just(1), st.integers(1, m + 3)))  # 1, dividing m or not, and bigger than m
    query_block = draw(st.one_of(st.none(), st.integers(1, n + 3)))  # chunks of queries, same choices
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([0.1, 1.0, 5.0]))
    Q = scale * rng.standard_normal(batch + (n, d_k))
    K = scale * rng.standard_normal(batch + (m, d_k))
    V = rng.standard_normal(batch + (m, d_v))
    mask = None
    if with_mask:
        mask = rng.random(batch + (n, m)) < draw(st.sampled_from([0.1, 0.5, 0.9]))
        mask[..., np.arange(n), rng.integers(0, m, size=n)] = True  # every query may attend somewhere
    return Q, K, V, (block, query_block), mask


@given(problems(with_mask=False))
@settings(max_examples=40, deadline=None)
def test_equals_attention_numpy(problem):
    Q, K, V, block, _ = problem  # block = (keys per block, queries per chunk)
    np.testing.assert_allclose(
        tiled_attention(Q, K, V, block=block[0], query_block=block[1]),
        attnlib.attention(Q, K, V)[0],
        rtol=1e-10,
        atol=1e-12,
    )


@given(problems(with_mask=True))
@settings(max_examples=40, deadline=None)
def test_equals_attention_with_mask(problem):
    Q, K, V, block, mask = problem
    np.testing.assert_allclose(
        tiled_attention(Q, K, V, block=block[0], query_block=block[1], mask=mask),
        attnlib.attention(Q, K, V, mask=mask)[0],
        rtol=1e-10,
        atol=1e-12,
    )


@given(problems(with_mask=True))
@settings(max_examples=30, deadline=None)
def test_float32_numpy_and_torch(problem):
    Q, K, V, block, mask = problem
    Q32, K32, V32 = (x.astype(np.float32) for x in (Q, K, V))
    expected = attnlib.attention(Q32, K32, V32, mask=mask)[0]
    out = tiled_attention(Q32, K32, V32, block=block[0], query_block=block[1], mask=mask)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    Qt, Kt, Vt = (torch.from_numpy(x) for x in (Q32, K32, V32))
    out_t = tiled_attention(Qt, Kt, Vt, block=block[0], query_block=block[1], mask=torch.from_numpy(mask))
    assert isinstance(out_t, torch.Tensor) and out_t.dtype == torch.float32
    np.testing.assert_allclose(out_t.numpy(), expected, rtol=1e-4, atol=1e-5)


@given(problems(with_mask=True), st.booleans())
@settings(max_examples=30, deadline=None)
def test_float64_equals_torch_sdpa(problem, use_mask):
    Q, K, V, block, mask = problem
    Qt, Kt, Vt = (torch.from_numpy(x) for x in (Q, K, V))
    mask_t = torch.from_numpy(mask) if use_mask else None
    expected = F.scaled_dot_product_attention(Qt, Kt, Vt, attn_mask=mask_t)
    torch.testing.assert_close(
        tiled_attention(Qt, Kt, Vt, block=block[0], query_block=block[1], mask=mask_t), expected, rtol=1e-10, atol=1e-12
    )


def test_broadcast_batch_dims_and_mask():
    rng = np.random.default_rng(1)
    Q, K, V = rng.standard_normal((2, 1, 7, 4)), rng.standard_normal((1, 3, 9, 4)), rng.standard_normal((3, 9, 5))
    mask = np.tril(np.ones((7, 9), dtype=bool))  # broadcast over the batch
    out = tiled_attention(Q, K, V, block=4, mask=mask)
    assert out.shape == (2, 3, 7, 5)
    np.testing.assert_allclose(out, attnlib.attention(Q, K, V, mask=mask)[0], atol=1e-12)
    key_mask = np.array([[True] * 5 + [False] * 4])  # shape (1, 9): the same keys for every query
    np.testing.assert_allclose(
        tiled_attention(Q, K, V, block=2, mask=key_mask), attnlib.attention(Q, K, V, mask=key_mask)[0], atol=1e-12
    )


def test_allowed_keys_only_in_a_late_block():
    """Early blocks fully masked for a row: the running maximum stays -inf there, no NaN."""
    rng = np.random.default_rng(2)
    Q, K, V = rng.standard_normal((3, 4)), rng.standard_normal((10, 4)), rng.standard_normal((10, 2))
    mask = np.zeros((3, 10), dtype=bool)
    mask[:, 9] = True
    np.testing.assert_allclose(tiled_attention(Q, K, V, block=3, mask=mask), np.repeat(V[9:], 3, axis=0))


def test_lists_torch_devices_and_int_inputs():
    Q = [[1.0, 0.0], [0.0, 1.0]]
    np.testing.assert_allclose(tiled_attention(Q, Q, Q, block=1), attnlib.attention(Q, Q, Q)[0])
    ints = np.arange(12).reshape(3, 4) % 3
    np.testing.assert_allclose(tiled_attention(ints, ints, ints), attnlib.attention(ints, ints, ints)[0])
    Qt = torch.randn(2, 5, 3, dtype=torch.float64)
    out = tiled_attention(Qt, Qt, Qt, block=2, mask=np.ones((5, 5), dtype=bool))  # numpy mask, torch input
    assert out.device == Qt.device and out.dtype == Qt.dtype
    torch.testing.assert_close(out, attnlib.attention(Qt, Qt, Qt)[0])


def test_empty_query_set():
    assert tiled_attention(np.ones((0, 3)), np.ones((4, 3)), np.ones((4, 2))).shape == (0, 2)


@pytest.mark.parametrize(
    "Q_shape, K_shape, V_shape",
    [
        ((3, 4), (5, 6), (5, 2)),  # d_k differs
        ((4,), (5, 4), (5, 2)),  # Q is not a matrix
        ((2, 3, 4), (5, 5, 4), (5, 5, 2)),  # batch dims do not broadcast
    ],
)
def test_shape_errors_name_both_shapes(Q_shape, K_shape, V_shape):
    with pytest.raises(ValueError) as err:
        tiled_attention(np.ones(Q_shape), np.ones(K_shape), np.ones(V_shape))
    assert str(Q_shape) in str(err.value) and str(K_shape) in str(err.value)


def test_value_errors():
    with pytest.raises(ValueError, match=r"\(5, 4\).*\(6, 2\)"):
        tiled_attention(np.ones((3, 4)), np.ones((5, 4)), np.ones((6, 2)))
    with pytest.raises(ValueError, match="V has shape"):
        tiled_attention(np.ones((2, 3, 4)), np.ones((2, 5, 4)), np.ones((3, 5, 2)))
    with pytest.raises(ValueError, match="no key"):
        tiled_attention(np.ones((3, 4)), np.ones((0, 4)), np.ones((0, 2)))
    for bad in (0, -1, 2.5):  # not a whole number (TypeError) or below 1 (ValueError)
        with pytest.raises((ValueError, TypeError), match="block"):
            tiled_attention(np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2)), block=bad)


def test_mask_errors_like_attention():
    Q = np.ones((3, 4))
    mask = np.ones((3, 5), dtype=bool)
    mask[1] = False
    with pytest.raises(ValueError, match="all False"):
        tiled_attention(Q, np.ones((5, 4)), np.ones((5, 2)), mask=mask)
    with pytest.raises(ValueError, match="all False"):
        tiled_attention(torch.ones(3, 4), torch.ones(5, 4), torch.ones(5, 2), mask=torch.from_numpy(mask))
    with pytest.raises(ValueError, match=r"mask has shape \(4, 5\)"):
        tiled_attention(Q, np.ones((5, 4)), np.ones((5, 2)), mask=np.ones((4, 5), dtype=bool))
    with pytest.raises(TypeError, match="boolean"):
        tiled_attention(Q, np.ones((5, 4)), np.ones((5, 2)), mask=np.ones((3, 5)))
    with pytest.raises(TypeError, match="mix"):
        tiled_attention(Q, torch.ones(5, 4), np.ones((5, 2)))


def test_never_allocates_n_by_n():
    """With n = 2048 and block = 64 the peak is a few n×block arrays, far below one n×n array."""
    n, d, block = 2048, 8, 64
    rng = np.random.default_rng(3)
    Q, K, V = (rng.standard_normal((n, d), dtype=np.float32) for _ in range(3))
    n_by_n = n * n * Q.itemsize

    def peak_bytes(fn):
        tracemalloc.start()
        try:
            fn()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak_bytes(lambda: attnlib.attention(Q, K, V)) >= n_by_n  # tracemalloc does see numpy arrays
    assert peak_bytes(lambda: tiled_attention(Q, K, V, block=block)) < n_by_n / 4


def test_query_chunks_and_key_blocks_of_every_size_agree():
    rng = np.random.default_rng(4)
    Q, K, V = rng.standard_normal((2, 37, 5)), rng.standard_normal((2, 29, 5)), rng.standard_normal((2, 29, 3))
    expected = attnlib.attention(Q, K, V)[0]
    for block, query_block in [(1, 1), (7, 5), (29, 37), (64, 100), (8, None)]:
        np.testing.assert_allclose(
            tiled_attention(Q, K, V, block=block, query_block=query_block), expected, rtol=1e-12, atol=1e-12
        )
    for bad in (0, -3, 1.5):
        with pytest.raises((ValueError, TypeError), match="query_block"):
            tiled_attention(Q, K, V, query_block=bad)


def test_every_head_at_once_as_on_a_gpu_gives_the_same_z(monkeypatch):
    """Off a CPU (or when all heads' scores fit in one block) every head goes at once; that path must agree."""
    rng = np.random.default_rng(14)
    Q, K, V = rng.standard_normal((2, 1, 11, 4)), rng.standard_normal((1, 3, 9, 4)), rng.standard_normal((3, 9, 5))
    mask = rng.random((11, 9)) < 0.6
    mask[:, 0] = True
    expected = attnlib.attention(Q, K, V, mask=mask)[0]
    per_head = tiled_attention(Q, K, V, block=4, query_block=4, mask=mask)  # 6 heads of 11×9 > one 4×4 block
    monkeypatch.setattr(attnlib.tiled, "on_cpu", lambda x: False)
    at_once = tiled_attention(Q, K, V, block=4, mask=mask)
    np.testing.assert_allclose(per_head, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(at_once, expected, rtol=1e-12, atol=1e-12)
    causal = attnlib.attention(Q, K, V, mask=np.tril(np.ones((11, 9), dtype=bool)))[0]
    np.testing.assert_allclose(tiled_attention(Q, K, V, block=4, causal=True), causal, rtol=1e-12, atol=1e-12)
    Qt, Kt, Vt = (torch.from_numpy(x) for x in (Q, K, V))
    torch.testing.assert_close(
        tiled_attention(Qt, Kt, Vt, block=4, mask=torch.from_numpy(mask)), torch.from_numpy(expected)
    )


def relative_error(out, ref):
    return float((out.double() - ref).norm() / ref.norm())


def test_bfloat16_error_no_worse_than_sdpa_at_n_2048():
    """float32 statistics and output: the error of bf16 inputs is the rounding of the result, not of every block."""
    gen = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(1, 2, 2048, 64, generator=gen).bfloat16() for _ in range(3))
    reference = F.scaled_dot_product_attention(Q.double(), K.double(), V.double())
    out = tiled_attention(Q, K, V)
    assert out.dtype == torch.bfloat16
    ours = relative_error(out, reference)
    sdpa = relative_error(F.scaled_dot_product_attention(Q, K, V), reference)
    rounding = relative_error(reference.bfloat16(), reference)  # the best any bf16 result can do
    assert ours <= sdpa, (ours, sdpa)
    assert ours <= 1.1 * rounding, (ours, rounding)


def test_float16_numpy_keeps_its_dtype_and_float32_accuracy():
    rng = np.random.default_rng(9)
    Q, K, V = (rng.standard_normal((300, 16)).astype(np.float16) for _ in range(3))
    out = tiled_attention(Q, K, V, block=32)
    assert out.dtype == np.float16
    reference = attnlib.attention(*(x.astype(np.float64) for x in (Q, K, V)))[0]
    np.testing.assert_allclose(out, reference.astype(np.float16), rtol=0, atol=2e-3)


def test_causal_equals_the_causal_mask_and_sdpa():
    rng = np.random.default_rng(11)
    Q, K, V = (rng.standard_normal((2, 3, 37, 8)) for _ in range(3))
    expected = attnlib.attention(Q, K, V, mask=attnlib.causal_mask(37))[0]
    for block, query_block in [(1, 1), (5, 7), (64, 16), (8, None)]:
        np.testing.assert_allclose(
            tiled_attention(Q, K, V, block=block, query_block=query_block, causal=True),
            expected,
            rtol=1e-12,
            atol=1e-12,
        )
    Qt, Kt, Vt = (torch.from_numpy(x) for x in (Q, K, V))
    sdpa = F.scaled_dot_product_attention(Qt, Kt, Vt, is_causal=True)
    torch.testing.assert_close(tiled_attention(Qt, Kt, Vt, block=8, causal=True), sdpa)


def test_causal_skips_the_blocks_after_each_chunk(monkeypatch):
    """Every block of scores gets exactly one row max: counting those counts the blocks computed."""
    rng = np.random.default_rng(12)
    Q, K, V = (rng.standard_normal((8, 4)) for _ in range(3))
    row_max, widths = attnlib.tiled.max_along, []

    def counting_row_max(S):
        widths.append(S.shape[-1])
        return row_max(S)

    monkeypatch.setattr(attnlib.tiled, "max_along", counting_row_max)
    counts = {}
    for causal in (False, True):
        widths.clear()
        tiled_attention(Q, K, V, block=2, query_block=2, causal=causal)
        counts[causal] = len(widths)
    assert counts == {False: 16, True: 1 + 2 + 3 + 4}  # four chunks of 2 queries, blocks of 2 keys
    assert set(widths) == {2}


def test_gradients_flow_through_tiled_and_match_sdpa():
    gen = torch.Generator().manual_seed(5)
    inputs = [torch.randn(2, 40, 8, generator=gen, dtype=torch.float64, requires_grad=True) for _ in range(3)]
    for causal in (False, True):
        tiled_attention(*inputs, block=16, query_block=8, causal=causal).pow(2).sum().backward()
        ours = [x.grad.clone() for x in inputs]
        for x in inputs:
            x.grad = None
        F.scaled_dot_product_attention(*inputs, is_causal=causal).pow(2).sum().backward()
        for a, x in zip(ours, inputs):
            torch.testing.assert_close(a, x.grad)
            x.grad = None


def test_fast_naive_attention_gives_attentions_z_and_a():
    rng = np.random.default_rng(13)
    Q, K, V = (rng.standard_normal((2, 30, 6)) for _ in range(3))
    mask = attnlib.causal_mask(30)
    for args in ((Q, K, V), (Q.astype(np.float32), K.astype(np.float32), V.astype(np.float32))):
        for m in (None, mask):
            Z, A = naive_attention(*args, mask=m)
            Z_ref, A_ref = attnlib.attention(*args, mask=m)
            np.testing.assert_allclose(Z, Z_ref, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(A, A_ref, rtol=1e-5, atol=1e-6)
    Z, _ = naive_attention(np.arange(12).reshape(3, 4), np.ones((5, 4), dtype=int), np.eye(5, 2))
    np.testing.assert_allclose(Z, attnlib.attention(np.arange(12.0).reshape(3, 4), np.ones((5, 4)), np.eye(5, 2))[0])
    with pytest.raises(ValueError, match=r"\(3, 4\).*\(5, 3\)"):
        naive_attention(np.ones((3, 4)), np.ones((5, 3)), np.ones((5, 2)))


def test_fast_naive_attention_in_torch_keeps_gradients():
    gen = torch.Generator().manual_seed(6)
    inputs = [torch.randn(3, 20, 4, generator=gen, dtype=torch.float64, requires_grad=True) for _ in range(3)]
    mask = attnlib.causal_mask(20, like=inputs[0])
    naive_attention(*inputs, mask=mask)[0].sum().backward()
    ours = [x.grad.clone() for x in inputs]
    for x in inputs:
        x.grad = None
    F.scaled_dot_product_attention(*inputs, attn_mask=mask).sum().backward()
    for a, x in zip(ours, inputs):
        torch.testing.assert_close(a, x.grad)
    with torch.no_grad():
        torch.testing.assert_close(naive_attention(*inputs)[0], F.scaled_dot_product_attention(*inputs))
