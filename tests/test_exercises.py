"""Every registered exercise, held to the exercise contract (attncheck/__init__.py) and the checker's promises.

For each exercise: every registered right answer passes and there are at least three of them;
at least four registered wrong answers fail, each with a short, capitalised hint; a function
exercise rejects a function that changes its inputs; junk of every kind (BaseException-raising
functions, text, complex numbers, ragged lists, oversized answers) is refused with a short hint
and never raises; KeyboardInterrupt still stops the cell; no hint contains the solution; and an
answer made of numbers passes as float16, bfloat16, int and float64 tensors and arrays alike.
The framework's own promises are proved one by one, on made-up exercises, in test_checker.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

import attncheck
from attncheck import check, exercise_ids, get
from attncheck.answers import TorchForm, resolved

IDS = exercise_ids()
PREFIX = "✗ Not yet. "
INTERNALS = re.compile(
    r"Traceback|object has no attribute|not subscriptable|unsupported operand|ScalarType|"
    r"has no len\(\)|could not convert|positional argument|NoneType|unhashable|"
    r"invalid literal|list indices|index out of range|0x[0-9a-f]{6,}|"
    r"object is not (?:callable|iterable)|must be real number"
)
MAX_HINT = 700  # characters a printed verdict may take, whatever the answer


# --- junk: answers no exercise accepts ------------------------------------------------


def _raises(*args):
    raise RuntimeError("boom")


def _exits(*args):
    sys.exit(3)


class _UnprintableError(Exception):
    def __str__(self):
        raise RuntimeError("str() of this exception fails")


def _raises_unprintable(*args):
    raise _UnprintableError()


def _generator_exit(*args):
    raise GeneratorExit


def _recurses(*args):
    return _recurses(*args)


def _returns_huge_text(*args):
    return "x" * 20_000


def _returns_text(*args):
    return [["2", "9"], ["16", "-5"]]


def _returns_complex(*args):
    return 1 + 2j


def _returns_ragged(*args):
    return [[1.0, 2.0], [3.0]]


class _Hostile:
    """An answer whose every conversion raises."""

    def _fail(self, *args, **kwargs):
        raise RuntimeError("hostile")

    __float__ = __int__ = __index__ = __len__ = __iter__ = __array__ = __eq__ = __bool__ = _fail
    __lt__ = __gt__ = __getitem__ = __str__ = __repr__ = __format__ = _fail
    __hash__ = object.__hash__


JUNK_FUNCTIONS = [
    _raises,
    _exits,
    _raises_unprintable,
    _generator_exit,
    _recurses,
    _returns_huge_text,
    _returns_text,
    _returns_complex,
    _returns_ragged,
]
JUNK = [
    "a string",
    "x" * 20_000,
    "the kitten " * 2_000,
    b"bytes",
    float("nan"),
    float("inf"),
    1e308,
    -1,
    True,
    1 + 2j,
    [],
    {},
    {"a": 1},
    {1, 2},
    object(),
    _Hostile(),
    np.array([np.nan, np.inf]),
    [[1, 2], [3]],
    [[1, 2], [3, 4, 5]],
    [["2", "9"], ["16", "-5"]],
    [1.0, None],
    [1 + 2j, 2.0],
    np.array(["2", "9"]),
    list(range(1_000_000)),
    np.zeros(1_000_000),
    ["x" * 20_000],
    torch.Size([7, 7, 7]),
    torch.full((7, 7, 7), 0.5, dtype=torch.bfloat16),
    (x for x in range(3)),
    *JUNK_FUNCTIONS,
]


def _verdict(exercise_id, answer, capsys):
    verdict = check(exercise_id, answer)
    printed = capsys.readouterr().out
    return verdict, printed


def _assert_refused(exercise_id, answer, verdict, printed):
    shown = _shown(answer)
    assert not verdict, f"{exercise_id} accepted {shown}"
    assert printed.startswith("✗"), f"{exercise_id}, {shown}: {printed!r}"
    assert len(printed) <= MAX_HINT, f"{exercise_id}, {shown}: a {len(printed)}-character hint"
    assert not INTERNALS.search(printed), f"{exercise_id}, {shown}: Python internals in {printed!r}"
    assert max(len(line) for line in printed.splitlines()) <= 78


def _shown(answer):
    try:
        text = getattr(answer, "__name__", None) or repr(answer)
    except Exception:
        text = type(answer).__name__
    return text[:80]


def _hint(verdict):
    return verdict.message.removeprefix(PREFIX)


def _is_function_exercise(ex):
    return bool(ex.right) and callable(ex.right[0]) and not isinstance(ex.right[0], np.ndarray)


# --- the registry --------------------------------------------------------------------


def test_every_chapter_registers_exercises():
    chapters = {i.split(".")[0] for i in IDS}
    assert "vectors" in chapters
    assert all(i.count(".") == 1 and not re.match(r"ch\d", i) for i in IDS)  # named by subject, not number


def test_exercise_ids_are_listed_in_the_package():
    assert len(set(attncheck.exercise_ids())) == len(attncheck.exercise_ids())
    assert "vectors.angle_between" in attncheck.exercise_ids()


# --- the contract, exercise by exercise ------------------------------------------------


@pytest.mark.parametrize("exercise_id", IDS)
def test_right_answers_pass(exercise_id, capsys):
    ex = get(exercise_id)
    for answer in map(resolved, ex.right):  # a torch form as the tensor it stands for
        verdict, printed = _verdict(exercise_id, answer, capsys)
        assert verdict, f"{exercise_id} rejected a right answer {_shown(answer)}: {printed}"
        assert verdict == True
        assert printed.startswith("✓")


@pytest.mark.parametrize("exercise_id", IDS)
def test_contract_three_right_forms(exercise_id):
    assert len(get(exercise_id).right) >= 3, f"{exercise_id} registers fewer than 3 right answers"


@pytest.mark.parametrize("exercise_id", IDS)
def test_contract_four_wrong_answers(exercise_id):
    assert len(get(exercise_id).wrong) >= 4, f"{exercise_id} registers fewer than 4 wrong answers"


@pytest.mark.parametrize("exercise_id", IDS)
def test_contract_solution_and_catches_registered(exercise_id):
    ex = get(exercise_id)
    assert ex.solution.strip(), f"{exercise_id} registers no solution line"
    assert ex.catches.strip(), f"{exercise_id} does not say what its hidden cases catch"


@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answers_fail_with_a_capitalised_hint(exercise_id, capsys):
    ex = get(exercise_id)
    assert ex.wrong, f"{exercise_id} registers no wrong answer"
    for answer in ex.wrong:
        verdict, printed = _verdict(exercise_id, answer, capsys)
        _assert_refused(exercise_id, answer, verdict, printed)
        hint = _hint(verdict)
        assert len(hint) > 25, f"{exercise_id}: hint too short to help: {hint!r}"
        first = hint.split(" ", 1)[0]
        assert not re.fullmatch(r"[a-z]{2,}[,:;.]?", first), f"{exercise_id}: hint starts in lower case: {hint!r}"


@pytest.mark.parametrize("exercise_id", IDS)
def test_junk_is_refused_without_raising(exercise_id, capsys):
    for answer in JUNK:
        verdict, printed = _verdict(exercise_id, answer, capsys)
        _assert_refused(exercise_id, answer, verdict, printed)


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_hint_contains_the_solution(exercise_id, capsys):
    ex = get(exercise_id)
    assert ex.solution.strip(), f"{exercise_id} registers no solution, so no test can prove its hints keep it back"
    lines = [" ".join(line.split("#")[0].split()) for line in ex.solution.splitlines()]
    secrets = {" ".join(ex.solution.split())} | {line for line in lines if len(line) >= 8}
    for answer in [*ex.wrong, *JUNK]:
        verdict, _ = _verdict(exercise_id, answer, capsys)
        hint = " ".join(verdict.message.split())
        for secret in secrets:
            assert secret not in hint, f"{exercise_id}: the hint for {_shown(answer)} gives away {secret!r}"


@pytest.mark.parametrize("exercise_id", [i for i in IDS if _is_function_exercise(get(i))])
def test_keyboard_interrupt_still_stops_the_cell(exercise_id):
    def interrupted(*args):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check(exercise_id, interrupted)


def _change_in_place(x) -> bool:
    """Overwrite x in place (zeros, or ones if it is zeros already); True if x could be changed."""
    if isinstance(x, torch.Tensor) and x.numel():
        with torch.no_grad():
            x.fill_(1 if bool((x == 0).all()) else 0)
        return True
    if isinstance(x, np.ndarray) and x.size and x.flags.writeable and x.dtype.kind in "biuf":
        x[...] = 1 if not x.any() else 0
        return True
    if isinstance(x, list) and x:
        changed = False
        for i, v in enumerate(x):
            if isinstance(v, (list, np.ndarray, torch.Tensor)):
                changed = _change_in_place(v) or changed
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                x[i] = 1 if v == 0 else 0
                changed = True
        return changed
    return False


def _mutating(fn, before: bool, found: list):
    """fn, but it overwrites its first changeable argument (before or after computing)."""

    def mutant(*args):
        if before:
            found.extend(a for a in args[:1] if _change_in_place(a))
            return fn(*args)
        result = fn(*args)
        for a in args:
            if _change_in_place(a):
                found.append(a)
                break
        return result

    mutant.__name__ = f"{getattr(fn, '__name__', 'fn')}_that_changes_its_input"
    return mutant


def _changes_input(exercise_id) -> bool:
    """True when the exercise's function receives something a mutant can overwrite."""
    found: list = []
    check(exercise_id, _mutating(get(exercise_id).right[0], True, found))
    return bool(found)


