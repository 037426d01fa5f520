"""Every figure of the course, drawn from code with matplotlib.

Each function returns a matplotlib Figure; in a notebook, `fig = plot.arrows(...)` shows it.
The palette is Okabe–Ito (safe for colour-blind readers), heatmaps use viridis,
and the figures are sized and lettered to stay readable on a phone.
"""
from __future__ import annotations

from typing import Any, Sequence

import re

import matplotlib

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle
from matplotlib.path import Path

from .core import is_torch

# Okabe & Ito (2008): distinguishable with every common colour-vision deficiency.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = PALETTE
HEATMAP = "viridis"

# One colour per word, the same in every chapter and every figure (chapter 1 onwards).
# Every colour is a mid tone (relative luminance 0.13 to 0.26): contrast at least 3.4 : 1 on white
# and at least 3.3 : 1 on a near-black page, so a bold word label reads in light and dark mode.
# Words that share a sentence in the course ("the kitten sat on the mat", "the dog drove a truck",
# "a puppy drove the car", ...) differ by at least 22 in CIELAB ΔE; tests/test_ch01.py checks both.
WORD_COLOURS: dict[str, str] = {
    "cat": "#0072B2", "kitten": "#C2408A", "dog": "#C26A00", "puppy": "#8C7E00",
    "car": "#D0401C", "truck": "#7A5BC7", "bike": "#1B8A9C",
    "sat": "#008A5C", "ran": "#4E8B1E", "drove": "#A0522D",
    "mat": "#9E7A3C", "road": "#7D6B4A", "on": "#3A6FE0",
    "the": "#767676", "a": "#8D6E8F",
}
# A word outside the vocabulary gets a steady colour of its own from these mid tones.
_OTHER_WORD_COLOURS = ["#0072B2", "#D0401C", "#008A5C", "#7A5BC7", "#C26A00", "#1B8A9C"]


def word_colour(word: str) -> str:
    """The colour of a word in every figure of the course (chapter 1)."""
    key = str(word).strip().strip("“”\"'").lower()
    if key in WORD_COLOURS:
        return WORD_COLOURS[key]
    return _OTHER_WORD_COLOURS[sum(map(ord, key)) % len(_OTHER_WORD_COLOURS)]


#: The course style, applied to every figure by _figure. Figures are shown as SVG (see
#: show_svg_inline below), so they are sharp at any width; dpi only sets the size of the
#: few raster parts (an imshow heatmap's cells) and of a PNG a reader saves by hand.
#: The background is transparent, so a figure takes the page's own background: white in the
#: light book and in JupyterLab, dark in the book's dark mode (where _static/phone.css turns
#: the black ink light).
STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
    "legend.facecolor": "white",
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.labelsize": 12,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 11,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "axes.spines.top": False,
    "axes.spines.right": False,
}


#: Saved SVG is the same bytes for the same drawing: no date, fixed element ids, glyphs as paths
#: (so a figure looks the same on a machine without matplotlib's fonts).
SVG_STYLE = {"svg.hashsalt": "attnlib", "svg.fonttype": "path"}


def show_svg_inline() -> bool:
    """In a Jupyter kernel, show every figure as SVG, sharp on a phone and a retina screen (chapter 1).

    Called once when attnlib.plot is imported. Outside a Jupyter kernel (a script, pytest, the
    bench) it does nothing and returns False. In a kernel it sets matplotlib_inline's
    `InlineBackend.figure_formats` (kept when the inline backend is first configured) and the
    display formatter now, so `fig` at the end of a cell stores image/svg+xml; `%config
    InlineBackend.figure_formats = {'png'}` in a notebook still switches back.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return False
    from matplotlib_inline.backend_inline import set_matplotlib_formats
    from matplotlib_inline.config import InlineBackend

    matplotlib.rcParams.update(SVG_STYLE)
    config = InlineBackend.instance()
    config.figure_formats = {"svg"}
    config.print_figure_kwargs = {**config.print_figure_kwargs, "metadata": {"Date": None}}
    set_matplotlib_formats("svg", **config.print_figure_kwargs)
    return True


def _figure(width: float = 6.0, height: float = 4.0, ncols: int = 1, nrows: int = 1,
            **subplots: Any) -> tuple[Any, Any]:
    """The one way every figure of the course is made: the course style, and inline display kept on."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained", **subplots)
        interactive = matplotlib.is_interactive()  # the first figure may switch on Jupyter's inline backend
    matplotlib.interactive(interactive)  # leaving rc_context would switch it off again and hide later figures
    return fig, ax


def _np(x: Any) -> np.ndarray:
    if is_torch(x):
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype=float)


# --- chapter 1: vectors as arrows ---------------------------------------------


def arrows(vectors: dict[str, Sequence[float]], title: str = "Words as arrows",
           xlabel: str = "first number (x)", ylabel: str = "second number (y)") -> Any:
    """Draw each 2-number vector as an arrow from the origin, labelled with its name (chapter 1)."""
    fig, ax = _figure(5.5, 5.0)
    with plt.rc_context(STYLE):
        pts = [_np(v) for v in vectors.values()]
        reach = max(1.0, max(float(np.abs(p).max()) for p in pts)) * 1.35
        label_y = _spread_out([float(v[1]) for v in pts], gap=0.075 * reach)
        for i, (name, v) in enumerate(zip(vectors, pts)):
            colour = word_colour(name)
            ax.annotate("", xy=(v[0], v[1]), xytext=(0, 0),
                        arrowprops=dict(arrowstyle="-|>", color=colour, lw=2.5, mutation_scale=18))
            x, y = v[0] + 0.05 * reach, label_y[i]
            ax.text(x, y, f"{name} {_vec_text(v)}", color=colour, fontsize=13, fontweight="bold", va="center")
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
    """One 2-number vector [x, y] as an arrow, with its two parts dashed: x to the right, then y up (chapter 1)."""
    x, y = (float(c) for c in _np(v)[:2])
    colour = word_colour(name)
    span = max(abs(x), abs(y), 1.0)
    fig, ax = _figure(5.5, 2.6)
    with plt.rc_context(STYLE):
        ax.plot([0, x], [0, 0], ls="--", color="0.35", lw=2)          # the x part: along the floor
        ax.plot([x, x], [0, y], ls="--", color="0.35", lw=2)          # the y part: straight up
        ax.annotate("", xy=(x, y), xytext=(0, 0),
                    arrowprops=dict(arrowstyle="-|>", color=colour, lw=3, mutation_scale=20))
        ax.plot([0], [0], "o", color="0.2", ms=5)
        ax.text(0, -0.06 * span, "start", ha="center", va="top", fontsize=12, color="0.3")
        ax.text(x / 2, -0.06 * span, f"x = {x:g}: {abs(x):g} to the {'right' if x >= 0 else 'left'}",
                ha="center", va="top", fontsize=13)
        ax.text(x + 0.04 * span, y / 2, f"y = {y:g}:\n{abs(y):g} {'up' if y >= 0 else 'down'}",
                ha="left", va="center", fontsize=13)
        ax.text(x * 0.45, y * 0.45 + 0.08 * span, f"{name} {_vec_text(np.array([x, y]))}", color=colour,
                fontsize=14, fontweight="bold", ha="center", va="bottom", rotation=0)
        ax.set_xlim(min(0.0, x) - 0.15 * span, max(0.0, x) + 0.45 * span)
        ax.set_ylim(min(0.0, y) - 0.3 * span, max(0.0, y) + 0.25 * span)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(title or f"The list {_vec_text(np.array([x, y]))} is a walk: right, then up")
    return fig


