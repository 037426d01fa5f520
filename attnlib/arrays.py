"""numpy or torch, one code path: recognise an array, convert it, read its shape, check a size.

Every module of attnlib starts from these few helpers, the one home of what numpy and torch spell
differently (a row's largest entry, a sum that keeps its axis, exp, a mask on a tensor's device).
torch is imported only to make a tensor: a tensor is recognised by its type's module, so
`import attnlib` stays fast.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Array = Any  # a numpy.ndarray or a torch.Tensor


def is_torch(x: Any) -> bool:
    """True when x is a torch tensor (checked without importing torch)."""
    return type(x).__module__.split(".")[0] == "torch"


def as_array(x: Any, name: str = "input", dtype: Any = float) -> Array:
    """Return x unchanged if it is a numpy array or torch tensor; turn lists into numpy arrays (of
    floats, unless `dtype` says otherwise: dtype=None keeps a list of True/False boolean)."""
    if is_torch(x) or isinstance(x, np.ndarray):
        return x
    try:
        return np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be numbers in a list, numpy array or torch tensor, not {type(x).__name__}"
        ) from exc


def to_numpy(x: Any, dtype: Any = float) -> np.ndarray:
    """x (a list, numpy array or torch tensor on any device) as a numpy array: of floats, unless
    `dtype` says otherwise (dtype=None keeps x's own)."""
    if is_torch(x):
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype=dtype)


def as_kind_of(x: np.ndarray, like: Any) -> Array:
    """The numpy array x, or the same numbers as a torch tensor on `like`'s device when `like` is one."""
    if not is_torch(like):
        return x
    import torch

    return torch.as_tensor(x, device=like.device)


def max_along(x: Array, axis: int = -1) -> Array:
    """The largest entry along `axis`, the axis kept (length 1), so that x - max_along(x) broadcasts."""
    return x.amax(dim=axis, keepdim=True) if is_torch(x) else x.max(axis=axis, keepdims=True)


def sum_along(x: Array, axis: int = -1) -> Array:
    """The sum along `axis`, the axis kept (length 1), so that x / sum_along(x) broadcasts."""
    return x.sum(dim=axis, keepdim=True) if is_torch(x) else x.sum(axis=axis, keepdims=True)


def exp(x: Array) -> Array:
    """e to the power of every entry of x, a new array of x's kind."""
    return x.exp() if is_torch(x) else np.exp(x)


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
