"""The exercise checker: `check(exercise_id, answer)` prints ✓ or a kind hint, and never raises.

Each chapter registers its exercises in its own module (`ch01.py`, `ch02.py`, …) with the
`exercise` decorator. A registration carries right answers in several forms, plausible wrong
answers, one line on what the hidden cases catch, and the solution's key line, so the tests can
prove that every checker accepts the right, rejects the wrong and never prints the solution.
A checker is a function that takes the learner's answer and raises `Wrong("hint")` when it is off.

Rules for every checker (the tests hold each chapter to them):

1. Expected answers are computed from private module-level constants, before any learner code
   runs, and never from an object the learner touched: not from the arguments a learner's
   function received, not from what it returned, not from the learner's answer.
2. A learner's function is called only through `call(fn, *args)`. It hands the function deep
   private copies of every argument, contains anything the function raises, and rejects a
   function that changed one of its inputs in place (unless the statement asks for that:
   `call(..., in_place=True)`).
3. Answers are read only through `to_numpy` and the `expect_*` helpers, which accept every valid
   form (lists, tuples, numpy arrays, torch tensors of any real dtype, bfloat16 included, ints
   where integral, torch.Size for shapes) and name the junk (text, complex numbers, True/False,
   None, ragged rows) exactly.
4. A hint says what is wrong (which entry, which shape, rounding, a missing return, an input
   changed) and points back to the section that explains it. It never contains the solution's
   code or the finished computation with its numbers. Echoed learner values are cut to about
   200 characters; `check` capitalises each sentence and wraps the hint at 78 columns.
5. Nothing escapes `check` but KeyboardInterrupt: a failure inside a checker becomes a hint about
   the answer's type and shape, never a Python internal.
"""
from __future__ import annotations

import copy
import decimal
import importlib
import inspect
import math
import numbers
import pkgutil
import re
import sys
import textwrap
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

ECHO_LIMIT = 200        # characters of a learner's value a hint may echo
HINT_LIMIT = 600        # characters of a whole hint, whatever a checker put in it
_MAX_DEPTH = 32         # nesting of lists beyond which an answer is not a grid of numbers


class Wrong(Exception):
    """Raised by a checker with a hint for the learner."""


class Verdict:
    """What `check` returns: true for a right answer; shows nothing as a cell's result in Jupyter."""
    __slots__ = ("ok", "message")

    def __init__(self, ok: bool, message: str = "") -> None:
        self.ok = bool(ok)
        self.message = message  # the verdict as printed, before wrapping

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: Any) -> Any:
        if isinstance(other, Verdict):
            return self.ok == other.ok
        if isinstance(other, (bool, int, np.bool_)):
            return self.ok == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.ok)

    def __repr__(self) -> str:
        return repr(self.ok)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's pretty printer: the verdict was printed already, so show nothing."""

    def _ipython_display_(self) -> None:
        """Jupyter's display hook: nothing, so a `check(...)` cell shows its verdict once."""


@dataclass
class Exercise:
    """One registered exercise: its checker and examples of right and wrong answers."""
    id: str
    checker: Callable[[Any], None]
    right: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    catches: str = ""     # which plausible wrong answers the hidden cases are built to catch
    solution: str = ""    # the solution cell's key code; no hint may contain it


_REGISTRY: dict[str, Exercise] = {}
_loaded = False


def exercise(exercise_id: str, right: list, wrong: list, catches: str = "", solution: str = "") -> Callable:
    """Register a checker under `exercise_id`, with examples of right and wrong answers."""
    def register(checker: Callable[[Any], None]) -> Callable[[Any], None]:
        if exercise_id in _REGISTRY:
            raise ValueError(f"exercise id {exercise_id!r} is registered twice")
        _REGISTRY[exercise_id] = Exercise(exercise_id, checker, list(right), list(wrong), catches, solution)
        return checker
    return register


def _load_all() -> None:
    global _loaded
    if not _loaded:
        for module in pkgutil.iter_modules(__path__):
            if module.name.startswith("ch"):
                importlib.import_module(f"{__name__}.{module.name}")
        _loaded = True


