"""Every figure of the course, drawn from code with matplotlib.

Each function returns a matplotlib Figure; in a notebook, `fig = plot.arrows(...)` shows it.
The palette is Okabe–Ito (safe for colour-blind readers), heatmaps use viridis,
and the figures are sized and lettered to stay readable on a phone.
"""
from __future__ import annotations

from typing import Any, Sequence

import matplotlib

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

from .core import is_torch

# Okabe & Ito (2008): distinguishable with every common colour-vision deficiency.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = PALETTE
HEATMAP = "viridis"

# One colour per word, the same in every chapter and every figure (chapter 1 onwards).
# Words that share a sentence in the course get colours that differ.
WORD_COLOURS: dict[str, str] = {
    "cat": "#0072B2", "kitten": "#56B4E9", "dog": "#E69F00", "puppy": "#C9A100",
    "car": "#D55E00", "truck": "#CC79A7", "bike": "#AA4499",
    "sat": "#009E73", "ran": "#44AA99", "drove": "#117733",
    "mat": "#999933", "road": "#AA7744", "on": "#9467BD",
    "the": "#7F7F7F", "a": "#A5A5A5",
}


def word_colour(word: str) -> str:
    """The colour of a word in every figure of the course (chapter 1)."""
    key = str(word).strip().strip("“”\"'").lower()
    if key in WORD_COLOURS:
        return WORD_COLOURS[key]
    return PALETTE[sum(map(ord, key)) % 6]  # a word outside the vocabulary: a steady colour of its own

STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
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
            colour = PALETTE[i % len(PALETTE)]
            ax.annotate("", xy=(v[0], v[1]), xytext=(0, 0),
                        arrowprops=dict(arrowstyle="-|>", color=colour, lw=2.5, mutation_scale=18))
            x, y = v[0] + 0.05 * reach, label_y[i]
            ax.text(x, y, f"{name} {_vec_text(v)}", color=colour, fontsize=12, fontweight="bold", va="center")
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
        fig, ax = _figure(max(3.0, 0.9 * cols + 1.8), max(2.2, 0.6 * rows + 1.4))
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
            ax.set_xlabel(f"{cols_name} = {cols} columns", labelpad=6)
        if rows_name:
            ax.set_ylabel(f"{rows_name} = {rows} rows", labelpad=6)
        if title:
            ax.set_title(title, pad=24)  # room for the column labels on top
    return fig


def stacked_rows(sentence_words: Sequence[str], X: Any, title: str = "A sentence becomes the matrix X") -> Any:
    """Words on the left, arrows into the rows of X on the right: stacking vectors into a matrix (chapter 2)."""
    X = _np(X)
    n, d = X.shape
    fig, axes = _figure(7.0, 1.0 + 0.7 * n, ncols=2)
    left, right = axes
    with plt.rc_context(STYLE):
        left.set_xlim(0, 1)
        left.set_ylim(0, n)
        left.axis("off")
        for i, w in enumerate(sentence_words):
            y = n - 0.5 - i
            left.text(0.1, y, f"“{w}”", fontsize=13, va="center", color=PALETTE[i % len(PALETTE)],
                      fontweight="bold")
            left.annotate("", xy=(1.0, y), xytext=(0.55, y),
                          arrowprops=dict(arrowstyle="-|>", color="0.4", lw=1.5))
        grid(X, row_labels=[f"row {i}" for i in range(n)], col_labels=[str(j) for j in range(d)],
             rows_name="n", cols_name="d_model", ax=right)
        fig.suptitle(title)
    return fig


