"""Checkers for the chapter on many heads."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from attnlib.core import softmax as _softmax
from attnlib.heads import multi_head_attention as _reference

from . import Wrong, call, exercise, expect_array, expect_no_slip, expect_pair, to_numpy, to_shape

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "many_heads", "many heads"

# per exercise: the edges its statement promises, and the slips registered with the hint each must get
EDGES: dict = {}
SLIPS: dict = {}

# --- many_heads.split_shape: the shape after split_heads -----------------------------------

SPLIT_SHAPE = (2, 8, 10, 64)  # X: (batch 2, n 10, d_model 512), h = 8
_SPLIT = "See the section on splitting."
EDGES["many_heads.split_shape"] = ("batch first, heads before words", "d_k = d_model // h", "four axes")
_SPLIT_WHOLE = [  # slips of the whole shape, with the hints they get
    (
        (2, 10, 8, 64),
        (
            "That is the shape after the reshape, before the swap: the head axis must come before the word axis, "
            f"so that each head holds an n × d_k matrix. {_SPLIT}"
        ),
        "batch first, heads before words",
    ),
    (
        (2, 8, 10, 512),
        f"Each head gets only its share of the columns: d_k = d_model / h. {_SPLIT}",
        "d_k = d_model // h",
    ),
    (
        (16, 10, 64),
        (
            "That folds batch and heads into one axis, as some libraries do inside. split_heads keeps them apart: "
            f"batch first, then heads. {_SPLIT}"
        ),
        "four axes",
    ),
    (
        (8, 2, 10, 64),
        f"The batch axis stays first; the head axis goes in after it. {_SPLIT}",
        "batch first, heads before words",
    ),
    (
        (2, 8, 64, 10),
        f"Each head holds one row per word: n comes before d_k. {_SPLIT}",
        "batch first, heads before words",
    ),
    (
        (10, 2, 8, 64),
        (
            "That swaps the batch axis with the word axis. With a batch, the axes to swap are the word axis and the "
            f"head axis, the two just before the last; the batch axis stays first. {_SPLIT}"
        ),
        "batch first, heads before words",
    ),
]
SLIPS["many_heads.split_shape"] = [
    *_SPLIT_WHOLE,
    ((2, 10, 64), "your shape has 3 number(s)", "four axes"),
    ((2, 8, 10, 64.0), "not 64.0", "d_k = d_model // h"),
]


@exercise(
    "many_heads.split_shape",
    right=[SPLIT_SHAPE, list(SPLIT_SHAPE), tuple(np.int64(d) for d in SPLIT_SHAPE), np.array(SPLIT_SHAPE)],
    wrong=[(2, 10, 512), *(a for a, _, _ in SLIPS["many_heads.split_shape"])],
    catches="reshaped but not swapped (2, 10, 8, 64), d_k not divided (512), batch and heads folded "
    "(16, 10, 64), one head, heads before batch, n and d_k swapped, no split at all, the first two axes of the batch swapped (10, 2, 8, 64)",
    solution="answer = (2, 8, 10, 512 // 8)",
)
def _split_shape(answer: Any) -> None:
    got = to_shape(answer, "Your answer")
    if got == SPLIT_SHAPE:
        return
    expect_no_slip(got, _SPLIT_WHOLE)
    if len(got) != 4:
        raise Wrong(
            f"Your shape has {len(got)} number(s). After the split there are four axes: batch, heads, "
            "words, and the columns of one head."
        )
    raise Wrong(f"{got} is not right yet. Name the four axes in order and ask how big each one is.")


# --- many_heads.multi_head: the whole of multi-head attention --------------------------------

MH_SIZES = [(3, 4, 2), (5, 6, 3), (1, 4, 4), (4, 4, 1), (2, 8, 4), (6, 6, 2)]  # (n, d_model, h)


def _mh_cases() -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(12)
    out = []
    for n, d, h in MH_SIZES:
        X = rng.normal(size=(n, d))
        Ws = [rng.normal(size=(d, d)) for _ in range(4)]
        out.append((X, *Ws, h))
    out.append(_mh_shift_case(rng))  # before the case below, where every wrong shift gives the same nan
    # scores in the thousands, rows far apart: a softmax without each row's own max gives inf or nan
    X = rng.normal(size=(4, 4)) * 30
    out.append((X, *[rng.normal(size=(4, 4)) for _ in range(4)], 2))
    # the first X again with other weights: a function that remembers its result by X alone fails
    first = out[0]
    out.append((first[0], *[rng.normal(size=W.shape) for W in first[1:5]], first[5]))
    return out


def _mh_shift_case(rng: np.random.Generator) -> tuple[Any, ...]:
    """One head whose scores are S itself (X = I, W_Q = I): each wrong shift leaves its own rows inf or nan.

    Row 0 sits near -1000 (no shift underflows to 0/0), row 1 spans -700 to 700 (the min shift
    overflows, the mean does not), row 2 spans 0 to 1500 (min, mean and no shift overflow), and the
    whole array's max (1500) empties rows 0 and 1."""
    S = np.array([[-1000.0, -1001.0, -1000.5], [-700.0, 700.0, 0.0], [0.0, 1500.0, 750.0]])
    W_K = np.sqrt(3.0) * S.T  # d_k = 3: S = W_Q W_Kᵀ / √3
    return (np.eye(3), np.eye(3), W_K, rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), 1)