def exercise_ids() -> list[str]:
    """Every registered exercise id, e.g. 'ch09.stable_softmax', in order."""
    _load_all()
    return sorted(_REGISTRY)


def get(exercise_id: str) -> Exercise:
    """The registered exercise with this id (KeyError if there is none)."""
    _load_all()
    return _REGISTRY[exercise_id]


# --- check ----------------------------------------------------------------------

def check(exercise_id: str, answer: Any) -> Verdict:
    """Check a learner's answer: print ✓ or a hint and return a Verdict (true when right); never raise."""
    try:
        ok, message = _judge(exercise_id, answer)
    except KeyboardInterrupt:
        raise
    except BaseException:  # even a failure while writing the hint must not take the notebook down
        ok, message = False, ("✗ Not yet. The checker could not read your answer. "
                              "Check the type and shape of what you gave against the exercise.")
    try:
        _say(message)
    except KeyboardInterrupt:
        raise
    except BaseException:
        pass
    from ..exercise_record import record  # the learner's own record of verdicts; never raises
    record(exercise_id, answer, ok)
    return Verdict(ok, message)


def _judge(exercise_id: Any, answer: Any) -> tuple[bool, str]:
    _load_all()
    if not isinstance(exercise_id, str) or exercise_id not in _REGISTRY:
        close = [i for i in _REGISTRY if i.split(".")[0] == _safe_str(exercise_id).split(".")[0]]
        return False, (f"✗ There is no exercise called {_show(exercise_id)}. Check the spelling"
                       f"{'; this chapter has: ' + ', '.join(close) if close else ''}.")
    if answer is None or answer is ...:
        return False, "✗ No answer yet: replace the placeholder (None or ...) with your answer and run the cell."
    ex = _REGISTRY[exercise_id]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            ex.checker(answer)
    except KeyboardInterrupt:
        raise
    except Wrong as hint:
        return False, "✗ Not yet. " + _polish(_safe_str(hint), answer)
    except BaseException:  # the checker itself failed on this answer: say what the answer is instead
        return False, "✗ Not yet. " + _polish(_unreadable(ex, answer), answer)
    return True, "✓ Correct. Well done!"


def _say(message: str) -> None:
    """Print a message wrapped at 78 characters, so a hint reads on a narrow screen."""
    print(textwrap.fill(message, width=78, subsequent_indent="  ", break_on_hyphens=False))


def _unreadable(ex: Exercise, answer: Any) -> str:
    """The hint for an answer the checker could not handle: what the answer is, what is wanted."""
    wanted = _wanted(ex)
    if callable(answer) and not _is_array(answer):
        return ("The checker could not use what your function returns. Check the type and shape "
                f"of its result against the exercise{': it wants ' + wanted if wanted else ''}.")
    return (f"The checker could not read your answer, which is {_describe(answer)}. "
            f"{'This exercise wants ' + wanted + '. ' if wanted else ''}"
            "Check the type and shape of what you gave.")


def _wanted(ex: Exercise) -> str:
    """What the registered right answers look like, in words (never their values)."""
    if not ex.right:
        return ""
    first = ex.right[0]
    if callable(first) and not _is_array(first):
        return ""
    if isinstance(first, str):
        return "a word in quotes"
    try:
        shape = to_numpy(first).shape
    except Exception:
        return ""
    return _shape_words(shape)


def _shape_words(shape: tuple[int, ...]) -> str:
    if shape == ():
        return "a single number"
    if len(shape) == 1:
        return f"a row of {shape[0]} numbers"
    if len(shape) == 2:
        return f"a grid of {shape[0]} rows and {shape[1]} columns"
    return f"numbers arranged in the shape {shape}"


# --- hints: short, capitalised, no internals --------------------------------------

_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")
_SENTENCE = re.compile(r"(?:^|(?<=[.!?])\s+)([a-z][a-z]*)(?=[\s,:;!?]|$)")