def heatmap(M: Any, row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None,
            title: str = "", xlabel: str = "key (word j)", ylabel: str = "query (word i)",
            annotate: bool = True, vmin: float | None = None, vmax: float | None = None,
            colorbar_label: str = "") -> Any:
    """Colour each cell of a matrix (scores S or weights A) and label its rows and columns by word (chapter 7)."""
    M = _np(M)
    rows, cols = M.shape
    fig, ax = _figure(max(4.0, 0.75 * cols + 2.5), max(3.2, 0.6 * rows + 1.8))
    with plt.rc_context(STYLE):
        im = ax.imshow(M, cmap=HEATMAP, vmin=vmin, vmax=vmax, aspect="auto")
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.set_xticklabels(col_labels if col_labels is not None else range(cols), rotation=30 if cols > 4 else 0)
        ax.set_yticklabels(row_labels if row_labels is not None else range(rows))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        if annotate and rows * cols <= 100:
            lo, hi = im.get_clim()
            for i in range(rows):
                for j in range(cols):
                    bright = (M[i, j] - lo) / (hi - lo + 1e-12) > 0.6
                    ax.text(j, i, f"{M[i, j]:.2f}", ha="center", va="center", fontsize=10,
                            color="black" if bright else "white")
        bar = fig.colorbar(im, ax=ax, shrink=0.85)
        if colorbar_label:
            bar.set_label(colorbar_label)
    return fig


# --- chapter 4: one row times one column ---------------------------------------


def matmul_cell(A: Any, B: Any, i: int, j: int, title: str = "") -> Any:
    """Show A, B and A @ B with row i of A, column j of B and the cell (i, j) they make highlighted (chapter 4)."""
    A, B = _np(A), _np(B)
    C = A @ B
    fig, axes = _figure(9.0, 1.2 + 0.65 * max(A.shape[0], B.shape[0]), ncols=3)
    with plt.rc_context(STYLE):
        grid(A, title=f"A  {A.shape[0]}×{A.shape[1]}", highlight_rows=[i], ax=axes[0], fmt="{:g}")
        grid(B, title=f"B  {B.shape[0]}×{B.shape[1]}", highlight_cols=[j], ax=axes[1], fmt="{:g}")
        grid(C, title=f"A @ B  {C.shape[0]}×{C.shape[1]}", highlight_cells=[(i, j)], ax=axes[2], fmt="{:g}")
        terms = " + ".join(f"{A[i, k]:g}·{B[k, j]:g}" for k in range(A.shape[1]))
        fig.suptitle(title or f"cell ({i}, {j}) = {terms} = {C[i, j]:g}")
    return fig


# --- chapter 5: three lenses -----------------------------------------------------


def projections(n: int, d_model: int, d_k: int, d_v: int) -> Any:
    """X passing through the three learned lenses W_Q, W_K, W_V into Q, K and V, shapes on the arrows (chapter 5)."""
    fig, ax = _figure(7.5, 4.2)
    with plt.rc_context(STYLE):
        ax.set_xlim(0, 10)
        ax.set_ylim(0, 6)
        ax.axis("off")
        _box(ax, 0.3, 2.4, 1.8, 1.2, f"X\n{n}×{d_model}", "0.85")
        outs = [("Q", "W_Q", d_k, 4.6, BLUE), ("K", "W_K", d_k, 2.6, ORANGE), ("V", "W_V", d_v, 0.6, GREEN)]
        for name, w, width, y, colour in outs:
            _box(ax, 4.2, y, 1.7, 1.0, f"{w}\n{d_model}×{width}", colour, alpha=0.35)
            _box(ax, 7.8, y, 1.8, 1.0, f"{name}\n{n}×{width}", colour, alpha=0.7)
            ax.add_patch(FancyArrowPatch((2.1, 3.0), (4.2, y + 0.5), arrowstyle="-|>", mutation_scale=16,
                                         color="0.3", lw=1.5))
            ax.add_patch(FancyArrowPatch((5.9, y + 0.5), (7.8, y + 0.5), arrowstyle="-|>", mutation_scale=16,
                                         color="0.3", lw=1.5))
            ax.text(6.85, y + 0.62, f"X{w}", ha="center", fontsize=11)
        ax.set_title("One X, three learned lenses: Q = XW_Q, K = XW_K, V = XW_V")
    return fig