def _mh_solution(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q = (X @ W_Q).reshape(n, h, d_k).transpose(1, 0, 2)
    K = (X @ W_K).reshape(n, h, d_k).transpose(1, 0, 2)
    V = (X @ W_V).reshape(n, h, d_k).transpose(1, 0, 2)
    A = _softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k))
    Z = (A @ V).transpose(1, 0, 2).reshape(n, d_model)
    return Z @ W_O, A


def _mh_loop(X, W_Q, W_K, W_V, W_O, h):
    d_k = X.shape[1] // h
    parts = []
    for k in range(h):
        cols = slice(k * d_k, (k + 1) * d_k)
        Q, K, V = X @ W_Q[:, cols], X @ W_K[:, cols], X @ W_V[:, cols]
        parts.append(_softmax(Q @ K.T / np.sqrt(d_k)) @ V)
    return [np.concatenate(parts, axis=1) @ W_O]


def _mh_output_only(X, W_Q, W_K, W_V, W_O, h):
    return _mh_solution(X, W_Q, W_K, W_V, W_O, h)[0]


def _mh_no_w_o(X, W_Q, W_K, W_V, W_O, h):
    return _mh_solution(X, W_Q, W_K, W_V, np.eye(X.shape[1]), h)[0]


def _mh_reshape_without_swap(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(h, n, d_k) for W in (W_Q, W_K, W_V))
    A = _softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k))
    return (A @ V).reshape(n, d_model) @ W_O


def _mh_merge_without_swap(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    A = _softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k))
    return (A @ V).reshape(n, d_model) @ W_O


def _mh_scale_d_model(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    A = _softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_model))
    return (A @ V).transpose(1, 0, 2).reshape(n, d_model) @ W_O


def _mh_stack_dot_T(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    A = _softmax(Q @ K.T / np.sqrt(d_k))  # .T reverses all three axes of the stack
    return (A @ V).transpose(1, 0, 2).reshape(n, d_model) @ W_O


def _mh_no_max_shift(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    E = np.exp(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k))
    return (E / E.sum(axis=-1, keepdims=True) @ V).transpose(1, 0, 2).reshape(n, d_model) @ W_O


def _mh_cached_by_x(X, W_Q, W_K, W_V, W_O, h):
    """Remembers the output by X alone: the same X with other weights gets the old output."""
    key = repr(np.asarray(X).tolist())
    if key not in _MH_MEMORY:
        _MH_MEMORY[key] = _mh_solution(X, W_Q, W_K, W_V, W_O, h)[0]
    return _MH_MEMORY[key]


_MH_MEMORY: dict = {}


def _mh_row_shift(X, W_Q, W_K, W_V, W_O, h, shift):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    S = Q @ K.transpose(0, 2, 1) / np.sqrt(d_k)
    E = np.exp(S - shift(S, axis=-1, keepdims=True))
    return (E / E.sum(axis=-1, keepdims=True) @ V).transpose(1, 0, 2).reshape(n, d_model) @ W_O


def _mh_min_shift(X, W_Q, W_K, W_V, W_O, h):
    return _mh_row_shift(X, W_Q, W_K, W_V, W_O, h, np.min)  # each row's smallest score: its largest overflows


def _mh_mean_shift(X, W_Q, W_K, W_V, W_O, h):
    return _mh_row_shift(X, W_Q, W_K, W_V, W_O, h, np.mean)


def _mh_global_max_shift(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    S = Q @ K.transpose(0, 2, 1) / np.sqrt(d_k)
    E = np.exp(S - S.max())  # the largest score of every head and row together
    return (E / E.sum(axis=-1, keepdims=True) @ V).transpose(1, 0, 2).reshape(n, d_model) @ W_O


def _mh_one_head(X, W_Q, W_K, W_V, W_O, h):
    return _mh_solution(X, W_Q, W_K, W_V, W_O, 1)[0]


def _mh_softmax_over_heads(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    A = _softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k), axis=0)
    return (A @ V).transpose(1, 0, 2).reshape(n, d_model) @ W_O


def _mh_softmax_down_columns(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    A = _softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k), axis=1)  # over the queries, not the keys
    return (A @ V).transpose(1, 0, 2).reshape(n, d_model) @ W_O


