"""Reading answers: numbers, shapes, masks, lists and words, in every valid form, junk named exactly.

An answer may be a list, a tuple, a numpy array or a torch tensor of any real dtype (bfloat16
included), ints where integral, torch.Size for shapes. numpy reads it first; only when numpy
cannot make real numbers of it does the slow walk run, to name the junk (text, complex numbers,
True/False, None, ragged rows) and where it sits.
"""

from __future__ import annotations

import decimal
import inspect
import math
import numbers
import sys
from typing import Any

import numpy as np

from .hints import Wrong, count_words, describe, fmt, is_array, quietly, sentence_start, show

_MAX_DEPTH = 32  # nesting of lists beyond which an answer is not a grid of numbers
_WALK_LIMIT = 100_000  # numbers in a list beyond which numpy's reading is trusted without a walk for True/False
_LIST_LIMIT = 100_000  # numbers in a Python list beyond which no answer of the course can be (read in bounded time)
_ARRAY_LIMIT = 1_000_000  # numbers in an array or tensor beyond which no answer of the course can be


# --- numbers ------------------------------------------------------------------------


def to_numpy(answer: Any, what: str = "your answer", *, allow_bool: bool = False) -> np.ndarray:
    """Turn a list, tuple, numpy array or torch tensor of real numbers into a float array, or raise Wrong."""
    if callable(answer) and not is_array(answer):
        raise Wrong(f"{sentence_start(what)} is a function; call it and check what it returns instead.")
    _refuse_long_list(answer, what)
    fast = _read_fast(answer, allow_bool)
    if fast is not None:
        return fast
    return _diagnose(answer, what, (), allow_bool)


def _refuse_long_list(answer: Any, what: str) -> None:
    """Raise Wrong for a Python list far longer than any answer of the course, before reading it."""
    objects = isinstance(answer, np.ndarray) and answer.dtype == object
    if (isinstance(answer, (list, tuple)) or objects) and (size_at_least(answer) or 0) > _LIST_LIMIT:
        raise Wrong(
            f"{sentence_start(what)} is a list of {size_at_least(answer):,} entries or more, far more than "
            "this exercise asks for. Check what your code builds."
        )
    if is_array(answer) and (size_at_least(answer) or 0) > _ARRAY_LIMIT:
        raise Wrong(
            f"{sentence_start(what)} is {describe(answer)}: {size_at_least(answer):,} numbers, far more "
            "than this exercise asks for. Check what your code builds."
        )


def to_number(answer: Any, what: str = "your answer") -> float:
    """One real number (an int, a float, a one-element list, array or tensor) as a float, or raise Wrong."""
    name = sentence_start(what)
    if isinstance(answer, (bool, np.bool_)):
        raise Wrong(f"{name} is {bool(answer)}, a True/False value, but a number is wanted.")
    got = to_numpy(answer, what)
    if got.size != 1:
        raise Wrong(f"{name} should be a single number, but it has shape {got.shape}.")
    return float(got.reshape(()))


def one_number(answer: Any, what: str = "your answer") -> float | None:
    """The answer as one finite number, or None: a grader tries its slips on it, and `expect_number` then says what is wrong."""
    try:
        value = to_number(answer, what)
    except Wrong:
        return None
    return value if math.isfinite(value) else None


def to_count(answer: Any, what: str = "your answer") -> int:
    """A count: one whole number, 0 or more (12, 12.0, a one-element array or tensor), as an int, or raise Wrong."""
    name = sentence_start(what)
    if isinstance(answer, (bool, np.bool_)):
        raise Wrong(f"{name} is {bool(answer)}, a True/False value, but one whole number is wanted.")
    got = to_numpy(answer, what)
    if got.size != 1:
        raise Wrong(f"{name} should be one whole number, but it has shape {got.shape}.")
    value = float(got.reshape(()))
    if not math.isfinite(value) or value != int(value) or value < 0:
        raise Wrong(f"{name} is {fmt(value)}, but one whole number, 0 or more, is wanted.")
    return int(value)