def _box(ax: Any, x: float, y: float, w: float, h: float, text: str, colour: str, alpha: float = 1.0) -> None:
    ax.add_patch(Rectangle((x, y), w, h, facecolor=colour, alpha=alpha, edgecolor="0.2", lw=1.2))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=12, fontweight="bold")


# --- chapter 6: the transpose as a reflection ----------------------------------------


def transpose_reflection(M: Any, name: str = "K") -> Any:
    """M beside Mᵀ, the diagonal drawn, one entry traced to its mirror image (chapter 6)."""
    M = _np(M)
    rows, cols = M.shape
    fig, axes = _figure(8.0, 1.6 + 0.6 * max(rows, cols), ncols=2)
    with plt.rc_context(STYLE):
        r, c = (0, cols - 1) if cols > 1 else (rows - 1, 0)
        grid(M, title=f"{name}  ({rows}×{cols})", highlight_cells=[(r, c)], ax=axes[0], fmt="{:g}")
        grid(M.T, title=f"{name}ᵀ  ({cols}×{rows})", highlight_cells=[(c, r)], ax=axes[1], fmt="{:g}")
        for ax, (h, w) in zip(axes, [(rows, cols), (cols, rows)]):
            k = min(h, w)
            ax.plot([0, k], [h, h - k], ls="--", color=VERMILLION, lw=2, label="diagonal")
        axes[1].legend(loc="lower right", bbox_to_anchor=(1.0, -0.35), frameon=False)
        fig.suptitle(f"Row i of {name} becomes column i of {name}ᵀ: a reflection across the diagonal")
    return fig


# --- chapter 7: the dot product's three cases ----------------------------------------


def dot_cases() -> Any:
    """Three pairs of arrows: same direction, perpendicular, opposite, each with its dot product (chapter 7)."""
    cases = [("same direction", [2.0, 1.0], [1.6, 0.8]),
             ("perpendicular", [2.0, 1.0], [-0.8, 1.6]),
             ("opposite", [2.0, 1.0], [-1.6, -0.8])]
    fig, axes = _figure(9.0, 3.6, ncols=3)
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


# --- chapters 8 and 11: measured curves --------------------------------------------


def lines(x: Sequence[float], ys: dict[str, Sequence[float]], xlabel: str, ylabel: str, title: str = "",
          logx: bool = False, logy: bool = False, styles: dict[str, str] | None = None) -> Any:
    """Several labelled curves over one x axis, markers on the measured points (chapters 8 and 11)."""
    fig, ax = _figure(6.0, 4.2)
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


def softmax_shares(row_scores: Sequence[float], labels: Sequence[str], title: str = "") -> Any:
    """One row of scores beside the shares softmax makes of it, as bars that add up to 1 (chapter 9)."""
    s = _np(row_scores)
    w = np.exp(s - s.max())
    w = w / w.sum()
    fig, axes = _figure(8.0, 3.6, ncols=2)
    with plt.rc_context(STYLE):
        colours = [PALETTE[i % len(PALETTE)] for i in range(len(s))]
        axes[0].bar(labels, s, color=colours)
        axes[0].axhline(0, color="0.5", lw=0.8)
        axes[0].set_title("scores (any real numbers)")
        axes[0].set_ylabel("score")
        bars = axes[1].bar(labels, w, color=colours)
        axes[1].set_ylim(0, 1.08)
        axes[1].set_title("softmax: shares that add up to 1")
        axes[1].set_ylabel("weight")
        for b, v in zip(bars, w):
            axes[1].text(b.get_x() + b.get_width() / 2, v + 0.02, f"{v:.2f}", ha="center", fontsize=11)
        fig.suptitle(title or "softmax turns a row of scores into a share-out")
    return fig


# --- chapter 10: one output as a blend of values ---------------------------------------


