"""attnlib: the small shared library behind the course "Attention, from the ground up".

The math works on numpy arrays and torch tensors (CPU or GPU) through one code path.
`attnlib.plot` (matplotlib), `attnlib.bench` (timing), `attnlib.counting` (FLOPs and bytes), `attnlib.machine` (the machine's facts and
ceilings), `attnlib.sweep` (the timing sweep), `attnlib.results` (stored timings) and
`attnlib.scaling` (the scaling chapter's experiments) and `attnlib.interactive` (figures that run
in the book's pages), `attnlib.trained` (a real trained transformer) and `attnlib.causal_lm` (a real
model that writes) load only when first used; torch is imported only when a tensor is actually
passed in. The exercise checker (`check`, `exercise_ids`, `progress()`) is a package of its own
beside it, `attncheck`, which imports attnlib and never the other way.
"""

from __future__ import annotations

import importlib
from typing import Any

from .arrays import as_array, is_torch, shape_of
from .core import attention, dot, matmul, project, scale, scores, self_attention, softmax, transpose
from .data import (
    FEATURES,
    RUNNING_SENTENCE,
    VOCAB,
    VOCAB_2D,
    embed,
    random_weights,
    running_lenses,
    sentence_matrix,
    words,
)
from .heads import merge_heads, multi_head_attention, split_heads
from .masks import apply_mask, causal_mask, padding_mask
from .positions import learned_position_table, positional_encoding
from .shapes import shape_tag
from .tiled import tiled_attention

# One line per topic, in the order of the course.
# fmt: off
__all__ = [
    "dot", "matmul", "transpose", "scores", "scale", "softmax", "attention", "self_attention", "tiled_attention",
    "project", "shape_tag", "shape_of", "as_array", "is_torch",
    "VOCAB", "VOCAB_2D", "FEATURES", "RUNNING_SENTENCE", "running_lenses", "embed", "sentence_matrix", "words", "random_weights",
    "causal_mask", "padding_mask", "apply_mask", "split_heads", "merge_heads", "multi_head_attention",
    "positional_encoding", "learned_position_table",
    "plot", "bench", "counting", "machine", "sweep", "results", "scaling", "interactive",
    "training", "trained", "causal_lm",
]
_LAZY_MODULES = {
    "plot", "bench", "counting", "machine", "sweep", "results", "scaling", "interactive",
    "training", "trained", "causal_lm",
}
# fmt: on

_CHECKER = {"check", "exercise_ids", "progress"}  # the checker's, in the package attncheck


def __getattr__(name: str) -> Any:
    """Load attnlib.plot, .bench, …, .training, .trained on first use, so `import attnlib` stays fast.

    The checker's names (check, exercise_ids, progress), which attnlib once carried, say in one line
    where they live now."""
    if name in _LAZY_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _CHECKER:
        raise ImportError(f"{name} lives in the course's checker package now: write `from attncheck import {name}`")
    raise AttributeError(f"module 'attnlib' has no attribute {name!r}")


def __dir__() -> list[str]:
    """attnlib's names."""
    return sorted(globals())