def _capitalise_sentences(text: str) -> str:
    """Capitalise the first word of every sentence, unless it is code (d_k, np.exp, x) or follows e.g."""
    def fix(match: re.Match) -> str:
        word = match.group(1)
        before = text[:match.start(1)].rstrip()
        if before.endswith(_ABBREVIATIONS) or (len(word) == 1 and word != "a"):
            return match.group(0)
        return match.group(0)[: match.start(1) - match.start(0)] + word[0].upper() + word[1:]
    return _SENTENCE.sub(fix, text)


def _polish(text: str, answer: Any = None) -> str:
    """A checker's hint made fit to print: echoes of a long answer cut, sentences capitalised, length capped."""
    text = " ".join(text.split())
    if isinstance(answer, (str, bytes)) and len(answer) > ECHO_LIMIT:
        raw = answer.decode("utf-8", "replace") if isinstance(answer, bytes) else answer
        for echo in sorted({repr(raw), repr(raw.strip()), raw, raw.strip(), raw.strip().lower(),
                            repr(raw.strip().lower()), repr(raw.strip().strip("\"'“”").lower())},
                           key=len, reverse=True):
            echo = " ".join(echo.split())
            if len(echo) > ECHO_LIMIT and echo in text:
                text = text.replace(echo, _clip(echo))
    text = " ".join(_clip(word, ECHO_LIMIT) if len(word) > ECHO_LIMIT else word for word in text.split(" "))
    if len(text) > HINT_LIMIT:
        text = text[: HINT_LIMIT - 160].rstrip() + " … " + text[-150:].lstrip()
    return _capitalise_sentences(text)