def _mh_zeroes_w_v(X, W_Q, W_K, W_V, W_O, h):
    W_V[:] = 0.0  # "clears" a weight it no longer needs ... in the caller's array
    return _mh_solution(X, W_Q, W_K, W_V, W_O, h)[0]


def _mh_no_return(X, W_Q, W_K, W_V, W_O, h):
    _mh_solution(X, W_Q, W_K, W_V, W_O, h)


def _output_from(result: Any, want_shape: tuple[int, int]) -> np.ndarray:
    """The output from what the function returned: the output itself, or the pair (output, A)."""
    if isinstance(result, (tuple, list)) and len(result) == 2:
        first, second = expect_pair(result, "What your function returned")
        first = to_numpy(first, "the output your function returned")
        second = to_numpy(second, "the A your function returned")
        if (
            first.shape != want_shape
            and second.shape == want_shape
            and first.ndim >= 2
            and first.shape[-1] == first.shape[-2] == want_shape[0]
        ):
            raise Wrong(
                "Your function returned the pair in the other order, (A, output). Return the output "
                "first: (output, A), as the statement says."
            )
        if first.ndim == 2 and second.ndim != 1:
            return first
    if isinstance(result, (tuple, list)) and len(result) == 1:
        only = to_numpy(expect_pair(result, n=1)[0], "the output your function returned")
        if only.ndim == 2:
            return only
    return to_numpy(result, "the output your function returned")


def _slip(got: np.ndarray, case: tuple[Any, ...]) -> str:
    """The hint for the usual slip that gives `got`, or ''."""
    slips = [
        (_mh_no_w_o, "The heads were concatenated but never mixed: multiply the concatenation by W_O."),
        (
            _mh_reshape_without_swap,
            (
                "The split reshaped (n, d_model) straight into (h, n, d_k). That cuts "
                "the rows, not the columns: reshape to (n, h, d_k) first, then swap the "
                "first two axes."
            ),
        ),
        (
            _mh_merge_without_swap,
            (
                "The merge reshaped (h, n, d_k) straight into (n, d_model), which mixes "
                "words of different heads: swap the axes back to (n, h, d_k) first."
            ),
        ),
        (
            _mh_scale_d_model,
            ("You divided by √d_model. Each head compares d_k = d_model / h numbers, so it divides by √d_k."),
        ),
        (_mh_one_head, "That is one head with d_k = d_model: the h in the arguments was not used."),
        (
            _mh_softmax_over_heads,
            ("The softmax ran across the heads. Each row of each head's A must add up to 1: use the last axis."),
        ),
        (
            _mh_softmax_down_columns,
            (
                "The softmax ran down the columns of each head's scores (axis 1 of h × n × n). Each ROW "
                "of each head's A must add up to 1: use the last axis, axis=-1."
            ),
        ),
    ]
    for wrong, hint in slips:
        want = wrong(*copy.deepcopy(case))
        if got.shape == want.shape and np.allclose(got, want, atol=1e-8):
            return hint
    return ""