def _spread_out(ys: list[float], gap: float) -> list[float]:
    """Label heights near `ys`, pushed apart (upwards, lowest first) so no two are closer than `gap`."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    out = list(ys)
    for previous, current in zip(order, order[1:]):
        out[current] = max(out[current], out[previous] + gap)
    return out


def _vec_text(v: np.ndarray) -> str:
    return "[" + ", ".join(f"{x:g}" for x in v) + "]"


# --- chapters 2, 3, 6, 7, 9, 10: grids of numbers --------------------------------


def math_label(text: str) -> str:
    """Typeset a plain label such as 'd_model', 'W_Q' or 'n × d_k' as mathtext: a real subscript, no underscore (chapter 2)."""
    if "$" in text or not re.search(r"[A-Za-z]", text):
        return text

    def symbol(match: re.Match) -> str:
        base, sub = match.group(1), match.group(2)
        if sub is None:
            return base
        return f"{base}_{{\\mathrm{{{sub}}}}}" if len(sub) > 1 else f"{base}_{sub}"

    parts = [re.sub(r"([A-Za-z]+)(?:_([A-Za-z0-9]+))?", symbol, part.strip()) for part in text.split("×")]
    body = r" \times ".join(part.replace("ᵀ", r"^{\mathsf{T}}").replace(" ", r"\ ") for part in parts)
    return f"${body}$"


def grid(M: Any, row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None,
         title: str = "", rows_name: str | None = None, cols_name: str | None = None,
         highlight_rows: Sequence[int] = (), highlight_cols: Sequence[int] = (),
         highlight_cells: Sequence[tuple[int, int]] = (), ax: Any = None, fmt: str = "{:.2g}") -> Any:
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


def stacked_rows(sentence_words: Sequence[str], X: Any, title: str = "A sentence becomes the matrix X",
                 col_labels: Sequence[str] | None = None, rows_name: str | None = None,
                 cols_name: str | None = "d_model") -> Any:
    """Words on the left, arrows into the rows of X on the right: stacking vectors into a matrix (chapter 2)."""
    X = _np(X)
    n, d = X.shape
    fig, axes = _figure(5.8, 1.3 + 0.7 * n, ncols=2, gridspec_kw={"width_ratios": [1, 2.2]})  # <= 5.8 in: legible on a phone
    left, right = axes
    with plt.rc_context(STYLE):
        left.set_xlim(0, 1)
        left.set_ylim(0, n)
        left.axis("off")
        for i, w in enumerate(sentence_words):
            y = n - 0.5 - i
            left.text(0.0, y, f"“{w}”", fontsize=14, va="center", color=word_colour(w), fontweight="bold")
            left.annotate("", xy=(1.0, y), xytext=(0.62, y),
                          arrowprops=dict(arrowstyle="-|>", color="0.4", lw=1.5))
        grid(X, row_labels=[f"row {i}" for i in range(n)],
             col_labels=list(col_labels) if col_labels is not None else [str(j) for j in range(d)],
             rows_name=rows_name, cols_name=cols_name, ax=right)
        for i, w in enumerate(sentence_words):  # row i is tinted in its word's colour
            for j in range(d):
                right.patches[i * d + j].set_facecolor(matplotlib.colors.to_rgba(word_colour(w), 0.18))
            right.get_yticklabels()[i].set_color(word_colour(w))
        right.tick_params(axis="x", labelsize=11)
        fig.suptitle(title)
    return fig


def heatmap(M: Any, row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None,
            title: str = "", xlabel: str = r"key (word $j$)", ylabel: str = r"query (word $i$)",
            annotate: bool = True, vmin: float | None = None, vmax: float | None = None,
            colorbar_label: str = "", size: tuple[float, float] | None = None,
            colour_labels: bool = False, fmt: str = "{:.2f}") -> Any:
    """Colour each cell of a matrix (scores S or weights A) and label its rows and columns by word (chapter 7).

    size=(width, height) in inches overrides the automatic size; colour_labels=True writes each
    row and column label in its word's colour (plot.word_colour), as chapters 9 and 10 do.
    """
    M = _np(M)
    rows, cols = M.shape
    width, height = size or (min(5.8, max(4.0, 0.75 * cols + 2.5)), min(5.0, max(3.2, 0.6 * rows + 1.8)))  # <= 5.8 in: phone
    fig, ax = _figure(width, height)
    with plt.rc_context(STYLE):
        im = ax.imshow(M, cmap=HEATMAP, vmin=vmin, vmax=vmax, aspect="auto")
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.set_xticklabels(col_labels if col_labels is not None else range(cols), rotation=30 if cols > 4 else 0)
        ax.set_yticklabels(row_labels if row_labels is not None else range(rows))
        if colour_labels:
            _colour_tick_labels(ax)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        if annotate and rows * cols <= 100:
            lo, hi = im.get_clim()
            for i in range(rows):
                for j in range(cols):
                    bright = (M[i, j] - lo) / (hi - lo + 1e-12) > 0.6
                    ax.text(j, i, fmt.format(M[i, j]), ha="center", va="center", fontsize=11,
                            color="black" if bright else "white")
        bar = fig.colorbar(im, ax=ax, shrink=0.85)
        if colorbar_label:
            bar.set_label(colorbar_label)
    return fig


def _colour_tick_labels(ax: Any) -> None:
    """Write every tick label of ax that is a word of the vocabulary in that word's colour, in bold (chapters 9 and 10)."""
    for label in ax.get_xticklabels() + ax.get_yticklabels():
        if label.get_text().strip().strip("“”\"'").lower() in WORD_COLOURS:
            label.set_color(word_colour(label.get_text()))
            label.set_fontweight("bold")