def _clip(text: str, limit: int = ECHO_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _safe_str(x: Any) -> str:
    """str(x), or a placeholder when str(x) itself fails (a learner's exception may do that)."""
    try:
        text = str(x)
    except KeyboardInterrupt:
        raise
    except BaseException:
        return "(a message that could not be shown)"
    return text if isinstance(text, str) else "(a message that could not be shown)"


def _show(x: Any, limit: int = ECHO_LIMIT) -> str:
    """A learner's value as it may appear in a hint: its repr, cut to about `limit` characters."""
    if isinstance(x, (list, tuple)) and len(x) > 50:
        head = ", ".join(_show(v, 40) for v in x[:8])
        return _clip(f"{'[' if isinstance(x, list) else '('}{head}, … ({len(x)} items)", limit)
    if isinstance(x, str) and len(x) > limit:
        x = x[:limit]
    try:
        text = repr(x)
    except KeyboardInterrupt:
        raise
    except BaseException:
        text = f"a {type(x).__name__}"
    if not isinstance(text, str):
        text = f"a {type(x).__name__}"
    return _clip(" ".join(text.split()), limit)


def _short(exc: BaseException) -> str:
    text = _safe_str(exc).strip().splitlines()
    return _clip(text[0]) if text else "(no message)"


def _describe(x: Any) -> str:
    """What a learner's value is, in words: its type and shape, never a long dump."""
    torch = sys.modules.get("torch")
    if x is None:
        return "None"
    if isinstance(x, bool) or isinstance(x, np.bool_):
        return f"{x} (True/False)"
    if isinstance(x, str):
        return f"text of {len(x)} characters" if len(x) > 40 else f"the text {_show(x)}"
    if torch is not None and isinstance(x, torch.Size):
        return f"a torch.Size {tuple(x)}"
    if torch is not None and isinstance(x, torch.Tensor):
        return f"a torch tensor of shape {tuple(x.shape)} and dtype {str(x.dtype).replace('torch.', '')}"
    if isinstance(x, np.ndarray):
        return f"a numpy array of shape {x.shape} and dtype {x.dtype}"
    if isinstance(x, numbers.Number):
        return f"the number {_show(x, 60)}"
    if isinstance(x, (list, tuple)):
        return f"a {type(x).__name__} of {len(x)} item{'s' if len(x) != 1 else ''}"
    if callable(x):
        return "a function"
    return f"a {_clip(type(x).__name__, 60)}"


def _what(what: str) -> str:
    """`what` at the start of a sentence: 'your answer' -> 'Your answer' (code such as d_k stays)."""
    return what[:1].upper() + what[1:] if re.match(r"[a-z]{2,} ", what) else what


def _is_array(x: Any) -> bool:
    torch = sys.modules.get("torch")
    return isinstance(x, np.ndarray) or (torch is not None and isinstance(x, torch.Tensor))


# --- helpers for writing checkers ---------------------------------------------

def to_numpy(answer: Any, what: str = "your answer", *, allow_bool: bool = False) -> np.ndarray:
    """Turn a list, tuple, numpy array or torch tensor of real numbers into a float array, or raise Wrong."""
    if callable(answer) and not _is_array(answer):
        raise Wrong(f"{_what(what)} is a function; call it and check what it returns instead.")
    return _as_array(answer, what, (), allow_bool)


def _at(what: str, path: tuple[int, ...]) -> str:
    return f"Entry {''.join(f'[{i}]' for i in path)} of {what}" if path else _what(what)


def _as_array(x: Any, what: str, path: tuple[int, ...], allow_bool: bool) -> np.ndarray:
    at = _at(what, path)
    torch = sys.modules.get("torch")
    if x is None:
        return _refuse(f"{at} is None: a value is missing there. Put a number in its place "
                       "(a function without `return` gives None).")
    if isinstance(x, (bool, np.bool_)):
        if allow_bool:
            return np.asarray(float(x))
        return _refuse(f"{at} is {bool(x)}, a True/False value, but a number is wanted there.")
    if isinstance(x, (str, bytes, np.str_)):
        return _refuse(f"{at} is text ({_show(x)}); write numbers without quotes.")
    if isinstance(x, (numbers.Real, decimal.Decimal)):
        return np.asarray(float(x))
    if isinstance(x, numbers.Complex):
        return _refuse(f"{at} is a complex number ({_show(x, 60)}), but this exercise wants real numbers.")
    if torch is not None and isinstance(x, torch.Size):
        return np.asarray([float(d) for d in x]).reshape(len(x))
    if torch is not None and isinstance(x, torch.Tensor):
        return _from_tensor(x, at, allow_bool)
    if isinstance(x, np.ndarray):
        return _from_ndarray(x, what, path, allow_bool)
    if isinstance(x, (list, tuple, range)):
        return _from_sequence(x, what, path, allow_bool)
    if isinstance(x, dict):
        return _refuse(f"{at} is a dict; give the numbers as a list, a tuple or an array.")
    if isinstance(x, (set, frozenset)):
        return _refuse(f"{at} is a set, which has no order; give the numbers as a list, a tuple or an array.")
    if inspect.isgenerator(x) or type(x).__name__ in ("map", "filter", "zip", "dict_values", "dict_keys"):
        return _refuse(f"{at} is a {type(x).__name__}, not the numbers themselves: wrap it in list(...).")
    if callable(x):
        return _refuse(f"{at} is a function; call it and use what it returns.")
    if hasattr(x, "__array__"):
        try:
            arr = np.asarray(x)
        except Exception:
            arr = None
        if isinstance(arr, np.ndarray) and arr.dtype != object:
            return _from_ndarray(arr, what, path, allow_bool)
    return _refuse(f"{at} should be numbers (a list, a tuple, a numpy array or a torch tensor), "
                   f"but it is {_describe(x)}.")


def _refuse(hint: str) -> np.ndarray:
    raise Wrong(hint)


def _from_tensor(t: Any, at: str, allow_bool: bool) -> np.ndarray:
    import torch
    t = t.detach()
    if t.is_complex():
        return _refuse(f"{at} holds complex numbers ({t.dtype}), but this exercise wants real numbers.")
    if t.dtype == torch.bool and not allow_bool:
        return _refuse(f"{at} holds True/False values, but numbers are wanted.")
    try:
        if t.layout != torch.strided:
            t = t.to_dense()
        return t.to(device="cpu", dtype=torch.float64).numpy()  # float16, bfloat16, ints alike
    except Exception:
        return _refuse(f"{at} is a torch tensor of dtype {str(t.dtype).replace('torch.', '')} on "
                       f"{t.device} that could not be read as numbers: try .float().cpu() first.")


def _from_ndarray(a: np.ndarray, what: str, path: tuple[int, ...], allow_bool: bool) -> np.ndarray:
    at = _at(what, path)
    kind = a.dtype.kind
    if kind in "fiu":
        return np.asarray(a, dtype=np.float64)
    if kind == "b":
        if allow_bool:
            return a.astype(np.float64)
        return _refuse(f"{at} holds True/False values, but numbers are wanted.")
    if kind == "c":
        return _refuse(f"{at} holds complex numbers, but this exercise wants real numbers.")
    if kind in "US":
        first = a.reshape(-1)[0] if a.size else ""
        return _refuse(f"{at} holds text (such as {_show(str(first), 60)}); write numbers without quotes.")
    if kind == "O":
        if a.ndim == 0:
            return _as_array(a.item(), what, path, allow_bool)
        return _from_sequence(list(a), what, path, allow_bool)
    return _refuse(f"{at} holds {a.dtype} values, but numbers are wanted.")


def _from_sequence(items: Any, what: str, path: tuple[int, ...], allow_bool: bool) -> np.ndarray:
    if len(path) >= _MAX_DEPTH:
        return _refuse(f"{_what(what)} is nested {len(path)} lists deep; a grid of numbers is a list of rows.")
    items = list(items)
    if len(items) > 10_000:  # a long flat list of plain numbers: let numpy read it in one go
        try:
            fast = np.asarray(items)
        except (ValueError, TypeError):
            fast = None
        if fast is not None and fast.dtype.kind in "fiu":
            return fast.astype(np.float64)
    children = [_as_array(item, what, path + (i,), allow_bool) for i, item in enumerate(items)]
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
        return (f"{_what(what)} is ragged{inside}: row {i} has {_count(other)} but row 0 has "
                f"{_count(first)}. Every row must have the same length.")
    return (f"{_what(what)} is ragged{inside}: entry {i} is {_count(other)} but entry 0 is "
            f"{_count(first)}. Every entry must have the same shape.")


def _count(shape: tuple[int, ...]) -> str:
    if shape == ():
        return "a single number"
    if len(shape) == 1:
        return f"{shape[0]} number{'s' if shape[0] != 1 else ''}"
    return f"a block of shape {shape}"


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


def expect_array(answer: Any, expected: Any, what: str = "your answer",
                 atol: float = 1e-6, rtol: float = 1e-5) -> None:
    """Raise Wrong with a shape, rounding or value hint unless `answer` equals `expected`."""
    expected = np.asarray(expected, dtype=float)
    got = to_numpy(answer, what)
    name = _what(what)
    if got.shape != expected.shape:
        if got.size == expected.size and got.size > 1 and np.all(np.isfinite(got)):
            if (got.ndim == 2 and expected.ndim == 2 and got.shape == expected.shape[::-1]
                    and np.allclose(got.T, expected, atol=atol, rtol=rtol)):
                raise Wrong(f"{name} has shape {got.shape}, but it should have shape {expected.shape}. "
                            "It holds the right numbers with rows and columns swapped.")
            if np.allclose(got.reshape(expected.shape), expected, atol=atol, rtol=rtol):
                raise Wrong(f"{name} holds the right numbers, but arranged in shape {got.shape}; it should "
                            f"have shape {expected.shape}, {_shape_words(expected.shape)}.")
        raise Wrong(f"{name} has shape {got.shape}, but it should have shape {expected.shape}.")
    if not np.all(np.isfinite(got)):
        first = tuple(int(i) for i in np.argwhere(~np.isfinite(got))[0])
        where = f" at position {first}" if first else ""
        raise Wrong(f"{name} contains inf or nan{where}: something overflowed or divided by zero.")
    if np.allclose(got, expected, atol=atol, rtol=rtol):
        return
    if (got.ndim == 2 and got.shape[0] == got.shape[1]
            and np.allclose(got.T, expected, atol=atol, rtol=rtol)):
        raise Wrong(f"{name} is the right grid transposed: are rows and columns swapped?")
    rounded = rounding_hint(got, expected, atol=atol, rtol=rtol)
    if rounded:
        raise Wrong(rounded)
    bad = np.argwhere(~np.isclose(got, expected, atol=atol, rtol=rtol))
    first = tuple(int(i) for i in bad[0]) if got.ndim else ()
    if got.ndim:
        raise Wrong(f"The shape is right, but {len(bad)} of {got.size} values differ; the first is at "
                    f"position {first}, where you have {_fmt(got[first])}. Recompute that entry carefully.")
    raise Wrong(f"{name} is {_fmt(got)}, which is not right yet. Recompute it carefully.")


def expect_number(answer: Any, expected: float, what: str = "your answer",
                  atol: float = 1e-6, rtol: float = 1e-4, hint: str = "") -> None:
    """Raise Wrong unless `answer` is one real number close to `expected`."""
    name = _what(what)
    if isinstance(answer, (bool, np.bool_)):
        raise Wrong(f"{name} is {bool(answer)}, a True/False value, but a number is wanted.")
    got = to_numpy(answer, what)
    if got.size != 1:
        raise Wrong(f"{name} should be a single number, but it has shape {got.shape}.")
    value = float(got.reshape(()))
    if not math.isfinite(value):
        raise Wrong(f"{name} is {value}; a finite number is wanted.")
    if not math.isclose(value, expected, abs_tol=atol, rel_tol=rtol):
        rounded = rounding_hint(value, expected, atol=atol, rtol=rtol)
        if rounded:
            raise Wrong(rounded.replace("Your numbers look", "Your number looks"))
        raise Wrong(f"{name} is {_fmt(value)}, which is not right yet. {hint}".strip())


def expect_shape(answer: Any, expected: tuple[int, ...], what: str = "your answer") -> None:
    """Raise Wrong unless `answer` is a shape (tuple, list or torch.Size of whole numbers) equal to `expected`."""
    name = _what(what)
    expected = tuple(int(d) for d in expected)
    dims = _shape_entries(answer, what, len(expected))
    got = tuple(dims)
    if len(got) != len(expected):
        raise Wrong(f"{name} {got} has {len(got)} number(s), but this shape has {len(expected)}.")
    if got != expected:
        if got == tuple(reversed(expected)):
            raise Wrong(f"{name} {got} is the right numbers in the wrong order: rows come first, then columns.")
        raise Wrong(f"{name} {got} is not right yet: count the rows, then the columns.")


def _shape_entries(answer: Any, what: str, length: int) -> list[int]:
    name = _what(what)
    torch = sys.modules.get("torch")
    words = "a tuple of whole numbers such as (rows, columns)"
    if torch is not None and isinstance(answer, torch.Size):
        return [int(d) for d in answer]
    if _is_array(answer):
        arr = to_numpy(answer, name)
        if arr.ndim != 1:
            raise Wrong(f"{name} should be a shape, {words}, but it is {_describe(answer)}.")
        answer = arr.tolist()
    if isinstance(answer, (bool, np.bool_)) or isinstance(answer, (str, bytes)) or callable(answer):
        raise Wrong(f"{name} should be a shape, {words}, but it is {_describe(answer)}.")
    if isinstance(answer, (numbers.Integral, np.integer)):
        if length == 1:
            raise Wrong(f"{name} is a single number; a shape is a tuple even with one entry: put a comma after it, (n,).")
        raise Wrong(f"{name} is a single number, but this shape has {length}: {words}.")
    if not isinstance(answer, (tuple, list)):
        raise Wrong(f"{name} should be a shape, {words}, but it is {_describe(answer)}.")
    dims = []
    for i, d in enumerate(answer):
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (numbers.Real, np.integer, np.floating)):
            raise Wrong(f"Entry [{i}] of {what} is {_describe(d)}; a shape holds whole numbers.")
        if float(d) != int(d) or d < 0:
            raise Wrong(f"Entry [{i}] of the shape is {_fmt(d)}; a shape holds whole numbers of rows and columns.")
        dims.append(int(d))
    return dims


