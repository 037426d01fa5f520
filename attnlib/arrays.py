"""numpy or torch, one code path: recognise an array, read its shape, check a size.

Every module of attnlib starts from these few helpers. torch is never imported here: a tensor is
recognised by its type's module, so `import attnlib` stays fast.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Array = Any  # a numpy.ndarray or a torch.Tensor


def is_torch(x: Any) -> bool:
    """True when x is a torch tensor (checked without importing torch)."""
    return type(x).__module__.split(".")[0] == "torch"


def as_array(x: Any, name: str = "input") -> Array:
    """Return x unchanged if it is a numpy array or torch tensor; turn lists into numpy arrays."""
    if is_torch(x) or isinstance(x, np.ndarray):
        return x
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be numbers in a list, numpy array or torch tensor, not {type(x).__name__}"
        ) from exc


def to_numpy(x: Any, dtype: Any = float) -> np.ndarray:
    """x (a list, numpy array or torch tensor on any device) as a numpy array, of floats unless `dtype` says otherwise."""
    if is_torch(x):
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype=dtype)


def shape_of(x: Array) -> tuple[int, ...]:
    """The shape of x as a plain Python tuple, e.g. (3, 4)."""
    return tuple(int(s) for s in x.shape)


def same_kind(name: str, *arrays: Array) -> None:
    """A clear error when numpy arrays and torch tensors are mixed in one call."""
    if len({is_torch(a) for a in arrays}) > 1:
        raise TypeError(
            f"{name}: mix of numpy arrays and torch tensors; convert them to one kind first "
            "(torch.as_tensor(x) or t.cpu().numpy())"
        )


def broadcasts(small: tuple[int, ...], big: tuple[int, ...]) -> bool:
    """True when an array of shape `small` broadcasts to shape `big`."""
    try:
        return np.broadcast_shapes(small, big) == big
    except ValueError:
        return False


def whole_number(name: str, arg: str, value: Any, smallest: int = 1) -> int:
    """`value` as an int, or a clear error: a size is a whole number of at least `smallest`.

    True and False are not sizes, though Python counts them as whole numbers.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: {arg} must be a whole number, not {type(value).__name__} {value!r}")
    if value < smallest:
        raise ValueError(f"{name}: {arg} must be a whole number of at least {smallest}, but it is {value}")
    return int(value)
