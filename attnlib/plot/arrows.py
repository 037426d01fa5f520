"""Figures of arrows: words as vectors (the vectors chapter), arrows becoming rows (the matrix x chapter), dot products as
shadows (the dot product scores chapter)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from ..arrays import to_numpy
from .style import (
    BLACK,
    BLUE,
    ORANGE,
    STYLE,
    colour_words,
    figure,
    keep_labels_clear,
    spread_out,
    vec_text,
    word_colour,
)
from .tables import grid


def _arrow_from_origin(ax: Any, tip: Any, colour: Any, lw: float = 2.5, size: float = 18) -> None:
    """An arrow from the origin to `tip`, its head `size` points."""
    ax.annotate(
        "", xy=tip, xytext=(0, 0), arrowprops={"arrowstyle": "-|>", "color": colour, "lw": lw, "mutation_scale": size}
    )


def arrows(
    vectors: dict[str, Sequence[float]],
    title: str = "Words as arrows",
    xlabel: str = "first number (x)",
    ylabel: str = "second number (y)",
) -> Any:
    """Draw each 2-number vector as an arrow from the origin, labelled with its name (the vectors chapter)."""
    fig, ax = figure(5.5, 5.0)
    with plt.rc_context(STYLE):
        pts = [to_numpy(v) for v in vectors.values()]
        reach = max(1.0, max(float(np.abs(p).max()) for p in pts)) * 1.35
        label_y = spread_out([float(v[1]) for v in pts], gap=0.075 * reach)
        for i, (name, v) in enumerate(zip(vectors, pts)):
            colour = word_colour(name)
            _arrow_from_origin(ax, (v[0], v[1]), colour)
            x, y = v[0] + 0.05 * reach, label_y[i]
            ax.text(x, y, f"{name} {vec_text(v)}", color=colour, fontsize=13, fontweight="bold", va="center")
        low = -reach if any((p < 0).any() for p in pts) else -0.3
        ax.set_xlim(low, reach)
        ax.set_ylim(low, reach)
        ax.axhline(0, color="0.6", lw=0.8)
        ax.axvline(0, color="0.6", lw=0.8)
        ax.set_aspect("equal")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(alpha=0.3)
    return fig


def arrow_parts(name: str, v: Sequence[float], title: str = "") -> Any:
    """One 2-number vector [x, y] as an arrow, with its two parts dashed: x to the right, then y up (the vectors chapter)."""
    x, y = (float(c) for c in to_numpy(v)[:2])
    colour = word_colour(name)
    span = max(abs(x), abs(y), 1.0)
    fig, ax = figure(5.5, 2.6)
    with plt.rc_context(STYLE):
        ax.plot([0, x], [0, 0], ls="--", color="0.35", lw=2)  # the x part: along the floor
        ax.plot([x, x], [0, y], ls="--", color="0.35", lw=2)  # the y part: straight up
        _arrow_from_origin(ax, (x, y), colour, lw=3, size=20)
        ax.plot([0], [0], "o", color="0.2", ms=5)
        ax.text(-0.04 * span, 0, "start", ha="right", va="center", fontsize=12, color="0.3")  # left of the dot
        ax.text(
            x / 2,
            -0.06 * span,
            f"x = {x:g}: {abs(x):g} to the {'right' if x >= 0 else 'left'}",
            ha="center",
            va="top",
            fontsize=13,
        )
        ax.text(
            x + 0.04 * span,
            y / 2,
            f"y = {y:g}:\n{abs(y):g} {'up' if y >= 0 else 'down'}",
            ha="left",
            va="center",
            fontsize=13,
        )
        label = ax.text(
            x * 0.45,
            y * 0.45 + 0.08 * span,
            f"{name} {vec_text(np.array([x, y]))}",
            color=colour,
            fontsize=14,
            fontweight="bold",
            ha="center",
            va="bottom",
            rotation=0,
        )
        ax.set_xlim(min(0.0, x) - 0.45 * span, max(0.0, x) + 0.45 * span)  # room for "start" on the left
        ax.set_ylim(min(0.0, y) - 0.3 * span, max(0.0, y) + 0.25 * span)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(title or f"The list {vec_text(np.array([x, y]))} is a walk: right, then up")
        keep_labels_clear(fig, ax, [label], [((0.0, 0.0), (x, y))])
    return fig


def dot_cases() -> Any:
    """Three pairs of arrows: same direction, perpendicular, opposite, each with its dot product (the dot product scores chapter)."""
    cases = [
        ("same direction", [2.0, 1.0], [1.6, 0.8]),
        ("perpendicular", [2.0, 1.0], [-0.8, 1.6]),
        ("opposite", [2.0, 1.0], [-1.6, -0.8]),
    ]
    fig, axes = figure(5.8, 3.0, ncols=3)  # three small panels, 5.8 in: legible on a phone
    with plt.rc_context(STYLE):
        for ax, (name, q, k) in zip(axes, cases):
            q, k = np.array(q), np.array(k)
            for v, colour, label, side in ((q, BLUE, "q", 1), (k, ORANGE, "k", -1)):
                _arrow_from_origin(ax, v, colour, size=16)
                normal = np.array([-v[1], v[0]]) / np.linalg.norm(v)  # step sideways so labels never overlap
                spot = v * 0.6 + side * 0.35 * normal
                ax.text(spot[0], spot[1], label, color=colour, fontsize=13, fontweight="bold", ha="center", va="center")
            ax.set_xlim(-2.5, 2.5)
            ax.set_ylim(-2.0, 2.0)
            ax.set_aspect("equal")
            ax.axhline(0, color="0.7", lw=0.8)
            ax.axvline(0, color="0.7", lw=0.8)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"{name}\nq · k = {float(q @ k):g}")
        fig.suptitle("The dot product measures alignment")
    return fig


def _shared_window(pairs: Sequence[tuple[str, Sequence[float], str, Sequence[float]]]) -> tuple:
    """(low, high, width, height) of one window that holds every panel's arrows and the shadow's far end,
    with room for the labels, and not flatter than 0.45 of its width."""
    points = [np.zeros(2)]  # one square window for every panel, so lengths compare across panels
    for _, q, _, k in pairs:
        q, k = to_numpy(q), to_numpy(k)
        points += [q, k, (k @ q) / (q @ q) * q]  # the shadow's far end may lie beyond both arrows
    points = np.array(points)
    low, high = points.min(axis=0), points.max(axis=0)
    pad = 0.18 * float((high - low).max())  # room for the labels beside the arrows
    low, high = low - pad, high + pad
    width, height = (high - low).tolist()
    if height < 0.45 * width:  # a flat window, but not a sliver
        grow = (0.45 * width - height) / 2
        low[1], high[1] = low[1] - grow, high[1] + grow
        height = 0.45 * width
    return low, high, width, height


def _arrow_beside_label(ax: Any, v: np.ndarray, word: str, name: str, side: int, width: float) -> None:
    """The arrow v from the origin in its word's colour, "$name$ (word)" beside it on `side` (+1: left of v)."""
    colour = word_colour(word)
    _arrow_from_origin(ax, v, colour, size=16)
    normal = np.array([-v[1], v[0]]) / np.linalg.norm(v)
    away = side * normal  # the label sits beside its arrow, on the side away from the other
    spot = 0.7 * v + 0.05 * width * away
    ha = "left" if away[0] > 0.3 else "right" if away[0] < -0.3 else "center"
    va = "bottom" if away[1] > 0.3 else "top" if away[1] < -0.3 else "center"
    ax.text(spot[0], spot[1], f"${name}$ ({word})", color=colour, fontsize=12, fontweight="bold", ha=ha, va=va)