def expect_pair(answer: Any, what: str = "your answer", n: int = 2) -> tuple:
    """The n things in `answer` (a tuple or a list, e.g. (Z, A) or [Z, A]), or raise Wrong."""
    name = _what(what)
    torch = sys.modules.get("torch")
    if isinstance(answer, (tuple, list)) and not (torch is not None and isinstance(answer, torch.Size)):
        if len(answer) == n:
            return tuple(answer)
        raise Wrong(f"{name} holds {len(answer)} thing{'s' if len(answer) != 1 else ''}, but {n} are wanted "
                    "together, as a tuple (a, b) or a list [a, b].")
    raise Wrong(f"{name} should be {n} things together, as a tuple (a, b) or a list [a, b], "
                f"but it is {_describe(answer)}.")


def call(fn: Any, *args: Any, what: str = "your function", in_place: bool = False) -> Any:
    """Call the learner's function on private copies of `args`; any raise, change to an input or missing return becomes a Wrong hint."""
    name = _what(what)
    if not callable(fn) or _is_array(fn):
        raise Wrong(f"{name} should be a function (def ...), but it is {_describe(fn)}.")
    copies = [_private_copy(a) for a in args]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result = fn(*copies)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit, GeneratorExit, RecursionError, an exception whose str() fails …
        raise Wrong(_raised_hint(name, exc, args)) from None
    if not in_place:
        changed = [i for i, (a, c) in enumerate(zip(args, copies)) if not _same(a, c)]
        if changed:
            label = _argument_name(fn, changed[0], len(args))
            raise Wrong(f"{name} changed its input {label} in place: after the call it no longer holds what "
                        "it was given. The caller's data must stay as it was, so build the result as a new "
                        "array instead of writing into the input (no +=, -=, [...] = or out= on it).")
    if result is None:
        raise Wrong(f"{name} returned None: is a `return` missing?")
    return result


