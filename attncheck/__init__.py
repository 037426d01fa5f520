"""The exercise checker: `check(exercise_id, answer)` prints ✓ or a kind hint, and never raises.

A package of its own beside attnlib (`from attncheck import check`): it imports attnlib, and attnlib
never imports it. It reads nothing of the book at run time: where each exercise sits in its chapter
is data, `exercise_places`, generated from the notebooks by `make course-data`.

Each chapter registers its exercises in a module of its own, named by the chapter's subject
(`vectors.py`, …, `trained_model.py`; the registry reads every module of this package, whatever
its name): `CHAPTER = subject, title` once, then the
`exercise` decorator per exercise; an id is "subject.name" (`softmax.by_hand`), see `registry`
(which also says how a grader written with an old `chNN.` id ports). A registration carries right
answers in several forms, plausible wrong answers, one line on what the hidden cases catch, and
the solution's key line, so the tests can prove that every checker accepts the right, rejects the
wrong and never prints the solution.
A checker is a function that takes the learner's answer and raises `Wrong("hint")` when it is off.

The framework, one job per module:

- `registry`: `exercise`, `get` and the registered exercises as plain data, in the course's order;
  a grader module registers all of its exercises or, when it fails to import, none (and is named).
- `verdicts`: `judge(exercise_id, answer)`, the `Verdict` on an answer; it prints nothing,
  records nothing, never raises.
- `learner`: what the learner calls: `check` (judge, print, record), `exercise_ids` and `progress`.
- `record` (a subpackage that imports nothing of the checker): the learner's own record of attempts.
- `answers`: reading answers (`to_numpy`, `to_number`, `one_number`, `to_count`, `to_shape`,
  `to_mask`, `to_items`);
  `torch_form` writes a right answer as a torch tensor for a registration.
- `expectations`: comparing an answer with the expected one, structure before values
  (`expect_array`, `expect_structure`, `expect_number`, `expect_shape`, `expect_pair`, `expect_word`),
  and the registered slips, the whole answer before its entries (`expect_no_slip`; `counted_from_one`
  builds a position slip).
- `calling`: calling learner code safely (`call`, `expect_value_error`).
- `hints`: `Wrong`, the words hints are made of (`describe`, `show`, `position_words`, `fmt`, the
  one number formatter: beside the right value it writes the digits that tell the two apart), and
  `contained`, the checker's one guard against whatever learner code raises.

Rules for every checker (tests/test_exercises.py holds each chapter to them):

1. Expected answers are computed from private module-level constants, before any learner code
   runs, and never from an object the learner touched: not from the arguments a learner's
   function received, not from what it returned, not from the learner's answer.
2. A learner's function is called only through `call(fn, *args)`. It hands the function deep
   private copies of every argument, contains anything the function raises, and rejects a
   function that changed one of its inputs in place, whether it returned or raised (unless the
   statement lets it: `@exercise(..., in_place=True)`, which `judge` hands to every `call`).
3. Answers are read only through the helpers below, which accept every valid form (lists, tuples,
   numpy arrays, torch tensors of any real dtype, bfloat16 included, ints where integral,
   torch.Size for shapes; a shape or a position holds ints) and name the junk (text, complex numbers,
   True/False, None, ragged rows).
   A grader imports nothing from another chapter's module and nothing private from the framework.
4. A hint says what is wrong (which entry, which shape, rounding, a missing return, an input
   changed) and points back to the section that explains it. It never contains the solution's
   code or the finished computation with its numbers. Echoed learner values are cut to about
   200 characters; `check` capitalises each sentence and wraps the hint at 78 columns.
5. Nothing escapes `check` but KeyboardInterrupt: a failure inside a checker becomes a hint about
   the answer's type and shape, never a Python internal.
"""

from __future__ import annotations

from .answers import normal_word, one_number, to_count, to_items, to_mask, to_number, to_numpy, to_shape, torch_form
from .calling import call, expect_value_error, mentions_shape
from .expectations import (
    counted_from_one,
    expect_array,
    expect_layer_head,
    expect_no_slip,
    expect_number,
    expect_pair,
    expect_shape,
    expect_structure,
    expect_word,
    rounding_hint,
)
from .hints import Wrong, describe, fmt, position_words, show
from .learner import check, exercise_ids, progress
from .registry import Exercise, exercise, get
from .verdicts import Verdict, judge

__all__ = [
    "Exercise",
    "Verdict",
    "Wrong",
    "call",
    "check",
    "counted_from_one",
    "describe",
    "exercise",
    "exercise_ids",
    "expect_array",
    "expect_layer_head",
    "expect_no_slip",
    "expect_number",
    "expect_pair",
    "expect_shape",
    "expect_structure",
    "expect_value_error",
    "expect_word",
    "fmt",
    "get",
    "judge",
    "mentions_shape",
    "normal_word",
    "one_number",
    "position_words",
    "progress",
    "rounding_hint",
    "show",
    "to_count",
    "to_items",
    "to_mask",
    "to_number",
    "to_numpy",
    "to_shape",
    "torch_form",
]
