"""Figures of what matrices do to arrows: the angle between two arrows (the vectors chapter), a matrix moving
arrows and a row of XW as a weighted sum of W's rows (the matrix multiplication chapter), queries and keys in their two-slot
plane (the query key value chapter), and the transpose as a mirror image (the transpose chapter)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Arc, Rectangle

from ..arrays import to_numpy
from .style import BLACK, BLUE, ORANGE, STYLE, arrow, figure, keep_labels_clear, spread_out, tint, vec_text, word_colour


def _plane(ax: Any, points: np.ndarray, xlabel: str, ylabel: str, pad: float = 0.3, pad_low: float = 0.1) -> None:
    """Square axes around the points and the origin, with the two axes drawn through 0."""
    points = np.vstack([points, np.zeros(2)])
    low, high = points.min(axis=0), points.max(axis=0)
    span = float((high - low).max())
    low, high = low - pad_low * span, high + pad * span
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    ax.set_aspect("equal")
    ax.axhline(0, color="0.6", lw=0.8)
    ax.axvline(0, color="0.6", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)


def angle_between(
    name_a: str,
    a: Sequence[float],
    name_b: str,
    b: Sequence[float],
    title: str = "",
    xlabel: str = "animal-ness",
    ylabel: str = "vehicle-ness",
) -> Any:
    """Two word arrows from the origin and the angle between them, marked by an arc (the vectors chapter)."""
    a, b = to_numpy(a)[:2], to_numpy(b)[:2]
    cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    theta = math.degrees(math.acos(max(-1.0, min(1.0, cos))))
    fig, ax = figure(5.0, 4.6)
    with plt.rc_context(STYLE):
        for name, v in ((name_a, a), (name_b, b)):
            arrow(ax, (0, 0), v, word_colour(name), lw=3)
            ax.text(
                v[0],
                v[1],
                f" {name} {vec_text(v)}",
                color=word_colour(name),
                fontsize=13,
                fontweight="bold",
                ha="left" if v[0] >= 0 else "right",
                va="bottom",
            )
        start, end = sorted(math.degrees(math.atan2(v[1], v[0])) for v in (a, b))
        if end - start > 180:
            start, end = end, start + 360
        radius = 0.45 * min(np.linalg.norm(a), np.linalg.norm(b))
        ax.add_patch(Arc((0, 0), 2 * radius, 2 * radius, theta1=start, theta2=end, color=BLACK, lw=1.8))
        middle = math.radians((start + end) / 2)
        ax.text(
            1.25 * radius * math.cos(middle),
            1.25 * radius * math.sin(middle),
            f"{theta:.0f}°",
            fontsize=14,
            fontweight="bold",
            ha="center",
            va="center",
        )
        _plane(ax, np.vstack([a, b]), xlabel, ylabel, pad=0.35)
        ax.set_title(title or f"The angle between {name_a} and {name_b}")
    return fig


def moved_arrows(
    vectors: dict[str, Sequence[float]],
    W: Any,
    title: str = "",
    xlabel: str = "first number",
    ylabel: str = "second number",
) -> Any:
    """Each 2-number arrow x before (faint, dashed) and after (solid) it is multiplied by the 2×2 W: xW (the matrix multiplication chapter)."""
    W = to_numpy(W)
    if W.shape != (2, 2):
        raise ValueError(f"moved_arrows draws a 2×2 W, but W has shape {W.shape}")
    before = {name: to_numpy(v)[:2] for name, v in vectors.items()}
    after = {name: v @ W for name, v in before.items()}
    fig, ax = figure(5.5, 5.2)
    with plt.rc_context(STYLE):
        for name, v in before.items():
            arrow(ax, (0, 0), v, word_colour(name), lw=1.6, ls="--", alpha=0.45)
        tips = list(after.values())
        gap = 0.07 * float(np.abs(np.vstack(tips)).max())
        label_y = [0.0] * len(tips)
        for side in (True, False):  # labels left and right of the axis are spread apart separately
            which = [i for i, v in enumerate(tips) if (v[0] >= 0) == side]
            for i, y in zip(which, spread_out([float(tips[i][1]) for i in which], gap)):
                label_y[i] = y
        labels = []
        for (name, v), y in zip(after.items(), label_y):
            arrow(ax, (0, 0), v, word_colour(name), lw=2.8)
            label = ax.text(
                v[0],
                y,
                f" {name}",
                color=word_colour(name),
                fontsize=13,
                fontweight="bold",
                ha="left" if v[0] >= 0 else "right",
                va="center",
            )
            labels.append(label)
        _plane(ax, np.vstack(list(before.values()) + tips), xlabel, ylabel, pad=0.2, pad_low=0.2)
        ax.plot([], [], ls="--", color="0.5", label="before: x")
        ax.plot([], [], ls="-", color="0.2", lw=2.5, label="after: xW")
        ax.legend(loc="lower left", fontsize=11)
        ax.set_title(title or "W moves every arrow")
        segments = [((0.0, 0.0), tuple(v)) for v in list(before.values()) + tips]
        keep_labels_clear(fig, ax, labels, segments)
    return fig


def row_combination(
    name: str,
    x: Sequence[float],
    W: Any,
    title: str = "",
    xlabel: str = "new number 0",
    ylabel: str = "new number 1",
    w_name: str = "W",
) -> Any:
    """The row xW drawn as x[0] times row 0 of W, then x[1] times row 1 of W, tip to tail (the matrix multiplication chapter).

    `w_name` is W's name in the labels, as mathtext (e.g. ``r"W_{\\mathrm{turn}}"``).
    """
    w_label = f"${w_name}$"
    x, W = to_numpy(x)[:2], to_numpy(W)
    if W.shape != (2, 2):
        raise ValueError(f"row_combination draws a 2×2 W, but W has shape {W.shape}")
    first, second = x[0] * W[0], x[1] * W[1]
    total = first + second
    colour = word_colour(name)
    fig, ax = figure(5.5, 5.2)
    with plt.rc_context(STYLE):
        row_labels = []
        for k, row in enumerate(W):
            arrow(ax, (0, 0), row, "0.35", lw=2.2)
            side, end = "left" if row[0] >= 0 else "right", "top" if k == 0 else "bottom"
            row_label = ax.text(
                row[0], row[1], f" row {k} of {w_label}\n {vec_text(row)}", color="0.25", fontsize=11, ha=side, va=end
            )
            row_labels.append(row_label)
        arrow(ax, (0, 0), first, BLUE, lw=2.2, ls="--")
        arrow(ax, first, total, ORANGE, lw=2.2, ls="--")
        arrow(ax, (0, 0), total, colour, lw=3.2)
        bold = {"fontsize": 12, "fontweight": "bold"}
        labels = [
            ax.text(*(first / 2), f"{x[0]:g} × row 0  ", color=BLUE, ha="right", va="bottom", **bold),
            ax.text(*((first + total) / 2), f"  {x[1]:g} × row 1", color=ORANGE, ha="left", va="center", **bold),
        ]
        side, result = "left" if total[0] >= 0 else "right", f" {name}: x{w_label}\n {vec_text(np.round(total, 4))}"
        labels.insert(0, ax.text(*total, result, color=colour, fontsize=13, fontweight="bold", ha=side, va="bottom"))
        _plane(ax, np.vstack([W, first, total]), xlabel, ylabel, pad=0.45, pad_low=0.35)
        ax.set_title(title or f"{name}'s row of $X{w_name}$ is a weighted sum\nof the rows of {w_label}")
        segments = [((0.0, 0.0), tuple(W[0])), ((0.0, 0.0), tuple(W[1])), ((0.0, 0.0), tuple(first))]
        segments += [(tuple(first), tuple(total)), ((0.0, 0.0), tuple(total))]
        keep_labels_clear(fig, ax, labels + row_labels, segments)
    return fig


def _spread_near(rows: list, reach: float) -> list[float]:
    """Label heights at each arrow's tip, pushed apart only among arrows whose tips are close across."""
    order = sorted((i for i in range(len(rows)) if not np.allclose(rows[i][1], 0)), key=lambda i: float(rows[i][1][0]))
    groups: list[list[int]] = []
    for i in order:
        if groups and float(rows[i][1][0]) - float(rows[groups[-1][-1]][1][0]) < 0.5 * reach:
            groups[-1].append(i)
        else:
            groups.append([i])
    heights = [0.0] * len(rows)
    for group in groups:
        spread = spread_out([float(rows[i][1][1]) for i in group], gap=0.085 * reach)
        for i, y in zip(group, spread):
            heights[i] = y
    return heights