def blend(weights: Sequence[float], V: Any, labels: Sequence[str], target: str = "z") -> Any:
    """One output row z = Σ_j α_j v_j drawn as value rows flowing in with their weights on the arrows (chapter 10)."""
    w, V = _np(weights), _np(V)
    n = len(w)
    fig, ax = _figure(7.5, 1.2 + 0.9 * n)
    z = w @ V
    with plt.rc_context(STYLE):
        ax.set_xlim(0, 10)
        ax.set_ylim(-0.5, n)
        ax.axis("off")
        mid = (n - 1) / 2
        for j in range(n):
            y = n - 1 - j
            colour = PALETTE[j % len(PALETTE)]
            ax.text(0.1, y, f"v ({labels[j]}) = {_vec_text(np.round(V[j], 2))}", va="center", fontsize=11,
                    color=colour, fontweight="bold")
            ax.add_patch(FancyArrowPatch((5.0, y), (7.0, mid), arrowstyle="-|>", mutation_scale=14,
                                         color=colour, lw=1 + 6 * w[j]))
            ax.text(5.7, (y + mid) / 2 + 0.15, f"{w[j]:.2f}", fontsize=11, color=colour)
        ax.text(7.2, mid, f"{target} = {_vec_text(np.round(z, 2))}", va="center", fontsize=12, fontweight="bold")
        ax.set_title(f"{target}: a weighted average of the value rows (weights add up to {w.sum():.2f})")
    return fig


# --- the introduction: the prerequisite map -------------------------------------------

PREREQUISITES: list[tuple[str, str, list[str]]] = [
    # (node, chapter file, the nodes it needs)
    ("1 vector", "01", []),
    ("2 matrix X", "02", ["1 vector"]),
    ("3 shape tag ℝ^{n×d}", "03", ["2 matrix X"]),
    ("4 matmul XW", "04", ["3 shape tag ℝ^{n×d}"]),
    ("5 W_Q, W_K, W_V → Q, K, V", "05", ["4 matmul XW"]),
    ("6 transpose Kᵀ", "06", ["5 W_Q, W_K, W_V → Q, K, V"]),
    ("7 dot product, S = QKᵀ", "07", ["6 transpose Kᵀ"]),
    ("8 scale by √d_k", "08", ["7 dot product, S = QKᵀ"]),
    ("9 softmax → A", "09", ["8 scale by √d_k"]),
    ("10 Z = AV", "10", ["9 softmax → A", "5 W_Q, W_K, W_V → Q, K, V"]),
    ("11 CPU vs GPU", "11", ["10 Z = AV"]),
]


def prerequisite_map() -> Any:
    """The course as a map: arrows and grids at the bottom, the output Z at the top, one node per chapter."""
    levels = [["1 vector"], ["2 matrix X"], ["3 shape tag ℝ^{n×d}"], ["4 matmul XW"],
              ["5 W_Q, W_K, W_V → Q, K, V"], ["6 transpose Kᵀ"], ["7 dot product, S = QKᵀ"],
              ["8 scale by √d_k"], ["9 softmax → A"], ["10 Z = AV"], ["11 CPU vs GPU"]]
    xs = {"1 vector": 0.3, "2 matrix X": 0.3, "3 shape tag ℝ^{n×d}": 0.3, "4 matmul XW": 0.3,
          "5 W_Q, W_K, W_V → Q, K, V": 0.3, "6 transpose Kᵀ": 0.3, "7 dot product, S = QKᵀ": 0.5,
          "8 scale by √d_k": 0.5, "9 softmax → A": 0.5, "10 Z = AV": 0.5, "11 CPU vs GPU": 0.5}
    pos: dict[str, tuple[float, float]] = {}
    for y, level in enumerate(levels):
        for node in level:
            pos[node] = (xs[node], float(y))
    fig, ax = _figure(4.6, 8.0)
    with plt.rc_context(STYLE):
        for node, _, needs in PREREQUISITES:
            for need in needs:
                (x0, y0), (x1, y1) = pos[need], pos[node]
                bend = 0.0 if abs(y1 - y0) == 1 and x0 == x1 else (-0.35 if x0 <= x1 else 0.35)
                ax.add_patch(FancyArrowPatch((x0, y0 + 0.22), (x1, y1 - 0.22), arrowstyle="-|>",
                                             mutation_scale=14, color="0.45", lw=1.3,
                                             connectionstyle=f"arc3,rad={bend}"))
        for i, (node, _, _) in enumerate(PREREQUISITES):
            x, y = pos[node]
            colour = SKY if i < 6 else (ORANGE if i < 10 else GREEN)
            ax.text(x, y, node, ha="center", va="center", fontsize=13,
                    bbox=dict(boxstyle="round,pad=0.35", facecolor=colour, edgecolor="0.25", alpha=0.9))
        ax.set_xlim(-0.12, 0.92)
        ax.set_ylim(-0.7, len(levels) - 0.3)
        ax.axis("off")
        ax.set_title("What each chapter stands on\n(read from the bottom up)")
    return fig