EDGES["many_heads.multi_head"] = (
    "n = 1, h = 1, h = d_model and n ≠ d_model",
    "scores in the thousands, rows far apart",
    "the same X again with other weights",
)
SLIPS["many_heads.multi_head"] = [
    (_mh_min_shift, "each row by its smallest score", "scores in the thousands, rows far apart"),
    (_mh_no_max_shift, "shifts the scores by nothing", "scores in the thousands, rows far apart"),
    (_mh_global_max_shift, "the largest score of the whole array", "scores in the thousands, rows far apart"),
    (_mh_mean_shift, "each row by its mean score", "scores in the thousands, rows far apart"),
    (_mh_no_w_o, "w_o", "n = 1, h = 1, h = d_model and n ≠ d_model"),
    (_mh_cached_by_x, "keeps results between calls", "the same X again with other weights"),
]


@exercise(
    "many_heads.multi_head",
    right=[_mh_solution, _mh_loop, _mh_output_only, _reference],
    wrong=[
        _mh_no_w_o,
        _mh_reshape_without_swap,
        _mh_merge_without_swap,
        _mh_scale_d_model,
        _mh_one_head,
        _mh_softmax_over_heads,
        _mh_softmax_down_columns,
        _mh_zeroes_w_v,
        _mh_no_return,
        _mh_stack_dot_T,
        _mh_no_max_shift,
        _mh_global_max_shift,
        _mh_min_shift,
        _mh_mean_shift,
        _mh_cached_by_x,
    ],
    catches="a softmax shifted by each row's min or mean, a softmax without the max-subtraction or shifted by the whole array's max (a hidden case "
    "with scores in the thousands), W_O left out, split by reshape without the swap, merge without the swap, scaled by √d_model, "
    "h ignored (one head), softmax across heads, softmax down each head's columns, a function that zeroes W_V in place, `.T` on a 3-D stack; "
    "cases include n = 1, h = 1, h = d_model and n ≠ d_model",
    solution="Z = (A @ V).transpose(1, 0, 2).reshape(n, d_model)",
)
def _multi_head(fn: Any) -> None:
    cases = _mh_cases()  # fresh arrays for every check, from a fixed seed
    wants = [_reference(*case)[0] for case in cases]  # before any learner code runs
    for k, (case, want) in enumerate(zip(cases, wants)):
        n, d_model = case[0].shape
        h = case[-1]
        try:
            result = call(fn, *case, what="your function `multi_head_attention`")  # on private copies
        except Wrong as wrong:
            if "matmul" in str(wrong) and "core dimension" in str(wrong):
                raise Wrong(
                    "numpy could not multiply two stacks of matrices: their inner sizes differ. A "
                    "common cause is `.T` on a stack of three axes, which reverses all three. Each "
                    "head's keys need only their last two axes swapped: see the section on `@` on a "
                    "stack."
                ) from None
            raise
        got = _output_from(result, want.shape)
        label = f"The output for n={n}, d_model={d_model}, h={h}"
        if got.shape == want.shape and np.all(np.isfinite(got)) and np.allclose(got, want, atol=1e-8):
            continue
        if any(w.shape == got.shape and np.allclose(got, w, atol=1e-8) for w in wants[:k]):
            raise Wrong(
                f"{label} is the output of an earlier call: your function keeps results between calls. "
                "Compute it from the X and weights it is given, every time."
            )
        if got.shape != want.shape:
            raise Wrong(
                f"{label} has shape {got.shape}, but it should be (n, d_model) = {want.shape}. "
                "Print the shape after every step."
            )
        if not np.all(np.isfinite(got)):
            with np.errstate(all="ignore"):
                shifted = [
                    words
                    for slip, words in (
                        (_mh_min_shift, "you shifted each row by its smallest score"),
                        (_mh_mean_shift, "you shifted each row by its mean score"),
                        (_mh_no_max_shift, "your softmax shifts the scores by nothing"),
                        (_mh_global_max_shift, "you shifted by the largest score of the whole array"),
                    )
                    if np.allclose(got, slip(*case), equal_nan=True)
                ]
            if len(shifted) == 1:  # one shift alone explains these numbers
                raise Wrong(
                    f"{label} contains inf or nan: {shifted[0]}. One hidden case has "
                    "scores in the thousands, with rows far apart: subtract each "
                    "row's own largest score (the last axis, keepdims=True): then every e^x is at most 1."
                )
            raise Wrong(
                f"{label} contains inf or nan. One hidden case has scores in the thousands, with "
                "rows far apart: subtract each row's own largest score before np.exp (the last axis, "
                "keepdims=True), not the largest of the whole array, and not nothing."
            )
        hint = _slip(got, case)
        if hint:
            raise Wrong(hint + " See the section on splitting and merging.")
        expect_array(got, want, what=label, atol=1e-8)


