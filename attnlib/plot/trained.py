"""The figure of the chapter inside a trained model: every head of every layer on one sentence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from ..arrays import to_numpy
from .style import HEATMAP, STYLE, colour_words, figure, two_decimals, wrap

#: The layout, in inches: figure width, height of a row of small maps, a small map's side, left margin,
#: the large map's side. Placed by hand: a layout engine takes seconds over 73 axes.
WIDTH, ROW, CELL, LEFT, BIG = 5.4, 0.62, 0.55, 0.85, 2.7


def _placer(fig: Any, height: float) -> Any:
    """place(x, y, w, h): axes at x inches from the left and y inches from the top, w by h inches."""

    def place(x: float, y: float, w: float, h: float) -> Any:
        return fig.add_axes((x / WIDTH, 1 - (y + h) / height, w / WIDTH, h / height))

    return place


def _big_map(fig: Any, place: Any, A: np.ndarray, tokens: Sequence[str], top: float) -> Any:
    """The large map A (n, n) on top, its rows and columns labelled by word in the words' colours, and its colour bar."""
    n = len(A)
    big = place(1.45, top + 0.35, BIG, BIG)
    im = big.imshow(A, cmap=HEATMAP, vmin=0.0, vmax=1.0)
    big.set_xticks(range(n))
    big.set_yticks(range(n))
    big.set_xticklabels(tokens, rotation=90)
    big.set_yticklabels(tokens)
    colour_words(big.get_xticklabels(), tokens)
    colour_words(big.get_yticklabels(), tokens)
    big.tick_params(length=0)
    big.set_xlabel("key (word $j$)")
    big.set_ylabel("query (word $i$)")
    bar = fig.colorbar(im, cax=place(1.45 + BIG + 0.2, top + 0.35, 0.15, BIG))
    bar.set_label(r"weight $A_{ij}$")
    return big


def _mosaic(A: np.ndarray, block: int) -> np.ndarray:
    """Every head's map in one image, a column per layer, a row per head, `block` cells apart: fast to draw."""
    layers, heads, n, _ = A.shape
    gap = block - n
    mosaic = np.full((heads * block - gap, layers * block - gap), np.nan)
    for layer in range(layers):
        for head in range(heads):
            mosaic[head * block : head * block + n, layer * block : layer * block + n] = A[layer, head]
    return mosaic


def _grid(place: Any, A: np.ndarray, grid_top: float, block: int) -> Any:
    """The small maps, unlabelled, with "layer k" above each column and "head k" left of each row."""
    layers, heads, n, _ = A.shape
    ax = place(LEFT, grid_top, WIDTH - LEFT - 0.1, heads * ROW - (ROW - CELL))
    ax.imshow(
        np.ma.masked_invalid(_mosaic(A, block)),
        cmap=HEATMAP,
        vmin=0.0,
        vmax=1.0,
        aspect="auto",
        interpolation="nearest",
    )
    centres = [k * block + (n - 1) / 2 for k in range(max(layers, heads))]
    ax.set_xticks(centres[:layers], [f"layer {k}" for k in range(layers)], fontsize=10)
    ax.set_yticks(centres[:heads], [f"head {k}" for k in range(heads)], fontsize=10)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return ax


#: Marks over a heatmap must not look like one of its cells: at least this far (CIELAB ΔE) from every colour of the map.
MARK_DISTANCE = 25.0


def colour_distance_from_map(colour: str, cmap: str = HEATMAP) -> float:
    """The CIELAB ΔE from `colour` to the nearest of 256 colours of the colour map `cmap`."""
    return float(
        np.linalg.norm(_lab(matplotlib.colormaps[cmap](np.linspace(0, 1, 256))[:, :3]) - _lab(colour), axis=-1).min()
    )


def _lab(rgb: Any) -> np.ndarray:
    """sRGB colour(s) (a name, hex, or an array of rows of 3 floats) in CIELAB (D65)."""
    rgb = np.asarray(matplotlib.colors.to_rgb(rgb) if isinstance(rgb, str) else rgb, dtype=float)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = linear @ to_xyz.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def _frame(fig: Any, ax: Any, marked: dict[str, tuple[tuple[int, int], str]], n: int, block: int) -> None:
    """A frame in its colour round each marked head's small map, outside its cells with a gap, and a legend of the frames.

    The gap keeps a bright edge column of the map (a sink on the first token) from merging into the frame.
    """
    gap = 0.45  # of a cell, between the map's edge and the middle of the frame's line
    for (m_layer, m_head), colour in marked.values():
        ax.add_patch(
            Rectangle(
                (m_layer * block - 0.5 - gap, m_head * block - 0.5 - gap),
                n + 2 * gap,
                n + 2 * gap,
                fill=False,
                edgecolor=colour,
                lw=2.5,
                clip_on=False,
            )
        )
    handles = [Rectangle((0, 0), 1, 1, fill=False, edgecolor=c, lw=3) for _, c in marked.values()]
    if handles:
        fig.legend(handles, list(marked), loc="lower center", ncols=2, fontsize=10, frameon=False)


def all_heads(
    A: Any, tokens: Sequence[str], marked: dict[str, tuple[tuple[int, int], str]] | None = None, title: str = ""
) -> Any:
    """All heads of a model on one sentence, one small map per head: a column per layer, a row per head.

    A has shape (layers, heads, n, n). The small maps have no labels; the large map on top is the
    first marked head (or layer 0, head 0), its rows and columns labelled by word in the words'
    colours, and every small map reads the same way. `marked` names heads to frame:
    {"previous word": ((layer, head), colour), ...}, each framed in its colour, with a legend; a colour
    the heatmap itself uses (YELLOW, the colour of weight 1) raises ValueError.
    """
    A = two_decimals(to_numpy(A))  # the same colours on any processor
    layers, heads, n, _ = A.shape
    marked = marked or {}
    for name, (_, colour) in marked.items():
        if colour_distance_from_map(colour) < MARK_DISTANCE:
            raise ValueError(
                f"all_heads: the frame of {name!r} is {colour}, a colour of the heatmap itself: "
                "pick one outside viridis (VERMILLION, PURPLE, ORANGE or SKY)"
            )
    big_layer, big_head = next(iter(marked.values()))[0] if marked else (0, 0)
    top, legend = 0.45 if title else 0.1, 0.7 if marked else 0.2
    height = top + BIG + 1.5 + 0.3 + heads * ROW + legend
    fig, ax = figure(WIDTH, height)
    fig.set_layout_engine("none")
    ax.remove()
    place = _placer(fig, height)
    block = n + max(1, round(n * (ROW - CELL) / CELL))  # a map and the empty cells before the next
    with plt.rc_context(STYLE):
        big = _big_map(fig, place, A[big_layer, big_head], tokens, top)
        big.set_title(f"layer {big_layer}, head {big_head}, and every map below:", fontsize=11)
        grid = _grid(place, A, top + BIG + 1.5 + 0.3, block)
        _frame(fig, grid, marked, n, block)
        if title:
            fig.suptitle(wrap(title, 44), y=1 - 0.05 / height, va="top")
    return fig
