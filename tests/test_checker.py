"""The checker's mechanism, one promise at a time, on made-up exercises (independent of the chapters).

Each test here was watched failing against an earlier checker that lacked its promise; the names of
the helpers are looked up inside the tests, so a missing helper fails its own test rather than the
whole file.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import torch

import attncheck as X
from attncheck import Wrong, check, registry


@pytest.fixture
def register():
    """Register made-up exercises for one test and remove them afterwards."""
    made = []

    def make(exercise_id, checker):
        registry._load_all()
        X.exercise(exercise_id, right=[], wrong=[])(checker)
        made.append(exercise_id)
        return exercise_id

    yield make
    for exercise_id in made:
        registry._REGISTRY.pop(exercise_id, None)


def _message(exercise_id, answer, capsys):
    verdict = check(exercise_id, answer)
    printed = capsys.readouterr().out
    return verdict, printed, " ".join(printed.split())


def _refusal(fn, *args, **kwargs) -> str:
    with pytest.raises(Wrong) as caught:
        fn(*args, **kwargs)
    return str(caught.value)


# --- 1. the learner's code cannot touch the grader -------------------------------------

W_V = np.array([[1.0, 2.0], [3.0, 4.0]])
X_IN = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]])
Z_WANT = X_IN @ W_V  # computed before any learner code runs


def _blend_checker(fn):
    got = X.call(fn, X_IN, W_V, what="your function `blend`")
    X.expect_array(got, Z_WANT)


def test_call_hands_the_function_private_copies():
    originals = [X_IN.copy(), W_V.copy()]
    seen = []

    def zeroes_its_inputs(x, w):
        seen.extend([x, w])
        w[...] = 0
        return x @ w

    with pytest.raises(Wrong):
        X.call(zeroes_its_inputs, X_IN, W_V)
    assert np.array_equal(X_IN, originals[0]) and np.array_equal(W_V, originals[1])
    assert seen[0] is not X_IN and seen[1] is not W_V


def test_a_function_that_zeroes_an_input_and_returns_zeros_is_caught(register, capsys):
    # The old exploit: zero W_V in place and return zeros; a grader that computed its expected
    # answer afterwards, from the same arrays, agreed with it.
    def exploit_checker(fn):
        got = X.call(fn, X_IN, W_V)
        X.expect_array(got, X_IN @ W_V)  # deliberately computed after the call, from the arguments

    exercise_id = register("chxx.exploit", exploit_checker)

    def zero_w_v(x, w):
        w[...] = 0
        return np.zeros((3, 2))

    verdict, _, text = _message(exercise_id, zero_w_v, capsys)
    assert not verdict
    assert "changed its input `w` in place" in text
    assert np.array_equal(W_V, [[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize(
    "change",
    [
        lambda x, w: w.__setitem__((0, 0), 99.0),
        lambda x, w: x.__isub__(1.0),
        lambda x, w: np.exp(w, out=w),
        lambda x, w: w.resize((4,), refcheck=False),
    ],
)
def test_every_way_of_changing_an_input_is_named(change, register, capsys):
    exercise_id = register("chxx.blend", _blend_checker)

    def blend(x, w):
        result = x @ w
        change(x, w)
        return result

    verdict, _, text = _message(exercise_id, blend, capsys)
    assert not verdict and "changed its input" in text, text


def test_lists_and_tensors_changed_in_place_are_named_too():
    def appends(v):
        v.append(0.0)
        return 1.0

    def zeroes_tensor(t):
        t.zero_()
        return 1.0

    assert "changed its input `v`" in _refusal(X.call, appends, [3.0, 4.0])
    assert "changed its input `t`" in _refusal(X.call, zeroes_tensor, torch.ones(2, 3))
    assert X.call(appends, [3.0, 4.0], in_place=True) == 1.0  # a statement may ask for in-place work


def test_an_unchanged_input_and_a_returned_input_are_fine():
    x = np.arange(3.0)
    assert X.call(lambda v: v, x) is not x
    assert np.array_equal(X.call(lambda v: v * 2, x), [0.0, 2.0, 4.0])


# --- 2. nothing escapes check, but KeyboardInterrupt ----------------------------------


class _UnprintableError(Exception):
    def __str__(self):
        raise RuntimeError("str() fails")


def _exits(x, w):
    sys.exit(3)


def _raises_unprintable(x, w):
    raise _UnprintableError()


def _generator_exit(x, w):
    raise GeneratorExit


def _recurses(x, w):
    return _recurses(x, w)


@pytest.mark.parametrize("learner", [_exits, _raises_unprintable, _generator_exit, _recurses])
def test_base_exceptions_from_the_learner_are_contained(learner, register, capsys):
    exercise_id = register("chxx.blend", _blend_checker)
    verdict, printed, text = _message(exercise_id, learner, capsys)
    assert not verdict and printed.startswith("✗ Not yet. Your function `blend` raised")
    assert "str() fails" not in text


def test_keyboard_interrupt_still_stops_the_cell(register):
    exercise_id = register("chxx.blend", _blend_checker)

    def interrupted(x, w):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check(exercise_id, interrupted)


@pytest.mark.parametrize(
    "failure",
    [
        AttributeError("'torch.Size' object has no attribute 'detach'"),
        TypeError("unsupported operand type(s) for -: 'str' and 'float'"),
        SystemExit(2),
        GeneratorExit(),
        RecursionError("maximum recursion depth exceeded"),
        _UnprintableError(),
    ],
)
def test_a_failing_checker_gives_a_hint_about_the_answer_not_internals(failure, register, capsys):
    def broken(answer):
        raise failure

    exercise_id = register("chxx.broken", broken)
    registry._REGISTRY[exercise_id].right = [[[1.0, 2.0], [3.0, 4.0]]]
    verdict, printed, text = _message(exercise_id, torch.Size([2, 2]), capsys)
    assert not verdict and printed.startswith("✗")
    assert "attribute" not in text and "detach" not in text and "operand" not in text and "Error" not in text
    assert "torch.Size (2, 2)" in text and "2 rows and 2 columns" in text


def test_the_checker_interrupted_still_stops_the_cell(register):
    def interrupted(answer):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check(register("chxx.interrupted", interrupted), 4)


# --- 3. every valid form accepted, junk named --------------------------------------------


@pytest.mark.parametrize(
    "form",
    [
        [[1, 2], [3, 4]],
        ((1, 2), (3, 4)),
        np.array([[1, 2], [3, 4]]),
        np.array([[1, 2], [3, 4]], dtype=np.float16),
        torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.bfloat16),
        torch.tensor([[1, 2], [3, 4]], dtype=torch.float16),
        torch.tensor([[1, 2], [3, 4]]),
        torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
        [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])],
        [np.array([1, 2]), (3, 4)],
        [[np.float32(1), np.int64(2)], [3, 4.0]],
    ],
)
def test_every_numeric_form_is_read(form):
    X.expect_array(form, [[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize(
    "answer, words",
    [
        ([["2", "9"], ["16", "-5"]], "Entry [0][0] of your answer is text ('2')"),
        ([[2, 9], [16, "-5"]], "Entry [1][1] of your answer is text ('-5')"),
        (np.array(["2", "9"]), "holds text"),
        ("2, 9", "is text"),
        (1 + 2j, "complex number"),
        ([1.0, 2 + 0j], "Entry [1] of your answer is a complex number"),
        (np.array([1 + 2j]), "complex numbers"),
        (torch.tensor([1 + 2j]), "complex numbers"),
        ([True, False], "Entry [0] of your answer is True, a True/False value"),
        (np.array([True, False]), "True/False values"),
        ([[1, 2], [3, 4, 5]], "ragged: row 1 has 3 numbers but row 0 has 2"),
        ([[1, 2], [3, 4], [5, 6, 7]], "row 2 has 3 numbers but row 0 has 2"),
        ([[1, 2], [3]], "row 1 has 1 number but row 0 has 2"),
        ([[1, 2], 3], "entry 1 is a single number but entry 0 is 2 numbers"),
        ([[[1, 2], [3, 4]], [[1, 2], [3]]], "inside entry [1]: row 1 has 1 number"),
        ([0.5, None], "Entry [1] of your answer is None"),
        ([[1, 2], [None, 4]], "Entry [1][0] of your answer is None"),
        (np.array([1.0, None], dtype=object), "Entry [1] of your answer is None"),
        ({"a": 1}, "is a dict"),
        ((x for x in range(2)), "is a generator"),
        (lambda: 1, "is a function"),
    ],
)
def test_junk_is_named_exactly(answer, words):
    hint = _refusal(X.expect_array, answer, [[1.0, 2.0], [3.0, 4.0]])
    assert words in hint, hint
    assert "overflow" not in hint and "it is a list" not in hint


def test_bfloat16_and_float16_answers_are_read_without_a_crash():
    for dtype in (torch.bfloat16, torch.float16):
        X.expect_number(torch.tensor(120.0, dtype=dtype), 120.0)
        X.expect_array(torch.tensor([0.5, -2.0], dtype=dtype), [0.5, -2.0])


def test_shapes_as_tuples_lists_and_torch_size():
    for form in [
        (3, 4),
        [3, 4],
        torch.Size([3, 4]),
        torch.zeros(3, 4).shape,
        np.zeros((3, 4)).shape,
        (np.int64(3), np.int64(4)),
    ]:
        X.expect_shape(form, (3, 4))
    assert "rows come first" in _refusal(X.expect_shape, (4, 3), (3, 4))
    assert "True/False" in _refusal(X.expect_shape, (True, 4), (3, 4))
    assert "text" in _refusal(X.expect_shape, "(3, 4)", (3, 4))
    assert "comma" in _refusal(X.expect_shape, 5, (5,))
    assert "(3, 4)" not in _refusal(X.expect_shape, "x", (3, 4))  # the example never is the answer


def test_a_pair_as_tuple_or_list():
    Z, A = np.ones((2, 2)), np.eye(2)
    assert X.expect_pair((Z, A))[1] is A and X.expect_pair([Z, A])[0] is Z
    assert "3 things" in _refusal(X.expect_pair, (Z, A, Z))
    assert "as a tuple (a, b) or a list [a, b]" in _refusal(X.expect_pair, Z)
    assert "as a tuple" in _refusal(X.expect_pair, torch.Size([2, 2]))


# --- 4. the right hint for the right slip -----------------------------------------------

GRID = [[1.0, 2.0], [3.0, 4.0]]


def test_flat_numbers_get_a_shape_hint_not_a_swap():
    hint = _refusal(X.expect_array, [1.0, 2.0, 3.0, 4.0], GRID)
    assert "right numbers" in hint and "(4,)" in hint and "(2, 2)" in hint
    assert "swapped" not in hint


def test_only_a_real_transpose_is_called_swapped():
    wide = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert "swapped" in _refusal(X.expect_array, np.array(wide).T, wide)
    assert "swapped" in _refusal(X.expect_array, np.array(GRID).T, GRID)
    other = _refusal(X.expect_array, [[9.0, 9.0], [9.0, 9.0], [9.0, 9.0]], wide)
    assert "swapped" not in other and "(3, 2)" in other
    reshaped = _refusal(X.expect_array, np.array(wide).reshape(3, 2), wide)
    assert "swapped" not in reshaped and "right numbers" in reshaped


def test_a_rounded_answer_is_told_it_is_rounded():
    want = np.exp([0.0, 2.0, -1.0]) / np.exp([0.0, 2.0, -1.0]).sum()
    hint = _refusal(X.expect_array, [0.11, 0.84, 0.04], want, atol=1e-3, rtol=0)
    assert "rounded to 2 decimals" in hint and "at least 3" in hint and "divide" not in hint
    assert "rounded to whole numbers" in _refusal(X.expect_number, 3, 2.83, atol=1e-3)
    assert "significant digits" in _refusal(X.expect_number, 1.5e9, 1.536e9, rtol=1e-6)
    assert "rounded" not in _refusal(X.expect_number, 100, 120, rtol=1e-3)  # a guess, not a rounding
    assert "rounded" not in _refusal(X.expect_array, [0.2, 0.7, 0.1], want, atol=1e-3, rtol=0)
    assert X.rounding_hint([0.11, 0.84, 0.04], want, atol=1e-3, rtol=0)


def test_a_fair_guess_only_for_a_near_miss():
    words = ["the", "kitten", "sat", "on", "mat"]
    near = _refusal(X.expect_word, "sat", "kitten", words, near=["sat"])
    far = _refusal(X.expect_word, "on", "kitten", words, near=["sat"], section="the section on scores")
    assert "fair guess" in near
    assert "fair guess" not in far and "not the one" in far and "the section on scores" in far
    assert "fair guess" not in _refusal(X.expect_word, "mat", "kitten", words)
    X.expect_word(' "Kitten". ', "kitten", words)
    assert "not one of the choices" in _refusal(X.expect_word, "dog", "kitten", words)
    assert "one word in quotes" in _refusal(X.expect_word, 4, "kitten", words)


def test_a_value_error_must_name_both_shapes():
    def names_no_shape(a, b):
        raise ValueError("shapes do not fit")

    def names_both(a, b):
        raise ValueError(f"cannot multiply {a.shape} by {b.shape}")

    def names_both_as_times(a, b):
        raise ValueError("A is 2×3 but B is 2 x 3")

    a, b = np.ones((2, 3)), np.ones((2, 3))
    assert "does not name the shape (2, 3)" in _refusal(X.expect_value_error, names_no_shape, a, b, names_shapes=True)
    X.expect_value_error(names_both, a, b, names_shapes=True)
    X.expect_value_error(names_both_as_times, a, b, names_shapes=True)
    X.expect_value_error(names_no_shape, a, b)  # without names_shapes, any ValueError will do
    assert "raised SystemExit" in _refusal(X.expect_value_error, _exits, a, b)


# --- 5. hints that read well ---------------------------------------------------------------


def test_every_sentence_of_a_hint_starts_with_a_capital(register, capsys):
    def checker(answer):
        raise Wrong(
            "the right numbers in the wrong order. row i holds word i. d_k stays as it is, "
            "e.g. x.max stays too. np.exp is code. a weight is negative."
        )

    _, _, text = _message(register("chxx.lower", checker), 1, capsys)
    assert "Not yet. The right numbers in the wrong order. Row i holds word i. d_k stays" in text
    assert "e.g. x.max stays too. np.exp is code. A weight is negative." in text


@pytest.mark.parametrize(
    "answer", ["x" * 20_000, "the kitten " * 2_000, ["x" * 20_000], [1.0] * 20_000, list(range(1_000_000))]
)
def test_an_oversized_answer_gets_a_short_hint(answer, register, capsys):
    def echoes(a):  # a careless checker that echoes the whole answer
        if isinstance(a, str):
            raise Wrong(f"{a!r} is not a choice; you wrote {a}.")
        X.expect_array(a, GRID)

    verdict, printed, _ = _message(register("chxx.echo", echoes), answer, capsys)
    assert not verdict and len(printed) < 700, len(printed)
    assert max(len(line) for line in printed.splitlines()) <= 78


def test_echoed_values_are_cut_to_about_200_characters():
    hint = _refusal(X.expect_word, "kitten " * 100, "kitten", ["kitten"])
    assert len(hint) < 320 and "…" in hint


def test_long_hints_are_wrapped_for_narrow_screens(register, capsys):
    def checker(answer):
        raise Wrong("A long hint " * 30)

    _, printed, _ = _message(register("chxx.long", checker), 1, capsys)
    assert max(len(line) for line in printed.splitlines()) <= 78


def test_unknown_ids_and_placeholders(capsys):
    assert not check("ch01.no_such_thing", 4)
    assert "no exercise called" in capsys.readouterr().out
    assert not check(["scaling.spread"], 20)
    assert "no exercise called" in capsys.readouterr().out
    assert not check("scaling.spread", None)
    assert "replace the placeholder" in capsys.readouterr().out


# --- 6. the verdict shows once -------------------------------------------------------------


def test_the_verdict_works_as_a_bool(register, capsys):
    exercise_id = register("chxx.four", lambda a: X.expect_number(a, 4))
    right, wrong = check(exercise_id, 4), check(exercise_id, 5)
    capsys.readouterr()
    assert right and not wrong
    assert right == True and wrong == False
    assert bool(right) is True and bool(wrong) is False
    assert [v for v in (right, wrong) if v] == [right]
    assert repr(right) == "True"


def test_the_verdict_shows_nothing_as_a_cell_result(register, capsys):
    from IPython.core.formatters import DisplayFormatter

    exercise_id = register("chxx.four", lambda a: X.expect_number(a, 4))
    verdict = check(exercise_id, 4)
    capsys.readouterr()
    data, _ = DisplayFormatter().format(verdict)
    assert "text/plain" not in data, data


def test_a_check_cell_in_a_real_kernel_prints_once_and_echoes_nothing(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell('from attncheck import check\ncheck("scaling.spread", 20)'),
        nbformat.v4.new_code_cell('check("scaling.spread", 40)'),
        nbformat.v4.new_code_cell('print("right" if check("scaling.spread", 20) else "wrong")'),
    ]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    for cell in nb.cells:
        kinds = [out["output_type"] for out in cell.outputs]
        assert kinds == ["stream"], json.dumps(cell.outputs)[:300]
    assert nb.cells[0].outputs[0]["text"].startswith("✓")
    assert nb.cells[1].outputs[0]["text"].startswith("✗")
    assert nb.cells[2].outputs[0]["text"].endswith("right\n")
