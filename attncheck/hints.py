"""Writing hints: the `Wrong` a checker raises, and the words a hint is made of.

A hint says what is wrong in plain words and points back to the section that explains it.
Echoes of a learner's value are cut to about ECHO_LIMIT characters, a whole hint to HINT_LIMIT,
and `polish` capitalises every sentence, so a checker may write its hints in lower case.
"""

from __future__ import annotations

import math
import numbers
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")

ECHO_LIMIT = 200  # characters of a learner's value a hint may echo
HINT_LIMIT = 600  # characters of a whole hint, whatever a checker put in it


class Wrong(Exception):
    """Raised by a checker with a hint for the learner."""


def contained(run: Callable[[], T], fallback: Callable[[BaseException], T]) -> T:
    """run(), or fallback(what it raised) when it raises anything but KeyboardInterrupt.

    The checker's one guard. A learner's code may raise anything (SystemExit, GeneratorExit,
    RecursionError, an exception whose str() fails), and so may a checker that meets a hostile
    answer. `judge` runs every checker through here, `call` and `expect_value_error` every
    learner function, `safe_str` and `show` every str() and repr() of a learner's value: this is
    where a raise becomes a hint, and why `check` never raises (KeyboardInterrupt still stops a cell).
    """
    try:
        return run()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return fallback(exc)


