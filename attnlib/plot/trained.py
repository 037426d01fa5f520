"""The figure of the chapter inside a trained model: every head of every layer on one sentence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from ..arrays import to_numpy
from .style import HEATMAP, STYLE, colour_words, figure, wrap


def all_heads(
    A: Any,
    tokens: Sequence[str],
    marked: dict[str, tuple[tuple[int, int], str]] | None = None,
    title: str = "",
) -> Any:
    """All heads of a model on one sentence, one small map per head: a column per layer, a row per head.

    A has shape (layers, heads, n, n). The small maps have no labels; the large map on top is the
    first marked head (or layer 0, head 0), its rows and columns labelled by word in the words'
    colours, and every small map reads the same way. `marked` names heads to frame:
    {"previous word": ((layer, head), colour), ...}, each framed in its colour, with a legend.
    """
    A = to_numpy(A)
    layers, heads, n, _ = A.shape
    marked = marked or {}
    big_layer, big_head = next(iter(marked.values()))[0] if marked else (0, 0)
    # placed by hand, in inches: a layout engine takes seconds over 73 axes
    width, top, row, cell, left = 5.4, 0.45 if title else 0.1, 0.62, 0.55, 0.85
    big_size, legend = 2.7, 0.7 if marked else 0.2
    height = top + big_size + 1.5 + 0.3 + heads * row + legend
    fig, ax = figure(width, height)
    fig.set_layout_engine("none")
    ax.remove()

    def place(x: float, y: float, w: float, h: float) -> Any:
        """Axes at x inches from the left and y inches from the top, w by h inches."""
        return fig.add_axes((x / width, 1 - (y + h) / height, w / width, h / height))

    with plt.rc_context(STYLE):
        big = place(1.45, top + 0.35, big_size, big_size)
        im = big.imshow(A[big_layer, big_head], cmap=HEATMAP, vmin=0.0, vmax=1.0)
        big.set_xticks(range(n))
        big.set_yticks(range(n))
        big.set_xticklabels(tokens, rotation=90)
        big.set_yticklabels(tokens)
        colour_words(big.get_xticklabels(), tokens)
        colour_words(big.get_yticklabels(), tokens)
        big.tick_params(length=0)
        big.set_title(f"layer {big_layer}, head {big_head}, and every map below:", fontsize=11)
        big.set_xlabel("key (word $j$)")
        big.set_ylabel("query (word $i$)")
        bar = fig.colorbar(im, cax=place(1.45 + big_size + 0.2, top + 0.35, 0.15, big_size))
        bar.set_label(r"weight $A_{ij}$")
        grid_top = top + big_size + 1.5 + 0.3
        gap = max(1, round(n * (row - cell) / cell))  # empty cells between two maps
        block = n + gap
        mosaic = np.full((heads * block - gap, layers * block - gap), np.nan)  # one image: fast to draw
        for layer in range(layers):
            for head in range(heads):
                mosaic[head * block : head * block + n, layer * block : layer * block + n] = A[layer, head]
        ax = place(left, grid_top, width - left - 0.1, heads * row - (row - cell))
        ax.imshow(
            np.ma.masked_invalid(mosaic), cmap=HEATMAP, vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest"
        )
        centres = [k * block + (n - 1) / 2 for k in range(max(layers, heads))]
        ax.set_xticks(centres[:layers], [f"layer {k}" for k in range(layers)], fontsize=10)
        ax.set_yticks(centres[:heads], [f"head {k}" for k in range(heads)], fontsize=10)
        ax.xaxis.tick_top()
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        for (m_layer, m_head), colour in marked.values():
            ax.add_patch(
                Rectangle(
                    (m_layer * block - 0.5, m_head * block - 0.5),
                    n,
                    n,
                    fill=False,
                    edgecolor=colour,
                    lw=3.5,
                    clip_on=False,
                )
            )
        handles = [Rectangle((0, 0), 1, 1, fill=False, edgecolor=c, lw=3) for _, c in marked.values()]
        if handles:
            fig.legend(handles, list(marked), loc="lower center", ncols=2, fontsize=10, frameon=False)
        if title:
            fig.suptitle(wrap(title, 44), y=1 - 0.05 / height, va="top")
    return fig
