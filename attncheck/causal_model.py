"""Checkers for the chapter inside a model that writes (SmolLM2-135M-Instruct's 270 heads, its KV cache).

The expected answers are constants here, taken from the model once (tests/test_causal_lm.py checks
them against attnlib.causal_lm), so that loading the exercises never loads the model.
"""

from __future__ import annotations

import math
from typing import Any

from . import counted_from_one, exercise, expect_layer_head, expect_no_slip, expect_number, one_number

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "causal_model", "inside a model that writes: the causal mask at work"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

# --- causal_model.duplicate_head: the head that looks back at the earlier copy of the same token ----
# On the chapter's 40 random tokens repeated (80 tokens, positions 0 to 79), row i of the second copy
# (i = 40 … 79) holds the same token as row i - 40. The mean of A[layer, head, i, i - 40] over those
# rows is largest at layer 14, head 3 (0.77), then layer 8, head 0 (0.60).

_HEAD = (14, 3)
_SECOND = (8, 0)  # the runner-up, 0.60
_INDUCTION = (18, 6)  # offset 39: the token after the earlier copy, the chapter's induction head
_PREVIOUS = (16, 0)  # the chapter's previous-token head
_LAYERS, _HEADS, _KV_HEADS = 30, 9, 3

EDGES["causal_model.duplicate_head"] = (
    "the same token, 40 places back",
    "the query head, 0 to 8",
    "counted from 0",
    "(layer, head)",
)
_HEAD_SLIPS = [  # each with the hint it gets, the whole of it
    (
        counted_from_one(_HEAD),
        "That counts layers and heads from 1. The course counts from 0: layers 0 to 29, heads 0 to 8.",
        "counted from 0",
    ),
    (
        _HEAD[::-1],
        "Those are the right two numbers in the other order: give the layer first, then the head.",
        "(layer, head)",
    ),
    (
        _SECOND,
        "That head looks back at the earlier copy too, but not the most: compare all 270 again.",
        "the same token, 40 places back",
    ),
    (
        _INDUCTION,
        (
            "That is the induction head: it looks at the token after the earlier copy (offset 39). The question "
            "asks for the earlier copy of the same token, 40 places back."
        ),
        "the same token, 40 places back",
    ),
    (
        _PREVIOUS,
        "That is the previous-token head, one place back. The earlier copy is 40 places back.",
        "the same token, 40 places back",
    ),
    (
        (_HEAD[0], _HEAD[1] // _KV_HEADS),
        (
            "That is the key/value head the answer reads, numbered 0 to 2. Give the query head, 0 to 8, the second "
            "axis of A."
        ),
        "the query head, 0 to 8",
    ),
]
SLIPS["causal_model.duplicate_head"] = [
    *_HEAD_SLIPS,
    (14, "two are wanted", "(layer, head)"),
    ((14, 3, 0), "two are wanted", "(layer, head)"),
]


@exercise(
    "causal_model.duplicate_head",
    right=[(14, 3), [14, 3], (14.0, 3.0)],
    wrong=[a for a, _, _ in SLIPS["causal_model.duplicate_head"]],
    catches="layer and head swapped; the runner-up (8, 0); the induction head (offset 39 instead of 40); the "
    "previous-token head; counted from 1; the key/value head instead of the query head; one number; three numbers",
    solution="dup = A_rep[:, :, second, second - 40].mean(-1)",
)
def _duplicate_head(answer: Any) -> None:
    expect_layer_head(
        answer,
        _HEAD,
        _HEAD_SLIPS,
        _LAYERS,
        _HEADS,
        "in every head, average the weight each row of the second copy puts on the same token 40 places back, "
        "and take the largest.",
    )


# --- causal_model.cache_bytes: the KV cache of a stated model ----------------------------------
# 32 layers, 32 query heads sharing 8 key/value heads, d_k = 128, a context of 4096 tokens,
# every number stored in 16 bits (2 bytes): K and V, per layer, per key/value head, per token.

_LAYERS_B, _Q_HEADS_B, _KV_B, _DK_B, _TOKENS_B, _BYTES_B = 32, 32, 8, 128, 4096, 2
_CACHE = 2 * _LAYERS_B * _KV_B * _DK_B * _TOKENS_B * _BYTES_B  # 536,870,912 bytes = 512 MiB

EDGES["causal_model.cache_bytes"] = (
    "K and V",
    "8 key/value heads, not 32",
    "every layer",
    "2 bytes a number",
    "bytes, not MiB or GB",
)
SLIPS["causal_model.cache_bytes"] = [  # each with the hint it gets, the whole of it
    (
        _CACHE / 2,  # K or V alone, or the numbers of the cache without their 2 bytes: the same count
        (
            "That is half the cache: one of K and V (the cache keeps both), or the count of its numbers (each "
            "takes 2 bytes)."
        ),
        "K and V",
    ),
    (
        _CACHE * 4,  # 32 query heads cached, or 8-byte numbers: the same count
        (
            "That is four times the cache: a K and a V for every query head (the 32 query heads share 8 "
            "key/value heads, and only those 8 are cached), or 8 bytes a number (16 bits are 2 bytes)."
        ),
        "8 key/value heads, not 32",
    ),
    (
        _CACHE * 2,
        "That stores each number in 4 bytes. The statement says 16 bits: 2 bytes a number.",
        "2 bytes a number",
    ),
    (_CACHE / _LAYERS_B, "That is one layer's cache. Every layer keeps its own K and V.", "every layer"),
    (_CACHE * 8, "That counts bits. A byte is 8 bits: give bytes.", "2 bytes a number"),
    (_CACHE / 2**20, "That is in MiB. Give the number of bytes.", "bytes, not MiB or GB"),
    (_CACHE / 2**30, "That is in GiB. Give the number of bytes.", "bytes, not MiB or GB"),
    (_CACHE / 1e6, "That is in MB. Give the number of bytes.", "bytes, not MiB or GB"),
    (_CACHE / 1e9, "That is in GB. Give the number of bytes.", "bytes, not MiB or GB"),
]


@exercise(
    "causal_model.cache_bytes",
    right=[_CACHE, float(_CACHE), [_CACHE], 536870912],
    wrong=[_CACHE + 1000, *(a for a, _, _ in SLIPS["causal_model.cache_bytes"])],
    catches="K or V alone; 4-byte numbers; every query head cached; one layer; bits instead of bytes; numbers "
    "instead of bytes; MiB or GiB instead of bytes; a near miss",
    solution="answer = 2 * 32 * 8 * 128 * 4096 * 2",
)
def _cache_bytes(answer: Any) -> None:
    v = one_number(answer, "Your number of bytes")
    if v is not None and not math.isclose(v, _CACHE, rel_tol=1e-9):
        expect_no_slip(v, SLIPS["causal_model.cache_bytes"])
    expect_number(
        answer,
        _CACHE,
        what="Your number of bytes",
        atol=0.5,
        rtol=0.0,
        hint="Count K and V, for every layer, every key/value head, every token, d_k numbers each, 2 bytes a number.",
    )