@contextmanager
def quietly() -> Iterator[None]:
    """No warning printed and no numpy floating-point error raised inside the block (a learner's code runs in it)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")
_SENTENCE = re.compile(r"(?:^|(?<=[.!?])\s+)([a-z][a-z]*)(?=[\s,:;!?]|$)")


def capitalise_sentences(text: str) -> str:
    """Capitalise the first word of every sentence, unless it is code (d_k, np.exp, x) or follows e.g."""

    def fix(match: re.Match) -> str:
        word = match.group(1)
        before = text[: match.start(1)].rstrip()
        if before.endswith(_ABBREVIATIONS) or (len(word) == 1 and word != "a"):
            return match.group(0)
        return match.group(0)[: match.start(1) - match.start(0)] + word[0].upper() + word[1:]

    return _SENTENCE.sub(fix, text)


def polish(text: str, answer: Any = None) -> str:
    """A checker's hint made fit to print: echoes of a long answer cut, sentences capitalised, length capped."""
    text = " ".join(text.split())
    if isinstance(answer, (str, bytes)) and ECHO_LIMIT < len(answer) <= 100 * HINT_LIMIT:
        raw = answer.decode("utf-8", "replace") if isinstance(answer, bytes) else answer
        for echo in sorted(
            {
                repr(raw),
                repr(raw.strip()),
                raw,
                raw.strip(),
                raw.strip().lower(),
                repr(raw.strip().lower()),
                repr(raw.strip().strip("\"'“”").lower()),
            },
            key=len,
            reverse=True,
        ):
            echo = " ".join(echo.split())
            if len(echo) > ECHO_LIMIT and echo in text:
                text = text.replace(echo, clip(echo))
    # longer echoes, and any other long run without a space, are cut word by word
    text = " ".join(clip(word, ECHO_LIMIT) if len(word) > ECHO_LIMIT else word for word in text.split(" "))
    if len(text) > HINT_LIMIT:
        text = text[: HINT_LIMIT - 160].rstrip() + " … " + text[-150:].lstrip()
    return capitalise_sentences(text)


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """`text` cut to `limit` characters, with … where it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def safe_str(x: Any) -> str:
    """str(x), or a placeholder when str(x) itself fails (a learner's exception may do that)."""
    text = contained(lambda: str(x), lambda exc: None)
    return text if isinstance(text, str) else "(a message that could not be shown)"


def show(x: Any, limit: int = ECHO_LIMIT) -> str:
    """A learner's value as it may appear in a hint: its repr, cut to about `limit` characters."""
    if isinstance(x, (list, tuple)) and len(x) > 50:
        head = ", ".join(show(v, 40) for v in x[:8])
        return clip(f"{'[' if isinstance(x, list) else '('}{head}, … ({len(x)} items)", limit)
    if isinstance(x, str) and len(x) > limit:
        x = x[:limit]
    if is_array(x) and x.size > 50:
        return describe(x)
    text = contained(lambda: repr(x), lambda exc: None)
    if not isinstance(text, str):
        text = f"a {type(x).__name__}"
    return clip(" ".join(text.split()), limit)


def short(exc: BaseException) -> str:
    """The first line of an exception's message, cut to ECHO_LIMIT."""
    text = safe_str(exc).strip().splitlines()
    return clip(text[0]) if text else "(no message)"


def is_array(x: Any) -> bool:
    """True for a numpy array or a torch tensor (torch looked up only if the learner imported it)."""
    torch = sys.modules.get("torch")
    return isinstance(x, np.ndarray) or (torch is not None and isinstance(x, torch.Tensor))


def describe(x: Any) -> str:
    """What a learner's value is, in words: its type and shape, never a long dump."""
    torch = sys.modules.get("torch")
    if x is None:
        return "None"
    if isinstance(x, (bool, np.bool_)):
        return f"{x} (True/False)"
    if isinstance(x, str):
        return f"text of {len(x)} characters" if len(x) > 40 else f"the text {show(x)}"
    if torch is not None and isinstance(x, torch.Size):
        return f"a torch.Size {tuple(x)}"
    if torch is not None and isinstance(x, torch.Tensor):
        return f"a torch tensor of shape {tuple(x.shape)} and dtype {str(x.dtype).replace('torch.', '')}"
    if isinstance(x, np.ndarray):
        return f"a numpy array of shape {x.shape} and dtype {x.dtype}"
    if isinstance(x, numbers.Number):
        return f"the number {show(x, 60)}"
    if isinstance(x, (list, tuple)):
        return f"a {type(x).__name__} of {len(x)} item{'s' if len(x) != 1 else ''}"
    if callable(x):
        return "a function"
    return f"a {clip(type(x).__name__, 60)}"


def sentence_start(what: str) -> str:
    """`what` at the start of a sentence: 'your answer' -> 'Your answer' (code such as d_k stays)."""
    return what[:1].upper() + what[1:] if re.match(r"[a-z]{2,} ", what) else what


def shape_words(shape: tuple[int, ...]) -> str:
    """A shape in words: 'a row of 3 numbers', 'a grid of 2 rows and 3 columns'."""
    if shape == ():
        return "a single number"
    if len(shape) == 1:
        return f"a row of {shape[0]} numbers"
    if len(shape) == 2:
        return f"a grid of {shape[0]} rows and {shape[1]} columns"
    return f"numbers arranged in the shape {shape}"


def count_words(shape: tuple[int, ...]) -> str:
    """How much one entry of a list holds, in words: 'a single number', '3 numbers', 'a block of shape (2, 2)'."""
    if shape == ():
        return "a single number"
    if len(shape) == 1:
        return f"{shape[0]} number{'s' if shape[0] != 1 else ''}"
    return f"a block of shape {shape}"


ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


def position_words(index: tuple[int, ...]) -> str:
    """Where an entry sits, in words: 'the second number', 'row 0, column 1', 'entry [1][0][2]'."""
    if len(index) == 1:
        k = index[0]
        return f"the {ORDINALS[k]} number" if k < len(ORDINALS) else f"number {k} (counting from 0)"
    if len(index) == 2:
        return f"row {index[0]}, column {index[1]}"
    return "entry " + "".join(f"[{i}]" for i in index)


def fmt(x: Any, apart_from: Any = None) -> str:
    """A number as a hint writes it: four significant digits, or, beside the value it should be
    (`apart_from`), the fewest digits from four up that write the two differently, so that an
    echo never reads as the right value (499501 is not shown as 4.995e+05, as 499500 would be)."""
    try:
        value = float(x)
    except Exception:
        return show(x)
    text = f"{value:.4g}"
    try:
        want = float(apart_from) if apart_from is not None else None
    except Exception:
        want = None
    if want is None or value == want or not math.isfinite(value) or not math.isfinite(want):
        return text
    for digits in range(4, 18):
        text = f"{value:.{digits}g}"
        if text != f"{want:.{digits}g}":
            break
    return text