# --- chapter 4: one row times one column ---------------------------------------


def _tint(colour: str, amount: float) -> tuple[float, float, float]:
    """An opaque light version of `colour`: `amount` of it mixed with white."""
    r, g, b = matplotlib.colors.to_rgb(colour)
    return (1 - amount * (1 - r), 1 - amount * (1 - g), 1 - amount * (1 - b))


def _cells(ax: Any, M: np.ndarray, x0: float, top: float, name: str, fmt: str = "{:g}",
           faces: dict[tuple[int, int], Any] | None = None, fontsize: float = 13) -> None:
    """Draw M as cells of side 1 with its top-left corner at (x0, top), row and column numbers
    beside it and its typeset name and shape above, so several grids in one axes share one scale."""
    faces = faces or {}
    rows, cols = M.shape
    for i in range(rows):
        for j in range(cols):
            face = faces.get((i, j), "white")
            ax.add_patch(Rectangle((x0 + j, top - 1 - i), 1, 1, facecolor=face, edgecolor="0.35", lw=1, zorder=1))
            ax.text(x0 + j + 0.5, top - 0.5 - i, fmt.format(M[i, j]), ha="center", va="center", fontsize=fontsize,
                    zorder=4, bbox=dict(boxstyle="round,pad=0.12", facecolor=face, edgecolor="none"))
        ax.text(x0 - 0.15, top - 0.5 - i, str(i), ha="right", va="center", fontsize=11, color="0.3")
    for j in range(cols):
        ax.text(x0 + j + 0.5, top + 0.1, str(j), ha="center", va="bottom", fontsize=11, color="0.3")
    ax.text(x0 + cols / 2, top + 0.72, f"${name}$   {rows}×{cols}", ha="center", va="bottom", fontsize=13)


def matmul_cell(M: Any, N: Any, i: int, j: int, title: str = "", *, left_name: str = "M",
                right_name: str = "N", result_name: str | None = None) -> Any:
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


# --- chapter 5: three lenses -----------------------------------------------------


def projections(n: int, d_model: int, d_k: int, d_v: int) -> Any:
    """X passing through the three learned lenses W_Q, W_K, W_V into Q, K and V, shapes on the arrows (chapter 5)."""
    fig, ax = _figure(5.8, 3.9)  # <= 5.8 in: its 12 pt text stays legible on a phone
    with plt.rc_context(STYLE):
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 6)
        ax.axis("off")
        _box(ax, 0.3, 2.4, 1.8, 1.2, f"$X$\n{n}×{d_model}", "0.85")
        outs = [("Q", "W_Q", d_k, 4.6, BLUE), ("K", "W_K", d_k, 2.6, ORANGE), ("V", "W_V", d_v, 0.6, GREEN)]
        for name, w, width, y, colour in outs:
            _box(ax, 4.2, y, 1.7, 1.0, f"${w}$\n{d_model}×{width}", colour, alpha=0.35)
            _box(ax, 7.8, y, 1.8, 1.0, f"${name}$\n{n}×{width}", colour, alpha=0.7)
            ax.add_patch(FancyArrowPatch((2.1, 3.0), (4.2, y + 0.5), arrowstyle="-|>", mutation_scale=16,
                                         color="0.3", lw=1.5))
            ax.add_patch(FancyArrowPatch((5.9, y + 0.5), (7.8, y + 0.5), arrowstyle="-|>", mutation_scale=16,
                                         color="0.3", lw=1.5))
            ax.text(6.85, y + 0.62, f"$X{w}$", ha="center", fontsize=12)
        ax.set_title("One $X$, three lenses:\n$Q = XW_Q$,  $K = XW_K$,  $V = XW_V$")
    return fig


def _box(ax: Any, x: float, y: float, w: float, h: float, text: str, colour: str, alpha: float = 1.0) -> None:
    ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, alpha=alpha, edgecolor="0.2", lw=1.2))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=12, fontweight="bold")


# --- chapter 6: the transpose as a reflection ----------------------------------------


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
        _cells(ax, M.T, x1, 0.0, f"{name}^{{\\mathsf{{T}}}}", faces={(k, row): tint for k in range(cols)})
        for x0, (h, w) in ((0.0, (rows, cols)), (x1, (cols, rows))):
            k = min(h, w)  # the diagonal: cells (0, 0), (1, 1), ... drawn under the numbers
            ax.plot([x0, x0 + k], [0, -k], ls=(0, (4, 3)), color=VERMILLION, lw=2, zorder=2,
                    label="diagonal (row number = column number)" if x0 == 0 else None)
        end = (x1 + row + 0.5, 0.42)  # just above column `row` of Mᵀ, coming down into it
        trace = Path([(cols + 0.1, -row - 0.5), (end[0], 1.25), end], [Path.MOVETO, Path.CURVE3, Path.CURVE3])
        ax.add_patch(FancyArrowPatch(path=trace, arrowstyle="-|>", mutation_scale=18, color=ORANGE, lw=2.5,
                                     zorder=5))
        ax.text(cols + gap / 2, -row - 1.25, f"row {row}\n→ column {row}", ha="center", va="top",
                fontsize=11, color="0.2")
        ax.set_xlim(-0.6, x1 + rows + 0.1)
        ax.set_ylim(-max(rows, cols) - 0.2, 1.45)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.02), frameon=False, fontsize=11)
        fig.suptitle(f"Row {row} of ${name}$ stands up as column {row} of ${name}^{{\\mathsf{{T}}}}$")
    return fig


# --- chapter 7: the dot product's three cases ----------------------------------------