def query_key_arrows(
    Q: Any,
    K: Any,
    words: Sequence[str],
    slot_names: Sequence[str] = ("slot 0", "slot 1"),
    title: str = "",
    key_slot_names: Sequence[str] | None = None,
) -> Any:
    """Each word's query (top) and key (bottom) as arrows in the plane of the two slots, on one scale (the query key value chapter).

    A word that appears twice with the same vectors is drawn once; a vector [0, 0] is a dot. Each
    label sits at its arrow's tip, moved a line up or down (or to the left) where it would cross an arrow.
    """
    Q, K = to_numpy(Q), to_numpy(K)
    if Q.shape[1] != 2 or K.shape[1] != 2:
        raise ValueError(f"query_key_arrows draws 2-slot vectors, but Q has shape {Q.shape} and K {K.shape}")
    seen: dict[str, int] = {}
    for i, word in enumerate(words):
        seen.setdefault(word, i)
    fig, axes = figure(5.0, 8.6, nrows=2)
    reach = float(np.abs(np.vstack([Q, K])).max())
    panels = []
    with plt.rc_context(STYLE):
        for ax, M, what, names in (
            (axes[0], Q, "queries: what each word asks for", slot_names),
            (axes[1], K, "keys: what each word offers", key_slot_names or slot_names),
        ):
            rows = [(word, M[i]) for word, i in seen.items()]
            label_y = _spread_near(rows, reach)
            labels, segments = [], []
            for (word, v), y in zip(rows, label_y):
                colour = word_colour(word)
                if np.allclose(v, 0):  # a dot, labelled under the axis, clear of the short arrows
                    ax.plot([0], [0], "o", color=colour, ms=7)
                    y = -0.09 * reach
                else:
                    arrow(ax, (0, 0), v, colour, lw=2.6)
                    segments.append(((0.0, 0.0), tuple(v)))
                label = ax.text(
                    v[0] + 0.03 * reach,
                    y,
                    f"{word} {vec_text(np.round(v, 2))}",
                    color=colour,
                    fontsize=12,
                    fontweight="bold",
                    va="center",
                )
                labels.insert(0, label) if np.allclose(v, 0) else labels.append(label)  # a dot's label stays put
            ax.set_xlim(-0.15 * reach, 1.55 * reach)
            ax.set_ylim(-0.15 * reach, 1.15 * reach)
            ax.set_aspect("equal")
            ax.axhline(0, color="0.6", lw=0.8)
            ax.axvline(0, color="0.6", lw=0.8)
            ax.set_xlabel(f"slot 0: {names[0]}")
            ax.set_ylabel(f"slot 1: {names[1]}")
            ax.grid(alpha=0.3)
            ax.set_title(what, fontsize=12)
            panels.append((ax, labels, segments))
        if title:
            fig.suptitle(title)
        for ax, labels, segments in panels:  # once the layout is final: no label lies on an arrow
            keep_labels_clear(fig, ax, labels, segments)
    return fig