FUNCTION_IDS = [i for i in IDS if _is_function_exercise(get(i))]


@pytest.mark.parametrize("exercise_id", FUNCTION_IDS)
def test_a_function_that_changes_its_input_is_rejected(exercise_id, capsys):
    ex = get(exercise_id)
    for right in ex.right:
        for before in (False, True):  # overwrite the input after computing the right result, or before
            found: list = []
            verdict, printed = _verdict(exercise_id, _mutating(right, before, found), capsys)
            if found and ex.in_place:  # the statement lets it (a running state updated in place)
                assert verdict or before, f"{exercise_id} refused {right.__name__} changing its input after"
            elif found:
                assert not verdict, f"{exercise_id} accepted {right.__name__} changing its input ({before=})"
                assert "changed its input" in verdict.message, verdict.message


@pytest.mark.parametrize("exercise_id", FUNCTION_IDS)
def test_contract_a_registered_wrong_function_changes_its_input(exercise_id, capsys):
    ex = get(exercise_id)
    if not _changes_input(exercise_id) or ex.in_place:  # causal_mask(n) gets a whole number; online_step may
        capsys.readouterr()
        return
    hints = [check(exercise_id, w).message for w in ex.wrong]
    capsys.readouterr()
    assert any("changed its input" in h for h in hints), (
        f"{exercise_id} takes arrays but registers no wrong answer that changes its input in place"
    )


