"""The course map: what each chapter stands on (the introduction)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.path import Path

from .style import BLUE, GREEN, ORANGE, PURPLE, SKY, STYLE, _figure, _tint

PREREQUISITES: list[tuple[str, str, list[str]]] = [
    # (node label, typeset as mathtext; chapter file; the nodes it needs)
    ("1  vector", "01", []),
    ("2  matrix $X$", "02", ["1  vector"]),
    (
        r"3  shape tag $X \in \mathbb{R}^{n \times d_{\mathrm{model}}}$",
        "03",
        ["2  matrix $X$"],
    ),
    (
        "4  matmul $XW$",
        "04",
        [r"3  shape tag $X \in \mathbb{R}^{n \times d_{\mathrm{model}}}$"],
    ),
    ("5  $W_Q, W_K, W_V$ → $Q, K, V$", "05", ["4  matmul $XW$"]),
    (r"6  transpose $K^{\mathsf{T}}$", "06", ["5  $W_Q, W_K, W_V$ → $Q, K, V$"]),
    (
        r"7  dot product, $S = QK^{\mathsf{T}}$",
        "07",
        [r"6  transpose $K^{\mathsf{T}}$"],
    ),
    (r"8  scale by $\sqrt{d_k}$", "08", [r"7  dot product, $S = QK^{\mathsf{T}}$"]),
    ("9  softmax → $A$", "09", [r"8  scale by $\sqrt{d_k}$"]),
    ("10  $Z = AV$", "10", ["9  softmax → $A$", "5  $W_Q, W_K, W_V$ → $Q, K, V$"]),
    ("11  masks", "11", ["10  $Z = AV$"]),
    ("12  many heads, $W_O$", "12", ["11  masks"]),
    ("13  word order, positions", "13", ["12  many heads, $W_O$"]),
    ("14  learning the lenses", "14", ["13  word order, positions"]),
    ("15  CPU vs GPU", "15", ["14  learning the lenses"]),
]


# The five parts of the course (README's table), by their first and last chapter.
_PARTS = [
    ("I  words as numbers", 1, 3, SKY),
    ("II  re-expressing", 4, 6, BLUE),
    ("III  the mechanism", 7, 10, ORANGE),
    ("IV  learning", 11, 14, PURPLE),
    ("V  hardware", 15, 15, GREEN),
]


def prerequisite_map() -> Any:
    """The course as a map, one box per chapter from the bottom up; edges go around boxes, never through."""
    width, height, step = (
        3.5,
        0.6,
        1.0,
    )  # every box the same size, one level per chapter
    lane = width / 2 + 0.35  # a skipping edge runs up this line, right of every box
    level = {node: float(k) for k, (node, _, _) in enumerate(PREREQUISITES)}
    fig, ax = _figure(4.4, 1.0 + 0.75 * len(PREREQUISITES))
    with plt.rc_context(STYLE):
        for node, _, needs in PREREQUISITES:
            for need in needs:
                y0, y1 = level[need] * step, level[node] * step
                if (
                    y1 - y0 == step
                ):  # the next chapter: straight up, tip on the box's bottom edge
                    path = Path([(0, y0 + height / 2), (0, y1 - height / 2)])
                else:  # a skip: out to the right, up the lane, back in from the side
                    path = Path(
                        [(width / 2, y0), (lane, y0), (lane, y1), (width / 2, y1)]
                    )
                ax.add_patch(
                    FancyArrowPatch(
                        path=path,
                        arrowstyle="-|>",
                        mutation_scale=14,
                        color="0.35",
                        lw=1.4,
                        shrinkA=0,
                        shrinkB=0,
                        zorder=3,
                    )
                )
        for k, (node, _, _) in enumerate(PREREQUISITES):
            part = next(p for p in _PARTS if p[1] <= k + 1 <= p[2])
            ax.add_patch(
                FancyBboxPatch(
                    (-width / 2, k * step - height / 2),
                    width,
                    height,
                    boxstyle="round,pad=0,rounding_size=0.12",
                    facecolor=_tint(part[3], 0.4),
                    edgecolor="0.25",
                    lw=1.2,
                    zorder=2,
                )
            )
            ax.text(0, k * step, node, ha="center", va="center", fontsize=12, zorder=4)
        for name, first, last, colour in _PARTS:
            y0, y1 = (first - 1) * step - height / 2, (last - 1) * step + height / 2
            ax.plot(
                [-width / 2 - 0.22] * 2,
                [y0, y1],
                color=colour,
                lw=4,
                solid_capstyle="butt",
            )
            ax.text(
                -width / 2 - 0.38,
                (y0 + y1) / 2,
                name.split("  ")[0],
                ha="right",
                va="center",
                fontsize=11,
                color="0.25",
            )
        ax.set_xlim(-width / 2 - 0.75, lane + 0.15)
        ax.set_ylim(-height, (len(PREREQUISITES) - 1) * step + height)
        ax.axis("off")
        ax.set_title("What each chapter stands on\n(read from the bottom up)")
    return fig