def dot_cases() -> Any:
    """Three pairs of arrows: same direction, perpendicular, opposite, each with its dot product (chapter 7)."""
    cases = [("same direction", [2.0, 1.0], [1.6, 0.8]),
             ("perpendicular", [2.0, 1.0], [-0.8, 1.6]),
             ("opposite", [2.0, 1.0], [-1.6, -0.8])]
    fig, axes = _figure(5.8, 3.0, ncols=3)  # three small panels, 5.8 in: legible on a phone
    with plt.rc_context(STYLE):
        for ax, (name, q, k) in zip(axes, cases):
            q, k = np.array(q), np.array(k)
            for v, colour, label, side in ((q, BLUE, "q", 1), (k, ORANGE, "k", -1)):
                ax.annotate("", xy=v, xytext=(0, 0),
                            arrowprops=dict(arrowstyle="-|>", color=colour, lw=2.5, mutation_scale=16))
                normal = np.array([-v[1], v[0]]) / np.linalg.norm(v)  # step sideways so labels never overlap
                spot = v * 0.6 + side * 0.35 * normal
                ax.text(spot[0], spot[1], label, color=colour, fontsize=13, fontweight="bold",
                        ha="center", va="center")
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


def dot_projection(pairs: Sequence[tuple[str, Sequence[float], str, Sequence[float]]], title: str = "",
               xlabel: str = "first number", ylabel: str = "second number") -> Any:
    """q · k = ‖q‖ ‖k‖ cos θ drawn: per panel a query, a key, and the key's shadow along the query (chapter 7).

    `pairs` holds (query word, q, key word, k); each arrow takes its word's colour.
    """
    points = [np.zeros(2)]  # one square window for every panel, so lengths compare across panels
    for _, q, _, k in pairs:
        q, k = _np(q), _np(k)
        points += [q, k, (k @ q) / (q @ q) * q]  # the shadow's far end may lie beyond both arrows
    points = np.array(points)
    centre = (points.min(axis=0) + points.max(axis=0)) / 2
    span = 1.3 * float((points.max(axis=0) - points.min(axis=0)).max())
    low, high = centre - span / 2, centre + span / 2
    panel = 3.8  # panels stacked, so each stays legible on a phone
    fig, axes = _figure(panel + 0.9, (panel + 0.9) * len(pairs) + 0.6, nrows=len(pairs), squeeze=False)
    with plt.rc_context(STYLE):
        for ax, (q_word, q, k_word, k) in zip(axes[:, 0], pairs):
            q, k = _np(q), _np(k)
            along = q / np.linalg.norm(q)
            shadow = float(k @ along)  # |k| cos θ: how far k reaches along q's direction
            foot = shadow * along
            ax.plot([0, foot[0]], [0, foot[1]], color=BLACK, lw=8, alpha=0.22, solid_capstyle="butt",
                    label="shadow of k on q: |k| cos θ")
            ax.plot([k[0], foot[0]], [k[1], foot[1]], ls="--", color="0.45", lw=1.3)
            turn = float(q[0] * k[1] - q[1] * k[0])  # > 0: k lies anticlockwise of q
            for v, word, name, side in ((q, q_word, "q", -1 if turn > 0 else 1),
                                        (k, k_word, "k", 1 if turn > 0 else -1)):
                colour = word_colour(word)
                ax.annotate("", xy=v, xytext=(0, 0),
                            arrowprops=dict(arrowstyle="-|>", color=colour, lw=2.5, mutation_scale=16))
                normal = np.array([-v[1], v[0]]) / np.linalg.norm(v)
                away = side * normal  # the label sits beside its arrow, on the side away from the other
                spot = 0.7 * v + 0.05 * span * away
                ha = "left" if away[0] > 0.3 else "right" if away[0] < -0.3 else "center"
                va = "bottom" if away[1] > 0.3 else "top" if away[1] < -0.3 else "center"
                ax.text(spot[0], spot[1], f"${name}$ ({word})", color=colour, fontsize=12,
                        fontweight="bold", ha=ha, va=va)
            angle = abs((float(np.degrees(np.arctan2(k[1], k[0]) - np.arctan2(q[1], q[0]))) + 180) % 360 - 180)
            ax.set_xlim(low[0], high[0])
            ax.set_ylim(low[1], high[1])
            ax.set_aspect("equal")
            ax.axhline(0, color="0.7", lw=0.8)
            ax.axvline(0, color="0.7", lw=0.8)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
            ax.set_title(f"θ = {angle:.0f}°,  |q| = {np.linalg.norm(q):.2f},  |k| cos θ = {shadow:.2f}\n"
                         f"q · k = |q| · |k| cos θ = {float(q @ k):.2f}", fontsize=11)
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", frameon=False, fontsize=11)
        if title:
            fig.suptitle(title)
    return fig

def word_ticks(fig: Any) -> Any:
    """Colour every tick label that is a word of the vocabulary in that word's colour, e.g. a heatmap's (chapter 7)."""
    for ax in fig.axes:
        for label in ax.get_xticklabels() + ax.get_yticklabels():
            if label.get_text().strip().lower() in WORD_COLOURS:
                label.set_color(word_colour(label.get_text()))
                label.set_fontweight("bold")
    return fig

# --- chapters 8 and 11: measured curves --------------------------------------------


def lines(x: Sequence[float], ys: dict[str, Sequence[float]], xlabel: str, ylabel: str, title: str = "",
          logx: bool = False, logy: bool = False, styles: dict[str, str] | None = None) -> Any:
    """Several labelled curves over one x axis, markers on the measured points (chapters 8 and 11)."""
    fig, ax = _figure(5.8, 4.2)  # <= 5.8 in: 11 pt ticks stay legible on a phone
    styles = styles or {}
    with plt.rc_context(STYLE):
        for i, (label, y) in enumerate(ys.items()):
            ax.plot(x, _np(y), styles.get(label, "o-"), color=PALETTE[i % len(PALETTE)], label=label, lw=2,
                    markersize=5)
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


# --- chapter 9: softmax as shares -----------------------------------------------------