def _numeric_forms(values: np.ndarray) -> list:
    """The same numbers as every kind of array and tensor, where the dtype holds them exactly."""
    forms = [
        values.astype(np.float32),
        torch.tensor(values, dtype=torch.float64),
        torch.tensor(values, dtype=torch.float32),
        torch.tensor(values, dtype=torch.float32).requires_grad_(True),
        torch.tensor(values, dtype=torch.float16),
        torch.tensor(values, dtype=torch.bfloat16),
    ]
    if np.all(values == np.round(values)) and np.all(np.abs(values) < 2**31):
        forms += [values.astype(np.int64), torch.tensor(values.astype(np.int64))]
        forms += [values.astype(np.int64).tolist()]
    exact = []
    for form in forms:
        back = form.detach().double().numpy() if isinstance(form, torch.Tensor) else np.asarray(form, dtype=float)
        if np.array_equal(back, values):
            exact.append(form)
    return exact


@pytest.mark.parametrize("exercise_id", IDS)
def test_numbers_pass_in_every_dtype(exercise_id, capsys):
    ex = get(exercise_id)
    tried = 0
    for answer in map(resolved, ex.right):
        if isinstance(answer, str) or _is_function_exercise(ex):
            continue
        try:
            values = attncheck.to_numpy(answer)
        except attncheck.Wrong:
            continue
        if not check(exercise_id, values.astype(np.float64)):  # not an answer made of numbers (a shape, say)
            capsys.readouterr()
            continue
        for form in _numeric_forms(values):
            verdict, printed = _verdict(exercise_id, form, capsys)
            tried += 1
            assert verdict, (
                f"{exercise_id} rejected the right numbers as {type(form).__name__} "
                f"{getattr(form, 'dtype', '')}: {printed}"
            )
    capsys.readouterr()


