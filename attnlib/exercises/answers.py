"""Reading answers: numbers, shapes, pairs and words, in every valid form, junk named exactly.

An answer may be a list, a tuple, a numpy array or a torch tensor of any real dtype (bfloat16
included), ints where integral, torch.Size for shapes. numpy reads it first; only when numpy
cannot make real numbers of it does the slow walk run, to name the junk (text, complex numbers,
True/False, None, ragged rows) and where it sits.
"""
from __future__ import annotations

import decimal
import inspect
import itertools
import math
import numbers
import sys
import warnings
from typing import Any, Sequence

import numpy as np

from .hints import Wrong, count_words, describe, fmt, is_array, position_words, sentence_start, shape_words, show

_MAX_DEPTH = 32         # nesting of lists beyond which an answer is not a grid of numbers
_WALK_LIMIT = 100_000   # numbers in a list beyond which numpy's reading is trusted without a walk for True/False


# --- numbers ------------------------------------------------------------------------

def to_numpy(answer: Any, what: str = "your answer", *, allow_bool: bool = False) -> np.ndarray:
    """Turn a list, tuple, numpy array or torch tensor of real numbers into a float array, or raise Wrong."""
    if callable(answer) and not is_array(answer):
        raise Wrong(f"{sentence_start(what)} is a function; call it and check what it returns instead.")
    fast = _read_fast(answer, allow_bool)
    if fast is not None:
        return fast
    return _diagnose(answer, what, (), allow_bool)


