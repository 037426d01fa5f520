"""Figures of grids of numbers: matrices, heatmaps, a product's cell, shapes, attention maps (chapters 2-14)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle
from matplotlib.path import Path

from .style import (
    _PHONE_WIDTH_IN,
    BLUE,
    GREEN,
    HEATMAP,
    ORANGE,
    PALETTE,
    STYLE,
    VERMILLION,
    YELLOW,
    _box,
    _figure,
    _np,
    _panel_grid,
    _rows_cols,
    _tint,
    _typeset,
    _wrap,
    colour_words,
    math_label,
    word_colour,
)


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
    """Draw a matrix as a table of numbers, optionally naming its two sides and highlighting parts (chapter 2)."""
    M = _np(M)
    if M.ndim == 1:
        M = M[None, :]
    rows, cols = M.shape
    if ax is None:
        fig, ax = _figure(min(5.8, max(3.0, 0.9 * cols + 1.8)), max(2.2, 0.6 * rows + 1.4))  # phone: <= 5.8 in
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
                ax.text(
                    j + 0.5,
                    rows - 0.5 - i,
                    fmt.format(M[i, j]),
                    ha="center",
                    va="center",
                    fontsize=12,
                )
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
    """Words on the left, arrows into the rows of X on the right: stacking vectors into a matrix (chapter 2)."""
    X = _np(X)
    n, d = X.shape
    fig, axes = _figure(
        5.8, 1.3 + 0.7 * n, ncols=2, gridspec_kw={"width_ratios": [1, 2.2]}
    )  # <= 5.8 in: legible on a phone
    left, right = axes
    with plt.rc_context(STYLE):
        left.set_xlim(0, 1)
        left.set_ylim(0, n)
        left.axis("off")
        for i, w in enumerate(sentence_words):
            y = n - 0.5 - i
            left.text(
                0.0,
                y,
                f"“{w}”",
                fontsize=14,
                va="center",
                color=word_colour(w),
                fontweight="bold",
            )
            left.annotate(
                "",
                xy=(1.0, y),
                xytext=(0.62, y),
                arrowprops={"arrowstyle": "-|>", "color": "0.4", "lw": 1.5},
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


def _write_cells(
    ax: Any, M: np.ndarray, fmt: str | Callable[[float], str], lo: float, hi: float, skip: Any = None
) -> None:
    """Write each cell's number in it (fmt: a format string or a function), black on the bright end
    of the colour map (lo to hi), white on the dark end; cells where `skip` is True stay empty.

    A tiny negative number rounds to "-0.00"; it is written as 0.00.
    """
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if skip is not None and skip[i, j]:
                continue
            text = fmt(M[i, j]) if callable(fmt) else fmt.format(M[i, j])
            if text.startswith("-") and float(text) == 0:
                text = text[1:]
            bright = (M[i, j] - lo) / (hi - lo + 1e-12) > 0.6
            ax.text(j, i, text, ha="center", va="center", fontsize=11, color="black" if bright else "white")


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
    """Colour each cell of a matrix (scores S or weights A) and label its rows and columns by word (chapter 7).

    size=(width, height) in inches overrides the automatic size; colour_labels=True writes each
    row and column label in its word's colour (plot.word_colour), as chapters 9 and 10 do.
    """
    M = _np(M)
    rows, cols = M.shape
    width, height = size or (
        min(5.8, max(4.0, 0.75 * cols + 2.5)),
        min(5.0, max(3.2, 0.6 * rows + 1.8)),
    )  # <= 5.8 in: phone
    fig, ax = _figure(width, height)
    with plt.rc_context(STYLE):
        im = ax.imshow(M, cmap=HEATMAP, vmin=vmin, vmax=vmax, aspect="auto")
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.set_xticklabels(
            col_labels if col_labels is not None else range(cols),
            rotation=30 if cols > 4 else 0,
        )
        ax.set_yticklabels(row_labels if row_labels is not None else range(rows))
        if colour_labels:
            colour_words(ax.get_xticklabels() + ax.get_yticklabels())
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        if annotate and rows * cols <= 100:
            _write_cells(ax, M, fmt, *im.get_clim())
        bar = fig.colorbar(im, ax=ax, shrink=0.85)
        if colorbar_label:
            bar.set_label(colorbar_label)
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
    for i in range(rows):
        for j in range(cols):
            face = faces.get((i, j), "white")
            ax.add_patch(
                Rectangle(
                    (x0 + j, top - 1 - i),
                    1,
                    1,
                    facecolor=face,
                    edgecolor="0.35",
                    lw=1,
                    zorder=1,
                )
            )
            ax.text(
                x0 + j + 0.5,
                top - 0.5 - i,
                fmt.format(M[i, j]),
                ha="center",
                va="center",
                fontsize=fontsize,
                zorder=4,
                bbox={"boxstyle": "round,pad=0.12", "facecolor": face, "edgecolor": "none"},
            )
        ax.text(
            x0 - 0.15,
            top - 0.5 - i,
            str(i),
            ha="right",
            va="center",
            fontsize=11,
            color="0.3",
        )
    for j in range(cols):
        ax.text(
            x0 + j + 0.5,
            top + 0.1,
            str(j),
            ha="center",
            va="bottom",
            fontsize=11,
            color="0.3",
        )
    ax.text(
        x0 + cols / 2,
        top + 0.72,
        f"${name}$   {rows}×{cols}",
        ha="center",
        va="bottom",
        fontsize=13,
    )


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
    """Show M, N and MN with row i of M, column j of N and the cell (i, j) they make highlighted (chapter 4).

    The names are typeset as mathtext, e.g. ``left_name="Q", right_name=r"K^{\\mathsf{T}}"``;
    the product is named by writing the two names side by side unless ``result_name`` is given.
    """
    M, N = _np(M), _np(N)
    C = M @ N
    result_name = result_name if result_name is not None else f"{left_name}{right_name}"
    gap = 1.4
    xs = [0.0, M.shape[1] + gap, M.shape[1] + N.shape[1] + 2 * gap]
    width = xs[2] + C.shape[1]
    tall = max(M.shape[0], N.shape[0])
    inch = min(0.52, 5.8 / (width + 0.8))  # at most 5.8 in wide, so its 11 pt text stays legible on a phone
    fig, ax = _figure(inch * (width + 0.8), inch * (tall + 2.8) + 0.45)  # room for the two-line title
    with plt.rc_context(STYLE):
        light = "#cfe3f2"
        longest = max(len(f"{v:g}") for A in (M, N, C) for v in A.flat)
        size = max(11.0, min(13.0, 0.85 * inch * 72 / (0.62 * longest)))  # numbers fit their cells
        _cells(
            ax,
            M,
            xs[0],
            0.0,
            left_name,
            faces={(i, k): light for k in range(M.shape[1])},
            fontsize=size,
        )
        _cells(
            ax,
            N,
            xs[1],
            0.0,
            right_name,
            faces={(k, j): light for k in range(N.shape[0])},
            fontsize=size,
        )
        _cells(ax, C, xs[2], 0.0, result_name, faces={(i, j): YELLOW}, fontsize=size)
        ax.text(xs[2] - 0.85, -C.shape[0] / 2, "=", ha="center", va="center", fontsize=18)
        ax.set_xlim(-0.6, width + 0.1)
        ax.set_ylim(-tall - 0.1, 1.45)
        ax.set_aspect("equal")
        ax.axis("off")
        terms = " + ".join(f"{M[i, k]:g}·{N[k, j]:g}" for k in range(M.shape[1]))
        fig.suptitle(
            title or f"row {i} times column {j}:\ncell ({i}, {j}) = {terms} = {C[i, j]:g}",
            fontsize=13,
        )
    return fig


def projections(n: int, d_model: int, d_k: int, d_v: int) -> Any:
    """X passing through the three learned lenses W_Q, W_K, W_V into Q, K and V, shapes on the arrows (chapter 5)."""
    fig, ax = _figure(5.8, 3.9)  # <= 5.8 in: its 12 pt text stays legible on a phone
    with plt.rc_context(STYLE):
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 6)
        ax.axis("off")
        _box(ax, 0.3, 2.4, 1.8, 1.2, f"$X$\n{n}×{d_model}", "0.85")
        outs = [
            ("Q", "W_Q", d_k, 4.6, BLUE),
            ("K", "W_K", d_k, 2.6, ORANGE),
            ("V", "W_V", d_v, 0.6, GREEN),
        ]
        for name, w, width, y, colour in outs:
            _box(ax, 4.2, y, 1.7, 1.0, f"${w}$\n{d_model}×{width}", colour, alpha=0.35)
            _box(ax, 7.8, y, 1.8, 1.0, f"${name}$\n{n}×{width}", colour, alpha=0.7)
            ax.add_patch(
                FancyArrowPatch(
                    (2.1, 3.0),
                    (4.2, y + 0.5),
                    arrowstyle="-|>",
                    mutation_scale=16,
                    color="0.3",
                    lw=1.5,
                )
            )
            ax.add_patch(
                FancyArrowPatch(
                    (5.9, y + 0.5),
                    (7.8, y + 0.5),
                    arrowstyle="-|>",
                    mutation_scale=16,
                    color="0.3",
                    lw=1.5,
                )
            )
            ax.text(6.85, y + 0.62, f"$X{w}$", ha="center", fontsize=12)
        ax.set_title("One $X$, three lenses:\n$Q = XW_Q$,  $K = XW_K$,  $V = XW_V$")
    return fig


def transpose_reflection(M: Any, name: str = "K", row: int = 0) -> Any:
    """M beside Mᵀ at one scale, the chosen row of M traced to the same column of Mᵀ, the diagonal dashed (chapter 6)."""
    M = _np(M)
    rows, cols = M.shape
    gap = 2.6
    x1 = cols + gap
    tint = _tint(ORANGE, 0.35)
    fig, ax = _figure(min(7.8, 0.56 * (x1 + rows + 0.8)), 0.56 * (max(rows, cols) + 3.2))
    with plt.rc_context(STYLE):
        _cells(ax, M, 0.0, 0.0, name, faces={(row, k): tint for k in range(cols)})
        _cells(
            ax,
            M.T,
            x1,
            0.0,
            f"{name}^{{\\mathsf{{T}}}}",
            faces={(k, row): tint for k in range(cols)},
        )
        for x0, (h, w) in ((0.0, (rows, cols)), (x1, (cols, rows))):
            k = min(h, w)  # the diagonal: cells (0, 0), (1, 1), ... drawn under the numbers
            ax.plot(
                [x0, x0 + k],
                [0, -k],
                ls=(0, (4, 3)),
                color=VERMILLION,
                lw=2,
                zorder=2,
                label="diagonal (row number = column number)" if x0 == 0 else None,
            )
        end = (
            x1 + row + 0.5,
            0.42,
        )  # just above column `row` of Mᵀ, coming down into it
        trace = Path(
            [(cols + 0.1, -row - 0.5), (end[0], 1.25), end],
            [Path.MOVETO, Path.CURVE3, Path.CURVE3],
        )
        ax.add_patch(
            FancyArrowPatch(
                path=trace,
                arrowstyle="-|>",
                mutation_scale=18,
                color=ORANGE,
                lw=2.5,
                zorder=5,
            )
        )
        ax.text(
            cols + gap / 2,
            -row - 1.25,
            f"row {row}\n→ column {row}",
            ha="center",
            va="top",
            fontsize=11,
            color="0.2",
        )
        ax.set_xlim(-0.6, x1 + rows + 0.1)
        ax.set_ylim(-max(rows, cols) - 0.2, 1.45)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.02), frameon=False, fontsize=11)
        fig.suptitle(f"Row {row} of ${name}$ stands up as column {row} of ${name}^{{\\mathsf{{T}}}}$")
    return fig


def before_after(
    X: Any,
    Z: Any,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    names: tuple[str, str] = (
        "$X$: each word alone",
        "$Z = AV$: each word after attention",
    ),
    title: str = "",
) -> Any:
    """X above Z, the same rows and columns, each row labelled in its word's colour: what attention changed (chapter 10)."""
    X, Z = _np(X), _np(Z)
    rows, cols = X.shape
    fig, axes = _figure(4.6, 1.6 + 1.05 * rows, nrows=2)
    lo, hi = float(min(X.min(), Z.min())), float(max(X.max(), Z.max()))
    with plt.rc_context(STYLE):
        for ax, M, name in zip(axes, (X, Z), names):
            ax.imshow(M, cmap=HEATMAP, vmin=lo, vmax=hi, aspect="auto")
            ax.set_xticks(range(cols))
            ax.set_xticklabels(col_labels)
            ax.set_yticks(range(rows))
            ax.set_yticklabels(row_labels)
            ax.xaxis.set_ticks_position("top")
            ax.tick_params(length=0)
            colour_words(ax.get_xticklabels() + ax.get_yticklabels())
            for side in ("left", "bottom", "top", "right"):
                ax.spines[side].set_visible(False)
            _write_cells(ax, M, "{:.2f}", lo, hi)
            ax.set_title(name, fontsize=12, pad=22)
        if title:
            fig.suptitle(title)
    return fig


