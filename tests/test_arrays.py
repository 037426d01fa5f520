"""attnlib.arrays: the helpers every module shares (numpy or torch, shapes, sizes)."""

import numpy as np
import pytest

from attnlib.arrays import as_array, broadcasts, is_torch, same_kind, shape_of, whole_number


@pytest.mark.parametrize("value, smallest", [(1, 1), (7, 1), (np.int64(3), 1), (2, 2)])
def test_whole_number_accepts_sizes(value, smallest):
    got = whole_number("f", "n", value, smallest)
    assert got == value and type(got) is int


@pytest.mark.parametrize("value", [2.5, 3.0, "4", None, True, False])
def test_whole_number_refuses_what_is_not_a_whole_number(value):
    with pytest.raises(TypeError, match=r"f: n must be a whole number"):
        whole_number("f", "n", value)


@pytest.mark.parametrize("value, smallest", [(0, 1), (-2, 1), (1, 2)])
def test_whole_number_refuses_too_small_and_says_the_least(value, smallest):
    with pytest.raises(ValueError, match=rf"at least {smallest}, but it is {value}"):
        whole_number("f", "n", value, smallest)


def test_every_size_argument_uses_the_one_check():
    import attnlib
    from attnlib import scaling

    calls = [
        lambda: attnlib.causal_mask(1.5),
        lambda: attnlib.padding_mask([1], 2.5),
        lambda: attnlib.split_heads(np.ones((2, 4)), 2.0),
        lambda: attnlib.positional_encoding(2.0, 4),
        lambda: scaling.dot_products(2.0),
        lambda: scaling.random_scores(4, n_keys=1.5),
    ]
    for call in calls:
        with pytest.raises(TypeError, match="must be a whole number"):
            call()


def test_shapes_kinds_and_broadcasting():
    x = as_array([[1, 2, 3]])
    assert isinstance(x, np.ndarray) and x.dtype == float and shape_of(x) == (1, 3)
    assert not is_torch(x)
    assert broadcasts((1, 3), (4, 3)) and not broadcasts((2, 3), (4, 3)) and not broadcasts((4, 3), (3,))
    with pytest.raises(TypeError, match="numbers in a list"):
        as_array("abc", "Q")
    torch = pytest.importorskip("torch")
    assert is_torch(torch.ones(2)) and shape_of(torch.ones(2, 5)) == (2, 5)
    with pytest.raises(TypeError, match="mix of numpy arrays and torch tensors"):
        same_kind("f", np.ones(2), torch.ones(2))


def test_loaded_torch_only_if_imported_never_imports_it():
    """The checker asks this way, so that a numpy answer loads no torch; a fresh process shows it."""
    from conftest import run_python

    code = (
        "import sys\nfrom attnlib.arrays import loaded_torch\n"
        "print(loaded_torch(only_if_imported=True), 'torch' in sys.modules)\n"
        "import torch\nprint(loaded_torch(only_if_imported=True) is torch, loaded_torch() is torch)\n"
    )
    assert run_python(code).split() == ["None", "False", "True", "True"]


def test_the_steps_spelled_differently_agree_between_numpy_and_torch():
    """Each helper that branches on the library gives the same numbers, the same dtype kind, and writes in
    place only where it says so."""
    import torch

    from attnlib import arrays

    x = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.0]], dtype=np.float32)
    hidden = np.array([[False, True, False], [True, False, False]])
    for a, h in ((x.copy(), hidden), (torch.tensor(x), torch.tensor(hidden))):
        assert np.array_equal(arrays.to_numpy(arrays.where(h, -np.inf, a)), np.where(hidden, -np.inf, x))
        assert np.array_equal(arrays.to_numpy(arrays.maximum(a, a * 0)), np.maximum(x, 0))
        same = arrays.fill_where(a, h, -np.inf)
        assert same is a and np.array_equal(arrays.to_numpy(a), np.where(hidden, -np.inf, x))
        b = arrays.full((2, 3), 2.0, like=a)
        assert arrays.exp_in_place(b) is b and np.allclose(arrays.to_numpy(b), np.exp(2.0))
        assert arrays.is_floating(a) and not arrays.is_floating(arrays.as_kind_of(np.arange(3), a))
        assert arrays.is_boolean(h) and not arrays.is_boolean(a)
        assert not arrays.recording(a)
        half = arrays.cast(a, torch.bfloat16 if is_torch(a) else np.float16)
        assert arrays.accumulator_dtype(half) == (torch.float32 if is_torch(a) else np.float32)
        ints = arrays.as_kind_of(np.arange(3), a)
        assert all(arrays.is_floating(y) for y in arrays.common_float(ints, ints))
        assert shape_of(arrays.broadcast_to(a[:1], (4, 2, 3))) == (4, 2, 3)
        assert shape_of(arrays.empty((5, 1), like=a)) == (5, 1)
    assert arrays.recording(torch.ones(2, requires_grad=True))
    assert arrays.from_nested([[1, 2]], torch.ones(1, dtype=torch.float64)).dtype == torch.float64
    assert arrays.from_nested([[1, 2]], np.ones(1, dtype=np.float32)).dtype == np.float64
