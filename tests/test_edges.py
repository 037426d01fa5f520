"""The checker at the edges (issue 33): hidden inputs that hold the cases each statement warns
about, inputs compared on every path, in-place promises kept, one diagnosis per slip, echoes that
tell the answer from the right value, and section titles that exist.

Every test here was watched failing before its fix (see the commit that added it).
"""

from __future__ import annotations

import copy
import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from attncheck import judge, registry
from attncheck.hints import fmt
from attncheck.record.ids import current_id
from attnlib import course

ROOT = Path(__file__).resolve().parent.parent


def _fails(exercise_id, answer):
    """The hint on a wrong answer (it must be judged wrong)."""
    verdict = judge(exercise_id, answer)
    assert not verdict.ok, f"{exercise_id} accepted a wrong answer"
    return verdict.message


# --- inputs are compared on every path, a raise included ---------------------------------------


def _make_x_sorts_then_raises(vectors):
    lengths = [len(v) for v in vectors]
    if len(set(lengths)) > 1:
        vectors.sort(key=len)
        raise ValueError(f"the lengths are {lengths}")
    return np.array(vectors, dtype=float)


def _make_x_drops_odd_then_raises(vectors):
    lengths = [len(v) for v in vectors]
    if len(set(lengths)) > 1:
        vectors.pop(lengths.index(max(lengths)))
        raise ValueError(f"the lengths are {lengths}")
    return np.array(vectors, dtype=float)


def _matmul_zeroes_then_raises(M, N):
    M, N = np.asarray(M), np.asarray(N)
    if M.shape[1] != N.shape[0]:
        M[...] = 0
        raise ValueError(f"shapes {M.shape} and {N.shape} do not fit")
    return M @ N


def _attention_zeroes_x_then_raises(X, W_Q, W_K, W_V):
    if X.shape[1] != W_Q.shape[0]:
        X[...] = 0
        raise ValueError(f"X has shape {X.shape} but W_Q has shape {W_Q.shape}")
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True) @ V


def test_an_input_changed_before_a_raise_is_named():
    for exercise_id, fn in [
        ("the_matrix_x.make_x", _make_x_sorts_then_raises),
        ("the_matrix_x.make_x", _make_x_drops_odd_then_raises),
        ("matrix_multiplication.my_matmul", _matmul_zeroes_then_raises),
        ("weighted_sum.self_attention", _attention_zeroes_x_then_raises),
    ]:
        assert "in place" in _fails(exercise_id, fn), fn.__name__


# --- hidden inputs hold the edge each statement names -----------------------------------------