def _projection(ax: Any, q_word: str, q: np.ndarray, k_word: str, k: np.ndarray, width: float) -> float:
    """One panel's drawing: k's shadow along q, the dashed drop from k to it, both arrows; returns |k| cos θ."""
    along = q / np.linalg.norm(q)
    shadow = float(k @ along)  # |k| cos θ: how far k reaches along q's direction
    foot = shadow * along
    ax.plot(
        [0, foot[0]],
        [0, foot[1]],
        color=BLACK,
        lw=8,
        alpha=0.22,
        solid_capstyle="butt",
        label="shadow of k on q: |k| cos θ",
    )
    ax.plot([k[0], foot[0]], [k[1], foot[1]], ls="--", color="0.45", lw=1.3)
    turn = float(q[0] * k[1] - q[1] * k[0])  # > 0: k lies anticlockwise of q
    _arrow_beside_label(ax, q, q_word, "q", -1 if turn > 0 else 1, width)
    _arrow_beside_label(ax, k, k_word, "k", 1 if turn > 0 else -1, width)
    return shadow


def dot_projection(
    pairs: Sequence[tuple[str, Sequence[float], str, Sequence[float]]],
    title: str = "",
    xlabel: str = "first number",
    ylabel: str = "second number",
) -> Any:
    """q · k = ‖q‖ ‖k‖ cos θ drawn: per panel a query, a key, and the key's shadow along the query (the dot product scores chapter).

    `pairs` holds (query word, q, key word, k); each arrow takes its word's colour.
    """
    low, high, width, height = _shared_window(pairs)
    panel = 3.8  # panels stacked, so each stays legible on a phone
    fig, axes = figure(panel + 0.9, (panel * height / width + 1.3) * len(pairs) + 0.6, nrows=len(pairs), squeeze=False)
    with plt.rc_context(STYLE):
        for ax, (q_word, q, k_word, k) in zip(axes[:, 0], pairs):
            q, k = to_numpy(q), to_numpy(k)
            shadow = _projection(ax, q_word, q, k_word, k, width)
            angle = abs((float(np.degrees(np.arctan2(k[1], k[0]) - np.arctan2(q[1], q[0]))) + 180) % 360 - 180)
            ax.set_xlim(low[0], high[0])
            ax.set_ylim(low[1], high[1])
            ax.set_aspect("equal")
            ax.axhline(0, color="0.7", lw=0.8)
            ax.axvline(0, color="0.7", lw=0.8)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
            ax.set_title(
                f"θ = {angle:.0f}°,  |q| = {np.linalg.norm(q):.2f},  |k| cos θ = {shadow:.2f}\n"
                f"q · k = |q| · |k| cos θ = {float(q @ k):.2f}",
                fontsize=11,
            )
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", frameon=False, fontsize=11)
        if title:
            fig.suptitle(title)
    return fig


