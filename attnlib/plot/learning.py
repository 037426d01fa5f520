"""Figures of Part IV: the split into heads and back, a turning arrow on the unit circle, and the
weight a trained model puts on the word before at every position (the many heads, word order and learning the lenses chapters)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Circle, FancyArrowPatch, Rectangle

from ..arrays import to_numpy
from .style import BLUE, ORANGE, STYLE, figure, tint, wrap

_HEAD_COLOURS = [BLUE, ORANGE, "#009E73", "#CC79A7", "#56B4E9", "#D55E00"]


def _block(ax: Any, x: float, top: float, rows: int, cols: int, faces: Sequence[Any], label: str) -> None:
    """A rows × cols grid of small cells, column k filled with faces[k] (or, where faces[k] is a list,
    row i of it with faces[k][i % len(faces[k])]: stripes), its label above it."""
    for i in range(rows):
        for j in range(cols):
            face = faces[j][i % len(faces[j])] if isinstance(faces[j], list) else faces[j]
            ax.add_patch(Rectangle((x + j, top - 1 - i), 1, 1, facecolor=face, edgecolor="0.3", lw=0.8))
    ax.text(x + cols / 2, top + 0.3, label, ha="center", va="bottom", fontsize=12)


def _step(ax: Any, x: float, y_from: float, y_to: float, text: str, text_x: float) -> None:
    """A downward arrow from one row of blocks to the next, with what the step does in the column at text_x."""
    ax.add_patch(FancyArrowPatch((x, y_from), (x, y_to), arrowstyle="-|>", mutation_scale=16, lw=1.6, color="0.25"))
    ax.text(text_x, (y_from + y_to) / 2, text, ha="left", va="center", fontsize=12)


def heads_flow(n: int = 6, d_model: int = 4, h: int = 2, title: str | None = None) -> Any:
    """The four steps of multi-head attention as blocks drawn to size, one colour per head (the many heads chapter).

    Q (n × d_model) is cut into h blocks of d_k = d_model / h columns, each head attends on its own,
    the heads' outputs are put side by side again, and a trained W_O mixes them: every column of the
    output is striped in all the heads' colours. What each step does is written in a column of its own,
    right of every block and label. The default title is "Split, attend, concatenate, mix with W_O", typeset.
    """
    if title is None:
        title = "Split, attend, concatenate, mix with $W_O$"
    if d_model % h:
        raise ValueError(f"heads_flow: d_model = {d_model} is not a multiple of h = {h}")
    d_k = d_model // h
    colours = [tint(_HEAD_COLOURS[k % len(_HEAD_COLOURS)], 0.75) for k in range(h)]
    by_column = [colours[j // d_k] for j in range(d_model)]
    mixed = [list(colours)] * d_model  # every column: a stripe of each head's colour
    gap = 6.0  # between the blocks of the heads
    heads_width = h * d_k + (h - 1) * gap
    left = (heads_width - d_model) / 2  # the wide blocks centred over the heads
    step = n + 4.4  # from the top of one row of blocks to the next
    fig, ax = figure(5.6, 7.6)
    with plt.rc_context(STYLE):
        text_x = heads_width + 2.2  # the steps' column, clear of the labels "Q, head 1" above the blocks

        def heads(top: float, name: str) -> None:
            for k in range(h):
                _block(ax, k * (d_k + gap), top, n, d_k, [colours[k]] * d_k, f"${name}$, head {k}\n{n}×{d_k}")

        def down(top: float, text: str) -> float:
            """The arrow from the row at `top` to the next, with what the step does; the next row's top."""
            _step(ax, left + d_model / 2, top - n - 0.3, top - step + 2.2, text, text_x)
            return top - step

        top = 0.0
        _block(ax, left, top, n, d_model, by_column, f"$Q = XW_Q$   {n}×{d_model}")
        top = down(top, "split: reshape,\nswap two axes")
        heads(top, "Q")
        top = down(top, "attend:\n" + r"softmax$(QK^{\mathsf{T}}/\sqrt{d_k})\,V$")
        heads(top, "Z")
        top = down(top, "concatenate,\nside by side")
        _block(ax, left, top, n, d_model, by_column, f"heads side by side   {n}×{d_model}")
        top = down(top, r"$\times\, W_O$ (trained):" + "\neach column mixes\nall heads")
        _block(ax, left, top, n, d_model, mixed, f"output   {n}×{d_model}")
        ax.set_xlim(-0.5, heads_width + 12)
        ax.set_ylim(top - n - 0.5, 2.0)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(wrap(title, 44))
    return fig


