"""Figures of matrices as coloured cells: heatmaps of scores and weights, X beside Z, attention maps
with their masked cells, panels of annotated heatmaps."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from ..arrays import to_numpy
from .style import HEATMAP, STYLE, colour_scale, colour_words, figure, text_colour_on, wrap

_PHONE_WIDTH_IN = 5.8  # the widest figure whose 11 pt text still reads at >= 9 px on a 390 px phone


def _panel_grid(count: int, ncols: int | None, widest: int) -> tuple[int, int, bool]:
    """(rows, columns, transposed) of labelled_panels' grid, at most 5.8 in wide (the word order and learning the lenses chapters).

    No ncols: one panel above the other. ncols that fit: kept. Too many: the groups of ncols panels
    become columns instead of rows (transposed), or, if even that is too wide, one column.
    """
    fits = lambda cols: cols * (0.8 + 0.4 * widest) + 0.9 <= _PHONE_WIDTH_IN
    if ncols is None or ncols <= 1:
        return count, 1, False
    groups = -(-count // ncols)
    if fits(ncols):
        return groups, ncols, False
    if groups > 1 and fits(groups):
        return ncols, groups, True
    return count, 1, False


def _write_cells(ax: Any, M: np.ndarray, fmt: str | Callable[[float], str], im: Any, skip: Any = None) -> None:
    """Write each cell's number in it (fmt: a format string or a function), black or white, whichever
    reads better on that cell's colour in the image `im`; cells where `skip` is True stay empty.

    A tiny negative number rounds to "-0.00"; it is written as 0.00.
    """
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if skip is not None and skip[i, j]:
                continue
            text = fmt(M[i, j]) if callable(fmt) else fmt.format(M[i, j])
            if text.startswith("-") and float(text) == 0:
                text = text[1:]
            face = im.cmap(im.norm(M[i, j]))
            ax.text(j, i, text, ha="center", va="center", fontsize=11, color=text_colour_on(face))


def heatmap(
    M: Any,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    title: str = "",
    xlabel: str = r"key (word $j$)",
    ylabel: str = r"query (word $i$)",
    annotate: bool = True,
    vmin: float | None = None,
    vmax: float | None = None,
    colorbar_label: str = "",
    size: tuple[float, float] | None = None,
    colour_labels: bool = False,
    fmt: str = "{:.2f}",
) -> Any:
    """Colour each cell of a matrix (scores S or weights A) and label its rows and columns by word (the dot product scores chapter).

    The colours run from vmin to vmax (the matrix's own range where not given): viridis when no value
    is below 0, a diverging map white at 0 and symmetric about it when one is (`colour_scale`).

    size=(width, height) in inches overrides the automatic size; colour_labels=True writes each
    row and column label in its word's colour (plot.word_colour), as the softmax and weighted sum chapters do.
    """
    M = to_numpy(M)
    rows, cols = M.shape
    width, height = size or (
        min(5.8, max(4.0, 0.75 * cols + 2.5)),
        min(5.0, max(3.2, 0.6 * rows + 1.8)),
    )  # <= 5.8 in: phone
    fig, ax = figure(width, height)
    with plt.rc_context(STYLE):
        cmap, lo, hi = colour_scale(
            float(np.nanmin(M)) if vmin is None else vmin, float(np.nanmax(M)) if vmax is None else vmax
        )
        im = ax.imshow(M, cmap=cmap, vmin=lo, vmax=hi, aspect="auto")
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.set_xticklabels(col_labels if col_labels is not None else range(cols), rotation=30 if cols > 4 else 0)
        ax.set_yticklabels(row_labels if row_labels is not None else range(rows))
        if colour_labels:
            colour_words(ax.get_xticklabels() + ax.get_yticklabels())
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        if annotate and rows * cols <= 100:
            _write_cells(ax, M, fmt, im)
        bar = fig.colorbar(im, ax=ax, shrink=0.85)
        if colorbar_label:
            bar.set_label(colorbar_label)
    return fig


def word_heatmap(M: Any, row_labels: Sequence[str], col_labels: Sequence[str], **heatmap_kw: Any) -> Any:
    """plot.heatmap with every word label (e.g. "2 sat") on both axes in that word's colour (the word order and learning the lenses chapters)."""
    return heatmap(M, row_labels=row_labels, col_labels=col_labels, colour_labels=True, **heatmap_kw)


def before_after(
    X: Any,
    Z: Any,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    names: tuple[str, str] = ("$X$: each word alone", "$Z = AV$: each word after attention"),
    title: str = "",
) -> Any:
    """X above Z, the same rows and columns, each row labelled in its word's colour: what attention changed (the weighted sum chapter)."""
    X, Z = to_numpy(X), to_numpy(Z)
    rows, cols = X.shape
    fig, axes = figure(4.6, 1.6 + 1.05 * rows, nrows=2)
    cmap, lo, hi = colour_scale(float(min(X.min(), Z.min())), float(max(X.max(), Z.max())))
    with plt.rc_context(STYLE):
        for ax, M, name in zip(axes, (X, Z), names):
            im = ax.imshow(M, cmap=cmap, vmin=lo, vmax=hi, aspect="auto")
            ax.set_xticks(range(cols))
            ax.set_xticklabels(col_labels)
            ax.set_yticks(range(rows))
            ax.set_yticklabels(row_labels)
            ax.xaxis.set_ticks_position("top")
            ax.tick_params(length=0)
            colour_words(ax.get_xticklabels() + ax.get_yticklabels())
            for side in ("left", "bottom", "top", "right"):
                ax.spines[side].set_visible(False)
            _write_cells(ax, M, "{:.2f}", im)
            ax.set_title(name, fontsize=12, pad=22)
        if title:
            fig.suptitle(title)
    return fig


def _weight_text(w: float) -> str:
    """A weight in two digits without the leading zero, ".35", so a 6×6 map fits a phone; 1 as "1"."""
    return f"{w:.2f}".lstrip("0") if w < 1 else "1"


def attention_maps(
    maps: dict[str, Any],
    words: Sequence[str],
    masks: dict[str, Any] | None = None,
    title: str = "",
    colorbar_label: str | None = None,
    width: float = 5.4,
) -> Any:
    """Attention matrices one above the other, words coloured, masked cells shaded and marked ✕ (the masks and many heads chapters).

    Stacked, not side by side, so that on a 390 px phone every label and weight is at least 11 pt
    in a figure at most 5.8 in wide. The colour bar is labelled "weight A_ij" unless colorbar_label says otherwise.
    """
    masks = masks or {}
    colorbar_label = r"weight $A_{ij}$" if colorbar_label is None else colorbar_label
    arrays = {name: to_numpy(M) for name, M in maps.items()}
    n_rows, n_cols = next(iter(arrays.values())).shape
    k = len(arrays)
    fig, axes = figure(min(5.8, width), k * (0.45 * n_rows + 1.7) + (0.5 if title else 0.1), nrows=k, squeeze=False)
    with plt.rc_context(STYLE):
        for ax, (name, M) in zip(axes[:, 0], arrays.items()):
            im = ax.imshow(M, cmap=HEATMAP, vmin=0.0, vmax=1.0, aspect="equal")
            mask = masks.get(name)
            blocked = (
                ~np.broadcast_to(np.asarray(mask, dtype=bool), M.shape)
                if mask is not None
                else np.zeros(M.shape, dtype=bool)
            )
            for i, j in np.argwhere(blocked):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.55", edgecolor="white", lw=1))
                ax.text(j, i, "✕", ha="center", va="center", fontsize=12, color="white")
            if n_rows * n_cols <= 64:
                _write_cells(ax, M, _weight_text, im, skip=blocked)
            ax.set_xticks(range(n_cols))
            ax.set_yticks(range(n_rows))
            ax.set_xticklabels(words[:n_cols], rotation=45, ha="right")
            ax.set_yticklabels(words[:n_rows])
            colour_words(ax.get_xticklabels(), words)
            colour_words(ax.get_yticklabels(), words)
            ax.tick_params(length=0)
            ax.set_title(name, fontsize=12)
            ax.set_xlabel("key (word $j$)")
            ax.set_ylabel("query (word $i$)")
        bar = fig.colorbar(im, ax=list(axes[:, 0]), shrink=0.6)
        bar.set_label(colorbar_label)
        if title:
            fig.suptitle(wrap(title, 44))
    return fig


def labelled_panels(
    panels: Sequence[tuple[str, Any, Sequence[str], Sequence[str] | None]],
    ncols: int | None = None,
    title: str = "",
    vmin: float | None = None,
    vmax: float | None = None,
    fmt: str = "{:.2f}",
) -> Any:
    """Matrices as annotated heatmaps, each panel (title, M, row labels, column labels), word rows in their colours (the word order and learning the lenses chapters).

    The panels stand one above the other, or in the ncols columns asked for when those fit a phone
    (5.8 in, 11 pt text); when they do not, each group of ncols panels becomes one column: with six
    panels and ncols=3, the first three go down the left column and the last three down the right.
    """
    mats = [to_numpy(M) for _, M, _, _ in panels]
    widest = max(M.shape[1] for M in mats)
    tallest = max(M.shape[0] for M in mats)
    nrows, ncols, transposed = _panel_grid(len(panels), ncols, widest)
    width = min(_PHONE_WIDTH_IN, ncols * (0.8 + 0.4 * widest) + 0.9) if ncols > 1 else 5.2
    fig, axes = figure(
        width, (0.6 if title else 0.1) + nrows * (0.36 * tallest + 1.5), ncols=ncols, nrows=nrows, squeeze=False
    )
    order = list(axes.T.flat) if transposed else list(axes.flat)
    cmap, lo, hi = colour_scale(
        min(float(M.min()) for M in mats) if vmin is None else vmin,
        max(float(M.max()) for M in mats) if vmax is None else vmax,
    )
    with plt.rc_context(STYLE):
        for ax, (name, _, rows, cols), M in zip(order, panels, mats):
            im = ax.imshow(M, cmap=cmap, vmin=lo, vmax=hi, aspect="auto")
            ax.set_yticks(range(M.shape[0]))
            ax.set_yticklabels(rows)
            ax.set_xticks(range(M.shape[1]))
            ax.set_xticklabels(
                cols if cols is not None else range(M.shape[1]),
                rotation=45 if M.shape[1] > 3 else 0,
                ha="right" if M.shape[1] > 3 else "center",
            )
            ax.tick_params(length=0)
            ax.set_title(name, fontsize=12)
            colour_words(ax.get_yticklabels())
            if M.size <= 100:
                _write_cells(ax, M, fmt, im)
        for ax in order[len(panels) :]:
            ax.axis("off")
        fig.colorbar(im, ax=order[: len(panels)], shrink=0.6 if nrows > 1 else 0.85)
        if title:
            fig.suptitle(wrap(title, 40 if width < 5.5 else 44))
    return fig
