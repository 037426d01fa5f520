"""numpy or torch, one code path: recognise an array, convert it, read its shape, check a size.

The one home of what numpy and torch spell differently: a row's largest entry, a sum that keeps
its axis, exp (also in place), a new array like another, a dtype, a mask written into the scores,
whether torch records gradients. Every other module of attnlib calls these and never asks which
library it holds. A tensor is recognised by its type's module and torch is imported only through
`loaded_torch`, so `import attnlib` stays fast.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import numpy as np

Array = Any  # a numpy.ndarray or a torch.Tensor


def loaded_torch(only_if_imported: bool = False) -> Any:
    """The torch module, imported on first use; None when torch is not installed.

    With only_if_imported=True, None also when nothing has imported torch yet: then no tensor can
    exist, and asking costs nothing (the checker asks this way, so a numpy answer loads no torch).
    """
    if only_if_imported:
        return sys.modules.get("torch")
    try:
        return importlib.import_module("torch")
    except ImportError:
        return None


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


def as_kind_of(x: Array, like: Any) -> Array:
    """The numbers of x (an array or a tensor) as the kind of `like`: a torch tensor on `like`'s device
    when `like` is one, else a numpy array (x's own dtype kept)."""
    if is_torch(like):
        return loaded_torch().as_tensor(x, device=like.device)
    return to_numpy(x, dtype=None)


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


def from_nested(values: list, like: Array) -> Array:
    """Nested Python lists of numbers as an array of `like`'s kind: a tensor of its dtype on its device,
    or a numpy array of its dtype (at least a float)."""
    if is_torch(like):
        return loaded_torch().tensor(values, dtype=like.dtype, device=like.device)
    return np.array(values, dtype=np.result_type(like.dtype, float))


def library_of(like: Any) -> tuple[Any, dict]:
    """numpy or torch, and the keywords that make a new float array there: `like`'s floating dtype
    (float64 for whole numbers) on its device when it is a tensor, float64 numpy otherwise."""
    if is_torch(like):
        torch = loaded_torch()
        dtype = like.dtype if like.dtype.is_floating_point else torch.float64
        return torch, {"dtype": dtype, "device": like.device}
    return np, {"dtype": np.float64}


# --- dtypes ----------------------------------------------------------------------


def is_floating(x: Array) -> bool:
    """True when x holds floating-point numbers (float16 to float64, bfloat16)."""
    return x.dtype.is_floating_point if is_torch(x) else bool(np.issubdtype(x.dtype, np.floating))


def is_boolean(x: Array) -> bool:
    """True when x holds True/False values."""
    return x.dtype == (loaded_torch().bool if is_torch(x) else np.bool_)


def common_float(*arrays: Array) -> tuple[Array, ...]:
    """The arrays in one floating dtype (integers become the default float), copied only if needed."""
    if is_torch(arrays[0]):
        torch = loaded_torch()
        dtype = arrays[0].dtype
        for x in arrays[1:]:
            dtype = torch.promote_types(dtype, x.dtype)
        if not dtype.is_floating_point:
            dtype = torch.get_default_dtype()
        return tuple(x.to(dtype) for x in arrays)
    dtype = np.result_type(*(x.dtype for x in arrays))
    if not np.issubdtype(dtype, np.floating):
        dtype = np.dtype(np.float64)
    return tuple(x.astype(dtype, copy=False) for x in arrays)


def accumulator_dtype(x: Array) -> Any:
    """float32 for 16-bit inputs (float16, bfloat16), else x's own dtype: what sums are kept in."""
    if x.dtype.itemsize != 2:
        return x.dtype
    return loaded_torch().float32 if is_torch(x) else np.dtype(np.float32)


def cast(x: Array, dtype: Any) -> Array:
    """x in `dtype`, copied only when the dtype changes."""
    if x.dtype == dtype:
        return x
    return x.to(dtype) if is_torch(x) else x.astype(dtype)


# --- where an array lives, and whether torch is recording --------------------------


def recording(*arrays: Array) -> bool:
    """True when torch records these tensors' steps for gradients (then nothing may be overwritten)."""
    if not is_torch(arrays[0]):
        return False
    return loaded_torch().is_grad_enabled() and any(x.requires_grad for x in arrays)


def on_cpu(x: Array) -> bool:
    """True for a numpy array or a tensor on the CPU."""
    return not is_torch(x) or x.device.type == "cpu"


# --- new arrays, and steps spelled differently ----------------------------------------


def broadcast_to(x: Array, shape: tuple[int, ...]) -> Array:
    """x seen with `shape` (a view that repeats x along the dimensions it lacks or has of length 1)."""
    return x.expand(shape) if is_torch(x) else np.broadcast_to(x, shape)


def empty(shape: tuple[int, ...], like: Array) -> Array:
    """A new array of `shape`, unfilled, of `like`'s kind, dtype and device."""
    return like.new_empty(shape) if is_torch(like) else np.empty(shape, dtype=like.dtype)


def full(shape: tuple[int, ...], value: float, like: Array) -> Array:
    """A new array of `shape` filled with `value`, of `like`'s kind, dtype and device."""
    return like.new_full(shape, value) if is_torch(like) else np.full(shape, value, dtype=like.dtype)


def maximum(a: Array, b: Array) -> Array:
    """The larger of a and b, entry by entry."""
    return loaded_torch().maximum(a, b) if is_torch(a) else np.maximum(a, b)


def where(condition: Array, a: Any, b: Any) -> Array:
    """A new array: a where condition is True, else b; one of a, b may be a plain number."""
    if is_torch(condition):
        return loaded_torch().where(condition, a, b)
    return np.where(condition, a, b)


def fill_where(x: Array, condition: Array, value: float) -> Array:
    """Write `value` into x itself wherever condition is True, and return x (no new array)."""
    if is_torch(x):
        x.masked_fill_(condition, value)
    else:
        np.copyto(x, value, where=condition)
    return x


def exp_in_place(x: Array) -> Array:
    """e to the power of every entry, written over x itself (no new array), and x returned."""
    return x.exp_() if is_torch(x) else np.exp(x, out=x)