def save_svg(fig: Any, path: str) -> None:
    """Save a figure as SVG with no date and a fixed id salt, so the same drawing gives the same bytes."""
    with plt.rc_context({"svg.hashsalt": "attnlib", "svg.fonttype": "path"}):
        fig.savefig(path, format="svg", metadata={"Date": None})


# --- chapter 2: arrows become rows ----------------------------------------------------


def arrows_to_rows(vectors: dict[str, Sequence[float]], title: str = "Each arrow becomes one row of X",
                   xlabel: str = "first number", ylabel: str = "second number") -> Any:
    """Two-number word arrows on the left, the same words stacked as coloured rows of X on the right (chapter 2)."""
    names = list(vectors)
    X = np.stack([_np(v) for v in vectors.values()])
    n, d = X.shape
    fig, (left, right) = _figure(8.0, 4.2, ncols=2)
    with plt.rc_context(STYLE):
        for i, (name, v) in enumerate(zip(names, X)):
            colour = PALETTE[i % len(PALETTE)]
            left.annotate("", xy=(v[0], v[1]), xytext=(0, 0),
                          arrowprops=dict(arrowstyle="-|>", color=colour, lw=2.5, mutation_scale=18))
            left.text(v[0] + 0.1, v[1] + 0.1, name, color=colour, fontsize=12, fontweight="bold")
        reach = max(1.0, float(np.abs(X[:, :2]).max())) * 1.3
        left.set_xlim(-0.2, reach)
        left.set_ylim(-0.2, reach)
        left.set_aspect("equal")
        left.set_xlabel(xlabel)
        left.set_ylabel(ylabel)
        left.grid(alpha=0.3)
        left.set_title("words as arrows")
        grid(X, row_labels=names, col_labels=[str(j) for j in range(d)], rows_name="n",
             cols_name="d_model", title="the matrix X", ax=right, fmt="{:g}")
        for i in range(n):  # grid draws its cells row by row: tint row i in its arrow's colour
            colour = matplotlib.colors.to_rgba(PALETTE[i % len(PALETTE)], 0.25)
            for j in range(d):
                right.patches[i * d + j].set_facecolor(colour)
            right.get_yticklabels()[i].set_color(PALETTE[i % len(PALETTE)])
            right.get_yticklabels()[i].set_fontweight("bold")
        fig.suptitle(title)
    return fig


# --- chapter 3: every quantity drawn to the size of its shape ---------------------------


