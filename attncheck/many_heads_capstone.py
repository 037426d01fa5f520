"""Checker for the capstone of the chapter on many heads: a batch of padded sentences through h heads.

Its own module (many_heads.py holds the chapter's other exercises and is at the checker's size limit);
it names the same chapter, so the exercise is the chapter's last.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from attnlib.core import softmax as _softmax
from attnlib.course import chapter_ref
from attnlib.heads import multi_head_attention as _reference

from . import Wrong, call, exercise, expect_array, expect_pair, to_numpy

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "many_heads", "many heads"

# per exercise: the edges its statement promises, and the slips registered with the hint each must get
EDGES: dict = {}
SLIPS: dict = {}

# --- many_heads.batched_masked: the capstone, a batch of padded sentences through h heads ---------
# X is b × n × d_model, the four weights d_model × d_model (head k owns columns k·d_k to (k+1)·d_k - 1
# of W_Q, W_K and W_V), and `mask` the masks chapter's b × 1 × n padding mask (True: a real key). The scores
# are b × h × n × n, so the mask must become b × 1 × 1 × n. Each sentence's first word is real, so no
# row is hidden whole. Two cases have b = h, where a mask lined up with the head axis raises nothing.
# The last case has scores in the thousands (up to 3,410 in size, spread over up to 4,399 inside a row,
# rows far apart): a softmax that does not shift each row by its own max gives inf or nan there.

BM_SIZES = [  # (lengths of the b sentences, n, d_model, h)
    ([4, 2], 4, 4, 2),  # b = h = 2: the classic silent case
    ([5, 3, 1], 5, 6, 3),  # b = h = 3, a sentence of one word
    ([3, 1], 3, 8, 4),  # b ≠ h: a mask on the head axis cannot even broadcast
    ([4], 4, 4, 1),  # b = 1, h = 1
    ([2, 6], 6, 6, 6),  # h = d_model: d_k = 1
]


def _bm_mask(lengths: list[int], n: int) -> np.ndarray:
    return (np.arange(n)[None, :] < np.array(lengths)[:, None])[:, None, :]  # b × 1 × n


def _bm_cases() -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(2026)
    out = []
    for lengths, n, d, h in BM_SIZES:
        X = rng.normal(size=(len(lengths), n, d))
        out.append((X, *[rng.normal(size=(d, d)) for _ in range(4)], h, _bm_mask(lengths, n)))
    # the first X and mask again with other weights, then the first weights with another mask: a
    # function that remembers its result by one argument alone fails
    first = out[0]
    out.append((first[0], *[rng.normal(size=W.shape) for W in first[1:5]], first[5], first[6]))
    out.append((*first[:6], _bm_mask([1, 3], first[0].shape[1])))
    # the first case with W_Q and W_K times 15, so its scores times 225: no shift, the whole array's max,
    # each row's min and each row's mean each leave their own entries inf or nan
    out.append((first[0], first[1] * 15, first[2] * 15, *first[3:]))
    return out


def _bm_heads(X, W, h):
    b, n, d_model = X.shape
    return (X @ W).reshape(b, n, h, d_model // h).transpose(0, 2, 1, 3)  # b × h × n × d_k


def _bm_parts(X, W_Q, W_K, W_V, h, scale=True):
    Q, K, V = (_bm_heads(X, W, h) for W in (W_Q, W_K, W_V))
    S = Q @ K.swapaxes(-1, -2)
    return (S / np.sqrt(Q.shape[-1]) if scale else S), V


def _bm_merge(Z, W_O):
    b, h, n, d_k = Z.shape
    return Z.transpose(0, 2, 1, 3).reshape(b, n, h * d_k) @ W_O


def _bm_solution(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    A = _softmax(np.where(mask[:, None], S, -np.inf))  # mask: b × 1 × 1 × n
    return _bm_merge(A @ V, W_O), A


def _bm_output_only(X, W_Q, W_K, W_V, W_O, h, mask):
    return _bm_solution(X, W_Q, W_K, W_V, W_O, h, mask)[0]


def _bm_loops(X, W_Q, W_K, W_V, W_O, h, mask):
    """Sentence by sentence, head by head, with -1e9 for a hidden score."""
    b, n, d_model = X.shape
    d_k = d_model // h
    out = np.zeros((b, n, d_model))
    for s in range(b):
        parts = []
        for k in range(h):
            cols = slice(k * d_k, (k + 1) * d_k)
            Q, K, V = X[s] @ W_Q[:, cols], X[s] @ W_K[:, cols], X[s] @ W_V[:, cols]
            S = np.where(mask[s], Q @ K.T / np.sqrt(d_k), -1e9)  # mask[s]: 1 × n, over every query
            parts.append(_softmax(S) @ V)
        out[s] = np.concatenate(parts, axis=1) @ W_O
    return out


def _bm_torch(X, W_Q, W_K, W_V, W_O, h, mask):
    """torch's scaled_dot_product_attention, with the mask given the head axis."""
    import torch

    X, W_Q, W_K, W_V, W_O = (torch.as_tensor(a) for a in (X, W_Q, W_K, W_V, W_O))
    b, n, d_model = X.shape
    Q, K, V = ((X @ W).reshape(b, n, h, d_model // h).transpose(1, 2) for W in (W_Q, W_K, W_V))
    Z = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=torch.as_tensor(mask)[:, None])
    return Z.transpose(1, 2).reshape(b, n, d_model) @ W_O


def _bm_mask_on_heads(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    A = _softmax(np.where(mask, S, -np.inf))  # b × 1 × n meets b × h × n × n: its b pairs with h
    return _bm_merge(A @ V, W_O)


def _bm_mask_on_queries(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    A = _softmax(np.where(mask[:, :, :, None], S, -1e9))  # b × 1 × n × 1: hides the padded queries' rows
    return _bm_merge(A @ V, W_O)


def _bm_no_scale(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h, scale=False)
    return _bm_merge(_softmax(np.where(mask[:, None], S, -np.inf)) @ V, W_O)


def _bm_scale_d_model(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h, scale=False)
    S = S / np.sqrt(X.shape[-1])
    return _bm_merge(_softmax(np.where(mask[:, None], S, -np.inf)) @ V, W_O)


def _bm_softmax_down_columns(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    A = _softmax(np.where(mask[:, None], S, -1e9), axis=-2)  # over the queries, not the keys
    return _bm_merge(A @ V, W_O)


def _bm_heads_reversed(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    Z = _softmax(np.where(mask[:, None], S, -np.inf)) @ V
    return _bm_merge(Z[:, ::-1], W_O)  # head h-1's columns first


def _bm_merge_without_swap(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    Z = _softmax(np.where(mask[:, None], S, -np.inf)) @ V  # b × h × n × d_k
    return Z.reshape(X.shape) @ W_O  # straight to b × n × d_model: words of different heads mixed


def _bm_mask_after_softmax(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    A = _softmax(S) * mask[:, None]  # the padded keys' weights zeroed after the softmax: rows no longer add to 1
    return _bm_merge(A @ V, W_O)


def _bm_shifted(X, W_Q, W_K, W_V, W_O, h, mask, shift):
    """The softmax shifted by `shift` of the masked scores instead of by each row's own max."""
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    S = np.where(mask[:, None], S, -np.inf)
    E = np.exp(S - shift(S))
    return _bm_merge(E / E.sum(axis=-1, keepdims=True) @ V, W_O)


def _bm_no_shift(X, W_Q, W_K, W_V, W_O, h, mask):
    return _bm_shifted(X, W_Q, W_K, W_V, W_O, h, mask, lambda S: 0.0)


def _bm_whole_max_shift(X, W_Q, W_K, W_V, W_O, h, mask):
    return _bm_shifted(X, W_Q, W_K, W_V, W_O, h, mask, np.max)  # every sentence, head and row together


def _bm_min_shift(X, W_Q, W_K, W_V, W_O, h, mask):  # each row's smallest real score
    return _bm_shifted(
        X, W_Q, W_K, W_V, W_O, h, mask, lambda S: np.where(S > -np.inf, S, np.inf).min(-1, keepdims=True)
    )


def _bm_mean_shift(X, W_Q, W_K, W_V, W_O, h, mask):  # each row's mean real score
    return _bm_shifted(X, W_Q, W_K, W_V, W_O, h, mask, lambda S: S.mean(-1, keepdims=True, where=S > -np.inf))


_BM_SHIFTS = [  # (slip, what it did): the softmax's shift, told apart by the hidden case of large scores
    (_bm_no_shift, "your softmax shifts the scores by nothing"),
    (_bm_whole_max_shift, "you shifted by the largest score of the whole array"),
    (_bm_min_shift, "you shifted each row by its smallest score"),
    (_bm_mean_shift, "you shifted each row by its mean score"),
]


def _bm_no_mask(X, W_Q, W_K, W_V, W_O, h, mask):
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    return _bm_merge(_softmax(S) @ V, W_O)


def _bm_no_w_o(X, W_Q, W_K, W_V, W_O, h, mask):
    return _bm_output_only(X, W_Q, W_K, W_V, np.eye(X.shape[-1]), h, mask)


def _bm_cached_by_x(X, W_Q, W_K, W_V, W_O, h, mask):
    """Remembers the output by X alone: the same X with other weights or another mask gets the old output."""
    key = repr(np.asarray(X).tolist())
    if key not in _BM_MEMORY:
        _BM_MEMORY[key] = _bm_output_only(X, W_Q, W_K, W_V, W_O, h, mask)
    return _BM_MEMORY[key]


_BM_MEMORY: dict = {}


def _bm_reshapes_mask_in_place(X, W_Q, W_K, W_V, W_O, h, mask):
    mask.shape = (mask.shape[0], 1, 1, mask.shape[-1])  # the caller's mask, reshaped under its feet
    S, V = _bm_parts(X, W_Q, W_K, W_V, h)
    return _bm_merge(_softmax(np.where(mask, S, -np.inf)) @ V, W_O)


_BM_HINTS = [  # (slip, hint): each names what went wrong, not the line that puts it right
    (
        _bm_mask_on_heads,
        (
            "The mask met the head axis: lined up from the right against b × h × n × n scores, a b × 1 × n "
            "mask pairs its b with the heads, so sentence s got sentence k's padding in head k."
        ),
    ),
    (
        _bm_mask_on_queries,
        "The mask hid the padded queries' rows, not the padded keys' columns: its n met the query axis.",
    ),
    (_bm_no_scale, "The scores were not divided by √d_k."),
    (_bm_scale_d_model, "You divided by √d_model. Each head compares d_k = d_model / h numbers."),
    (
        _bm_softmax_down_columns,
        "The softmax ran down the columns of each head's scores (over the queries). Each ROW must add up to 1.",
    ),
    (_bm_heads_reversed, "The heads were concatenated in the wrong order: head 0's columns must come first."),
    (
        _bm_merge_without_swap,
        "The merge reshaped b × h × n × d_k straight into b × n × d_model, which mixes words of different heads.",
    ),
    (
        _bm_mask_after_softmax,
        "The mask came after the softmax: zeroing the padded keys' weights leaves rows that add up to less than 1.",
    ),
    (_bm_no_mask, "The mask was not used: padded keys still take weight."),
    (_bm_no_w_o, "The heads were concatenated but never mixed: W_O is missing."),
]

_BM_LARGE = "scores in the thousands, rows far apart, a large spread inside a row"
EDGES["many_heads.batched_masked"] = (
    "b = h, where a mask on the wrong axis raises nothing",
    "b ≠ h, h = 1 and h = d_model",
    "a sentence of one word",
    "the same X again with other weights or another mask",
    _BM_LARGE,
)
SLIPS["many_heads.batched_masked"] = [
    (_bm_mask_on_heads, "met the head axis", "b = h, where a mask on the wrong axis raises nothing"),
    (_bm_mask_on_queries, "padded queries' rows", "a sentence of one word"),
    (_bm_no_scale, "not divided by √d_k", "b ≠ h, h = 1 and h = d_model"),
    (_bm_softmax_down_columns, "down the columns", "b ≠ h, h = 1 and h = d_model"),
    (_bm_heads_reversed, "wrong order", "b ≠ h, h = 1 and h = d_model"),
    (_bm_mask_after_softmax, "after the softmax", "a sentence of one word"),
    (_bm_no_mask, "mask was not used", "a sentence of one word"),
    (_bm_cached_by_x, "keeps results between calls", "the same X again with other weights or another mask"),
    (_bm_no_shift, "shifts the scores by nothing", _BM_LARGE),
    (_bm_whole_max_shift, "the largest score of the whole array", _BM_LARGE),
    (_bm_min_shift, "each row by its smallest score", _BM_LARGE),
    (_bm_mean_shift, "each row by its mean score", _BM_LARGE),
]
_BM_FORBIDDEN = {"attnlib.multi_head_attention": _reference}  # the statement: build it yourself


def _bm_output_from(result: Any, want_shape: tuple[int, ...]) -> np.ndarray:
    """The output from what the function returned: the output itself, or the pair (output, A)."""
    if isinstance(result, (tuple, list)) and len(result) == 2:
        first, second = expect_pair(result, "What your function returned")
        first = to_numpy(first, "the output your function returned")
        second = to_numpy(second, "the A your function returned")
        if first.shape != want_shape and second.shape == want_shape:
            raise Wrong(
                "Your function returned the pair in the other order, (A, output). Return the output "
                "first: (output, A), as the statement says."
            )
        if first.ndim == 3:
            return first
    return to_numpy(result, "the output your function returned")


def _bm_caught_by_cache(got: np.ndarray, earlier: list[np.ndarray]) -> bool:
    return any(w.shape == got.shape and np.allclose(got, w, atol=1e-8) for w in earlier)


@exercise(
    "many_heads.batched_masked",
    right=[_bm_solution, _bm_output_only, _bm_loops, _bm_torch],
    wrong=[
        *(slip for slip, _ in _BM_HINTS + _BM_SHIFTS),
        _bm_reshapes_mask_in_place,
        _bm_cached_by_x,
    ],
    catches="the b × 1 × n mask put on the scores as it is (its b meets the head axis; silent when b = h), the mask "
    "over the query axis, no √d_k or √d_model, the softmax over the queries, the heads concatenated in "
    "reverse order or merged without the swap, the mask applied after the softmax, no mask, no W_O, the "
    "caller's mask reshaped in place, a result kept between calls, a softmax shifted by nothing, by the whole "
    "array's max or by each row's min or mean (a case with scores in the thousands); cases "
    "include b = h, b ≠ h, h = 1, h = d_model and a sentence of one word",
    solution="A = softmax(np.where(mask[:, None], S, -np.inf))",
)
def _batched_masked(fn: Any) -> None:
    cases = _bm_cases()  # fresh arrays for every check, from a fixed seed
    wants = [_bm_solution(*case)[0] for case in cases]  # before any learner code runs
    for k, (case, want) in enumerate(zip(cases, wants)):
        b, n, d_model = case[0].shape
        h = case[5]
        label = f"The output for b={b}, n={n}, d_model={d_model}, h={h}"
        try:
            result = call(fn, *case, what="your function `my_batched_attention`", forbidden=_BM_FORBIDDEN)
        except Wrong as wrong:
            if "broadcast" in str(wrong):
                raise Wrong(
                    f"For b={b} and h={h}, numpy could not line up your mask with the scores. The scores "
                    "are b × h × n × n; lined up from the right, where does each axis of a b × 1 × n mask "
                    "land? See the section 'A mask with heads'."
                ) from None
            raise
        got = _bm_output_from(result, want.shape)
        if got.shape == want.shape and np.all(np.isfinite(got)) and np.allclose(got, want, atol=1e-8):
            continue
        if _bm_caught_by_cache(got, wants[:k]):
            raise Wrong(
                f"{label} is the output of an earlier call: your function keeps results between calls. "
                "Compute it from the X, weights and mask it is given, every time."
            )
        if got.shape != want.shape:
            raise Wrong(
                f"{label} has shape {got.shape}, but it should be (b, n, d_model) = {want.shape}. "
                "Print the shape after every step: the scores are b × h × n × n."
            )
        with np.errstate(all="ignore"):
            shifted = [words for slip, words in _BM_SHIFTS if np.allclose(got, slip(*case), equal_nan=True)]
        if len(shifted) == 1:  # one shift alone explains these numbers
            raise Wrong(
                f"{label}: {shifted[0]}. One hidden case has scores in the thousands, rows far apart and "
                "a spread of thousands inside a row: each row's softmax must subtract that row's own "
                f"largest score before np.exp, as in {chapter_ref('softmax')}, so that every e^x is at most 1."
            )
        if not np.all(np.isfinite(got)):
            raise Wrong(
                f"{label} contains inf or nan. A hidden score is -inf (or a large negative number) "
                "BEFORE the softmax, and every sentence's first word is real, so no row is hidden whole. "
                "Then each row's softmax subtracts that row's own largest score before np.exp: its smallest "
                "or mean score is -inf in a row with a hidden key, and one hidden case has scores in the thousands."
            )
        for slip, hint in _BM_HINTS:
            with np.errstate(all="ignore"):
                try:
                    slipped = slip(*copy.deepcopy(case))
                except ValueError:  # a slip that cannot broadcast on this case
                    continue
            if slipped.shape == got.shape and np.allclose(got, slipped, atol=1e-8):
                raise Wrong(f"{label}: {hint} See the section 'A mask with heads'.")
        expect_array(got, want, what=label, atol=1e-8)