def _cos(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def _angle_clipped_at_one(a, b):
    return math.degrees(math.acos(min(1.0, _cos(a, b))))


def _angle_error_as_zero(a, b):
    try:
        return math.degrees(math.acos(_cos(a, b)))
    except ValueError:
        return 0.0


def test_opposite_arrows_whose_cosine_rounds_below_minus_one_are_tried():
    assert "-1" in _fails("vectors.angle_between", _angle_clipped_at_one)
    assert "180°" in _fails("vectors.angle_between", _angle_error_as_zero)


# --- each slip gets its own diagnosis -----------------------------------------------------------


def _angle_asin(a, b):
    return math.degrees(math.asin(max(-1.0, min(1.0, _cos(a, b)))))


def _angle_a_twice(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return math.degrees(math.acos(max(-1.0, min(1.0, dot / sum(x * x for x in a)))))


def test_angle_between_names_asin_and_one_length_twice():
    asin = _fails("vectors.angle_between", _angle_asin)
    assert "asin" in asin and "cosine of the angle" not in asin
    twice = _fails("vectors.angle_between", _angle_a_twice)
    assert "twice" in twice and "first two" not in twice


# --- the online softmax: every slip named where it happened --------------------------------------


def _right_step(mu, l, z, s, v):
    mu_new = max([mu, *s])
    c = math.exp(mu - mu_new)
    p = [math.exp(x - mu_new) for x in s]
    return mu_new, c * l + sum(p), [c * zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]


def _step_inverted(mu, l, z, s, v):  # e^(μ_new − μ_old): infinite at the first block
    mu_new = max([mu, *s])
    c = math.exp(mu_new - mu)
    p = [math.exp(x - mu_new) for x in s]
    return mu_new, c * l + sum(p), [c * zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]


def _step_unweighted(mu, l, z, s, v):
    mu_new, l_new, _ = _right_step(mu, l, z, s, v)
    c = math.exp(mu - mu_new)
    return mu_new, l_new, [c * zj + sum(row[j] for row in v) for j, zj in enumerate(z)]


def _step_v_at_p(mu, l, z, s, v):
    mu_new = max(mu, max(s))
    p = np.exp(np.asarray(s) - mu_new)
    return mu_new, np.exp(mu - mu_new) * l + p.sum(), np.exp(mu - mu_new) * np.asarray(z) + np.asarray(v) @ p


def _step_returns_output(mu, l, z, s, v):
    mu_new, l_new, z_new = _right_step(mu, l, z, s, v)
    return mu_new, l_new, [x / l_new for x in z_new]


def _step_starts_at_zero(mu, l, z, s, v):
    return _right_step(0.0 if mu == -math.inf else mu, l, z, s, v)


def _step_unshifted(mu, l, z, s, v):
    mu_new = max([mu, *s])
    c = math.exp(mu - mu_new)
    p = [math.exp(x) for x in s]
    return mu_new, c * l + sum(p), [c * zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]


def _step_in_place(mu, l, z, s, v):  # the statement lets z and s be updated in place
    mu_new = max([mu, *s])
    c = math.exp(mu - mu_new)
    for i, x in enumerate(s):
        s[i] = math.exp(x - mu_new)
    for j in range(len(z)):
        z[j] = c * z[j] + sum(s[i] * v[i][j] for i in range(len(s)))
    return mu_new, c * l + sum(s), z


def test_online_step_names_each_slip_and_no_other():
    slips = {
        _step_inverted: ("Which way does the rescale go", "shifted"),
        _step_unweighted: ("weight", "old max"),
        _step_v_at_p: ("columns of v", "old max"),
        _step_returns_output: ("divided by ℓ", "old max"),
        _step_starts_at_zero: ("−∞, not 0", "old max"),
        _step_unshifted: ("raw scores", "rescale"),
    }
    for fn, (named, not_named) in slips.items():
        hint = _fails("cpu_vs_gpu.online_step", fn)
        assert named in hint and not_named not in hint, (fn.__name__, hint)


def test_online_step_takes_z_and_s_updated_in_place():
    assert judge("cpu_vs_gpu.online_step", _step_in_place).ok


# --- statement and grader agree on the inputs ---------------------------------------------------

_FORBIDS = re.compile(
    r"do not change|must not change|leaves? [^.]{0,40}unchanged|as you found it|without changing", re.IGNORECASE
)
_ALLOWS = re.compile(r"\bmay (?:change|update|overwrite)\b[^.]*in place", re.IGNORECASE)


def _statement(ex):
    """The markdown of the `{exercise}` block whose check cell checks `ex`, in its chapter's notebook."""
    stem = next(stem for _, subject, stem in course.chapters() if subject == ex.subject)
    cells = json.loads((ROOT / "chapters" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    statement = None
    for cell in cells:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and ":::{exercise}" in text:
            statement = text
        if cell["cell_type"] == "code":
            for found in re.finditer(r"check\(\s*[\"']([\w.]+)[\"']", text):
                if current_id(found.group(1)) == ex.id:
                    return statement
    raise AssertionError(f"no check cell for {ex.id}")


def _changes_its_input(right):
    """A right answer that, after computing its result, changes the first input that can change."""

    def change(x):
        if isinstance(x, np.ndarray) and x.size:
            x.reshape(-1)[0] += 1
            return True
        if isinstance(x, list) and x:
            if isinstance(x[0], (list, np.ndarray)):
                return change(x[0])
            x[0] = x[0] + 1
            return True
        return False

    def fn(*args):
        result = copy.deepcopy(right(*args))
        fn.changed |= any(change(a) for a in args)
        return result

    fn.changed = False
    return fn


def test_each_statement_s_promise_on_its_inputs_is_the_grader_s():
    functions = [ex for ex in registry.exercises() if ex.right and callable(ex.right[0])]
    assert len(functions) >= 10
    for ex in functions:
        statement = _statement(ex)
        forbids, allows = bool(_FORBIDS.search(statement)), bool(_ALLOWS.search(statement))
        assert not (forbids and allows), ex.id
        changing = _changes_its_input(ex.right[0])
        verdict = judge(ex, changing)
        if not changing.changed:  # its inputs are numbers (causal_mask(n)): nothing to promise
            assert verdict.ok and not forbids, ex.id
            continue
        assert ex.in_place == (not forbids), f"{ex.id}: the statement {'forbids' if forbids else 'lets'} a change"
        if forbids:
            assert not verdict.ok and "in place" in verdict.message, (ex.id, verdict.message)
        else:
            assert verdict.ok, (ex.id, verdict.message)


# --- echoes tell the answer from the right value ----------------------------------------------------


def test_a_near_miss_is_echoed_with_the_digits_that_tell_it_apart():
    for answer in (499_501, 499_499):
        hint = _fails("masks.masked_count", answer)
        assert f"{answer}" in hint.replace(",", ""), hint
        assert "4.995e+05" not in hint
    assert fmt(0.30001, 0.3) == "0.30001" and fmt(2.5, 3.0) == "2.5" and fmt(1 / 3) == "0.3333"
    from attncheck import vectors as graders

    long = _fails("vectors.longer_arrow", [x * 6.0149 / 6 for x in graders._LORRY])  # 0.0149 too long
    assert "6.015 long" in long, long


# --- a section a hint names is a section of its chapter ---------------------------------------------

_QUOTED_SECTION = re.compile(r"section\s+(?:'((?:[^'{}]|'(?=[a-z]))+)'|\"([^\"{}]+)\"|“([^”{}]+)”)")  # W's rows
_OF_STEP = re.compile(r"step \d+ of '([^'{}]+)'")


def _words(title):
    """A heading or a quoted title reduced to its words: no markup, no LaTeX, ᵀ for ^\\top, one space."""
    for tex, text in (
        ("^{\\mathsf T}", "ᵀ"),
        ("^\\top", "ᵀ"),
        ("^T", "ᵀ"),
        ("^2", "²"),
        ("\\sqrt", "√"),
        ("\\times", "×"),
    ):
        title = title.replace(tex, text)
    title = re.sub(r"\\[a-zA-Z]+|[$`*{}_\\]", "", title)
    return " ".join(title.replace("–", "-").replace("—", "-").split()).lower()


def _headings(stem):
    cells = json.loads((ROOT / "chapters" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    return {
        _words(line.lstrip("#"))
        for cell in cells
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if line.startswith("#")
    }


def test_every_section_a_hint_names_is_a_heading_of_its_chapter():
    stems = {subject: stem for _, subject, stem in course.chapters()}
    graders = sorted((ROOT / "attncheck").glob("*.py"))
    checked, missing = 0, []
    for path in graders:
        source = re.sub(r"([\"'])\s*\n\s*f?\1", "", path.read_text(encoding="utf-8"))  # "a " "b" read as "a b"
        chapter = re.search(r"^CHAPTER = \"(\w+)\"", source, re.MULTILINE)
        if not chapter:
            continue
        headings = _headings(stems[chapter.group(1)])
        for found in [*_QUOTED_SECTION.finditer(source), *_OF_STEP.finditer(source)]:
            title = next(g for g in found.groups() if g)
            checked += 1
            if _words(title) not in headings:
                missing.append(f"{path.name}: {title!r}")
    assert checked >= 20
    assert not missing, "\n".join(missing)


def test_a_softmax_without_a_shift_is_not_told_about_the_whole_array_s_max():
    naive = _fails("softmax.stable_softmax", lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True))
    assert "own largest score" in naive and "whole array" not in naive

    def whole_array_max(x):
        e = np.exp(x - np.max(x))
        return e / e.sum(axis=-1, keepdims=True)

    assert "whole array" in _fails("softmax.stable_softmax", whole_array_max)


def test_a_shape_written_as_text_is_read_as_a_shape_not_as_a_word():
    first = _fails("transpose.transpose_order", ["(4, 2)", "illegal", (4, 2)])
    assert "text" in first and "is legal" not in first
    last = _fails("transpose.transpose_order", [(4, 2), "illegal", "(4, 2)"])
    assert "text" in last and "illegal" not in last.replace("'illegal'", "")
    middle = _fails("transpose.transpose_order", [(4, 2), "(3, 3)", (4, 2)])
    assert "inner numbers" in middle and '"illegal"' not in middle


# --- a width is a whole number: statement, chapter and grader say the same --------------------------


def test_sizes_are_whole_numbers_in_the_statement_the_chapter_and_the_grader():
    stem = next(stem for _, subject, stem in course.chapters() if subject == "query_key_value")
    cells = json.loads((ROOT / "chapters" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    texts = ["".join(c["source"]) for c in cells]
    taught = next(i for i, (c, t) in enumerate(zip(cells, texts)) if c["cell_type"] == "markdown" and "`//`" in t)
    for exercise_id, decimal in [
        ("query_key_value.head_w_q", (768, 768 / 12)),
        ("query_key_value.w_shapes", [(6.0, 3), (6, 3), (6, 4)]),
    ]:
        statement = _statement(registry.get(exercise_id))
        assert "whole numbers" in statement and texts.index(statement) > taught, exercise_id
        assert "//" in _fails(exercise_id, decimal), exercise_id
    assert "`//`" in _statement(registry.get("query_key_value.head_w_q"))  # where the statement writes d_model / h


# --- every softmax of the course is safe on large scores: chapters 10 and 12 say so and try it -------


def _softmax_shifted_by(shift):
    def softmax(S):
        E = np.exp(S - shift(S))
        return E / E.sum(axis=-1, keepdims=True)

    softmax.__name__ = shift.__name__
    return softmax


def _each_row_s_max(S):
    return S.max(axis=-1, keepdims=True)


def _nothing(S):
    return 0.0


def _whole_array_s_max(S):
    return S.max()


def _each_row_s_min(S):
    return S.min(axis=-1, keepdims=True)


def _each_row_s_mean(S):
    return S.mean(axis=-1, keepdims=True)


def _attention(softmax):
    def self_attention(X, W_Q, W_K, W_V):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        return softmax(Q @ K.T / np.sqrt(K.shape[1])) @ V

    return self_attention


def _heads(softmax):
    def multi_head_attention(X, W_Q, W_K, W_V, W_O, h):
        n, d_model = X.shape
        d_k = d_model // h
        Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
        A = softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k))
        return (A @ V).transpose(1, 0, 2).reshape(n, d_model) @ W_O

    return multi_head_attention


def _batched_heads(softmax):
    def batched_attention(X, W_Q, W_K, W_V, W_O, h, mask):
        b, n, d_model = X.shape
        d_k = d_model // h
        Q, K, V = ((X @ W).reshape(b, n, h, d_k).transpose(0, 2, 1, 3) for W in (W_Q, W_K, W_V))
        S = Q @ K.swapaxes(-1, -2) / np.sqrt(d_k)
        A = softmax(np.where(mask[:, None], S, -np.inf))
        return (A @ V).transpose(0, 2, 1, 3).reshape(b, n, d_model) @ W_O

    return batched_attention


# every function exercise whose answer writes a softmax, with the answer built around a given softmax
SOFTMAX_WRITERS = {
    "softmax.stable_softmax": lambda softmax: softmax,
    "weighted_sum.self_attention": _attention,
    "many_heads.multi_head": _heads,
    "many_heads.batched_masked": _batched_heads,
}
NOT_A_WHOLE_SOFTMAX = {"cpu_vs_gpu.online_step"}  # one step of the online softmax: its own slips, tested above


def test_every_exercise_that_writes_a_softmax_is_tried_with_each_wrong_shift():
    said = {ex_id for ex_id in FUNCTION_EXERCISES if "softmax" in _statement(registry.get(ex_id)).lower()}
    assert said <= set(SOFTMAX_WRITERS) | NOT_A_WHOLE_SOFTMAX, said - set(SOFTMAX_WRITERS)


@pytest.mark.parametrize("exercise_id", list(SOFTMAX_WRITERS))
def test_the_softmax_inside_attention_must_shift_each_row_by_its_own_max(exercise_id):
    build = SOFTMAX_WRITERS[exercise_id]
    statement = _statement(registry.get(exercise_id))
    assert "max" in statement or "largest" in statement, exercise_id
    if not exercise_id.startswith("softmax."):
        assert "(09_softmax.ipynb)" in statement, exercise_id
    assert judge(exercise_id, build(_softmax_shifted_by(_each_row_s_max))).ok
    for shift in (_nothing, _whole_array_s_max, _each_row_s_min, _each_row_s_mean):
        hint = _fails(exercise_id, build(_softmax_shifted_by(shift)))
        assert "largest score" in hint, (exercise_id, shift.__name__, hint)


def test_every_registered_online_step_slip_hears_a_step_not_a_plain_not_right():
    plain = ("is not right (section", "The three things you return should be numbers")
    for wrong in registry.get("cpu_vs_gpu.online_step").wrong:
        hint = _fails("cpu_vs_gpu.online_step", wrong)
        assert not any(words in hint for words in plain), (wrong.__name__, hint)


# --- answers that keep state between calls ------------------------------------------------------


def _key(x):
    try:
        return repr(np.asarray(x, dtype=float).tolist())
    except (TypeError, ValueError):
        return repr(x)


def _caching(fn, which):
    """fn, remembering its results by some of its arguments only (`which` picks them), or by none: the first result forever."""
    memory = {}

    def cached(*args):
        key = which(args)
        if key not in memory:
            memory[key] = fn(*args)
        return copy.deepcopy(memory[key])

    cached.__name__ = f"{getattr(fn, '__name__', 'fn')}_with_a_cache"
    return cached


CACHES = {
    "by its first argument alone": lambda args: _key(args[0]),
    "by its last argument alone": lambda args: _key(args[-1]),
    "by nothing (the first result forever)": lambda args: 0,
}
STATEFUL = [
    (ex.id, name)
    for ex in registry.exercises()
    if ex.right and callable(ex.right[0]) and not isinstance(ex.right[0], np.ndarray) and not ex.in_place
    for name in CACHES
]


@pytest.mark.parametrize(("exercise_id", "cache"), STATEFUL)
def test_an_answer_that_keeps_state_between_calls_is_caught(exercise_id, cache):
    """Issue 43: a hidden input repeats each argument with another companion, so a cache keyed by part of them fails."""
    right = registry.get(exercise_id).right[0]
    arity = right.__code__.co_argcount if hasattr(right, "__code__") else 1
    if arity < 2 and cache != "by nothing (the first result forever)":
        pytest.skip("one argument: a cache keyed by it is a right answer")
    verdict = judge(exercise_id, _caching(right, CACHES[cache]))
    assert not verdict.ok, f"{exercise_id} accepted a function that caches {cache}"


# --- each registered slip: an input that tells it apart, its own hint and no other's -----------


def _slips(ex):
    return getattr(sys.modules[ex.checker.__module__], "SLIPS", {}).get(ex.id, [])


def _edges(ex):
    return getattr(sys.modules[ex.checker.__module__], "EDGES", {}).get(ex.id, ())


SLIPPED = [ex.id for ex in registry.exercises() if _slips(ex)]


def test_the_classes_of_issue_43_are_registered_as_slips():
    assert {
        "matrix_multiplication.my_matmul",
        "matrix_multiplication.design_w",
        "weighted_sum.self_attention",
        "word_order.pe_row",
        "learning_the_lenses.expected_key",
        "many_heads.score_flops",
        "vectors.angle_between",
        "counting_and_timing.flops",
        "counting_and_timing.intensity",
    } <= set(SLIPPED)


@pytest.mark.parametrize("exercise_id", SLIPPED)
def test_each_slip_is_a_registered_wrong_answer_on_an_edge_the_statement_promises(exercise_id):
    ex = registry.get(exercise_id)
    edges = _edges(ex)
    assert edges, f"{exercise_id} registers slips but lists no edge of its statement"
    for answer, hint, edge in _slips(ex):
        assert any(answer is w or (not callable(w) and repr(w) == repr(answer)) for w in ex.wrong), (
            f"{exercise_id}: the slip for {hint!r} is not in `wrong`"
        )
        assert edge in edges, f"{exercise_id}: {edge!r} is not an edge its statement promises ({edges})"


@pytest.mark.parametrize("exercise_id", SLIPPED)
def test_each_slip_gets_its_own_hint_and_no_other_slip_s(exercise_id):
    ex = registry.get(exercise_id)
    slips = _slips(ex)
    for answer, hint, _ in slips:
        message = " ".join(_fails(exercise_id, answer).split())
        assert hint.lower() in message.lower(), f"{exercise_id}: wanted {hint!r}, got {message!r}"
        others = {h for _, h, _ in slips if h.lower() not in hint.lower() and hint.lower() not in h.lower()}
        fired = [h for h in others if h.lower() in message.lower()]
        assert not fired, f"{exercise_id}: the hint for {hint!r} also says {fired}: {message!r}"


FUNCTION_EXERCISES = [
    ex.id
    for ex in registry.exercises()
    if ex.right and callable(ex.right[0]) and not isinstance(ex.right[0], np.ndarray)
]


@pytest.mark.parametrize("exercise_id", FUNCTION_EXERCISES)
def test_every_function_exercise_lists_its_edges_and_a_slip_caught_on_each(exercise_id):
    """Issue 43 item 1: the edges a statement promises are data, and each holds an input that tells a registered slip apart."""
    ex = registry.get(exercise_id)
    edges, slips = _edges(ex), _slips(ex)
    assert edges, f"{exercise_id} lists no edge of its statement (EDGES in its grader)"
    uncovered = [edge for edge in edges if not any(e == edge for _, _, e in slips)]
    assert not uncovered, f"{exercise_id}: no registered slip is caught on {uncovered}"


@pytest.mark.parametrize("exercise_id", [ex.id for ex in registry.exercises()])
def test_every_exercise_lists_its_edges_and_its_slips(exercise_id):
    """Issue 43 items 1-3, for all 60: each registration lists the edges its statement promises and
    its registered slips (each with the hint it must get), a slip on every edge."""
    ex = registry.get(exercise_id)
    edges, slips = _edges(ex), _slips(ex)
    assert edges, f"{exercise_id} lists no edge of its statement (EDGES in its grader)"
    assert slips, f"{exercise_id} registers no slip with its hint (SLIPS in its grader)"
    uncovered = [edge for edge in edges if not any(e == edge for _, _, e in slips)]
    assert not uncovered, f"{exercise_id}: no registered slip on {uncovered}"


def test_a_slip_is_matched_whole_and_counted_from_one_keeps_words():
    from attncheck import counted_from_one
    from attncheck.expectations import same_answer

    assert counted_from_one([("column", 2), (3, 1), 12.0]) == [("column", 3), (4, 2), 12.0]
    assert same_answer([(2, 5), (7,), "illegal"], [(2, 5), (7,), "Illegal "])
    assert same_answer({"K": [6, 4]}, {"K": (6, 4)}) and not same_answer({"K": (6, 4), "S": 1}, {"K": (6, 4)})
    assert not same_answer("4", 4.0) and not same_answer([4.0], 4.0) and not same_answer(None, 0)
