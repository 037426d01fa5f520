"""Figures of matrices as tables of numbers: a matrix with named sides, words stacked into X, matrices
side by side, the cell of a product, a matrix beside its transpose."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle
from matplotlib.path import Path

from ..arrays import to_numpy
from .style import ORANGE, STYLE, VERMILLION, YELLOW, colour_words, figure, math_label, tint, word_colour, wrap


def _typeset(name: str) -> str:
    """A matrix name as mathtext: "W_Q" becomes "$W_Q$"; a name already in $...$ is kept (the query key value chapter)."""
    return name if "$" in name else f"${name}$"


def grid(
    M: Any,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    title: str = "",
    rows_name: str | None = None,
    cols_name: str | None = None,
    highlight_rows: Sequence[int] = (),
    highlight_cols: Sequence[int] = (),
    highlight_cells: Sequence[tuple[int, int]] = (),
    ax: Any = None,
    fmt: str = "{:.2g}",
) -> Any:
    """Draw a matrix as a table of numbers, optionally naming its two sides and highlighting parts (the matrix x chapter)."""
    M = to_numpy(M)
    if M.ndim == 1:
        M = M[None, :]
    rows, cols = M.shape
    if ax is None:
        fig, ax = figure(min(5.8, max(3.0, 0.9 * cols + 1.8)), max(2.2, 0.6 * rows + 1.4))  # phone: <= 5.8 in
    else:
        fig = ax.figure
    with plt.rc_context(STYLE):
        for i in range(rows):
            for j in range(cols):
                face = "white"
                if i in highlight_rows or j in highlight_cols:
                    face = "#cfe3f2"
                if (i, j) in highlight_cells:
                    face = YELLOW
                ax.add_patch(Rectangle((j, rows - 1 - i), 1, 1, facecolor=face, edgecolor="0.35", lw=1))
                ax.text(j + 0.5, rows - 0.5 - i, fmt.format(M[i, j]), ha="center", va="center", fontsize=12)
        ax.set_xlim(-0.03, cols + 0.03)  # a little room so the outer borders are not clipped
        ax.set_ylim(-0.03, rows + 0.03)
        ax.set_aspect("equal")
        ax.set_xticks([j + 0.5 for j in range(cols)])
        ax.set_xticklabels(col_labels if col_labels is not None else [str(j) for j in range(cols)])
        ax.set_yticks([rows - 0.5 - i for i in range(rows)])
        ax.set_yticklabels(row_labels if row_labels is not None else [str(i) for i in range(rows)])
        ax.tick_params(length=0)
        ax.xaxis.set_ticks_position("top")
        for side in ("left", "bottom", "top", "right"):
            ax.spines[side].set_visible(False)
        if cols_name:
            ax.set_xlabel(f"{math_label(cols_name)} = {cols} columns", labelpad=6)
        if rows_name:
            ax.set_ylabel(f"{math_label(rows_name)} = {rows} rows", labelpad=6)
        if title:
            ax.set_title(title, pad=24)  # room for the column labels on top
    return fig


def stacked_rows(
    sentence_words: Sequence[str],
    X: Any,
    title: str = "A sentence becomes the matrix X",
    col_labels: Sequence[str] | None = None,
    rows_name: str | None = None,
    cols_name: str | None = "d_model",
) -> Any:
    """Words on the left, arrows into the rows of X on the right: stacking vectors into a matrix (the matrix x chapter)."""
    X = to_numpy(X)
    n, d = X.shape
    fig, axes = figure(
        5.8, 1.3 + 0.7 * n, ncols=2, gridspec_kw={"width_ratios": [1, 2.2]}
    )  # <= 5.8 in: legible on a phone
    left, right = axes
    with plt.rc_context(STYLE):
        left.set_xlim(0, 1)
        left.set_ylim(0, n)
        left.axis("off")
        for i, w in enumerate(sentence_words):
            y = n - 0.5 - i
            left.text(0.0, y, f"“{w}”", fontsize=14, va="center", color=word_colour(w), fontweight="bold")
            left.annotate(
                "", xy=(1.0, y), xytext=(0.62, y), arrowprops={"arrowstyle": "-|>", "color": "0.4", "lw": 1.5}
            )
        grid(
            X,
            row_labels=[f"row {i}" for i in range(n)],
            col_labels=list(col_labels) if col_labels is not None else [str(j) for j in range(d)],
            rows_name=rows_name,
            cols_name=cols_name,
            ax=right,
        )
        for i, w in enumerate(sentence_words):  # row i is tinted in its word's colour
            for j in range(d):
                right.patches[i * d + j].set_facecolor(matplotlib.colors.to_rgba(word_colour(w), 0.18))
        colour_words(right.get_yticklabels(), sentence_words)
        right.tick_params(axis="x", labelsize=11)
        fig.suptitle(title)
    return fig


def labelled_grids(
    mats: dict[str, Any],
    row_labels: Sequence[str],
    col_labels: dict[str, Sequence[str]] | None = None,
    title: str = "",
    highlight_nonzero: bool = True,
    word_rows: bool = False,
    fmt: str = "{:g}",
) -> Any:
    """Matrices that share their rows (e.g. W_Q, W_K, W_V) side by side, each row and column named (the query key value chapter).

    Names such as "W_Q" are typeset ($W_Q$). With highlight_nonzero the cells that are not 0 are
    yellow (the entries of a lens that carry a feature); with word_rows the row labels are words,
    each in its course colour.
    """
    col_labels = col_labels or {}
    arrays = {name: to_numpy(M) for name, M in mats.items()}
    widths = [M.shape[1] for M in arrays.values()]
    rows = max(M.shape[0] for M in arrays.values())
    cell = min(0.7, (5.8 - 1.3 - 0.3 * len(arrays)) / sum(widths))  # at most 5.8 in wide: legible on a phone
    fig, axes = figure(
        1.3 + cell * sum(widths) + 0.3 * len(arrays),
        2.4 + cell * rows,
        ncols=len(arrays),
        gridspec_kw={"width_ratios": widths},
        squeeze=False,
    )
    with plt.rc_context(STYLE):
        for k, (ax, (name, M)) in enumerate(zip(axes[0], arrays.items())):
            nonzero = [(int(i), int(j)) for i, j in np.argwhere(M != 0)] if highlight_nonzero else []
            grid(
                M,
                row_labels=row_labels if k == 0 else [""] * M.shape[0],
                col_labels=col_labels.get(name),
                title=f"{_typeset(name)}\n{M.shape[0]}×{M.shape[1]}",
                highlight_cells=nonzero,
                ax=ax,
                fmt=fmt,
            )
            ax.tick_params(axis="x", labelsize=11, labelrotation=90)  # long slot names stand up, one per column
            ax.title.set_fontsize(12)
            ax.set_xlim(-0.03, M.shape[1] + 0.03)  # keep the outer cell borders inside the axes
            ax.set_ylim(-0.03, M.shape[0] + 0.03)
            if word_rows and k == 0:
                colour_words(ax.get_yticklabels())
        if title:
            fig.suptitle(wrap(title))
    return fig


def _cells(
    ax: Any,
    M: np.ndarray,
    x0: float,
    top: float,
    name: str,
    fmt: str = "{:g}",
    faces: dict[tuple[int, int], Any] | None = None,
    fontsize: float = 13,
) -> None:
    """Draw M as cells of side 1 with its top-left corner at (x0, top), row and column numbers
    beside it and its typeset name and shape above, so several grids in one axes share one scale."""
    faces = faces or {}
    rows, cols = M.shape
    number = {"ha": "center", "va": "center", "fontsize": fontsize, "zorder": 4}
    index = {"fontsize": 11, "color": "0.3"}
    for i in range(rows):
        for j in range(cols):
            face = faces.get((i, j), "white")
            ax.add_patch(Rectangle((x0 + j, top - 1 - i), 1, 1, facecolor=face, edgecolor="0.35", lw=1, zorder=1))
            box = {"boxstyle": "round,pad=0.12", "facecolor": face, "edgecolor": "none"}
            ax.text(x0 + j + 0.5, top - 0.5 - i, fmt.format(M[i, j]), bbox=box, **number)
        ax.text(x0 - 0.15, top - 0.5 - i, str(i), ha="right", va="center", **index)
    for j in range(cols):
        ax.text(x0 + j + 0.5, top + 0.1, str(j), ha="center", va="bottom", **index)
    ax.text(x0 + cols / 2, top + 0.72, f"${name}$   {rows}×{cols}", ha="center", va="bottom", fontsize=13)


def matmul_cell(
    M: Any,
    N: Any,
    i: int,
    j: int,
    title: str = "",
    *,
    left_name: str = "M",
    right_name: str = "N",
    result_name: str | None = None,
) -> Any:
    """Show M, N and MN with row i of M, column j of N and the cell (i, j) they make highlighted (the matrix multiplication chapter).

    The names are typeset as mathtext, e.g. ``left_name="Q", right_name=r"K^{\\mathsf{T}}"``;
    the product is named by writing the two names side by side unless ``result_name`` is given.
    """
    M, N = to_numpy(M), to_numpy(N)
    C = M @ N
    result_name = result_name if result_name is not None else f"{left_name}{right_name}"
    gap = 1.4
    xs = [0.0, M.shape[1] + gap, M.shape[1] + N.shape[1] + 2 * gap]
    width = xs[2] + C.shape[1]
    tall = max(M.shape[0], N.shape[0])
    inch = min(0.52, 5.8 / (width + 0.8))  # at most 5.8 in wide, so its 11 pt text stays legible on a phone
    fig, ax = figure(inch * (width + 0.8), inch * (tall + 2.8) + 0.45)  # room for the two-line title
    with plt.rc_context(STYLE):
        light = "#cfe3f2"
        longest = max(len(f"{v:g}") for A in (M, N, C) for v in A.flat)
        size = max(11.0, min(13.0, 0.85 * inch * 72 / (0.62 * longest)))  # numbers fit their cells
        _cells(ax, M, xs[0], 0.0, left_name, faces={(i, k): light for k in range(M.shape[1])}, fontsize=size)
        _cells(ax, N, xs[1], 0.0, right_name, faces={(k, j): light for k in range(N.shape[0])}, fontsize=size)
        _cells(ax, C, xs[2], 0.0, result_name, faces={(i, j): YELLOW}, fontsize=size)
        ax.text(xs[2] - 0.85, -C.shape[0] / 2, "=", ha="center", va="center", fontsize=18)
        ax.set_xlim(-0.6, width + 0.1)
        ax.set_ylim(-tall - 0.1, 1.45)
        ax.set_aspect("equal")
        ax.axis("off")
        terms = " + ".join(f"{M[i, k]:g}·{N[k, j]:g}" for k in range(M.shape[1]))
        fig.suptitle(title or f"row {i} times column {j}:\ncell ({i}, {j}) = {terms} = {C[i, j]:g}", fontsize=13)
    return fig


def _row_to_column(ax: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    """An orange arrow from the end of a row of M up and over into the top of the same column of Mᵀ."""
    trace = Path([start, (end[0], 1.25), end], [Path.MOVETO, Path.CURVE3, Path.CURVE3])
    ax.add_patch(FancyArrowPatch(path=trace, arrowstyle="-|>", mutation_scale=18, color=ORANGE, lw=2.5, zorder=5))


def transpose_reflection(M: Any, name: str = "K", row: int = 0) -> Any:
    """M beside Mᵀ at one scale, the chosen row of M traced to the same column of Mᵀ, the diagonal dashed (the transpose chapter)."""
    M = to_numpy(M)
    rows, cols = M.shape
    gap = 2.6
    x1 = cols + gap
    light = tint(ORANGE, 0.35)
    fig, ax = figure(min(7.8, 0.56 * (x1 + rows + 0.8)), 0.56 * (max(rows, cols) + 3.2))
    with plt.rc_context(STYLE):
        _cells(ax, M, 0.0, 0.0, name, faces={(row, k): light for k in range(cols)})
        _cells(ax, M.T, x1, 0.0, f"{name}^{{\\mathsf{{T}}}}", faces={(k, row): light for k in range(cols)})
        for x0, (h, w) in ((0.0, (rows, cols)), (x1, (cols, rows))):
            k = min(h, w)  # the diagonal: cells (0, 0), (1, 1), ... drawn under the numbers
            label = "diagonal (row number = column number)" if x0 == 0 else None
            ax.plot([x0, x0 + k], [0, -k], ls=(0, (4, 3)), color=VERMILLION, lw=2, zorder=2, label=label)
        _row_to_column(ax, (cols + 0.1, -row - 0.5), (x1 + row + 0.5, 0.42))
        ax.text(
            cols + gap / 2, -row - 1.25, f"row {row}\n→ column {row}", ha="center", va="top", fontsize=11, color="0.2"
        )
        ax.set_xlim(-0.6, x1 + rows + 0.1)
        ax.set_ylim(-max(rows, cols) - 0.2, 1.45)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.02), frameon=False, fontsize=11)
        fig.suptitle(f"Row {row} of ${name}$ stands up as column {row} of ${name}^{{\\mathsf{{T}}}}$")
    return fig