def turning_arrows(
    arrows: Sequence[tuple[str, Any, str]],
    title: str = "",
    projections: bool = True,
    size: float = 4.8,
    legend: bool = False,
) -> Any:
    """Arrows from the centre of the unit circle, each with its label; cos is x, sin is y (the word order and learning the lenses chapters).

    arrows: (label, (x, y), colour) triples. With projections=True, each arrow of length about 1
    drops dashed lines to the axes, so its x (the cosine) and its y (the sine) can be read off.
    With legend=True the labels go into a legend instead of beside the tips (for arrows close together).
    """
    fig, ax = figure(size, size)
    with plt.rc_context(STYLE):
        ax.add_patch(Circle((0, 0), 1.0, fill=False, edgecolor="0.55", lw=1.2))
        ax.axhline(0, color="0.7", lw=0.8)
        ax.axvline(0, color="0.7", lw=0.8)
        for label, vector, colour in arrows:
            x, y = to_numpy(vector)[:2]
            ax.add_patch(
                FancyArrowPatch((0, 0), (x, y), arrowstyle="-|>", mutation_scale=16, lw=2.2, color=colour, zorder=3)
            )
            if projections and abs(np.hypot(x, y) - 1) < 0.05:
                ax.plot([x, x], [0, y], ":", color=colour, lw=1.4)
                ax.plot([0, x], [y, y], ":", color=colour, lw=1.4)
            if legend:
                ax.plot([], [], color=colour, lw=2.2, label=label)
                continue
            r = np.hypot(x, y) or 1.0
            ax.text(
                x + 0.16 * x / r,
                y + 0.16 * y / r,
                label,
                color=colour,
                fontsize=12,
                fontweight="bold",
                ha="left" if x >= -0.05 else "right",
                va="bottom" if y >= -0.05 else "top",
            )
        if legend:
            ax.legend(loc="upper right", fontsize=11)
        ax.set_xlim(-1.45, 1.45)
        ax.set_ylim(-1.45, 1.45)
        ax.set_aspect("equal")
        ax.set_xlabel(r"$x = \cos$ of the angle")
        ax.set_ylabel(r"$y = \sin$ of the angle")
        if title:
            ax.set_title(wrap(title, 40))
    return fig


def weight_by_position(
    weights: Any, trained_length: int, title: str = "", ylabel: str = "weight on the word before"
) -> Any:
    """One bar per query position, the average weight it puts on the key just before it (the learning the lenses chapter).

    weights[k] belongs to position k + 1; positions from trained_length on, which the training never
    reached, are hatched and shaded.
    """
    w = to_numpy(weights)
    positions = np.arange(1, len(w) + 1)
    fig, ax = figure(5.6, 3.9)
    with plt.rc_context(STYLE):
        seen = positions < trained_length
        ax.bar(positions[seen], w[seen], color=BLUE, label=f"positions seen in training (n = {trained_length})")
        ax.bar(
            positions[~seen], w[~seen], color=ORANGE, hatch="//", edgecolor="white", label="positions never trained on"
        )
        ax.axvspan(trained_length - 0.5, positions[-1] + 0.5, color="0.5", alpha=0.12, lw=0)
        ax.set_xticks(positions)
        ax.set_xlim(0.4, positions[-1] + 0.6)
        ax.set_ylim(0, 1.32)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.set_xlabel("query position $i$ (its key is $i - 1$)")
        ax.set_ylabel(ylabel)
        ax.legend(loc="upper right", fontsize=11)
        if title:
            ax.set_title(wrap(title, 44))
    return fig