# --- torch is loaded only when an answer or a test needs it -------------------------------

FIRST_CHECKS = """
import sys
import numpy as np
import attncheck
from attncheck.answers import TorchForm
attncheck.exercise_ids()
assert "torch" not in sys.modules, "exercise_ids() loaded torch"
attncheck.check("softmax.by_hand", np.array([0.1141952, 0.84379473, 0.04201007]))
assert "torch" not in sys.modules, "a numpy answer's first check loaded torch"
for exercise_id in attncheck.exercise_ids():
    ex = attncheck.get(exercise_id)
    if ex.right and callable(ex.right[0]):
        continue  # a function exercise's right answers include torch code of their own
    for answer in [*ex.right, *ex.wrong]:
        if not isinstance(answer, TorchForm):
            attncheck.check(exercise_id, answer)
            assert "torch" not in sys.modules, f"checking {exercise_id} loaded torch"
print("no torch")
"""


def test_the_first_check_of_a_numpy_answer_loads_no_torch():
    """Issue 40 item 4: exercise_ids() and every non-torch registered answer's check leave torch unloaded."""
    env = {**os.environ, "ATTNLIB_PROGRESS": "off"}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_CHECKS], check=False, capture_output=True, text=True, env=env, timeout=300
    )
    assert done.stdout.strip().endswith("no torch"), done.stderr[-2000:]


def test_torch_forms_are_data_until_a_test_asks():
    forms = [a for i in IDS for a in get(i).right if isinstance(a, TorchForm)]
    assert len(forms) >= 18
    for form in forms:
        tensor = resolved(form)
        assert isinstance(tensor, torch.Tensor) and str(tensor.dtype) == f"torch.{form.dtype}"


# --- an untouched exercise says "No answer yet", a function's stub included ----------------------


def _stub1(a): ...
def _stub2(a, b): ...
def _stub3(a, b, c): ...
def _stub4(a, b, c, d): ...
def _stub5(a, b, c, d, e): ...
def _stub6(a, b, c, d, e, f): ...
def _stub7(a, b, c, d, e, f, g): ...


def _stub(arity: int):
    """A stub as the notebooks write it: the right number of parameters, a body of `...`."""
    return [_stub1, _stub2, _stub3, _stub4, _stub5, _stub6, _stub7][arity - 1]


@pytest.mark.parametrize("exercise_id", IDS)
def test_an_untouched_exercise_says_no_answer_yet(exercise_id, capsys):
    """The JupyterLab review: a function's stub was asked "is a `return` missing?" where others hear "No answer yet"."""
    ex = get(exercise_id)
    placeholders = [None, ...]
    if _is_function_exercise(ex):
        right = ex.right[0]
        placeholders.append(_stub(right.__code__.co_argcount if hasattr(right, "__code__") else 1))
    for placeholder in placeholders:
        verdict, printed = _verdict(exercise_id, placeholder, capsys)
        assert not verdict and "No answer yet" in verdict.message, f"{exercise_id}, {placeholder!r}: {printed}"
        assert verdict.message.startswith("✗ No answer yet"), f"one verdict, not two: {verdict.message!r}"
