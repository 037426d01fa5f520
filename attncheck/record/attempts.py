"""What counts as the learner's attempt: an answer, not a placeholder, from the learner's own cell.

A placeholder left as it is (None, `...`, a function stub that computes nothing) and a check run
from a solution cell (its first line is "# Solution") are not the learner's attempts, so
"Run All" on a fresh notebook records nothing.
"""

from __future__ import annotations

import sys
from typing import Any


def is_attempt(answer: Any) -> bool:
    """True for an answer the learner gave from their own cell (the exercise is known to exist)."""
    if answer is None or answer is ... or is_placeholder_function(answer):
        return False
    return not in_solution_cell()


def is_placeholder_function(answer: Any) -> bool:
    """A function that computes nothing: the exercise's stub, not filled in yet.

    Its body reads none of its arguments, looks up no name and holds no constant but None
    (`...`, `pass`, or `x_new = None` lines returned as they are).
    """
    code = getattr(answer, "__code__", None)
    if code is None or not callable(answer):
        return False
    import dis

    args = set(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    for step in dis.get_instructions(code):
        read = step.argval if isinstance(step.argval, tuple) else (step.argval,)
        if step.opname.startswith("LOAD_FAST") and args.intersection(read):
            return False
    doc = getattr(answer, "__doc__", None)
    constants = [c for c in code.co_consts if c is not None and c is not ... and c != doc]
    return not code.co_names and not constants


def in_solution_cell() -> bool:
    """True when the running Jupyter cell's first line is "# Solution" (the book's answer)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    cells = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    cell = cells[-1] if cells else ""
    return isinstance(cell, str) and cell.lstrip().lower().startswith("# solution")