def to_mask(answer: Any, what: str = "your mask") -> np.ndarray:
    """A grid of True/False (a list, numpy array or torch tensor of bools) as a bool array, or raise Wrong.

    Numbers (0/1 included) are refused with a hint saying a mask holds True/False; a grader that
    wants to say more about them catches that Wrong and reads the numbers with `to_numpy`."""
    torch = sys.modules.get("torch")
    _refuse_long_list(answer, what)
    try:
        if isinstance(answer, np.ndarray) and answer.dtype == bool:
            return answer.copy()
        if torch is not None and isinstance(answer, torch.Tensor) and answer.dtype == torch.bool:
            return answer.detach().cpu().numpy().copy()
        if isinstance(answer, (list, tuple)) and _plain_leaf(answer, 0, True) and _plain_leaf(answer, -1, True):
            with quietly():
                arr = np.asarray(answer)
            if arr.dtype == bool:
                return arr
    except Exception:  # anything stranger goes up to judge's guard
        pass
    values = to_numpy(answer, what, allow_bool=True)  # names text, None, ragged rows …
    raise Wrong(
        f"{sentence_start(what)} holds numbers (such as {fmt(values.reshape(-1)[0]) if values.size else 'none'}), "
        "but a mask holds True/False values: give it dtype=bool."
    )


def _read_fast(x: Any, allow_bool: bool) -> np.ndarray | None:
    """numpy's reading of x as real numbers, or None when it needs the slow walk to be named."""
    torch = sys.modules.get("torch")
    try:
        if isinstance(x, np.ndarray):
            if x.dtype.kind in "fiu" or (allow_bool and x.dtype.kind == "b"):
                return np.asarray(x, dtype=np.float64)
            return None
        if torch is not None and isinstance(x, torch.Tensor):
            if x.is_complex() or (x.dtype == torch.bool and not allow_bool) or x.layout != torch.strided:
                return None
            return x.detach().to(device="cpu", dtype=torch.float64).numpy()
        if isinstance(x, (bool, np.bool_)):
            return np.asarray(float(x)) if allow_bool else None
        if isinstance(x, (int, float, np.integer, np.floating)):
            return np.asarray(float(x))
        if isinstance(x, (list, tuple, range)):
            if not (_plain_leaf(x, 0, allow_bool) and _plain_leaf(x, -1, allow_bool)):
                return None  # text, None or the like at an end: the walk names it without numpy's slow try
            with quietly():
                arr = np.asarray(x)
            if arr.dtype.kind not in "fiu" and not (allow_bool and arr.dtype.kind == "b"):
                return None
            if not allow_bool and arr.size <= _WALK_LIMIT and _holds_bool(x):
                return None
            return arr.astype(np.float64)
    except Exception:  # anything stranger goes up to judge's guard
        return None
    return None


def size_at_least(x: Any) -> int | None:
    """A lower bound on the numbers in x, found by walking its first entries only (None for other things)."""
    if isinstance(x, (str, bytes)):
        return len(x)
    if is_array(x):
        return int(np.prod(tuple(x.shape)))
    if isinstance(x, (int, float, np.number)):
        return 1
    if not isinstance(x, (list, tuple)):
        return None
    size = 1
    for _ in range(_MAX_DEPTH):
        if is_array(x):
            return size * int(np.prod(tuple(x.shape)))
        if not isinstance(x, (list, tuple)) or not len(x):
            return size * len(x) if isinstance(x, (list, tuple)) else size
        size *= len(x)
        x = x[0]
    return size


def _plain_leaf(x: Any, end: int, allow_bool: bool) -> bool:
    """Whether the first (end=0) or last (end=-1) number of a nested list is a plain real number."""
    for _ in range(_MAX_DEPTH):
        if not isinstance(x, (list, tuple, range)) or not len(x):
            break
        x = x[end]
    if isinstance(x, (bool, np.bool_)):
        return allow_bool
    return isinstance(x, (int, float, np.integer, np.floating))


