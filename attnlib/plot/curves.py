"""Figures of curves and bars: lines, softmax shares, a blend of values, timings, position waves, a loss curve."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch

from ..arrays import to_numpy
from .style import BLACK, BLUE, DIVERGING, PALETTE, STYLE, colour_words, figure, vec_text, word_colour, wrap


def lines(
    x: Sequence[float],
    ys: dict[str, Sequence[float]],
    xlabel: str,
    ylabel: str,
    title: str = "",
    logx: bool = False,
    logy: bool = False,
    styles: dict[str, str] | None = None,
) -> Any:
    """Several labelled curves over one x axis, markers on the measured points (the scaling and masks chapters).

    A curve styled ":" is a reference line (say, even shares): it is drawn in grey, apart from the data.
    """
    fig, ax = figure(5.8, 4.2)  # <= 5.8 in: 11 pt ticks stay legible on a phone
    styles = styles or {}
    with plt.rc_context(STYLE):
        for i, (label, y) in enumerate(ys.items()):
            ax.plot(
                x,
                to_numpy(y),
                styles.get(label, "o-"),
                color="0.45" if styles.get(label) == ":" else PALETTE[i % len(PALETTE)],
                label=label,
                lw=2,
                markersize=5,
            )
        if logx:
            ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend()
    return fig


def softmax_shares(
    row_scores: Sequence[float], labels: Sequence[str], title: str = "", size: tuple[float, float] = (5.4, 5.6)
) -> Any:
    """One row of scores above the shares softmax makes of it, as bars that add up to 1 (the softmax chapter).

    The two panels are stacked (not side by side), so the figure stays narrow and legible on a phone.
    """
    s = to_numpy(row_scores)
    w = np.exp(s - s.max())
    w = w / w.sum()
    fig, axes = figure(*size, nrows=2)
    with plt.rc_context(STYLE):
        colours = [word_colour(label) for label in labels]
        at = np.arange(len(labels))  # positions, so a word that occurs twice gets two bars
        axes[0].bar(at, s, color=colours)
        axes[0].axhline(0, color="0.5", lw=0.8)
        axes[0].set_title(r"scores $x[j]$ (any numbers)")
        bars = axes[1].bar(at, w, color=colours)
        axes[1].set_ylim(0, 1.12)
        axes[1].set_title(r"weights $\mathrm{softmax}(x)[j]$")
        for b, v in zip(bars, w):
            axes[1].text(b.get_x() + b.get_width() / 2, v + 0.02, f"{v:.2f}", ha="center", fontsize=11)
        for ax in axes:
            ax.set_xticks(at)
            ax.set_xticklabels(labels, rotation=30 if len(labels) > 6 else 0)
            colour_words(ax.get_xticklabels())
        fig.suptitle(title or "softmax turns a row of scores into shares of 1")
    return fig


def blend(
    weights: Sequence[float], V: Any, labels: Sequence[str], target: str = "z", size: tuple[float, float] | None = None
) -> Any:
    """One output row z_i = Σ_j A_ij v_j drawn as value rows flowing in with their weights on the arrows (the weighted sum chapter).

    Each value row is written in its word's colour; an arrow's thickness is its weight.
    `target` is the name of the output, e.g. a mathtext label that draws z with the subscript "sat".
    """
    w, V = to_numpy(weights), to_numpy(V)
    n = len(w)
    z = w @ V
    fig, ax = figure(*(size or (5.6, 1.6 + 0.62 * n)))
    with plt.rc_context(STYLE):
        ax.set_xlim(0, 10)
        ax.set_ylim(-1.3, n - 0.2)
        ax.axis("off")
        mid = (n - 1) / 2
        for j in range(n):
            _blend_row(ax, n - 1 - j, labels[j], V[j], w[j], mid)
        ax.text(7.45, mid + 0.35, target, va="bottom", fontsize=13, fontweight="bold")
        ax.text(7.45, mid - 0.1, vec_text(np.round(z, 2)), va="top", fontsize=11, fontweight="bold")
        ax.text(
            0.0,
            -0.9,
            "value rows $v_j$; the weights $A_{ij}$ of\nrow $i$ beside the arrows",
            fontsize=11,
            color="0.35",
            va="center",
        )
        ax.set_title(f"{target}: a weighted average of the value rows", fontsize=12)
    return fig


def _blend_row(ax: Any, y: float, label: str, v: Any, weight: float, mid: float) -> None:
    """One value row of `blend`: the word and its numbers, its arrow as thick as its weight, the weight."""
    colour = word_colour(label)
    ax.text(0.0, y, f"{label}  {vec_text(np.round(v, 2))}", va="center", fontsize=11, color=colour, fontweight="bold")
    ax.add_patch(
        FancyArrowPatch((5.5, y), (7.3, mid), arrowstyle="-|>", mutation_scale=12, color=colour, lw=0.6 + 7 * weight)
    )
    ax.text(5.35, y, f"{weight:.2f}", fontsize=11, color=colour, va="center", ha="right", fontweight="bold")


def timings(
    runs: dict[str, dict[str, tuple[Sequence[float], Sequence[float]]]],
    fit_from: float = 256,
    ylabel: str = "seconds per call",
    title: str = "",
    model: dict[str, dict[str, tuple[Sequence[float], Sequence[float]]]] | None = None,
) -> Any:
    """Time against n on log–log axes, one panel per run, each curve labelled with its fitted slope (the counting and timing chapter).

    `model`, keyed like `runs`, adds each implementation's predicted times as a dashed line of the
    same colour (attnlib.timemodel): where the measured points leave it, the model misses something.
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from ..results import fit_slope

    names = list(dict.fromkeys(name for curves in runs.values() for name in curves))
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}
    import textwrap

    nrows = len(runs)  # panels stacked, one column 5.8 in wide: legible on a phone
    legend_rows = -(-(len(names) + 1) // 2)
    fig, axes = figure(5.8, (4.2 + 0.25 * legend_rows) * nrows, nrows=nrows, squeeze=False)
    with plt.rc_context(STYLE):
        for ax, (panel, curves) in zip(axes.flat, runs.items()):
            for name, (n, t) in curves.items():
                n, t = np.asarray(n, dtype=float), to_numpy(t)
                keep = n >= fit_from
                label = name
                if len(np.unique(n[keep])) >= 2:
                    p = fit_slope(n[keep], t[keep])
                    label = f"{name}: slope {p:.2f}"
                ax.plot(n, t, "o-", color=colours[name], lw=1.8, markersize=5, label=label)
            for name, (n, t) in ((model or {}).get(panel) or {}).items():
                ax.plot(np.asarray(n, dtype=float), to_numpy(t), "--", color=colours.get(name, BLACK), lw=1.2)
            all_n = np.concatenate([np.asarray(n, dtype=float) for n, _ in curves.values()])
            all_t = np.concatenate([to_numpy(t) for _, t in curves.values()])
            top = all_n.max()
            ref = np.array([top / 4, top])  # a slope-2 guide ending at the largest n, mid-height
            level = np.exp(np.log(all_t[all_n == top]).mean())
            ax.plot(ref, level * (ref / top) ** 2, ":", color=BLACK, lw=2, label="slope 2 (time ∝ n²)")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("n (sequence length)")
            ax.set_ylabel(ylabel)
            ax.set_title(textwrap.fill(panel, 62), fontsize=11)
            ax.grid(alpha=0.3, which="major")
            ax.legend(fontsize=11, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=2, frameon=False)
        for ax in list(axes.flat)[len(runs) :]:
            ax.axis("off")
        if title:
            fig.suptitle(title)
    return fig


def position_waves(PE: Any, title: str = "Sinusoidal positional encoding") -> Any:
    """The positional encoding as a heatmap: one row per position, one column per dimension (the word order chapter)."""
    PE = to_numpy(PE)
    n, d = PE.shape
    fig, ax = figure(5.6, 4.8)
    with plt.rc_context(STYLE):
        im = ax.imshow(PE, cmap=DIVERGING, vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
        ax.set_xlabel(f"dimension (column of PE), 0 to {d - 1}")
        ax.set_ylabel(f"position pos, 0 to {n - 1}")
        ax.set_title(wrap(title, 44))
        bar = fig.colorbar(im, ax=ax, shrink=0.85)
        bar.set_label("value, between −1 and 1")
    return fig


def loss_curve(
    history: Sequence[float], title: str = "Training: the loss falls", ylabel: str = "loss (mean squared error)"
) -> Any:
    """The loss at every training step, on a log scale so the late, small improvements stay visible (the learning the lenses chapter).

    history[k] is the loss after k steps (computed before the next update), so it is drawn at k = 0, 1, ...
    """
    y = to_numpy(history)
    fig, ax = figure(5.4, 4.0)
    with plt.rc_context(STYLE):
        ax.plot(np.arange(len(y)), y, color=BLUE, lw=2)
        ax.set_yscale("log")
        ax.set_xlabel("steps taken")
        ax.set_ylabel(ylabel)
        ax.set_title(wrap(title, 44))
        ax.grid(alpha=0.3, which="both")
    return fig