def softmax_shares(row_scores: Sequence[float], labels: Sequence[str], title: str = "",
                   size: tuple[float, float] = (5.4, 5.6)) -> Any:
    """One row of scores above the shares softmax makes of it, as bars that add up to 1 (chapter 9).

    The two panels are stacked (not side by side), so the figure stays narrow and legible on a phone.
    """
    s = _np(row_scores)
    w = np.exp(s - s.max())
    w = w / w.sum()
    fig, axes = _figure(*size, nrows=2)
    with plt.rc_context(STYLE):
        colours = [word_colour(label) for label in labels]
        at = np.arange(len(labels))  # positions, so a word that occurs twice gets two bars
        axes[0].bar(at, s, color=colours)
        axes[0].axhline(0, color="0.5", lw=0.8)
        axes[0].set_title(r"scores $x_j$ (any numbers)")
        bars = axes[1].bar(at, w, color=colours)
        axes[1].set_ylim(0, 1.12)
        axes[1].set_title(r"weights $\mathrm{softmax}(x)_j$")
        for b, v in zip(bars, w):
            axes[1].text(b.get_x() + b.get_width() / 2, v + 0.02, f"{v:.2f}", ha="center", fontsize=11)
        for ax in axes:
            ax.set_xticks(at)
            ax.set_xticklabels(labels, rotation=30 if len(labels) > 6 else 0)
            _colour_tick_labels(ax)
        fig.suptitle(title or "softmax turns a row of scores into shares of 1")
    return fig


# --- chapter 10: one output as a blend of values ---------------------------------------


def blend(weights: Sequence[float], V: Any, labels: Sequence[str], target: str = "z",
          size: tuple[float, float] | None = None) -> Any:
    """One output row z_i = Σ_j A_ij v_j drawn as value rows flowing in with their weights on the arrows (chapter 10).

    Each value row is written in its word's colour; an arrow's thickness is its weight.
    `target` is the name of the output, e.g. a mathtext label that draws z with the subscript "sat".
    """
    w, V = _np(weights), _np(V)
    n = len(w)
    z = w @ V
    fig, ax = _figure(*(size or (5.6, 1.6 + 0.62 * n)))
    with plt.rc_context(STYLE):
        ax.set_xlim(0, 10)
        ax.set_ylim(-1.3, n - 0.2)
        ax.axis("off")
        mid = (n - 1) / 2
        for j in range(n):
            y = n - 1 - j
            colour = word_colour(labels[j])
            ax.text(0.0, y, f"{labels[j]}  {_vec_text(np.round(V[j], 2))}", va="center", fontsize=11,
                    color=colour, fontweight="bold")
            ax.add_patch(FancyArrowPatch((5.5, y), (7.3, mid), arrowstyle="-|>", mutation_scale=12,
                                         color=colour, lw=0.6 + 7 * w[j]))
            ax.text(5.35, y, f"{w[j]:.2f}", fontsize=11, color=colour, va="center", ha="right",
                    fontweight="bold")
        ax.text(7.45, mid + 0.35, target, va="bottom", fontsize=13, fontweight="bold")
        ax.text(7.45, mid - 0.1, _vec_text(np.round(z, 2)), va="top", fontsize=11, fontweight="bold")
        ax.text(0.0, -0.9, "value rows $v_j$; the weights $A_{ij}$ of\nrow $i$ beside the arrows",
                fontsize=11, color="0.35", va="center")
        ax.set_title(f"{target}: a weighted average of the value rows", fontsize=12)
    return fig


def before_after(X: Any, Z: Any, row_labels: Sequence[str], col_labels: Sequence[str],
                 names: tuple[str, str] = ("$X$: each word alone", "$Z = AV$: each word after attention"),
                 title: str = "") -> Any:
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
            _colour_tick_labels(ax)
            for side in ("left", "bottom", "top", "right"):
                ax.spines[side].set_visible(False)
            for i in range(rows):
                for j in range(cols):
                    bright = (M[i, j] - lo) / (hi - lo + 1e-12) > 0.6
                    ax.text(j, i, f"{M[i, j]:.2f}", ha="center", va="center", fontsize=11,
                            color="black" if bright else "white")
            ax.set_title(name, fontsize=12, pad=22)
        if title:
            fig.suptitle(title)
    return fig


# --- the introduction: the prerequisite map -------------------------------------------

PREREQUISITES: list[tuple[str, str, list[str]]] = [
    # (node label, typeset as mathtext; chapter file; the nodes it needs)
    ("1  vector", "01", []),
    ("2  matrix $X$", "02", ["1  vector"]),
    (r"3  shape tag $X \in \mathbb{R}^{n \times d_{\mathrm{model}}}$", "03", ["2  matrix $X$"]),
    ("4  matmul $XW$", "04", [r"3  shape tag $X \in \mathbb{R}^{n \times d_{\mathrm{model}}}$"]),
    ("5  $W_Q, W_K, W_V$ → $Q, K, V$", "05", ["4  matmul $XW$"]),
    (r"6  transpose $K^{\mathsf{T}}$", "06", ["5  $W_Q, W_K, W_V$ → $Q, K, V$"]),
    (r"7  dot product, $S = QK^{\mathsf{T}}$", "07", [r"6  transpose $K^{\mathsf{T}}$"]),
    (r"8  scale by $\sqrt{d_k}$", "08", [r"7  dot product, $S = QK^{\mathsf{T}}$"]),
    ("9  softmax → $A$", "09", [r"8  scale by $\sqrt{d_k}$"]),
    ("10  $Z = AV$", "10", ["9  softmax → $A$", "5  $W_Q, W_K, W_V$ → $Q, K, V$"]),
    ("11  masks", "11", ["10  $Z = AV$"]),
    ("12  many heads, $W_O$", "12", ["11  masks"]),
    ("13  word order, positions", "13", ["12  many heads, $W_O$"]),
    ("14  learning the lenses", "14", ["13  word order, positions"]),
    ("15  CPU vs GPU", "15", ["14  learning the lenses"]),
]

# The five parts of the course (README's table), by their first and last chapter.
_PARTS = [("I  words as numbers", 1, 3, SKY), ("II  re-expressing", 4, 6, BLUE),
          ("III  the mechanism", 7, 10, ORANGE), ("IV  learning", 11, 14, PURPLE),
          ("V  hardware", 15, 15, GREEN)]