# --- many_heads.score_flops: more heads at a fixed d_k -------------------------------------------

D_K_COST, H_FROM, H_TO = 64, 8, 16  # d_k stays 64, so d_model grows from 512 to 1024
SCORE_FACTORS = (H_TO / H_FROM, H_TO / H_FROM)  # (FLOPs of the scores, entries of A): (2, 2)


EDGES["many_heads.score_flops"] = ("factors, not counts", "d_k fixed while d_model grows", "both factors")
_FLOPS_SLIPS = [
    ((16 * 2 * 1000**2 * 64, 16 * 1000**2), "look like counts", "factors, not counts"),
    ((8 * 2 * 1000**2 * 64, 16 * 2 * 1000**2 * 64), "look like counts", "factors, not counts"),
    ((1, 1), "both factors are off", "both factors"),
    ((1, 2), "the entries are right", "d_k fixed while d_model grows"),
    ((4, 2), "with d_model²", "d_k fixed while d_model grows"),
    ((0.5, 0.5), "upside down", "both factors"),
    ((2, 1), "the second is off", "both factors"),
]
SLIPS["many_heads.score_flops"] = _FLOPS_SLIPS


@exercise(
    "many_heads.score_flops",
    right=[SCORE_FACTORS, [2, 2], (2.0, 2), np.array([2.0, 2.0])],
    wrong=[(1, 2), (1, 1), (2, 1), (4, 2), (2, 4), (0.5, 0.5), 2, *(slip for slip, _, _ in _FLOPS_SLIPS)],
    catches="the two counts (of FLOPs, of weights) for the two factors, the FLOPs taken to stay the same, as when d_model is fixed (1, 2); nothing grows (1, 1); the "
    "entries of A taken to stay (2, 1); the projections' d_model² growth (4, 2); upside down; one number",
    solution="answer = (2, 2)",
)
def _score_flops(answer: Any) -> None:
    if isinstance(answer, (str, bytes)):
        raise Wrong("Your answer is text. Give two numbers, without quotes.")
    got = to_numpy(answer, "your answer")
    if got.shape != (2,) or not np.all(np.isfinite(got)):
        raise Wrong("Give two ordinary numbers: (factor for the FLOPs of the scores, factor for the entries of A).")
    flops, entries = (float(x) for x in got)
    # the whole answer first: counts for factors, both factors off, then one factor at a time
    if max(abs(flops), abs(entries)) >= 64:
        raise Wrong(
            "Those look like counts (of FLOPs or of attention weights), not factors. The question asks "
            "by what factor each grows: divide the count with 16 heads by the count with 8."
        )
    if math.isclose(flops, 1) and math.isclose(entries, 1):
        raise Wrong(
            "Both factors are off: with 16 heads nothing stays the same here. Each head keeps d_k = 64 and "
            "its own n × n matrix A: count one head's, then all of them."
        )
    if math.isclose(flops, 1) and math.isclose(entries, 2):
        raise Wrong(
            "The entries are right. The FLOPs stay the same only when d_model is fixed, so that more "
            "heads means narrower heads. Here each head keeps d_k = 64: count one head's scores, then all of them."
        )
    if math.isclose(flops, 4):
        raise Wrong(
            "That is how the projections grow, with d_model². One head's scores grow only with n and with its "
            "own d_k, and d_k did not change."
        )
    if flops < 1 and entries < 1:
        raise Wrong("Both factors are upside down: divide the cost with 16 heads by the cost with 8.")
    if not math.isclose(flops, SCORE_FACTORS[0], rel_tol=1e-6):
        raise Wrong(
            "The first factor is off. Write the FLOPs of one head's score matrix, then multiply by the "
            "number of heads, before and after. See the section on the cost."
        )
    if not math.isclose(entries, SCORE_FACTORS[1], rel_tol=1e-6):
        raise Wrong("The first factor is right; the second is off. Every head has its own n × n matrix A.")