def arrows_to_rows(
    vectors: dict[str, Sequence[float]],
    title: str = "Each arrow becomes one row of X",
    xlabel: str = "first number",
    ylabel: str = "second number",
    col_labels: Sequence[str] | None = None,
) -> Any:
    """Two-number word arrows on the left, the same words stacked as coloured rows of X on the right (the matrix x chapter)."""
    names = list(vectors)
    X = np.stack([to_numpy(v) for v in vectors.values()])
    d = X.shape[1]
    fig, (left, right) = figure(5.8, 3.8, ncols=2, gridspec_kw={"width_ratios": [1.25, 1]})  # phone: <= 5.8 in
    with plt.rc_context(STYLE):
        reach = max(1.0, float(np.abs(X[:, :2]).max())) * 1.3
        for name, v in zip(names, X):
            colour = word_colour(name)
            _arrow_from_origin(left, (v[0], v[1]), colour)
            left.text(v[0] + 0.04 * reach, v[1] + 0.04 * reach, name, color=colour, fontsize=13, fontweight="bold")
        left.set_xlim(-0.2, reach)
        left.set_ylim(-0.2, reach)
        left.set_aspect("equal")
        left.set_xlabel(xlabel)
        left.set_ylabel(ylabel)
        left.grid(alpha=0.3)
        left.set_title("words as arrows")
        grid(
            X,
            row_labels=names,
            col_labels=list(col_labels) if col_labels is not None else [str(j) for j in range(d)],
            title="the matrix X",
            ax=right,
            fmt="{:g}",
        )
        for i, name in enumerate(names):  # grid draws its cells row by row: tint row i in its arrow's colour
            colour = matplotlib.colors.to_rgba(word_colour(name), 0.22)
            for j in range(d):
                right.patches[i * d + j].set_facecolor(colour)
        colour_words(right.get_yticklabels(), names)
        fig.suptitle(title)
    return fig