def prerequisite_map() -> Any:
    """The course as a map, one box per chapter from the bottom up; edges go around boxes, never through."""
    width, height, step = 3.5, 0.6, 1.0       # every box the same size, one level per chapter
    lane = width / 2 + 0.35                   # a skipping edge runs up this line, right of every box
    level = {node: float(k) for k, (node, _, _) in enumerate(PREREQUISITES)}
    fig, ax = _figure(4.4, 1.0 + 0.75 * len(PREREQUISITES))
    with plt.rc_context(STYLE):
        for node, _, needs in PREREQUISITES:
            for need in needs:
                y0, y1 = level[need] * step, level[node] * step
                if y1 - y0 == step:           # the next chapter: straight up, tip on the box's bottom edge
                    path = Path([(0, y0 + height / 2), (0, y1 - height / 2)])
                else:                         # a skip: out to the right, up the lane, back in from the side
                    path = Path([(width / 2, y0), (lane, y0), (lane, y1), (width / 2, y1)])
                ax.add_patch(FancyArrowPatch(path=path, arrowstyle="-|>", mutation_scale=14, color="0.35",
                                             lw=1.4, shrinkA=0, shrinkB=0, zorder=3))
        for k, (node, _, _) in enumerate(PREREQUISITES):
            part = next(p for p in _PARTS if p[1] <= k + 1 <= p[2])
            ax.add_patch(FancyBboxPatch((-width / 2, k * step - height / 2), width, height,
                                        boxstyle="round,pad=0,rounding_size=0.12", facecolor=_tint(part[3], 0.4),
                                        edgecolor="0.25", lw=1.2, zorder=2))
            ax.text(0, k * step, node, ha="center", va="center", fontsize=12, zorder=4)
        for name, first, last, colour in _PARTS:
            y0, y1 = (first - 1) * step - height / 2, (last - 1) * step + height / 2
            ax.plot([-width / 2 - 0.22] * 2, [y0, y1], color=colour, lw=4, solid_capstyle="butt")
            ax.text(-width / 2 - 0.38, (y0 + y1) / 2, name.split("  ")[0], ha="right", va="center",
                    fontsize=11, color="0.25")
        ax.set_xlim(-width / 2 - 0.75, lane + 0.15)
        ax.set_ylim(-height, (len(PREREQUISITES) - 1) * step + height)
        ax.axis("off")
        ax.set_title("What each chapter stands on\n(read from the bottom up)")
    return fig


def save_svg(fig: Any, path: str) -> None:
    """Save a figure as SVG with no date and a fixed id salt, so the same drawing gives the same bytes.

    A saved file gets a white background (it may be opened in any viewer); figures shown in a
    notebook keep STYLE's transparent one.
    """
    with plt.rc_context(SVG_STYLE):
        fig.savefig(path, format="svg", metadata={"Date": None}, facecolor="white")


# --- chapter 2: arrows become rows ----------------------------------------------------


def arrows_to_rows(vectors: dict[str, Sequence[float]], title: str = "Each arrow becomes one row of X",
                   xlabel: str = "first number", ylabel: str = "second number",
                   col_labels: Sequence[str] | None = None) -> Any:
    """Two-number word arrows on the left, the same words stacked as coloured rows of X on the right (chapter 2)."""
    names = list(vectors)
    X = np.stack([_np(v) for v in vectors.values()])
    n, d = X.shape
    fig, (left, right) = _figure(5.8, 3.8, ncols=2, gridspec_kw={"width_ratios": [1.25, 1]})  # phone: <= 5.8 in
    with plt.rc_context(STYLE):
        reach = max(1.0, float(np.abs(X[:, :2]).max())) * 1.3
        for name, v in zip(names, X):
            colour = word_colour(name)
            left.annotate("", xy=(v[0], v[1]), xytext=(0, 0),
                          arrowprops=dict(arrowstyle="-|>", color=colour, lw=2.5, mutation_scale=18))
            left.text(v[0] + 0.04 * reach, v[1] + 0.04 * reach, name, color=colour, fontsize=13,
                      fontweight="bold")
        left.set_xlim(-0.2, reach)
        left.set_ylim(-0.2, reach)
        left.set_aspect("equal")
        left.set_xlabel(xlabel)
        left.set_ylabel(ylabel)
        left.grid(alpha=0.3)
        left.set_title("words as arrows")
        grid(X, row_labels=names, col_labels=list(col_labels) if col_labels is not None else [str(j) for j in range(d)],
             title="the matrix X", ax=right, fmt="{:g}")
        for i, name in enumerate(names):  # grid draws its cells row by row: tint row i in its arrow's colour
            colour = matplotlib.colors.to_rgba(word_colour(name), 0.22)
            for j in range(d):
                right.patches[i * d + j].set_facecolor(colour)
            right.get_yticklabels()[i].set_color(word_colour(name))
            right.get_yticklabels()[i].set_fontweight("bold")
        fig.suptitle(title)
    return fig


# --- chapter 3: every quantity drawn to the size of its shape ---------------------------


