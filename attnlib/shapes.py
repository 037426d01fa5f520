"""Shape tags such as X ∈ ℝ³ˣ⁴, read off real arrays (the shapes in r chapter).

One notation for a shape tag in the whole course: the prose typesets the tag (ℝ with 3×4 raised)
and printed output writes the same thing with Unicode superscripts, 'X ∈ ℝ³ˣ⁴'.
"""

from __future__ import annotations

from typing import Any

from .arrays import as_array, shape_of

#: digits and the times sign, raised: "3×4" -> "³ˣ⁴"
SUPERSCRIPT = str.maketrans("0123456789×", "⁰¹²³⁴⁵⁶⁷⁸⁹ˣ")


def superscript(text: str) -> str:
    """'3×4' -> '³ˣ⁴': digits and × as Unicode superscripts."""
    return str(text).translate(SUPERSCRIPT)


def shape_tag(name: str, x: Any, latex: bool = False) -> str:
    r"""The shape tag of an array, e.g. 'X ∈ ℝ³ˣ⁴' for 3 rows and 4 columns.

    A 1-D array of 4 numbers is 'v ∈ ℝ⁴'; a single number is 'c ∈ ℝ'. With latex=True, the same
    tag as TeX for a Markdown cell: ``X \in \mathbb{R}^{3 \times 4}``.
    """
    dims = [str(d) for d in shape_of(as_array(x, name))]
    if latex:
        tag = rf"{name} \in \mathbb{{R}}"
        return tag + "^{" + r" \times ".join(dims) + "}" if dims else tag
    return f"{name} ∈ ℝ{superscript('×'.join(dims))}"