def _raised_hint(name: str, exc: BaseException, args: tuple) -> str:
    kind = _clip(type(exc).__name__, 60)
    inputs = f" (when called with {_describe_args(args)})" if args else ""
    if isinstance(exc, SystemExit):
        return (f"{name} raised SystemExit{inputs}: it called exit() or sys.exit(). "
                "A function should return its result instead.")
    if isinstance(exc, RecursionError):
        return f"{name} raised RecursionError{inputs}: it calls itself without end."
    return f"{name} raised {kind}: {_short(exc)}{inputs}."


def _describe_args(args: tuple) -> str:
    parts = []
    for a in args[:6]:
        if _is_array(a):
            parts.append(f"an array of shape {tuple(a.shape)}")
        elif isinstance(a, (list, tuple)):
            parts.append(f"a {type(a).__name__} of {len(a)}")
        else:
            parts.append(_show(a, 40))
    return ", ".join(parts) + (", …" if len(args) > 6 else "")


def _argument_name(fn: Any, index: int, count: int) -> str:
    try:
        params = list(inspect.signature(fn).parameters.values())
        if index < len(params) and params[index].kind in (params[index].POSITIONAL_ONLY,
                                                          params[index].POSITIONAL_OR_KEYWORD):
            return f"`{params[index].name}`"
    except (TypeError, ValueError):
        pass
    ordinal = ["first", "second", "third", "fourth", "fifth", "sixth"]
    return f"(its {ordinal[index]} argument)" if index < len(ordinal) and count > 1 else "(its argument)"