def _rows_cols(M: np.ndarray) -> tuple[int, int]:
    """(rows, columns) of a matrix; a plain list of numbers counts as one row."""
    return (1, int(M.size)) if M.ndim == 1 else (int(M.shape[0]), int(M.size // max(M.shape[0], 1)))


def shape_blocks(lines: Sequence[dict[str, Any]], captions: dict[str, str] | None = None,
                 colours: dict[str, str] | None = None, title: str = "", gap: float = 2.8,
                 max_width: float = 6.4) -> Any:
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
                        ax.add_patch(Rectangle((x + j, y0 + i), 1, 1, facecolor=colour, alpha=0.45,
                                               edgecolor="0.3", lw=0.8))
                ax.text(x + c / 2, base + h + 0.3 * t, math_label(name), ha="center", va="bottom", fontsize=15)
                ax.text(x + c / 2, y0 - 0.3 * t, f"{r}×{c}", ha="center", va="top", fontsize=12)
                if name in captions:
                    ax.text(x + c / 2, y0 - 1.45 * t, math_label(captions[name]), ha="center", va="top",
                            fontsize=13, color="0.25")
                x += c + gap
            top = base - below
        ax.set_xlim(-0.5, width + 0.5)
        ax.set_ylim(top + 0.2 * t, total + 0.2)
        ax.set_aspect("equal")
        ax.axis("off")
        if title:
            ax.set_title(title)
    return fig


# --- chapter 5: weight matrices side by side, rows and columns named ---------------------


def _typeset(name: str) -> str:
    """A matrix name as mathtext: "W_Q" becomes "$W_Q$"; a name already in $...$ is kept (chapter 5)."""
    return name if "$" in name else f"${name}$"


def _colour_words(labels: Sequence[Any]) -> None:
    """Colour tick labels that are words of the vocabulary in their course colour (chapter 5)."""
    for label in labels:
        text = label.get_text()
        if text.strip().lower() in WORD_COLOURS:
            label.set_color(word_colour(text))
            label.set_fontweight("bold")


def _wrap(text: str, width: int = 48) -> str:
    """Break a long title into lines of at most `width` characters, never inside $...$ math (chapter 5)."""
    if "\n" in text or len(text) <= width:
        return text
    words, lines, math = [], [], False
    for word in text.split(" "):  # glue the words of one $...$ formula together
        if math:
            words[-1] += " " + word
        else:
            words.append(word)
        math ^= word.count("$") % 2 == 1
    for word in words:
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def labelled_grids(mats: dict[str, Any], row_labels: Sequence[str],
                   col_labels: dict[str, Sequence[str]] | None = None, title: str = "",
                   highlight_nonzero: bool = True, word_rows: bool = False,
                   fmt: str = "{:g}") -> Any:
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
    fig, axes = _figure(1.3 + cell * sum(widths) + 0.3 * len(arrays), 2.4 + cell * rows, ncols=len(arrays),
                        gridspec_kw={"width_ratios": widths}, squeeze=False)
    with plt.rc_context(STYLE):
        for k, (ax, (name, M)) in enumerate(zip(axes[0], arrays.items())):
            nonzero = [(int(i), int(j)) for i, j in np.argwhere(M != 0)] if highlight_nonzero else []
            grid(M, row_labels=row_labels if k == 0 else [""] * M.shape[0], col_labels=col_labels.get(name),
                 title=f"{_typeset(name)}\n{M.shape[0]}×{M.shape[1]}", highlight_cells=nonzero, ax=ax,
                 fmt=fmt)
            ax.tick_params(axis="x", labelsize=11, labelrotation=90)  # long slot names stand up, one per column
            ax.title.set_fontsize(12)
            ax.set_xlim(-0.03, M.shape[1] + 0.03)  # keep the outer cell borders inside the axes
            ax.set_ylim(-0.03, M.shape[0] + 0.03)
            if word_rows and k == 0:
                _colour_words(ax.get_yticklabels())
        if title:
            fig.suptitle(_wrap(title))
    return fig


def fit_table(M: Any, sentence_words: Sequence[str], title: str = "How well query $i$ fits key $j$") -> Any:
    """The table of how well each word's query fits each word's key, every word in its colour (chapter 5)."""
    fig = heatmap(M, row_labels=list(sentence_words), col_labels=list(sentence_words), title=title,
                  xlabel="key of word $j$ (the answerer)", ylabel="query of word $i$ (the asker)")
    ax = fig.axes[0]
    _colour_words(ax.get_xticklabels())
    _colour_words(ax.get_yticklabels())
    return fig


# --- chapter 15: time against n, log–log, with fitted slopes ---------------------------


def timings(runs: dict[str, dict[str, tuple[Sequence[float], Sequence[float]]]], fit_from: float = 256,
            ylabel: str = "seconds per call", title: str = "") -> Any:
    """Time against n on log–log axes, one panel per run, each curve labelled with its fitted slope (chapter 15)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from .results import fit_slope
    names = list(dict.fromkeys(name for curves in runs.values() for name in curves))
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}
    import textwrap

    nrows = len(runs)  # panels stacked, one column 5.8 in wide: legible on a phone
    legend_rows = -(-(len(names) + 1) // 2)
    fig, axes = _figure(5.8, (4.2 + 0.25 * legend_rows) * nrows, nrows=nrows, squeeze=False)
    with plt.rc_context(STYLE):
        for ax, (panel, curves) in zip(axes.flat, runs.items()):
            for name, (n, t) in curves.items():
                n, t = np.asarray(n, dtype=float), _np(t)
                keep = n >= fit_from
                label = name
                if len(np.unique(n[keep])) >= 2:
                    p = fit_slope(n[keep], t[keep])
                    label = f"{name}: slope {p:.2f}"
                ax.plot(n, t, "o-", color=colours[name], lw=1.8, markersize=5, label=label)
            all_n = np.concatenate([np.asarray(n, dtype=float) for n, _ in curves.values()])
            all_t = np.concatenate([_np(t) for _, t in curves.values()])
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
        for ax in list(axes.flat)[len(runs):]:
            ax.axis("off")
        if title:
            fig.suptitle(title)
    return fig


# --- Part V (chapters 11-12): masks and heads ---------------------------------------------


def attention_maps(maps: dict[str, Any], words: Sequence[str], masks: dict[str, Any] | None = None,
                   title: str = "", colorbar_label: str | None = None, width: float = 5.4) -> Any:
    """Attention matrices one above the other, words coloured, masked cells shaded and marked ✕ (chapters 11 and 12).

    Stacked, not side by side, so that on a 390 px phone every label and weight is at least 11 pt
    in a figure at most 5.8 in wide. The colour bar is labelled "weight A_ij" unless colorbar_label says otherwise.
    """
    masks = masks or {}
    colorbar_label = r"weight $A_{ij}$" if colorbar_label is None else colorbar_label
    arrays = {name: _np(M) for name, M in maps.items()}
    n_rows, n_cols = next(iter(arrays.values())).shape
    k = len(arrays)
    fig, axes = _figure(min(5.8, width), k * (0.45 * n_rows + 1.7) + (0.5 if title else 0.1),
                        nrows=k, squeeze=False)
    with plt.rc_context(STYLE):
        for ax, (name, M) in zip(axes[:, 0], arrays.items()):
            im = ax.imshow(M, cmap=HEATMAP, vmin=0.0, vmax=1.0, aspect="equal")
            mask = masks.get(name)
            blocked = (~np.broadcast_to(np.asarray(mask, dtype=bool), M.shape) if mask is not None
                       else np.zeros(M.shape, dtype=bool))
            for i in range(n_rows):
                for j in range(n_cols):
                    if blocked[i, j]:
                        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.55", edgecolor="white", lw=1))
                        ax.text(j, i, "✕", ha="center", va="center", fontsize=12, color="white")
                    elif n_rows * n_cols <= 64:
                        ax.text(j, i, f"{M[i, j]:.2f}".lstrip("0") if M[i, j] < 1 else "1", ha="center",
                                va="center", fontsize=11, color="black" if M[i, j] > 0.6 else "white")
            ax.set_xticks(range(n_cols))
            ax.set_yticks(range(n_rows))
            ax.set_xticklabels(words[:n_cols], rotation=45, ha="right")
            ax.set_yticklabels(words[:n_rows])
            for label, word in zip(ax.get_xticklabels(), words):
                label.set_color(word_colour(word))
            for label, word in zip(ax.get_yticklabels(), words):
                label.set_color(word_colour(word))
            ax.tick_params(length=0)
            ax.set_title(name, fontsize=12)
            ax.set_xlabel("key (word $j$)")
            ax.set_ylabel("query (word $i$)")
        bar = fig.colorbar(im, ax=list(axes[:, 0]), shrink=0.6)
        bar.set_label(colorbar_label)
        if title:
            fig.suptitle(_wrap(title, 44))
    return fig


# --- Part V (chapters 13-14): word order and learning ----------------------------------


def position_waves(PE: Any, title: str = "Sinusoidal positional encoding") -> Any:
    """The positional encoding as a heatmap: one row per position, one column per dimension (chapter 13)."""
    PE = _np(PE)
    n, d = PE.shape
    fig, ax = _figure(5.6, 4.8)
    with plt.rc_context(STYLE):
        im = ax.imshow(PE, cmap=HEATMAP, vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
        ax.set_xlabel(f"dimension (column of PE), 0 to {d - 1}")
        ax.set_ylabel(f"position pos, 0 to {n - 1}")
        ax.set_title(_wrap(title, 44))
        bar = fig.colorbar(im, ax=ax, shrink=0.85)
        bar.set_label("value, between −1 and 1")
    return fig


def _word_ticks(ax: Any, labels: Sequence[str]) -> None:
    """Colour every y tick label that is a word of the toy vocabulary in that word's colour."""
    for tick, label in zip(ax.get_yticklabels(), labels):
        word = str(label).split()[-1]
        if word.lower() in WORD_COLOURS:
            tick.set_color(word_colour(word))
            tick.set_fontweight("bold")


_PHONE_WIDTH_IN = 5.8  # the widest figure whose 11 pt text still reads at >= 9 px on a 390 px phone


def _panel_grid(count: int, ncols: int | None, widest: int) -> tuple[int, int, bool]:
    """(rows, columns, transposed) of labelled_panels' grid, at most 5.8 in wide (chapters 13-14).

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


def labelled_panels(panels: Sequence[tuple[str, Any, Sequence[str], Sequence[str] | None]], ncols: int | None = None,
                    title: str = "", vmin: float | None = None, vmax: float | None = None,
                    fmt: str = "{:.2f}") -> Any:
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
    fig, axes = _figure(width, (0.6 if title else 0.1) + nrows * (0.36 * tallest + 1.5),
                        ncols=ncols, nrows=nrows, squeeze=False)
    order = list(axes.T.flat) if transposed else list(axes.flat)
    lo = min(float(M.min()) for M in mats) if vmin is None else vmin
    hi = max(float(M.max()) for M in mats) if vmax is None else vmax
    with plt.rc_context(STYLE):
        for ax, (name, _, rows, cols), M in zip(order, panels, mats):
            im = ax.imshow(M, cmap=HEATMAP, vmin=lo, vmax=hi, aspect="auto")
            ax.set_yticks(range(M.shape[0]))
            ax.set_yticklabels(rows)
            ax.set_xticks(range(M.shape[1]))
            ax.set_xticklabels(cols if cols is not None else range(M.shape[1]), rotation=45 if M.shape[1] > 3 else 0,
                               ha="right" if M.shape[1] > 3 else "center")
            ax.tick_params(length=0)
            ax.set_title(name, fontsize=12)
            _word_ticks(ax, rows)
            if M.size <= 100:
                for i in range(M.shape[0]):
                    for j in range(M.shape[1]):
                        bright = (M[i, j] - lo) / (hi - lo + 1e-12) > 0.6
                        text = fmt.format(M[i, j])
                        if text.startswith("-") and float(text) == 0:
                            text = text[1:]  # a tiny negative rounds to "-0.0": print it as 0.0
                        ax.text(j, i, text, ha="center", va="center", fontsize=11,
                                color="black" if bright else "white")
        for ax in order[len(panels):]:
            ax.axis("off")
        fig.colorbar(im, ax=order[:len(panels)], shrink=0.6 if nrows > 1 else 0.85)
        if title:
            fig.suptitle(_wrap(title, 40 if width < 5.5 else 44))
    return fig


def loss_curve(history: Sequence[float], title: str = "Training: the loss falls",
               ylabel: str = "loss (mean squared error)") -> Any:
    """The loss at every training step, on a log scale so the late, small improvements stay visible (chapter 14)."""
    y = _np(history)
    fig, ax = _figure(5.4, 4.0)
    with plt.rc_context(STYLE):
        ax.plot(np.arange(1, len(y) + 1), y, color=BLUE, lw=2)
        ax.set_yscale("log")
        ax.set_xlabel("training step")
        ax.set_ylabel(ylabel)
        ax.set_title(_wrap(title, 44))
        ax.grid(alpha=0.3, which="both")
    return fig


def word_heatmap(M: Any, row_labels: Sequence[str], col_labels: Sequence[str], **heatmap_kw: Any) -> Any:
    """plot.heatmap with every word label (e.g. "2 sat") on both axes in that word's colour (chapters 13-14)."""
    fig = heatmap(M, row_labels=row_labels, col_labels=col_labels, **heatmap_kw)
    ax = fig.axes[0]
    _word_ticks(ax, row_labels)
    for tick, label in zip(ax.get_xticklabels(), col_labels):
        word = str(label).split()[-1]
        if word.lower() in WORD_COLOURS:
            tick.set_color(word_colour(word))
            tick.set_fontweight("bold")
    return fig


show_svg_inline()  # in a Jupyter kernel, figures are stored as SVG (see its docstring)
