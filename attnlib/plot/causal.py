"""Figures of the chapter inside a model that writes: next-token probabilities, and a score for every head."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from ..arrays import to_numpy
from ..causal_lm import label
from .style import BLUE, HEATMAP, STYLE, VERMILLION, figure, two_decimals, wrap


def next_token_bars(steps: Sequence[tuple[str, Sequence[tuple[str, float]]]], title: str = "") -> Any:
    """One panel per generated token, stacked: the top candidates' probabilities as bars, the chosen one in vermillion.

    steps: for each step, (the text so far, its last words) and [(piece, probability), …] highest first.
    """
    k = len(steps)
    top = max(len(c) for _, c in steps)
    fig, axes = figure(5.6, k * (0.34 * top + 0.9) + (0.5 if title else 0.1), nrows=k, squeeze=False)
    with plt.rc_context(STYLE):
        for ax, (context, candidates) in zip(axes[:, 0], steps):
            labels = [label(p) for p, _ in candidates]
            probs = two_decimals([p for _, p in candidates]).tolist()  # the same bars on any processor
            at = np.arange(len(labels))[::-1]
            ax.barh(at, probs, color=[VERMILLION] + [BLUE] * (len(probs) - 1))
            for y, p in zip(at, probs):
                ax.text(min(p, 0.82) + 0.02, y, f"{p:.2f}", va="center", fontsize=11)
            ax.set_yticks(at)
            ax.set_yticklabels(labels)
            ax.set_xlim(0, 1)
            ax.set_title(wrap(f"after …{label(context)}", 44), fontsize=11, loc="left")
        axes[-1, 0].set_xlabel("probability of the next token")
        if title:
            fig.suptitle(wrap(title, 44))
    return fig


def head_scores(
    scores: dict[str, Any], marked: dict[str, Sequence[tuple[int, int]]] | None = None, title: str = ""
) -> Any:
    """One (layers × heads) grid per measure, side by side: a cell per head, brighter for a higher score, 0 to 1.

    marked: per measure, the (layer, head) cells to frame (the heads the text names).
    """
    marked = marked or {}
    k = len(scores)
    fig, axes = figure(5.8, 7.2, ncols=k, squeeze=False, sharey=True)
    with plt.rc_context(STYLE):
        for ax, (name, S) in zip(axes[0], scores.items()):
            S = two_decimals(to_numpy(S))  # the same colours on any processor
            layers, heads = S.shape
            im = ax.imshow(S, cmap=HEATMAP, vmin=0.0, vmax=1.0, aspect="auto")
            for layer, head in marked.get(name, []):
                ax.add_patch(plt.Rectangle((head - 0.5, layer - 0.5), 1, 1, fill=False, edgecolor=VERMILLION, lw=2.5))
            ax.set_xticks(range(0, heads, 2))
            ax.set_yticks(range(0, layers, 5))
            ax.set_xlabel("head")
            ax.set_title(wrap(name, 14), fontsize=11)
        axes[0, 0].set_ylabel("layer")
        bar = fig.colorbar(im, ax=list(axes[0]), shrink=0.6, location="bottom")
        bar.set_label("score (mean weight)")
        if title:
            fig.suptitle(wrap(title, 44))
    return fig
