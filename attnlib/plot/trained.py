"""The figure of the chapter inside a trained model: every head of every layer on one sentence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

from .style import HEATMAP, STYLE, _figure, _np, _wrap, colour_words


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
    A = _np(A)
    layers, heads, n, _ = A.shape
    marked = marked or {}
    big_layer, big_head = next(iter(marked.values()))[0] if marked else (0, 0)
    fig, _ = _figure(5.4, 3.9 + 0.62 * heads + (0.5 if title else 0.0))
    fig.axes[0].remove()
    top, bottom = fig.subfigures(2, 1, height_ratios=[3.6, 0.62 * heads + 0.3])
    with plt.rc_context(STYLE):
        big = top.subplots()
        big.imshow(A[big_layer, big_head], cmap=HEATMAP, vmin=0.0, vmax=1.0)
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
        small = bottom.subplots(heads, layers, squeeze=False)
        for layer in range(layers):
            for head in range(heads):
                ax = small[head, layer]
                im = ax.imshow(A[layer, head], cmap=HEATMAP, vmin=0.0, vmax=1.0)
                ax.set_xticks([])
                ax.set_yticks([])
                for spine in ax.spines.values():
                    spine.set_visible(False)
                if head == 0:
                    ax.set_title(f"layer {layer}", fontsize=10)
                if layer == 0:
                    ax.set_ylabel(f"head {head}", fontsize=10, rotation=0, ha="right", va="center")
                for (m_layer, m_head), colour in marked.values():
                    if (layer, head) == (m_layer, m_head):
                        ax.add_patch(Rectangle((-0.5, -0.5), n, n, fill=False, edgecolor=colour, lw=3.5, clip_on=False))
        handles = [Rectangle((0, 0), 1, 1, fill=False, edgecolor=c, lw=3) for _, c in marked.values()]
        if handles:
            bottom.legend(handles, list(marked), loc="outside lower center", ncols=2, fontsize=10, frameon=False)
        bar = top.colorbar(im, ax=big, shrink=0.9)
        bar.set_label(r"weight $A_{ij}$")
        if title:
            fig.suptitle(_wrap(title, 44))
    return fig
