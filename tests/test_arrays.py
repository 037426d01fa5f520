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