def to_number(answer: Any, what: str = "your answer") -> float:
    """One real number (an int, a float, a one-element list, array or tensor) as a float, or raise Wrong."""
    name = sentence_start(what)
    if isinstance(answer, (bool, np.bool_)):
        raise Wrong(f"{name} is {bool(answer)}, a True/False value, but a number is wanted.")
    got = to_numpy(answer, what)
    if got.size != 1:
        raise Wrong(f"{name} should be a single number, but it has shape {got.shape}.")
    return float(got.reshape(()))


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
    try:
        if isinstance(answer, np.ndarray) and answer.dtype == bool:
            return answer.copy()
        if torch is not None and isinstance(answer, torch.Tensor) and answer.dtype == torch.bool:
            return answer.detach().cpu().numpy().copy()
        if isinstance(answer, (list, tuple)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                arr = np.asarray(answer)
            if arr.dtype == bool:
                return arr
    except KeyboardInterrupt:
        raise
    except BaseException:
        pass
    values = to_numpy(answer, what, allow_bool=True)  # names text, None, ragged rows …
    raise Wrong(f"{sentence_start(what)} holds numbers (such as {fmt(values.reshape(-1)[0]) if values.size else 'none'}), "
                "but a mask holds True/False values: give it dtype=bool.")


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
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                arr = np.asarray(x)
            if arr.dtype.kind not in "fiu" and not (allow_bool and arr.dtype.kind == "b"):
                return None
            if not allow_bool and arr.size <= _WALK_LIMIT and _holds_bool(x):
                return None
            return arr.astype(np.float64)
    except KeyboardInterrupt:
        raise
    except BaseException:
        return None
    return None


def _holds_bool(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return True
    if isinstance(x, (list, tuple)):
        return any(_holds_bool(v) for v in x)
    return False


def _at(what: str, path: tuple[int, ...]) -> str:
    return f"Entry {''.join(f'[{i}]' for i in path)} of {what}" if path else sentence_start(what)


def _diagnose(x: Any, what: str, path: tuple[int, ...], allow_bool: bool) -> np.ndarray:
    """The slow walk: read x entry by entry, and name the first thing that is not a real number."""
    at = _at(what, path)
    torch = sys.modules.get("torch")
    if x is None:
        raise Wrong(f"{at} is None: a value is missing there. Put a number in its place "
                    "(a function without `return` gives None).")
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
    raise Wrong(f"{at} should be numbers (a list, a tuple, a numpy array or a torch tensor), "
                f"but it is {describe(x)}.")


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
        raise Wrong(f"{at} is a torch tensor of dtype {str(t.dtype).replace('torch.', '')} on "
                    f"{t.device} that could not be read as numbers: try .float().cpu() first.") from None


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
    lengths = [len(v) if isinstance(v, (list, tuple)) else None for v in items]
    if lengths and None not in lengths and len(set(lengths)) > 1:  # ragged rows, named before any is read
        i = next(k for k, n in enumerate(lengths) if n != lengths[0])
        raise Wrong(_ragged(what, path, (lengths[0],), i, (lengths[i],)))
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
        return (f"{sentence_start(what)} is ragged{inside}: row {i} has {count_words(other)} but row 0 has "
                f"{count_words(first)}. Every row must have the same length.")
    return (f"{sentence_start(what)} is ragged{inside}: entry {i} is {count_words(other)} but entry 0 is "
            f"{count_words(first)}. Every entry must have the same shape.")


def torch_form(values: Any, dtype: str = "float32") -> Any:
    """`values` as a torch tensor of `dtype` (a right answer in torch's form), or a list where torch is missing."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is in requirements.txt
        return np.asarray(values, dtype=float).tolist()
    return torch.tensor(np.asarray(values, dtype=float), dtype=getattr(torch, dtype))


# --- rounding -----------------------------------------------------------------------

def rounding_hint(answer: Any, expected: Any, atol: float = 1e-6, rtol: float = 1e-5) -> str:
    """A hint when `answer` is `expected` rounded (or cut) to fewer decimals than it needs, else ''."""
    try:
        got = to_numpy(answer)
        want = np.asarray(expected, dtype=np.float64)
    except Wrong:
        return ""
    if got.shape != want.shape or got.size == 0 or not np.all(np.isfinite(got)) or np.allclose(got, want, atol=atol, rtol=rtol):
        return ""
    need = next((k for k in range(13) if np.allclose(np.round(want, k), want, atol=atol, rtol=rtol)), None)
    have = _decimals(got)
    if need is not None and have is not None and have < need:
        scale = 10.0 ** have
        cut = np.trunc(want * scale) / scale
        if np.all(np.isclose(got, np.round(want, have), rtol=0, atol=1e-9)
                  | np.isclose(got, cut, rtol=0, atol=1e-9)):
            places = "whole numbers" if have == 0 else f"{have} decimal{'s' if have > 1 else ''}"
            return (f"Your numbers look rounded to {places}, which is too coarse here. Keep at least "
                    f"{need} decimals, or give the unrounded result of the computation.")
    sig = _significant(got)
    if sig is not None and sig >= 2 and np.all(want != 0):
        need_sig = next((s for s in range(1, 16) if np.allclose(_round_sig(want, s), want, atol=atol, rtol=rtol)), None)
        if need_sig is not None and sig < need_sig and np.allclose(got, _round_sig(want, sig), rtol=1e-12, atol=0):
            return (f"Your number looks rounded to {sig} significant digits, which is too coarse here. "
                    "Give it exactly, or with more digits.")
    return ""


def _decimals(values: np.ndarray) -> int | None:
    """The fewest decimals that write every value exactly (None when it takes more than 8)."""
    return next((d for d in range(9) if np.allclose(values, np.round(values, d), rtol=0, atol=1e-9)), None)


def _round_sig(values: np.ndarray, digits: int) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log10(np.abs(np.where(values == 0, 1, values))))
    scale = 10.0 ** (digits - 1 - exponent)
    return np.round(values * scale) / scale


def _significant(values: np.ndarray) -> int | None:
    if np.any(values == 0):
        return None
    return next((s for s in range(1, 16) if np.allclose(values, _round_sig(values, s), rtol=1e-12, atol=0)), None)


# --- expectations ---------------------------------------------------------------------

def expect_array(answer: Any, expected: Any, what: str = "your answer",
                 atol: float = 1e-6, rtol: float = 1e-5, factors: dict[str, float] | None = None) -> None:
    """Raise Wrong unless `answer` equals `expected`: structure first (axes, order, sign, a common
    factor, named in `factors` such as {"the number of heads": 8}), then rounding, then values."""
    expected = np.asarray(expected, dtype=float)
    got = to_numpy(answer, what)
    name = sentence_start(what)
    if got.shape == expected.shape and np.all(np.isfinite(got)) and np.allclose(got, expected, atol=atol, rtol=rtol):
        return
    if got.size == expected.size and got.size > 1 and np.all(np.isfinite(got)):
        structure = structure_hint(got, expected, name, atol=atol, rtol=rtol, factors=factors)
        if structure:
            raise Wrong(structure)
    if got.shape != expected.shape:
        raise Wrong(f"{name} has shape {got.shape}, but it should have shape {expected.shape}, "
                    f"{shape_words(expected.shape)}.")
    if not np.all(np.isfinite(got)):
        first = tuple(int(i) for i in np.argwhere(~np.isfinite(got))[0])
        where = f" at {position_words(first)}" if first else ""
        raise Wrong(f"{name} contains inf or nan{where}: something overflowed or divided by zero.")
    if _cut_to_whole(answer, got, expected):
        raise Wrong(f"{name} holds whole numbers ({describe(answer)}): the decimals were cut off when it was "
                    "made. Build it from floats (dtype=float) so that every number keeps its decimals.")
    rounded = rounding_hint(got, expected, atol=atol, rtol=rtol)
    if rounded:
        raise Wrong(rounded if got.size > 1 else rounded.replace("Your numbers look", "Your number looks"))
    bad = np.argwhere(~np.isclose(got, expected, atol=atol, rtol=rtol))
    if got.ndim:
        first = tuple(int(i) for i in bad[0])
        raise Wrong(f"The shape is right, but {len(bad)} of {got.size} values differ. The first is "
                    f"{position_words(first)}, where you have {fmt(got[first])}, "
                    f"{_how_far(float(got[first]), float(expected[first]))}. Recompute that entry carefully.")
    raise Wrong(f"{name} is {fmt(got)}, {_how_far(float(got), float(expected))}. Recompute it carefully.")


def expect_structure(answer: Any, expected: Any, what: str = "your answer", atol: float = 1e-6,
                     rtol: float = 1e-5, factors: dict[str, float] | None = None, values: bool = False) -> None:
    """Raise Wrong when `answer` holds the expected numbers in another arrangement (see `structure_hint`).

    A grader calls it before checking shapes; with values=True (after its own exercise-specific
    slips) it also names the right numbers in another order, the opposite sign or a common factor.
    `expect_array` does all of it before comparing values."""
    expected = np.asarray(expected, dtype=float)
    got = to_numpy(answer, what)
    if got.size != expected.size or got.size < 2 or not np.all(np.isfinite(got)):
        return
    if got.shape == expected.shape and (not values or np.allclose(got, expected, atol=atol, rtol=rtol)):
        return
    hint = structure_hint(got, expected, sentence_start(what), atol=atol, rtol=rtol, factors=factors)
    if hint:
        raise Wrong(hint)


def structure_hint(got: np.ndarray, expected: np.ndarray, name: str = "Your answer", atol: float = 1e-6,
                   rtol: float = 1e-5, factors: dict[str, float] | None = None) -> str:
    """What is wrong with the arrangement of the right numbers, in words, or '' when it is not that.

    Tried in order: an axis of length 1 too many or too few, rows and columns swapped, the axes in
    another order, the numbers poured into another shape, then (same shape) the right numbers in
    another order, the opposite sign, and every number off by the same factor."""
    def same(a: np.ndarray, b: np.ndarray) -> bool:
        return a.shape == b.shape and bool(np.allclose(a, b, atol=atol, rtol=rtol))

    if got.shape != expected.shape and got.size == expected.size:
        if same(np.squeeze(got), np.squeeze(expected)):
            more, fewer = got.ndim > expected.ndim, got.ndim < expected.ndim
            kind = ("an extra axis of length 1" if more else "an axis of length 1 missing" if fewer
                    else "its axes of length 1 in other places")
            return (f"{name} holds the right numbers, but with {kind}: its shape is {got.shape}, and it should "
                    f"be {expected.shape}, {shape_words(expected.shape)}.")
        if got.ndim == expected.ndim == 2 and same(got.T, expected):
            return (f"{name} has shape {got.shape}, but it should have shape {expected.shape}. It holds the right "
                    "numbers with rows and columns swapped.")
        if got.ndim == expected.ndim and 2 < got.ndim <= 5:
            for order in itertools.permutations(range(got.ndim)):
                if same(got.transpose(order), expected):
                    return (f"{name} holds the right numbers with its axes in another order: its shape is "
                            f"{got.shape}, and it should be {expected.shape}. Check which axis each size belongs to.")
        if same(got.reshape(expected.shape), expected):
            return (f"{name} holds the right numbers, but arranged in shape {got.shape}; it should have shape "
                    f"{expected.shape}, {shape_words(expected.shape)}.")
        return ""
    if got.shape != expected.shape:
        return ""
    if got.ndim == 2 and got.shape[0] == got.shape[1] and same(got.T, expected):
        return f"{name} is the right grid transposed: are rows and columns swapped?"
    flat, want = got.reshape(-1), expected.reshape(-1)
    if same(np.sort(flat), np.sort(want)):
        if got.size == 2:
            return f"{name} holds the right two numbers in the other order."
        if same(flat[::-1], want) or (got.ndim >= 1 and same(got[::-1], expected)):
            return f"{name} holds the right numbers in reverse order."
        if same(flat, np.sort(want)) or same(flat, np.sort(want)[::-1]):
            return (f"{name} holds the right numbers, but sorted by size. They belong in another order: each "
                    "number at the place it was computed for.")
        if got.ndim == 2 and same(np.sort(got, axis=0), np.sort(expected, axis=0)) and \
                sorted(map(tuple, got.tolist())) == sorted(map(tuple, expected.tolist())):
            return f"{name} holds the right rows, but in another order: row i belongs to the i-th item."
        return f"{name} holds the right numbers, but in another order."
    if np.any(np.abs(want) > atol) and same(-got, expected):
        return f"{name} has the right sizes but the opposite sign: every number should have the other sign."
    factor = _common_factor(flat, want, atol=atol, rtol=rtol)
    if factor is not None:
        return _factor_words(name, factor, factors, several=got.size > 1)
    return ""


def _common_factor(got: np.ndarray, want: np.ndarray, atol: float, rtol: float) -> float | None:
    """c when got is c times want for one c other than 1 (and 0, and -1), else None."""
    if not np.any(np.abs(want) > atol):
        return None
    c = float(np.dot(got, want) / np.dot(want, want))
    if c == 0 or not math.isfinite(c) or math.isclose(abs(c), 1.0, rel_tol=1e-3):
        return None
    return c if np.allclose(got, c * want, atol=atol, rtol=rtol) else None


def _factor_words(name: str, c: float, factors: dict[str, float] | None, several: bool) -> str:
    every = "every number is" if several else "it is"
    for label, value in (factors or {}).items():
        for size, direction in ((value, "too large"), (1 / value, "too small")):
            if value and math.isclose(c, size, rel_tol=1e-6):
                return f"{name} is off by a factor of {label}: {every} {label} times {direction}."
    direction = "too large" if abs(c) > 1 else "too small"
    return (f"{name} is off by one common factor: {every} {direction} by the same factor. Look for a step "
            "that multiplies or divides everything.")


def _how_far(value: float, want: float) -> str:
    """How far off and in which direction, in coarse words that never give the right value away."""
    if want == 0 or not math.isfinite(value):
        return "which is not right yet"
    if (value > 0) != (want > 0) and value != 0:
        return "which has the wrong sign"
    ratio = abs(value / want)
    direction = "too large" if abs(value) > abs(want) else "too small"
    if 0.9 <= ratio <= 1.1:
        return f"a little {direction} (within 10%)"
    if 0.5 <= ratio <= 2:
        return f"{direction}, by more than 10%"
    if 0.1 <= ratio <= 10:
        return f"far {direction}: off by more than a factor of 2"
    return f"far {direction}: off by more than a factor of 10"


def _cut_to_whole(answer: Any, got: np.ndarray, expected: np.ndarray) -> bool:
    """True when the answer is an integer array or tensor whose numbers are the expected ones with the decimals cut."""
    if isinstance(answer, np.ndarray):
        kind = answer.dtype.kind
    elif is_array(answer):  # a torch tensor: int8 … int64, uint8
        kind = "i" if "int" in str(answer.dtype) else "f"
    else:
        return False
    if kind not in ("i", "u") or np.allclose(expected, np.round(expected)):
        return False
    return bool(np.allclose(got, np.trunc(expected)) or np.allclose(got, np.round(expected)))


def expect_number(answer: Any, expected: float, what: str = "your answer", atol: float = 1e-6,
                  rtol: float = 1e-4, hint: str = "", factors: dict[str, float] | None = None) -> None:
    """Raise Wrong unless `answer` is one real number close to `expected`.

    The sign and a common factor are diagnosed first (`factors` names the candidates, such as
    {"2": 2, "the number of heads": 8}); otherwise the hint says how far off and in which direction."""
    name = sentence_start(what)
    value = to_number(answer, what)
    if not math.isfinite(value):
        raise Wrong(f"{name} is {value}; a finite number is wanted.")
    if math.isclose(value, expected, abs_tol=atol, rel_tol=rtol):
        return
    if expected != 0 and math.isclose(-value, expected, abs_tol=atol, rel_tol=rtol):
        raise Wrong(f"{name} has the right size but the wrong sign. {hint}".strip())
    if expected != 0 and value != 0:
        c = value / expected
        for label, size in (factors or {}).items():
            for target, direction in ((size, "too large"), (1 / size, "too small")):
                if size and math.isclose(c, target, rel_tol=max(rtol, 1e-9)):
                    raise Wrong(f"{name} is off by a factor of {label}: it is {label} times {direction}. {hint}".strip())
    rounded = rounding_hint(value, expected, atol=atol, rtol=rtol)
    if rounded:
        raise Wrong(rounded.replace("Your numbers look", "Your number looks"))
    raise Wrong(f"{name} is {fmt(value)}, {_how_far(value, expected)}. {hint}".strip())


# --- shapes -----------------------------------------------------------------------------

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
            raise Wrong(f"{name} holds {describe(answer)}: a shape holds whole numbers (ints), not decimals. "
                        "Write each size as an int (and divide with //, which keeps ints).")
        answer = [int(d) for d in to_numpy(answer, what)]
    if isinstance(answer, (bool, np.bool_)) or isinstance(answer, (str, bytes)) or callable(answer):
        raise Wrong(f"{name} should be a shape, {words}, but it is {describe(answer)}.")
    if isinstance(answer, (numbers.Integral, np.integer)):
        if length == 1:
            raise Wrong(f"{name} is the number {int(answer)}, not a shape. In Python, (7) is just 7: a shape "
                        "is a tuple even with one entry, so put a comma inside the brackets, (n,).")
        if length:
            raise Wrong(f"{name} is a single number, but this shape has {length}: {words}.")
        raise Wrong(f"{name} is a single number, but a shape is {words}.")
    if not isinstance(answer, (tuple, list)) or len(answer) > 64:
        raise Wrong(f"{name} should be a shape, {words}, but it is {describe(answer)}.")
    dims = []
    for i, d in enumerate(answer):
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (numbers.Real, np.integer, np.floating)):
            raise Wrong(f"Entry [{i}] of {what} is {describe(d)}; a shape holds whole numbers.")
        if not math.isfinite(float(d)) or float(d) != int(d) or d < 0:
            raise Wrong(f"Entry [{i}] of the shape is {fmt(d)}; a shape holds whole numbers of rows and columns.")
        if not isinstance(d, (numbers.Integral, np.integer)):
            raise Wrong(f"Entry [{i}] of {what} is {show(d, 40)}, a decimal number: a shape holds whole numbers "
                        "(ints), not decimals. Write it as an int (and divide with //, which keeps ints).")
        dims.append(int(d))
    return tuple(dims)


def expect_shape(answer: Any, expected: tuple[int, ...], what: str = "your answer") -> None:
    """Raise Wrong unless `answer` is a shape (tuple, list or torch.Size of whole numbers) equal to `expected`."""
    name = sentence_start(what)
    expected = tuple(int(d) for d in expected)
    got = to_shape(answer, what, len(expected))
    if len(got) != len(expected):
        raise Wrong(f"{name} {got} has {len(got)} number(s), but this shape has {len(expected)}.")
    if got != expected:
        if got == tuple(reversed(expected)):
            raise Wrong(f"{name} {got} is the right numbers in the wrong order: rows come first, then columns.")
        raise Wrong(f"{name} {got} is not right yet: count the rows, then the columns.")


# --- pairs and words --------------------------------------------------------------------

def expect_pair(answer: Any, what: str = "your answer", n: int = 2) -> tuple:
    """The n things in `answer` (a tuple or a list, e.g. (Z, A) or [Z, A]), or raise Wrong."""
    name = sentence_start(what)
    torch = sys.modules.get("torch")
    example = ", ".join("abcdefgh"[:n]) if n <= 8 else "a, b, …"
    if isinstance(answer, (tuple, list)) and not (torch is not None and isinstance(answer, torch.Size)):
        if len(answer) == n:
            return tuple(answer)
        raise Wrong(f"{name} holds {len(answer)} thing{'s' if len(answer) != 1 else ''}, but {n} are wanted "
                    f"together, as a tuple ({example}) or a list [{example}].")
    raise Wrong(f"{name} should be {n} things together, as a tuple ({example}) or a list [{example}], "
                f"but it is {describe(answer)}.")


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


def expect_word(answer: Any, expected: str, options: Sequence[str], what: str = "your answer",
                near: Sequence[str] | None = None, section: str = "") -> None:
    """Raise Wrong unless `answer` is the text `expected` (case, quotes and spaces ignored).

    `near` names the near misses that earn "a fair guess"; any other choice gets a neutral hint
    that points back to `section` (e.g. "the section on the attention matrix").
    """
    name = sentence_start(what)
    if not isinstance(answer, str):
        raise Wrong(f"{name} should be one word in quotes (text), but it is {describe(answer)}.")
    word = normal_word(answer)
    if not word:
        raise Wrong(f"{name} is empty text: write the word between the quotes.")
    choices = list(dict.fromkeys(options))
    if word not in [o.lower() for o in choices]:
        raise Wrong(f"{name} {show(word)} is not one of the choices: {', '.join(choices)}.")
    if word != expected.lower():
        remaining = [o for o in choices if o.lower() != word]
        if near and word in {n.lower() for n in near} and len(remaining) > 1:
            raise Wrong(f"{name} {show(word)} is a fair guess, but not the closest. Compare the numbers again.")
        back = section or "the section this exercise follows"
        raise Wrong(f"{name} {show(word)} is not the one. Go back to {back} and compare again.")