def _holds_bool(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return True
    if isinstance(x, (list, tuple)):
        return any(_holds_bool(v) for v in x)
    return False


def _at(what: str, path: tuple[int, ...]) -> str:
    return f"Entry {''.join(f'[{i}]' for i in path)} of {_mid_sentence(what)}" if path else sentence_start(what)


def _mid_sentence(what: str) -> str:
    """`what` inside a sentence: 'Your Q' -> 'your Q' (names such as W_Q stay)."""
    return "y" + what[1:] if what.startswith("Your ") else what


def _diagnose(x: Any, what: str, path: tuple[int, ...], allow_bool: bool) -> np.ndarray:
    """The slow walk: read x entry by entry, and name the first thing that is not a real number."""
    at = _at(what, path)
    torch = sys.modules.get("torch")
    if x is None:
        raise Wrong(
            f"{at} is None: a value is missing there. Put a number in its place "
            "(a function without `return` gives None)."
        )
    if isinstance(x, (bool, np.bool_)):
        if allow_bool:
            return np.asarray(float(x))
        raise Wrong(f"{at} is {bool(x)}, a True/False value, but a number is wanted there.")
    if isinstance(x, (str, bytes, np.str_)):
        raise Wrong(f"{at} is text ({show(x)}); write numbers without quotes.")
    if isinstance(x, (numbers.Real, decimal.Decimal)):
        return np.asarray(float(x))
    if isinstance(x, numbers.Complex):
        raise Wrong(f"{at} is a complex number ({show(x, 60)}), but this exercise wants real numbers.")
    if torch is not None and isinstance(x, torch.Size):
        return np.asarray([float(d) for d in x]).reshape(len(x))
    if torch is not None and isinstance(x, torch.Tensor):
        return _from_tensor(x, at, allow_bool)
    if isinstance(x, np.ndarray):
        return _from_ndarray(x, what, path, allow_bool)
    if isinstance(x, (list, tuple, range)):
        return _from_sequence(x, what, path, allow_bool)
    if isinstance(x, dict):
        raise Wrong(f"{at} is a dict; give the numbers as a list, a tuple or an array.")
    if isinstance(x, (set, frozenset)):
        raise Wrong(f"{at} is a set, which has no order; give the numbers as a list, a tuple or an array.")
    if inspect.isgenerator(x) or type(x).__name__ in ("map", "filter", "zip", "dict_values", "dict_keys"):
        raise Wrong(f"{at} is a {type(x).__name__}, not the numbers themselves: wrap it in list(...).")
    if callable(x):
        raise Wrong(f"{at} is a function; call it and use what it returns.")
    if hasattr(x, "__array__"):
        try:
            arr = np.asarray(x)
        except Exception:
            arr = None
        if isinstance(arr, np.ndarray) and arr.dtype != object:
            return _from_ndarray(arr, what, path, allow_bool)
    raise Wrong(f"{at} should be numbers (a list, a tuple, a numpy array or a torch tensor), but it is {describe(x)}.")


def _from_tensor(t: Any, at: str, allow_bool: bool) -> np.ndarray:
    import torch

    t = t.detach()
    if t.is_complex():
        raise Wrong(f"{at} holds complex numbers ({t.dtype}), but this exercise wants real numbers.")
    if t.dtype == torch.bool and not allow_bool:
        raise Wrong(f"{at} holds True/False values, but numbers are wanted.")
    try:
        if t.layout != torch.strided:
            t = t.to_dense()
        return t.to(device="cpu", dtype=torch.float64).numpy()  # float16, bfloat16, ints alike
    except Exception:
        raise Wrong(
            f"{at} is a torch tensor of dtype {str(t.dtype).replace('torch.', '')} on "
            f"{t.device} that could not be read as numbers: try .float().cpu() first."
        ) from None


def _from_ndarray(a: np.ndarray, what: str, path: tuple[int, ...], allow_bool: bool) -> np.ndarray:
    at = _at(what, path)
    kind = a.dtype.kind
    if kind in "fiu":
        return np.asarray(a, dtype=np.float64)
    if kind == "b":
        if allow_bool:
            return a.astype(np.float64)
        raise Wrong(f"{at} holds True/False values, but numbers are wanted.")
    if kind == "c":
        raise Wrong(f"{at} holds complex numbers, but this exercise wants real numbers.")
    if kind in "US":
        first = a.reshape(-1)[0] if a.size else ""
        raise Wrong(f"{at} holds text (such as {show(str(first), 60)}); write numbers without quotes.")
    if kind == "O":
        if a.ndim == 0:
            return _diagnose(a.item(), what, path, allow_bool)
        return _from_sequence(list(a), what, path, allow_bool)
    raise Wrong(f"{at} holds {a.dtype} values, but numbers are wanted.")


def _from_sequence(items: Any, what: str, path: tuple[int, ...], allow_bool: bool) -> np.ndarray:
    if len(path) >= _MAX_DEPTH:
        raise Wrong(f"{sentence_start(what)} is nested {len(path)} lists deep; a grid of numbers is a list of rows.")
    items = list(items)
    rows = bool(items) and isinstance(items[0], (list, tuple))
    lengths = [len(v) if isinstance(v, (list, tuple)) else None for v in items] if rows else []
    if lengths and None not in lengths and len(set(lengths)) > 1:  # ragged rows, named before any is read
        i = next(k for k, n in enumerate(lengths) if n != lengths[0])
        raise Wrong(_ragged(what, path, (lengths[0],), i, (lengths[i],)))
    plain = (int, float, np.integer, np.floating)
    if not any(isinstance(v, (list, tuple, np.ndarray)) for v in items[:1]):  # a flat list: find the odd entry at once
        odd = next((i for i, v in enumerate(items) if not isinstance(v, plain) or isinstance(v, bool)), None)
        if odd is None:
            return np.asarray(items, dtype=np.float64)
        if odd > 0 and not isinstance(items[odd], (list, tuple, np.ndarray)):
            _diagnose(items[odd], what, path + (odd,), allow_bool)
    children = []
    for i, item in enumerate(items):
        fast = _read_fast(item, allow_bool)
        children.append(fast if fast is not None else _diagnose(item, what, path + (i,), allow_bool))
    if not children:
        return np.zeros((0,))
    first = children[0].shape
    for i, child in enumerate(children[1:], 1):
        if child.shape != first:
            raise Wrong(_ragged(what, path, first, i, child.shape))
    return np.stack(children)


def _ragged(what: str, path: tuple[int, ...], first: tuple, i: int, other: tuple) -> str:
    inside = f" inside entry {''.join(f'[{p}]' for p in path)}" if path else ""
    if first and other:
        return (
            f"{sentence_start(what)} is ragged{inside}: row {i} has {count_words(other)} but row 0 has "
            f"{count_words(first)}. Every row must have the same length."
        )
    return (
        f"{sentence_start(what)} is ragged{inside}: entry {i} is {count_words(other)} but entry 0 is "
        f"{count_words(first)}. Every entry must have the same shape."
    )


class TorchForm:
    """A right answer in torch's form, registered as data: the numbers and the dtype.

    The tensor is built only when `tensor()` is called (by a test), so importing the graders
    loads no torch. Judged as it is, it reads as its numbers (`__array__`)."""

    __slots__ = ("dtype", "values")

    def __init__(self, values: Any, dtype: str = "float32") -> None:
        self.values = np.asarray(values, dtype=float)
        self.dtype = dtype

    def tensor(self) -> Any:
        """The torch tensor itself, or a list where torch is missing."""
        try:
            import torch
        except ImportError:  # pragma: no cover - torch is in requirements.txt
            return self.values.tolist()
        return torch.tensor(self.values, dtype=getattr(torch, self.dtype))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.array(self.values, dtype=dtype)

    def __repr__(self) -> str:
        return f"torch_form({self.values.tolist()!r}, {self.dtype!r})"


def torch_form(values: Any, dtype: str = "float32") -> TorchForm:
    """`values` as a right answer in torch's form (a tensor of `dtype`), built only when a test asks (`resolved`)."""
    return TorchForm(values, dtype)


def resolved(answer: Any) -> Any:
    """A registered answer as the learner would give it: a `torch_form` becomes its tensor, anything else stays."""
    return answer.tensor() if isinstance(answer, TorchForm) else answer


# --- shapes, lists and words -------------------------------------------------------------


def to_shape(answer: Any, what: str = "your answer", length: int | None = None) -> tuple[int, ...]:
    """A shape (tuple, list, torch.Size or 1-D array of whole numbers; 64.0 counts as 64) as a tuple of ints, or raise Wrong."""
    name = sentence_start(what)
    torch = sys.modules.get("torch")
    words = "a tuple of whole numbers such as (rows, columns)"
    if torch is not None and isinstance(answer, torch.Size):
        return tuple(int(d) for d in answer)
    if is_array(answer):
        if len(answer.shape) != 1 or answer.shape[0] > 64:
            raise Wrong(f"{name} should be a shape, {words}, but it is {describe(answer)}.")
        if "int" not in str(answer.dtype):
            raise Wrong(
                f"{name} holds {describe(answer)}: a shape holds whole numbers (ints), not decimals. "
                "Write each size as an int (where a size came from a division, divide with //, which keeps ints)."
            )
        answer = [int(d) for d in to_numpy(answer, what)]
    if isinstance(answer, (bool, np.bool_, str, bytes)) or callable(answer):
        raise Wrong(f"{name} should be a shape, {words}, but it is {describe(answer)}.")
    if isinstance(answer, (numbers.Integral, np.integer)):
        if length == 1:
            raise Wrong(
                f"{name} is the number {int(answer)}, not a shape. In Python, (7) is just 7: a shape "
                "is a tuple even with one entry, so put a comma inside the brackets, (n,)."
            )
        if length:
            raise Wrong(
                f"{name} is a single number, but a shape is wanted here, {length} whole numbers such as "
                "(rows, columns)."
            )
        raise Wrong(f"{name} is a single number, but a shape is {words}.")
    if not isinstance(answer, (tuple, list)) or len(answer) > 64:
        raise Wrong(f"{name} should be a shape, {words}, but it is {describe(answer)}.")
    dims = []
    for i, d in enumerate(answer):
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (numbers.Real, np.integer, np.floating)):
            raise Wrong(f"Entry [{i}] of {_mid_sentence(what)} is {describe(d)}; a shape holds whole numbers.")
        if not math.isfinite(float(d)) or float(d) != int(d) or d < 0:
            raise Wrong(f"Entry [{i}] of the shape is {fmt(d)}; a shape holds whole numbers of rows and columns.")
        if not isinstance(d, (numbers.Integral, np.integer)):
            raise Wrong(
                f"Entry [{i}] of {_mid_sentence(what)} is {show(d, 40)}, a decimal number: a shape holds whole numbers "
                f"(ints), not decimals. Write {int(d)}, not {show(d, 40)} (where it came from a division, divide "
                "with //, which keeps ints)."
            )
        dims.append(int(d))
    return tuple(dims)


def to_items(answer: Any, what: str = "your answer") -> list:
    """The entries of a list, tuple or set, or the rows of an array or tensor, as a list; else raise Wrong."""
    torch = sys.modules.get("torch")
    if is_array(answer) and len(answer.shape) >= 1:
        return list(answer)
    if isinstance(answer, (tuple, list, set, frozenset)) and not (torch is not None and isinstance(answer, torch.Size)):
        return list(answer)
    raise Wrong(f"{sentence_start(what)} should be a list of answers, but it is {describe(answer)}.")


def normal_word(text: str) -> str:
    """A word as the learner typed it, compared the lenient way: case, quotes, spaces and end marks ignored."""
    return " ".join(text.strip().strip("\"'“”‘’`.!? ").lower().split())
