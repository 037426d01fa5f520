"""Checkers for the chapter on many heads."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from ..core import softmax as _softmax
from ..heads import multi_head_attention as _reference
from . import Wrong, call, exercise, expect_array, expect_number, expect_pair, to_numpy, to_shape

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "many_heads", "many heads"

# --- many_heads.split_shape: the shape after split_heads -----------------------------------

SPLIT_SHAPE = (2, 8, 10, 64)  # X: (batch 2, n 10, d_model 512), h = 8


@exercise(
    "many_heads.split_shape",
    right=[SPLIT_SHAPE, list(SPLIT_SHAPE), tuple(np.int64(d) for d in SPLIT_SHAPE), np.array(SPLIT_SHAPE)],
    wrong=[
        (2, 10, 8, 64),
        (2, 8, 10, 512),
        (16, 10, 64),
        (2, 10, 64),
        (8, 2, 10, 64),
        (2, 8, 64, 10),
        (2, 10, 512),
        (10, 2, 8, 64),
    ],
    catches="reshaped but not swapped (2, 10, 8, 64), d_k not divided (512), batch and heads folded "
    "(16, 10, 64), one head, heads before batch, n and d_k swapped, no split at all, the first two axes of the batch swapped (10, 2, 8, 64)",
    solution="answer = (2, 8, 10, 512 // 8)",
)
def _split_shape(answer: Any) -> None:
    got = to_shape(answer, "Your answer")
    if got == SPLIT_SHAPE:
        return
    hints = {
        (2, 10, 8, 64): "That is the shape after the reshape, before the swap: the head axis must come "
        "before the word axis, so that each head holds an n × d_k matrix.",
        (2, 8, 10, 512): "Each head gets only its share of the columns: d_k = d_model / h.",
        (16, 10, 64): "That folds batch and heads into one axis, as some libraries do inside. "
        "split_heads keeps them apart: batch first, then heads.",
        (8, 2, 10, 64): "The batch axis stays first; the head axis goes in after it.",
        (2, 8, 64, 10): "Each head holds one row per word: n comes before d_k.",
        (10, 2, 8, 64): "That swaps the batch axis with the word axis. With a batch, the axes to swap are the "
        "word axis and the head axis, the two just before the last; the batch axis stays first.",
    }
    if got in hints:
        raise Wrong(hints[got] + " See the section on splitting.")
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
    return out


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


def _mh_one_head(X, W_Q, W_K, W_V, W_O, h):
    return _mh_solution(X, W_Q, W_K, W_V, W_O, 1)[0]


def _mh_softmax_over_heads(X, W_Q, W_K, W_V, W_O, h):
    n, d_model = X.shape
    d_k = d_model // h
    Q, K, V = ((X @ W).reshape(n, h, d_k).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    A = _softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k), axis=0)
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
    ]
    for wrong, hint in slips:
        want = wrong(*copy.deepcopy(case))
        if got.shape == want.shape and np.allclose(got, want, atol=1e-8):
            return hint
    return ""


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
        _mh_zeroes_w_v,
        _mh_no_return,
        _mh_stack_dot_T,
    ],
    catches="W_O left out, split by reshape without the swap, merge without the swap, scaled by √d_model, "
    "h ignored (one head), softmax across heads, a function that zeroes W_V in place, `.T` on a 3-D stack; "
    "cases include n = 1, h = 1, h = d_model and n ≠ d_model",
    solution="Z = (A @ V).transpose(1, 0, 2).reshape(n, d_model)",
)
def _multi_head(fn: Any) -> None:
    cases = _mh_cases()  # fresh arrays for every check, from a fixed seed
    wants = [_reference(*case)[0] for case in cases]  # before any learner code runs
    for case, want in zip(cases, wants):
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
        if got.shape != want.shape:
            raise Wrong(
                f"{label} has shape {got.shape}, but it should be (n, d_model) = {want.shape}. "
                "Print the shape after every step."
            )
        hint = _slip(got, case)
        if hint:
            raise Wrong(hint + " See the section on splitting and merging.")
        expect_array(got, want, what=label, atol=1e-8)


# --- many_heads.score_flops: the cost of h score matrices ------------------------------------

N_COST, D_MODEL_COST, H_COST = 1000, 512, 8
SCORE_FLOPS = H_COST * 2 * N_COST**2 * (D_MODEL_COST // H_COST)  # 1,024,000,000 = one head with d_k = d_model


@exercise(
    "many_heads.score_flops",
    right=[SCORE_FLOPS, float(SCORE_FLOPS), 1.024e9, np.int64(SCORE_FLOPS)],
    wrong=[
        2 * N_COST**2 * (D_MODEL_COST // H_COST),
        H_COST * 2 * N_COST**2 * D_MODEL_COST,
        N_COST**2 * D_MODEL_COST,
        2 * N_COST * D_MODEL_COST**2,
        2 * SCORE_FLOPS,
        H_COST * N_COST**2,
    ],
    catches="one head only (d_k·2n²), d_k not divided (h·2n²·d_model), the factor 2 missing, "
    "the projection's 2·n·d_model², scores and AV together, the count of A's entries",
    solution="answer = 8 * 2 * 1000**2 * (512 // 8)",
)
def _score_flops(answer: Any) -> None:
    if isinstance(answer, (str, bytes)):
        raise Wrong("Your answer is text. Give the count as a number, without quotes.")
    got = to_numpy(answer, "your count")
    if got.size == 1 and math.isfinite(float(got.reshape(()))):
        value = float(got.reshape(()))
        slips = {
            2 * N_COST**2 * (D_MODEL_COST // H_COST): "That is one head. There are h of them.",
            H_COST * 2 * N_COST**2 * D_MODEL_COST: "Each head's queries and keys are only d_k = d_model / h "
            "numbers long, not d_model.",
            N_COST**2 * D_MODEL_COST: "That is half: a multiply-add counts as 2 FLOPs.",
            2 * N_COST * D_MODEL_COST**2: "That is the cost of one projection XW, not of the scores.",
            2 * SCORE_FLOPS: "That includes the blend AV too. The question asks only for the scores QKᵀ.",
            H_COST * N_COST**2: "That counts the entries of the h matrices A, not the FLOPs to compute them.",
        }
        for slip, hint in slips.items():
            if math.isclose(value, slip, rel_tol=1e-9):
                raise Wrong(hint + " See the section on the cost.")
    expect_number(
        got,
        SCORE_FLOPS,
        what="your count",
        rtol=1e-6,
        factors={"2": 2, "the number of heads h": H_COST},
        hint="See the section on the cost, which counts the FLOPs of one head's scores.",
    )
