"""Figures of the learner's toolbox: the two axes of a numpy sum (the matrix x chapter), the page's grid under a 2×2 matrix (the matrix multiplication chapter)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

from ..arrays import to_numpy
from .style import BLUE, ORANGE, STYLE, VERMILLION, arrow, figure


def _cell(ax: Any, x: float, y: float, text: str, face: str = "white", colour: str = "black") -> None:
    ax.add_patch(Rectangle((x, y), 1, 1, facecolor=face, edgecolor="0.35", lw=1))
    ax.text(x + 0.5, y + 0.5, text, ha="center", va="center", fontsize=12, color=colour)


def sum_axes(M: Any, row_labels: Sequence[str], col_labels: Sequence[str], fmt: str = "{:g}") -> Any:
    """M with its column sums below (axis 0, down the rows) and its row sums to the right (axis 1, along a row)."""
    M = to_numpy(M)
    rows, cols = M.shape
    fig, ax = figure(min(5.8, 1.0 * cols + 2.6), 0.75 * rows + 2.6)
    with plt.rc_context(STYLE):
        for i in range(rows):
            for j in range(cols):
                _cell(ax, j, rows - 1 - i, fmt.format(M[i, j]))
            _cell(ax, cols + 0.4, rows - 1 - i, fmt.format(round(float(M[i].sum()), 10)), "#fbe3d0", VERMILLION)
        for j in range(cols):
            _cell(ax, j, -1.4, fmt.format(round(float(M[:, j].sum()), 10)), "#d5e6f3", BLUE)
        down = FancyArrowPatch((-1.6, rows - 0.1), (-1.6, -1.1), arrowstyle="-|>", mutation_scale=16, color=BLUE, lw=2)
        across = FancyArrowPatch(
            (0.1, rows + 0.9), (cols + 1.3, rows + 0.9), arrowstyle="-|>", mutation_scale=16, color=VERMILLION, lw=2
        )
        ax.add_patch(down)
        ax.add_patch(across)
        ax.text(-1.75, rows / 2 - 0.7, "axis 0:\ndown\nthe rows", ha="right", va="center", color=BLUE, fontsize=11)
        ax.text(
            cols / 2 + 0.6,
            rows + 1.05,
            "axis 1: along each row",
            ha="center",
            va="bottom",
            color=VERMILLION,
            fontsize=11,
        )
        ax.text(cols / 2, -1.6, "sum(axis=0): one per column", ha="center", va="top", color=BLUE, fontsize=11)
        ax.text(cols + 0.9, -0.15, "sum(axis=1)\none per row", ha="center", va="top", color=VERMILLION, fontsize=11)
        for i, name in enumerate(row_labels):
            ax.text(-0.12, rows - 0.5 - i, name, ha="right", va="center", fontsize=11)
        for j, name in enumerate(col_labels):
            ax.text(j + 0.5, rows + 0.12, name, ha="center", va="bottom", fontsize=11)
        ax.set_xticks([])
        ax.set_yticks([])
        for side in ("left", "bottom", "top", "right"):
            ax.spines[side].set_visible(False)
        ax.set_xlim(-3.4, cols + 1.5)
        ax.set_ylim(-2.3, rows + 1.5)
        ax.set_aspect("equal")
    return fig


def page_grid(W: Any, reach: int = 3, title: str = "") -> Any:
    """The page's grid lines before (left) and after (right) every point x of it is moved to xW, W a 2×2 matrix (the matrix multiplication chapter).

    Before: the lines x[0] = k and x[1] = k for k from -reach to reach, and the two arrows [1, 0]
    and [0, 1]. After: the same lines and arrows, every point moved to xW; the two arrows land on
    the rows of W."""
    W = to_numpy(W)
    if W.shape != (2, 2):
        raise ValueError(f"page_grid draws a 2×2 W, but W has shape {W.shape}")
    fig, axes = figure(5.8, 3.3, ncols=2)
    ks = np.arange(-reach, reach + 1)
    t = np.linspace(-reach, reach, 2)
    with plt.rc_context(STYLE):
        for ax, M, name in [(axes[0], np.eye(2), "before: the page"), (axes[1], W, "after: every point x moved to xW")]:
            for k in ks:
                for line in (np.column_stack([np.full(2, k), t]), np.column_stack([t, np.full(2, k)])):
                    moved = line @ M
                    ax.plot(moved[:, 0], moved[:, 1], color="0.55" if k else "0.2", lw=0.8 if k else 1.4)
            for unit, colour in [((1.0, 0.0), ORANGE), ((0.0, 1.0), BLUE)]:
                tip = np.array(unit) @ M
                arrow(ax, (0, 0), tip, colour, lw=2.4, size=14)
            size = reach * float(np.abs(W).sum(axis=0).max() if M is W else 1.0) + 0.3
            ax.set_xlim(-size, size)
            ax.set_ylim(-size, size)
            ax.set_aspect("equal")
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(name, fontsize=11)
        axes[0].text(1.05, -0.35, "[1, 0]", color=ORANGE, fontsize=11, ha="left", va="top")
        axes[0].text(-0.1, 1.05, "[0, 1]", color=BLUE, fontsize=11, ha="right", va="bottom")
        for row, colour in [(W[0], ORANGE), (W[1], BLUE)]:
            name = "row 0" if colour == ORANGE else "row 1"
            axes[1].text(
                row[0],
                row[1],
                f" {name} ",
                color=colour,
                fontsize=11,
                va="bottom",
                ha="right" if row[0] < 0 else "left",
                fontweight="bold",
            )
        if title:
            fig.suptitle(title, fontsize=12)
    return fig


def cosine_triangle(q: Sequence[float], k: Sequence[float], title: str = "") -> Any:
    """The triangle of the law of cosines: q and k from one start, the angle θ between them, and q − k joining the tips (the dot product scores chapter)."""
    q, k = to_numpy(q)[:2], to_numpy(k)[:2]
    fig, ax = figure(4.6, 3.6)
    with plt.rc_context(STYLE):
        for tip, colour, start in [(q, BLUE, (0.0, 0.0)), (k, ORANGE, (0.0, 0.0)), (q, "0.25", tuple(k))]:
            arrow(ax, start, tip, colour, lw=2.6)
        a_q, a_k = np.arctan2(q[1], q[0]), np.arctan2(k[1], k[0])
        radius = 0.28 * min(np.hypot(*q), np.hypot(*k))
        arc = np.linspace(min(a_q, a_k), max(a_q, a_k), 30)
        ax.plot(radius * np.cos(arc), radius * np.sin(arc), color="0.3", lw=1.2)
        middle = (a_q + a_k) / 2
        ax.text(
            1.35 * radius * np.cos(middle), 1.35 * radius * np.sin(middle), "θ", fontsize=13, ha="center", va="center"
        )
        ax.text(*(q / 2), f"q  |q| = {np.hypot(*q):.2f}  ", color=BLUE, fontsize=11, ha="right", va="bottom")
        ax.text(*(k / 2), f"  k  |k| = {np.hypot(*k):.2f}", color=ORANGE, fontsize=11, ha="left", va="top")
        side = (q + k) / 2
        ax.text(*side, f"  q − k: {np.hypot(*(q - k)):.2f}", color="0.25", fontsize=11, ha="left", va="center")
        points = np.vstack([q, k, np.zeros(2)])
        low, high = points.min(axis=0), points.max(axis=0)
        span = float((high - low).max())
        ax.set_xlim(low[0] - 0.45 * span, high[0] + 0.55 * span)
        ax.set_ylim(low[1] - 0.15 * span, high[1] + 0.15 * span)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        if title:
            ax.set_title(title, fontsize=12)
    return fig
