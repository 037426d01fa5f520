"""Figures of shapes as blocks: X passing through the three lenses, arrays drawn as empty grids of
their shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

from ..arrays import to_numpy
from .style import BLUE, GREEN, ORANGE, PALETTE, STYLE, figure, math_label


def _box(ax: Any, x: float, y: float, w: float, h: float, text: str, colour: str, alpha: float = 1.0) -> None:
    ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, alpha=alpha, edgecolor="0.2", lw=1.2))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=12, fontweight="bold")


def _rows_cols(M: np.ndarray) -> tuple[int, int]:
    """(rows, columns) of a matrix; a plain list of numbers counts as one row."""
    return (1, int(M.size)) if M.ndim == 1 else (int(M.shape[0]), int(M.size // max(M.shape[0], 1)))


def projections(n: int, d_model: int, d_k: int, d_v: int) -> Any:
    """X passing through the three learned lenses W_Q, W_K, W_V into Q, K and V, shapes on the arrows (the query key value chapter)."""
    fig, ax = figure(5.8, 3.9)  # <= 5.8 in: its 12 pt text stays legible on a phone
    with plt.rc_context(STYLE):
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 6)
        ax.axis("off")
        _box(ax, 0.3, 2.4, 1.8, 1.2, f"$X$\n{n}×{d_model}", "0.85")
        outs = [("Q", "W_Q", d_k, 4.6, BLUE), ("K", "W_K", d_k, 2.6, ORANGE), ("V", "W_V", d_v, 0.6, GREEN)]
        for name, w, width, y, colour in outs:
            _box(ax, 4.2, y, 1.7, 1.0, f"${w}$\n{d_model}×{width}", colour, alpha=0.35)
            _box(ax, 7.8, y, 1.8, 1.0, f"${name}$\n{n}×{width}", colour, alpha=0.7)
            ax.add_patch(
                FancyArrowPatch((2.1, 3.0), (4.2, y + 0.5), arrowstyle="-|>", mutation_scale=16, color="0.3", lw=1.5)
            )
            ax.add_patch(
                FancyArrowPatch(
                    (5.9, y + 0.5), (7.8, y + 0.5), arrowstyle="-|>", mutation_scale=16, color="0.3", lw=1.5
                )
            )
            ax.text(6.85, y + 0.62, f"$X{w}$", ha="center", fontsize=12)
        ax.set_title("One $X$, three lenses:\n$Q = XW_Q$,  $K = XW_K$,  $V = XW_V$")
    return fig


def _block(ax: Any, x: float, y: float, rows: int, cols: int, colour: str) -> None:
    """An empty rows × cols grid of cells of side 1, its corner at (x, y)."""
    for i in range(rows):
        for j in range(cols):
            ax.add_patch(Rectangle((x + j, y + i), 1, 1, facecolor=colour, alpha=0.45, edgecolor="0.3", lw=0.8))


def shape_blocks(
    lines: Sequence[dict[str, Any]],
    captions: dict[str, str] | None = None,
    colours: dict[str, str] | None = None,
    title: str = "",
    gap: float = 2.8,
    max_width: float = 6.4,
) -> Any:
    """Each array as an empty grid of its rows × columns, named, with its shape underneath (the shapes in r chapter).

    Names and captions are typeset: "W_Q" and "d_model × d_k" are drawn with real subscripts.
    The figure is at most `max_width` inches wide, so it stays legible on a phone.
    """
    captions, colours = captions or {}, colours or {}
    shapes = [[(name, _rows_cols(to_numpy(M))) for name, M in line.items()] for line in lines]
    width = max(sum(c for _, (_, c) in line) + gap * (len(line) - 1) for line in shapes)
    inch = min(0.42, (max_width - 0.6) / (width + 1.0))  # inches per cell
    t = 0.17 / inch  # the height of a line of text, in cells
    above, below = 1.6 * t, 3.0 * t
    heights = [max(r for _, (r, _) in line) for line in shapes]
    total = sum(heights) + (above + below) * len(shapes)
    fig, ax = figure(0.6 + inch * (width + 1.0), 0.6 + inch * (total + 0.4))
    with plt.rc_context(STYLE):
        top, k = total, 0
        for line, h in zip(shapes, heights):
            x, base = 0.0, top - above - h
            for name, (r, c) in line:
                colour = colours.get(name, PALETTE[k % len(PALETTE)])
                k += 1
                y0 = base + h - r  # blocks in one line share their top edge
                _block(ax, x, y0, r, c, colour)
                ax.text(x + c / 2, base + h + 0.3 * t, math_label(name), ha="center", va="bottom", fontsize=15)
                ax.text(x + c / 2, y0 - 0.3 * t, f"{r}×{c}", ha="center", va="top", fontsize=12)
                if name in captions:
                    caption = math_label(captions[name])
                    ax.text(x + c / 2, y0 - 1.45 * t, caption, ha="center", va="top", fontsize=13, color="0.25")
                x += c + gap
            top = base - below
        ax.set_xlim(-0.5, width + 0.5)
        ax.set_ylim(top + 0.2 * t, total + 0.2)
        ax.set_aspect("equal")
        ax.axis("off")
        if title:
            ax.set_title(title)
    return fig