def shape_blocks(
    lines: Sequence[dict[str, Any]],
    captions: dict[str, str] | None = None,
    colours: dict[str, str] | None = None,
    title: str = "",
    gap: float = 2.8,
    max_width: float = 6.4,
) -> Any:
    """Each array as an empty grid of its rows × columns, named, with its shape underneath (chapter 3).

    Names and captions are typeset: "W_Q" and "d_model × d_k" are drawn with real subscripts.
    The figure is at most `max_width` inches wide, so it stays legible on a phone.
    """
    captions, colours = captions or {}, colours or {}
    shapes = [[(name, _rows_cols(_np(M))) for name, M in line.items()] for line in lines]
    width = max(sum(c for _, (_, c) in line) + gap * (len(line) - 1) for line in shapes)
    inch = min(0.42, (max_width - 0.6) / (width + 1.0))  # inches per cell
    t = 0.17 / inch  # the height of a line of text, in cells
    above, below = 1.6 * t, 3.0 * t
    heights = [max(r for _, (r, _) in line) for line in shapes]
    total = sum(heights) + (above + below) * len(shapes)
    fig, ax = _figure(0.6 + inch * (width + 1.0), 0.6 + inch * (total + 0.4))
    with plt.rc_context(STYLE):
        top, k = total, 0
        for line, h in zip(shapes, heights):
            x, base = 0.0, top - above - h
            for name, (r, c) in line:
                colour = colours.get(name, PALETTE[k % len(PALETTE)])
                k += 1
                y0 = base + h - r  # blocks in one line share their top edge
                for i in range(r):
                    for j in range(c):
                        ax.add_patch(
                            Rectangle(
                                (x + j, y0 + i),
                                1,
                                1,
                                facecolor=colour,
                                alpha=0.45,
                                edgecolor="0.3",
                                lw=0.8,
                            )
                        )
                ax.text(
                    x + c / 2,
                    base + h + 0.3 * t,
                    math_label(name),
                    ha="center",
                    va="bottom",
                    fontsize=15,
                )
                ax.text(
                    x + c / 2,
                    y0 - 0.3 * t,
                    f"{r}×{c}",
                    ha="center",
                    va="top",
                    fontsize=12,
                )
                if name in captions:
                    ax.text(
                        x + c / 2,
                        y0 - 1.45 * t,
                        math_label(captions[name]),
                        ha="center",
                        va="top",
                        fontsize=13,
                        color="0.25",
                    )
                x += c + gap
            top = base - below
        ax.set_xlim(-0.5, width + 0.5)
        ax.set_ylim(top + 0.2 * t, total + 0.2)
        ax.set_aspect("equal")
        ax.axis("off")
        if title:
            ax.set_title(title)
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
    """Matrices that share their rows (e.g. W_Q, W_K, W_V) side by side, each row and column named (chapter 5).

    Names such as "W_Q" are typeset ($W_Q$). With highlight_nonzero the cells that are not 0 are
    yellow (the entries of a lens that carry a feature); with word_rows the row labels are words,
    each in its course colour.
    """
    col_labels = col_labels or {}
    arrays = {name: _np(M) for name, M in mats.items()}
    widths = [M.shape[1] for M in arrays.values()]
    rows = max(M.shape[0] for M in arrays.values())
    cell = min(0.7, (5.8 - 1.3 - 0.3 * len(arrays)) / sum(widths))  # at most 5.8 in wide: legible on a phone
    fig, axes = _figure(
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
            fig.suptitle(_wrap(title))
    return fig


def fit_table(
    M: Any,
    sentence_words: Sequence[str],
    title: str = "How well query $i$ fits key $j$",
) -> Any:
    """The table of how well each word's query fits each word's key, every word in its colour (chapter 5)."""
    fig = heatmap(
        M,
        row_labels=list(sentence_words),
        col_labels=list(sentence_words),
        title=title,
        xlabel="key of word $j$ (the answerer)",
        ylabel="query of word $i$ (the asker)",
    )
    ax = fig.axes[0]
    colour_words(ax.get_xticklabels() + ax.get_yticklabels())
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
    """Attention matrices one above the other, words coloured, masked cells shaded and marked ✕ (chapters 11 and 12).

    Stacked, not side by side, so that on a 390 px phone every label and weight is at least 11 pt
    in a figure at most 5.8 in wide. The colour bar is labelled "weight A_ij" unless colorbar_label says otherwise.
    """
    masks = masks or {}
    colorbar_label = r"weight $A_{ij}$" if colorbar_label is None else colorbar_label
    arrays = {name: _np(M) for name, M in maps.items()}
    n_rows, n_cols = next(iter(arrays.values())).shape
    k = len(arrays)
    fig, axes = _figure(
        min(5.8, width),
        k * (0.45 * n_rows + 1.7) + (0.5 if title else 0.1),
        nrows=k,
        squeeze=False,
    )
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
                _write_cells(ax, M, _weight_text, 0.0, 1.0, skip=blocked)
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
            fig.suptitle(_wrap(title, 44))
    return fig


def labelled_panels(
    panels: Sequence[tuple[str, Any, Sequence[str], Sequence[str] | None]],
    ncols: int | None = None,
    title: str = "",
    vmin: float | None = None,
    vmax: float | None = None,
    fmt: str = "{:.2f}",
) -> Any:
    """Matrices as annotated heatmaps, each panel (title, M, row labels, column labels), word rows in their colours (chapters 13-14).

    The panels stand one above the other, or in the ncols columns asked for when those fit a phone
    (5.8 in, 11 pt text); when they do not, each group of ncols panels becomes one column: with six
    panels and ncols=3, the first three go down the left column and the last three down the right.
    """
    mats = [_np(M) for _, M, _, _ in panels]
    widest = max(M.shape[1] for M in mats)
    tallest = max(M.shape[0] for M in mats)
    nrows, ncols, transposed = _panel_grid(len(panels), ncols, widest)
    width = min(_PHONE_WIDTH_IN, ncols * (0.8 + 0.4 * widest) + 0.9) if ncols > 1 else 5.2
    fig, axes = _figure(
        width,
        (0.6 if title else 0.1) + nrows * (0.36 * tallest + 1.5),
        ncols=ncols,
        nrows=nrows,
        squeeze=False,
    )
    order = list(axes.T.flat) if transposed else list(axes.flat)
    lo = min(float(M.min()) for M in mats) if vmin is None else vmin
    hi = max(float(M.max()) for M in mats) if vmax is None else vmax
    with plt.rc_context(STYLE):
        for ax, (name, _, rows, cols), M in zip(order, panels, mats):
            im = ax.imshow(M, cmap=HEATMAP, vmin=lo, vmax=hi, aspect="auto")
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
                _write_cells(ax, M, fmt, lo, hi)
        for ax in order[len(panels) :]:
            ax.axis("off")
        fig.colorbar(im, ax=order[: len(panels)], shrink=0.6 if nrows > 1 else 0.85)
        if title:
            fig.suptitle(_wrap(title, 40 if width < 5.5 else 44))
    return fig


def word_heatmap(M: Any, row_labels: Sequence[str], col_labels: Sequence[str], **heatmap_kw: Any) -> Any:
    """plot.heatmap with every word label (e.g. "2 sat") on both axes in that word's colour (chapters 13-14)."""
    return heatmap(M, row_labels=row_labels, col_labels=col_labels, colour_labels=True, **heatmap_kw)
