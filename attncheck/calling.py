"""Calling learner code safely: private copies in, anything raised contained, inputs checked after (a raise too).

A learner's function is called only through `call` (or `expect_value_error` when it must refuse
its inputs). It gets deep private copies of every argument, so it can never change the grader's
data; whatever it raises becomes a hint; and a function that changed an input in place is told so,
unless the statement lets it (the registration's `in_place=True`, which `judge` hands to every
`call` through `inputs_may_change`; a grader may also pass `in_place=` itself).
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import inspect
import math
import re
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from .hints import ORDINALS, Wrong, clip, contained, describe, is_array, quietly, safe_str, sentence_start, short, show
from .record.attempts import is_placeholder_function

_MAY_CHANGE = contextvars.ContextVar("inputs_may_change", default=False)


@contextlib.contextmanager
def inputs_may_change(allowed: bool) -> Iterator[None]:
    """Inside the block, `call` and `expect_value_error` let a function change its inputs when `allowed`
    (`judge` runs each checker in it, with the registration's `in_place`)."""
    token = _MAY_CHANGE.set(bool(allowed))
    try:
        yield
    finally:
        _MAY_CHANGE.reset(token)


def call(
    fn: Any, *args: Any, what: str = "your function", in_place: bool | None = None, forbidden: dict | None = None
) -> Any:
    """Call the learner's function on private copies of `args`; any raise, change to an input or missing return becomes a Wrong hint.

    A change to an input is refused unless `in_place` (by default: what the exercise's registration says).
    `forbidden` names the helpers the statement forbids ({"attnlib.positional_encoding": the function}):
    a function whose code refers to one, by its name or through a name bound to it, is refused before it runs.
    An untouched stub (a body of `...` or `pass`) is told that there is no answer yet."""
    name = sentence_start(what)
    in_place = _MAY_CHANGE.get() if in_place is None else in_place
    if not callable(fn) or is_array(fn):
        raise Wrong(f"{name} should be a function (def ...), but it is {describe(fn)}.")
    if is_placeholder_function(fn):
        raise Wrong(NO_ANSWER_YET)
    used = uses_forbidden(fn, forbidden or {})
    if used:
        raise Wrong(
            f"{name} uses {used}, which the statement forbids here: the exercise is to build it "
            "yourself. Write the computation with the steps the chapter shows."
        )
    copies = [private_copy(a) for a in args]
    result = contained(lambda: _quiet_call(fn, copies), lambda exc: _Raised(_raised_hint(name, exc, args)))
    if not in_place:
        _refuse_changed(fn, args, copies, name)
    if isinstance(result, _Raised):
        raise Wrong(result.hint)
    if result is None:
        raise Wrong(f"{name} returned None: is a `return` missing?")
    return result


NO_ANSWER_YET = (
    "No answer yet: the function is still the exercise's stub. Write its body (replace the `...` or "
    "`pass`) and run the cell again."
)


def uses_forbidden(fn: Any, forbidden: dict, depth: int = 3) -> str | None:
    """The label of a forbidden helper fn's code uses, else None; it looks into nested functions and the
    functions fn calls. `forbidden` maps labels to helpers (functions or modules): a name bound to one,
    an attribute of a forbidden module (`attnlib.x`), or a forbidden function's name read as an attribute
    of its module (`attnlib.positional_encoding`) counts; a learner's own function of the same name does not."""
    if not forbidden:
        return None
    seen: set[int] = set()
    todo = [(fn, depth)]
    while todo:
        f, left = todo.pop()
        code = getattr(f, "__code__", None)
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        scope = getattr(f, "__globals__", None)
        scope = scope if isinstance(scope, dict) else {}
        cells = [c.cell_contents for c in (getattr(f, "__closure__", None) or ()) if _filled(c)]
        codes, words = [code], set()
        while codes:
            c = codes.pop()
            codes += [k for k in c.co_consts if inspect.iscode(k)]
            words.update(c.co_names)
        values = [scope[w] for w in words if w in scope] + cells
        modules = [v for v in values if inspect.ismodule(v)]
        for value in values:
            label = _label_of(value, forbidden)
            if label:
                return label
        for label, helper in forbidden.items():
            home = getattr(helper, "__module__", None) or ""
            name = getattr(helper, "__name__", None)
            if name in words and any(m.__name__.split(".")[0] == home.split(".")[0] for m in modules):
                return label
        todo += [(v, left - 1) for v in values if left > 1 and inspect.isfunction(v)]
    return None


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _label_of(value: Any, forbidden: dict) -> str | None:
    """The label of the forbidden helper `value` is, or lives in (a submodule of a forbidden module)."""
    for label, helper in forbidden.items():
        if value is helper:
            return label
        if inspect.ismodule(helper) and inspect.ismodule(value) and value.__name__.startswith(helper.__name__ + "."):
            return label
        if inspect.ismodule(helper) and (getattr(value, "__module__", None) or "").startswith(helper.__name__ + "."):
            return label
    return None


def expect_value_error(
    fn: Any,
    *args: Any,
    what: str = "your function",
    names_shapes: bool = False,
    inputs: str = "",
    naming: str = "both shapes",
    in_place: bool | None = None,
) -> str:
    """Raise Wrong unless fn(*args) raises ValueError (a shape mismatch, say); return its message.

    With names_shapes, the message must name every input's shape. `inputs` says in words what the
    inputs are (their shapes by default); `naming` what the message should name. A function that
    changed an input is told so, raise or not (unless `in_place`), as `call` does."""
    name = sentence_start(what)
    in_place = _MAY_CHANGE.get() if in_place is None else in_place
    if not callable(fn) or is_array(fn):
        raise Wrong(f"{name} should be a function (def ...), but it is {describe(fn)}.")
    shapes = [_shape_of(a) for a in args]
    inputs = inputs or "inputs of shapes " + " and ".join(str(s) for s in shapes)
    copies = [private_copy(a) for a in args]
    outcome = contained(lambda: _quiet_call(fn, copies), lambda exc: _Raised(safe_str(exc), type(exc)))
    if not in_place:
        _refuse_changed(fn, args, copies, name)
    if not isinstance(outcome, _Raised):
        raise Wrong(
            f"For {inputs}, {what} returned a result, but those inputs do not fit together: "
            f"raise ValueError naming {naming}."
        )
    if not issubclass(outcome.kind, ValueError):
        raise Wrong(
            f"For {inputs}, {what} raised {clip(outcome.kind.__name__, 60)}; raise "
            f"ValueError for inputs that do not fit, naming {naming}."
        )
    missing = [s for s in shapes if s and not mentions_shape(outcome.hint, s)] if names_shapes else []
    if missing:
        raise Wrong(
            f"For {inputs}, {what} raised ValueError, but its message does not "
            f"name the shape {missing[0]}. Put both shapes in the message, so the reader sees "
            "what does not fit."
        )
    return outcome.hint


def _refuse_changed(fn: Any, args: tuple, copies: list, name: str) -> None:
    """Raise Wrong when the learner's function changed one of its inputs, whether it returned or raised."""
    changed = [i for i, (a, c) in enumerate(zip(args, copies)) if not _same(a, c)]
    if changed:
        label = _argument_name(fn, changed[0], len(args))
        ways = (
            ".sort(), .pop(), .append() or x[i] = on it; copy it first, or build a new list"
            if isinstance(args[changed[0]], list)
            else "+=, -=, [...] = or out= on it"
        )
        raise Wrong(
            f"{name} changed its input {label} in place: after the call it no longer holds what "
            "it was given. The caller's data must stay as it was, so build the result as a new "
            f"array instead of writing into the input (no {ways})."
        )


class _Raised:
    """What a learner's function raised, read at once: the words for it and its type (the exception is not kept)."""

    def __init__(self, hint: str, kind: type = BaseException) -> None:
        self.hint, self.kind = hint, kind


def _quiet_call(fn: Any, args: list) -> Any:
    with quietly():
        return fn(*args)


def _shape_of(x: Any) -> tuple[int, ...]:
    """The shape of an input the grader built (an array, or a list of rows); () when it has none."""
    try:
        return tuple(int(d) for d in (x.shape if is_array(x) else np.shape(x)))
    except Exception:  # a ragged list has no shape
        return ()


def mentions_shape(message: str, shape: tuple[int, ...]) -> bool:
    """True when the message writes this shape in any usual way: (2, 3), [2, 3], 2×3, 2 x 3, torch.Size([2, 3])."""
    pattern = r"(?<!\d)" + r"\s*(?:,|×|x|X|\*|by)\s*".join(str(d) for d in shape) + r"(?!\d)"
    return re.search(pattern, message) is not None


def _raised_hint(name: str, exc: BaseException, args: tuple) -> str:
    kind = clip(type(exc).__name__, 60)
    inputs = f" (when called with {_describe_args(args)})" if args else ""
    if isinstance(exc, SystemExit):
        return (
            f"{name} raised SystemExit{inputs}: it called exit() or sys.exit(). "
            "A function should return its result instead."
        )
    if isinstance(exc, RecursionError):
        return f"{name} raised RecursionError{inputs}: it calls itself without end."
    return f"{name} raised {kind}: {short(exc)}{inputs}."


def _describe_args(args: tuple) -> str:
    parts = []
    for a in args[:6]:
        if is_array(a):
            parts.append(f"an array of shape {tuple(a.shape)}")
        elif isinstance(a, (list, tuple)):
            parts.append(f"a {type(a).__name__} of {len(a)}")
        else:
            parts.append(show(a, 40))
    return ", ".join(parts) + (", …" if len(args) > 6 else "")


def _argument_name(fn: Any, index: int, count: int) -> str:
    try:
        params = list(inspect.signature(fn).parameters.values())
        if index < len(params) and params[index].kind in (
            params[index].POSITIONAL_ONLY,
            params[index].POSITIONAL_OR_KEYWORD,
        ):
            return f"`{params[index].name}`"
    except (TypeError, ValueError):
        pass
    return f"(its {ORDINALS[index]} argument)" if index < len(ORDINALS) and count > 1 else "(its argument)"


def private_copy(x: Any) -> Any:
    """A deep copy of x that shares nothing the learner's function could change."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        c = x.detach().clone()
        return c.requires_grad_(True) if x.requires_grad and c.is_floating_point() else c
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, list):
        return [private_copy(v) for v in x]
    if isinstance(x, tuple) and type(x) is tuple:
        return tuple(private_copy(v) for v in x)
    if isinstance(x, dict) and type(x) is dict:
        return {k: private_copy(v) for k, v in x.items()}
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
            both_nan = (
                torch.isnan(a) & torch.isnan(b) if a.is_floating_point() else torch.zeros_like(a, dtype=torch.bool)
            )
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
