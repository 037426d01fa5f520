"""Shape tags such as X ∈ ℝ^{3×4}, read off real arrays."""
from __future__ import annotations

from typing import Any

from .core import as_array, shape_of


def shape_tag(name: str, x: Any, latex: bool = False) -> str:
    """The tag `name ∈ ℝ^{rows×cols}` for an array, e.g. 'X ∈ ℝ^{3×4}' (chapter 3)."""
    dims = [str(d) for d in shape_of(as_array(x, name))]
    if latex:
        times, member, reals = r" \times ", r" \in ", r"\mathbb{R}"
    else:
        times, member, reals = "×", " ∈ ", "ℝ"
    if not dims:
        return f"{name}{member}{reals}"
    return f"{name}{member}{reals}^{{{times.join(dims)}}}"