def _private_copy(x: Any) -> Any:
    """A deep copy of x that shares nothing the learner's function could change."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        c = x.detach().clone()
        return c.requires_grad_(True) if x.requires_grad and c.is_floating_point() else c
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, list):
        return [_private_copy(v) for v in x]
    if isinstance(x, tuple) and type(x) is tuple:
        return tuple(_private_copy(v) for v in x)
    if isinstance(x, dict) and type(x) is dict:
        return {k: _private_copy(v) for k, v in x.items()}
    try:
        return copy.deepcopy(x)
    except Exception:
        return x


def _same(a: Any, b: Any) -> bool:
    """True when b (the copy the learner's function got) still equals a (the grader's original)."""
    if a is b:
        return True
    torch = sys.modules.get("torch")
    try:
        if torch is not None and isinstance(a, torch.Tensor):
            if not isinstance(b, torch.Tensor) or a.shape != b.shape or a.dtype != b.dtype:
                return False
            b = b.detach().to(a.device)
            both_nan = torch.isnan(a) & torch.isnan(b) if a.is_floating_point() else torch.zeros_like(a, dtype=torch.bool)
            return bool(((a.detach() == b) | both_nan).all())
        if isinstance(a, np.ndarray):
            if not isinstance(b, np.ndarray) or a.shape != b.shape or a.dtype != b.dtype:
                return False
            if a.dtype.kind in "fc":
                return bool(np.array_equal(a, b, equal_nan=True))
            if a.dtype.kind == "O":
                return all(_same(x, y) for x, y in zip(a.reshape(-1), b.reshape(-1)))
            return bool(np.array_equal(a, b))
        if isinstance(a, (list, tuple)):
            return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        equal = a == b
        return bool(equal) if isinstance(equal, (bool, np.bool_)) else True
    except Exception:
        return False


def expect_value_error(fn: Any, *args: Any, what: str = "your function", names_shapes: bool = False) -> None:
    """Raise Wrong unless fn(*args) raises ValueError (a shape mismatch, say); with names_shapes, its message must name every input's shape."""
    name = _what(what)
    if not callable(fn) or _is_array(fn):
        raise Wrong(f"{name} should be a function (def ...), but it is {_describe(fn)}.")
    shapes = [tuple(int(d) for d in np.shape(a)) if not _is_array(a) else tuple(int(d) for d in a.shape)
              for a in args]
    shown = " and ".join(str(s) for s in shapes)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            fn(*[_private_copy(a) for a in args])
    except KeyboardInterrupt:
        raise
    except ValueError as exc:
        if names_shapes:
            message = _safe_str(exc)
            missing = [s for s in shapes if len(s) and not _mentions_shape(message, s)]
            if missing:
                raise Wrong(f"For inputs of shapes {shown}, {what} raised ValueError, but its message does not "
                            f"name the shape {missing[0]}. Put both shapes in the message, so the reader sees "
                            "what does not fit.") from None
        return
    except BaseException as exc:
        raise Wrong(f"For inputs of shapes {shown}, {what} raised {_clip(type(exc).__name__, 60)}; raise "
                    "ValueError for a shape mismatch, naming both shapes.") from None
    raise Wrong(f"For inputs of shapes {shown}, {what} returned a result, but those shapes cannot be "
                "combined: raise ValueError naming both shapes.")