def _mirror_cell(ax: Any, M: np.ndarray, i: int, j: int) -> None:
    """Cell (i, j) of transpose_mirror's grid: orange with M's number where M has the cell, a blue frame
    with Mᵀ's number where Mᵀ has it."""
    rows, cols = M.shape
    in_m, in_t = i < rows and j < cols, i < cols and j < rows
    if not (in_m or in_t):
        return
    face = tint(ORANGE, 0.3) if in_m else "none"
    ax.add_patch(Rectangle((j, i), 1, 1, facecolor=face, edgecolor="0.3", lw=1.0))
    number = {"fontsize": 14, "fontweight": "bold", "ha": "center", "va": "center"}
    if in_t:
        ax.add_patch(Rectangle((j + 0.06, i + 0.06), 0.88, 0.88, facecolor="none", edgecolor=BLUE, lw=2.0, ls="-"))
        ax.text(j + 0.72, i + 0.74, f"{M[j, i]:g}", color=BLUE, **number)
    if in_m:
        ax.text(j + 0.28, i + 0.3, f"{M[i, j]:g}", color="#9A5B00", **number)


def _mirror_trace(ax: Any, start: tuple[float, float], end: tuple[float, float], bend: float) -> None:
    """An arrow from a number of M across the diagonal to the same number in Mᵀ."""
    style = {"arrowstyle": "-|>", "color": "0.3", "lw": 1.4, "connectionstyle": f"arc3,rad={bend}"}
    ax.annotate("", xy=end, xytext=start, arrowprops=style)


def _row_and_column_axes(ax: Any, size: int) -> None:
    """A size × size grid read as rows (down, numbered on the left) and columns (numbered on top), no frame."""
    ax.set_xlim(-0.1, size + 0.1)
    ax.set_ylim(size + 0.15, -0.1)
    ax.set_aspect("equal")
    ax.set_xticks([k + 0.5 for k in range(size)], [str(k) for k in range(size)])
    ax.set_yticks([k + 0.5 for k in range(size)], [str(k) for k in range(size)])
    ax.xaxis.tick_top()
    ax.set_xlabel("column")
    ax.xaxis.set_label_position("top")
    ax.set_ylabel("row")
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)


def transpose_mirror(M: Any, name: str = "K") -> Any:
    """M (orange) and Mᵀ (blue) drawn on one grid: each is the other's mirror image in the diagonal (the transpose chapter).

    Every cell shows M's number (top left) and Mᵀ's number (bottom right) where each has one; the
    off-diagonal numbers of row 0 of M are traced across the mirror to where Mᵀ holds them.
    """
    M = to_numpy(M)
    rows, cols = M.shape
    size = max(rows, cols)
    fig, ax = figure(4.8, 5.0)
    with plt.rc_context(STYLE):
        for i in range(size):
            for j in range(size):
                _mirror_cell(ax, M, i, j)
        ax.plot([0, size], [0, size], ls="--", color=BLACK, lw=1.6)
        ax.text(size - 0.05, size + 0.1, "mirror:\nthe diagonal", fontsize=11, ha="right", va="top")
        for j in range(1, cols):  # row 0 of M crosses the mirror to column 0 of Mᵀ
            _mirror_trace(ax, (j + 0.28, 0.3), (0.72, j + 0.74), -0.35)
        for i in range(cols, rows):
            _mirror_trace(ax, (0.28, i + 0.3), (i + 0.72, 0.74), 0.35)
        _row_and_column_axes(ax, size)
        ax.set_title(
            f"${name}$ {rows}×{cols} (orange, top left) and ${name}^{{\\mathsf{{T}}}}$ {cols}×{rows}"
            f" (blue, bottom right)\nare mirror images in the diagonal",
            fontsize=12,
            pad=30,
        )
    return fig