def _rows_cols(M: np.ndarray) -> tuple[int, int]:
    """(rows, columns) of a matrix; a plain list of numbers counts as one row."""
    return (1, int(M.size)) if M.ndim == 1 else (int(M.shape[0]), int(M.size // max(M.shape[0], 1)))


def shape_blocks(lines: Sequence[dict[str, Any]], captions: dict[str, str] | None = None,
                 colours: dict[str, str] | None = None, title: str = "") -> Any:
    """Each array as an empty grid of its rows × columns, named, with its shape underneath (chapter 3)."""
    captions, colours = captions or {}, colours or {}
    shapes = [[(name, _rows_cols(_np(M))) for name, M in line.items()] for line in lines]
    gap, below = 1.6, 2.4
    width = max(sum(c for _, (_, c) in line) + gap * (len(line) - 1) for line in shapes)
    heights = [max(r for _, (r, _) in line) for line in shapes]
    total = sum(heights) + (below + 1.2) * len(shapes)
    fig, ax = _figure(min(9.0, 1.0 + 0.42 * width), 0.9 + 0.42 * total)
    with plt.rc_context(STYLE):
        top, k = total, 0
        for line, h in zip(shapes, heights):
            x, base = 0.0, top - 1.2 - h
            for name, (r, c) in line:
                colour = colours.get(name, PALETTE[k % len(PALETTE)])
                k += 1
                y0 = base + h - r  # blocks in one line share their top edge
                for i in range(r):
                    for j in range(c):
                        ax.add_patch(Rectangle((x + j, y0 + i), 1, 1, facecolor=colour, alpha=0.45,
                                               edgecolor="0.3", lw=0.8))
                ax.text(x + c / 2, base + h + 0.35, name, ha="center", va="bottom", fontsize=13,
                        fontweight="bold")
                ax.text(x + c / 2, y0 - 0.35, f"{r}×{c}", ha="center", va="top", fontsize=12)
                if name in captions:
                    ax.text(x + c / 2, y0 - 1.25, captions[name], ha="center", va="top", fontsize=11,
                            color="0.3")
                x += c + gap
            top = base - below
        ax.set_xlim(-0.5, width + 0.5)
        ax.set_ylim(top + below - 2.6, total + 0.2)
        ax.set_aspect("equal")
        ax.axis("off")
        if title:
            ax.set_title(title)
    return fig


# --- chapter 5: weight matrices side by side, rows and columns named ---------------------


def labelled_grids(mats: dict[str, Any], row_labels: Sequence[str],
                   col_labels: dict[str, Sequence[str]] | None = None, title: str = "") -> Any:
    """Matrices that share their rows (e.g. W_Q, W_K, W_V) side by side, each row and column named (chapter 5)."""
    col_labels = col_labels or {}
    arrays = {name: _np(M) for name, M in mats.items()}
    widths = [M.shape[1] for M in arrays.values()]
    rows = max(M.shape[0] for M in arrays.values())
    fig, axes = _figure(1.4 + 0.7 * sum(widths) + 0.5 * len(arrays), 1.6 + 0.5 * rows, ncols=len(arrays),
                        gridspec_kw={"width_ratios": widths}, squeeze=False)
    with plt.rc_context(STYLE):
        for k, (ax, (name, M)) in enumerate(zip(axes[0], arrays.items())):
            nonzero = [(int(i), int(j)) for i, j in np.argwhere(M != 0)]  # the entries that carry a feature
            grid(M, row_labels=row_labels if k == 0 else [""] * M.shape[0], col_labels=col_labels.get(name),
                 title=f"{name}  ({M.shape[0]}×{M.shape[1]})", highlight_cells=nonzero, ax=ax, fmt="{:g}")
            ax.tick_params(axis="x", labelsize=10)
            ax.set_xlim(-0.03, M.shape[1] + 0.03)  # keep the outer cell borders inside the axes
            ax.set_ylim(-0.03, M.shape[0] + 0.03)
        if title:
            fig.suptitle(title)
    return fig


# --- chapter 11: time against n, log–log, with fitted slopes ---------------------------


def timings(runs: dict[str, dict[str, tuple[Sequence[float], Sequence[float]]]], fit_from: float = 256,
            ylabel: str = "seconds per call", title: str = "") -> Any:
    """Time against n on log–log axes, one panel per run, each curve labelled with its fitted slope (chapter 11)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from .results import fit_slope
    names = list(dict.fromkeys(name for curves in runs.values() for name in curves))
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}
    ncols = min(2, len(runs))
    nrows = -(-len(runs) // ncols)
    fig, axes = _figure(5.2 * ncols, 4.4 * nrows, ncols=ncols, nrows=nrows, squeeze=False)
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
            ax.set_title(panel, fontsize=11)
            ax.grid(alpha=0.3, which="major")
            ax.legend(fontsize=9, loc="upper left")
        for ax in list(axes.flat)[len(runs):]:
            ax.axis("off")
        if title:
            fig.suptitle(title)
    return fig


# --- Part V (chapters 13-14): word order and learning ----------------------------------


def position_waves(PE: Any, title: str = "Sinusoidal positional encoding") -> Any:
    """The positional encoding as a heatmap: one row per position, one column per dimension (chapter 13)."""
    PE = _np(PE)
    n, d = PE.shape
    fig, ax = _figure(6.4, 4.6)
    with plt.rc_context(STYLE):
        im = ax.imshow(PE, cmap=HEATMAP, vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
        ax.set_xlabel(f"dimension (column of PE), 0 to {d - 1}")
        ax.set_ylabel(f"position pos, 0 to {n - 1}")
        ax.set_title(title)
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


def labelled_panels(panels: Sequence[tuple[str, Any, Sequence[str], Sequence[str] | None]], ncols: int | None = None,
                    title: str = "", vmin: float | None = None, vmax: float | None = None,
                    fmt: str = "{:.2f}") -> Any:
    """Matrices as annotated heatmaps side by side, each panel (title, M, row labels, column labels), word rows in their colours (chapters 13-14)."""
    ncols = ncols or len(panels)
    nrows = -(-len(panels) // ncols)
    mats = [_np(M) for _, M, _, _ in panels]
    widest = max(M.shape[1] for M in mats)
    tallest = max(M.shape[0] for M in mats)
    fig, axes = _figure(min(12.0, 1.2 + ncols * (0.62 * widest + 1.3)), 0.9 + nrows * (0.42 * tallest + 1.2),
                        ncols=ncols, nrows=nrows, squeeze=False)
    lo = min(float(M.min()) for M in mats) if vmin is None else vmin
    hi = max(float(M.max()) for M in mats) if vmax is None else vmax
    with plt.rc_context(STYLE):
        for ax, (name, _, rows, cols), M in zip(axes.flat, panels, mats):
            im = ax.imshow(M, cmap=HEATMAP, vmin=lo, vmax=hi, aspect="auto")
            ax.set_yticks(range(M.shape[0]))
            ax.set_yticklabels(rows)
            ax.set_xticks(range(M.shape[1]))
            ax.set_xticklabels(cols if cols is not None else range(M.shape[1]), rotation=45 if M.shape[1] > 3 else 0,
                               fontsize=10)
            ax.set_title(name, fontsize=12)
            _word_ticks(ax, rows)
            if M.size <= 100:
                for i in range(M.shape[0]):
                    for j in range(M.shape[1]):
                        bright = (M[i, j] - lo) / (hi - lo + 1e-12) > 0.6
                        text = fmt.format(M[i, j])
                        if text.startswith("-") and float(text) == 0:
                            text = text[1:]  # a tiny negative rounds to "-0.0": print it as 0.0
                        ax.text(j, i, text, ha="center", va="center", fontsize=9,
                                color="black" if bright else "white")
        for ax in list(axes.flat)[len(panels):]:
            ax.axis("off")
        fig.colorbar(im, ax=list(axes.flat)[:len(panels)], shrink=0.8)
        if title:
            fig.suptitle(title)
    return fig


def loss_curve(history: Sequence[float], title: str = "Training: the loss falls",
               ylabel: str = "loss (mean squared error)") -> Any:
    """The loss at every training step, on a log scale so the late, small improvements stay visible (chapter 14)."""
    y = _np(history)
    fig, ax = _figure(6.0, 4.0)
    with plt.rc_context(STYLE):
        ax.plot(np.arange(1, len(y) + 1), y, color=BLUE, lw=2)
        ax.set_yscale("log")
        ax.set_xlabel("training step")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
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