def _mentions_shape(message: str, shape: tuple[int, ...]) -> bool:
    """True when the message writes this shape in any usual way: (2, 3), [2, 3], 2×3, 2 x 3, torch.Size([2, 3])."""
    pattern = r"(?<!\d)" + r"\s*(?:,|×|x|X|\*|by)\s*".join(str(d) for d in shape) + r"(?!\d)"
    return re.search(pattern, message) is not None


def _fmt(x: Any) -> str:
    try:
        return f"{float(x):.4g}"
    except Exception:
        return _show(x)


def _normal_word(text: str) -> str:
    return " ".join(text.strip().strip("\"'“”‘’`.!? ").lower().split())


def expect_word(answer: Any, expected: str, options: Sequence[str], what: str = "your answer",
                near: Sequence[str] | None = None, section: str = "") -> None:
    """Raise Wrong unless `answer` is the text `expected` (case, quotes and spaces ignored).

    `near` names the near misses that earn "a fair guess"; any other choice gets a neutral hint
    that points back to `section` (e.g. "the section on the attention matrix").
    """
    name = _what(what)
    if not isinstance(answer, str):
        raise Wrong(f"{name} should be one word in quotes (text), but it is {_describe(answer)}.")
    word = _normal_word(answer)
    if not word:
        raise Wrong(f"{name} is empty text: write the word between the quotes.")
    choices = list(dict.fromkeys(options))
    if word not in [o.lower() for o in choices]:
        raise Wrong(f"{name} {_show(word)} is not one of the choices: {', '.join(choices)}.")
    if word != expected.lower():
        if near and word in {n.lower() for n in near}:
            raise Wrong(f"{name} {_show(word)} is a fair guess, but not the closest. Compare the numbers again.")
        back = section or "the section this exercise follows"
        raise Wrong(f"{name} {_show(word)} is not the one. Go back to {back} and compare again.")
