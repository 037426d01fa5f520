"""The course's look, shared by every figure: the palette, one colour per word, the matplotlib style,
SVG output, and the few helpers every kind of figure uses (a figure of the course's size, word-coloured
labels, typeset names).

What importing `attnlib.plot` changes: inside a Jupyter kernel, `show_svg_inline()` runs once and
switches that kernel's inline figures to SVG (see its docstring; `%config
InlineBackend.figure_formats = {'png'}` switches back). Nothing else is changed globally: every
figure applies STYLE only while it is drawn (`figure`), and outside a kernel the import changes
nothing at all.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch
from matplotlib.transforms import offset_copy

# Okabe & Ito (2008): distinguishable with every common colour-vision deficiency.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]


BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = PALETTE


# Two colour maps. A table of numbers that are all >= 0 (weights, lengths) goes dark to bright in
# viridis. A table whose numbers take both signs (scores, weights of a lens, positional waves) uses a
# diverging map on a scale symmetric about 0: white at 0, blue below, red above, so 0 reads as "nothing"
# and -1.07 reads as far from 0 as 1.07. `colour_scale` picks between them; every heatmap goes through it.
HEATMAP = "viridis"
DIVERGING = "RdBu_r"


def colour_scale(lo: float, hi: float) -> tuple[str, float, float]:
    """(colour map, vmin, vmax) for values from lo to hi: viridis on [lo, hi] when no value is below 0,
    else the diverging map on [-m, m], m the larger of abs(lo) and abs(hi), so 0 sits at its white centre."""
    if lo < 0 < hi or (lo < 0 and hi <= 0):
        m = max(abs(lo), abs(hi))
        return DIVERGING, -m, m
    return HEATMAP, lo, hi


def luminance(colour: Any) -> float:
    """The WCAG 2.1 relative luminance of a colour (#rrggbb or any colour matplotlib reads): 0 black, 1 white."""
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in matplotlib.colors.to_rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def text_colour_on(face: Any) -> str:
    """ "black" or "white", whichever reads better on a cell of colour `face` (by its relative luminance)."""
    lum = luminance(face)
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


# One colour per word, the same in every chapter and every figure.
# Every colour is a mid tone (relative luminance 0.13 to 0.26): contrast at least 3.4 : 1 on white
# and at least 3.3 : 1 on a near-black page, so a bold word label reads in light and dark mode.
# Words that share a sentence in the course ("the kitten sat on the mat", "the dog drove a truck",
# "a puppy drove the car", ...) differ by at least 22 in CIELAB ΔE; tests/test_chapter_vectors.py checks both.
WORD_COLOURS: dict[str, str] = {
    "cat": "#0072B2",
    "kitten": "#C2408A",
    "dog": "#C26A00",
    "puppy": "#8C7E00",
    "car": "#D0401C",
    "truck": "#7A5BC7",
    "bike": "#1B8A9C",
    "sat": "#008A5C",
    "ran": "#4E8B1E",
    "drove": "#A0522D",
    "mat": "#9E7A3C",
    "road": "#7D6B4A",
    "on": "#3A6FE0",
    "the": "#767676",
    "a": "#8D6E8F",
}


# A word outside the vocabulary gets a steady colour of its own from these mid tones.
_OTHER_WORD_COLOURS = ["#0072B2", "#D0401C", "#008A5C", "#7A5BC7", "#C26A00", "#1B8A9C"]


def word_colour(word: str) -> str:
    """The colour of a word in every figure of the course (the vectors chapter)."""
    key = str(word).strip().strip("“”\"'").lower()
    if key in WORD_COLOURS:
        return WORD_COLOURS[key]
    return _OTHER_WORD_COLOURS[sum(map(ord, key)) % len(_OTHER_WORD_COLOURS)]


#: The course style, applied to every figure by figure. Figures are shown as SVG (see
#: show_svg_inline below), so they are sharp at any width; dpi only sets the size of the
#: few raster parts (an imshow heatmap's cells) and of a PNG a reader saves by hand.
#: The background is opaque white, so a figure's black ink reads wherever it is shown: on the
#: light page, in JupyterLab's dark theme (which shows a stored SVG or PNG as it is: a transparent
#: one put black text on near-black), and in the book's dark mode (where _static/phone.css inverts
#: the figure: a dark panel, its ink light).
STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "figure.facecolor": "white",
    "axes.facecolor": "none",
    "savefig.facecolor": "white",
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
    """In a Jupyter kernel, show every figure as SVG, sharp on a phone and a retina screen (the vectors chapter).

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
    config.figure_formats = {"svg", "png"}  # png: what JupyterLab shows in a notebook it does not trust
    config.print_figure_kwargs = {**config.print_figure_kwargs, "metadata": {"Date": None}}
    set_matplotlib_formats("svg", "png", **config.print_figure_kwargs)
    return True


def two_decimals(values: Any) -> np.ndarray:
    """A model's numbers as a figure draws them: rounded to two decimals (the two real-model chapters).

    A float32 forward pass ends in different last digits on different processors (their matrix
    routines add in different orders). Drawn raw, those digits reach the stored figure's coordinates
    and colours, and a notebook re-run on another machine no longer matches its stored output.
    Two decimals are what the figures print as labels, and finer than the eye reads a bar or a colour.
    """
    return np.round(np.asarray(values, dtype=float), 2)


def figure(width: float = 6.0, height: float = 4.0, ncols: int = 1, nrows: int = 1, **subplots: Any) -> tuple[Any, Any]:
    """The one way every figure of the course is made: the course style, and inline display kept on."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained", **subplots)
        interactive = matplotlib.is_interactive()  # the first figure may switch on Jupyter's inline backend
    matplotlib.interactive(interactive)  # leaving rc_context would switch it off again and hide later figures
    return fig, ax


def arrow(
    ax: Any, start: Any, end: Any, colour: Any, lw: float = 2.5, ls: str = "-", alpha: float = 1.0, size: float = 16
) -> None:
    """One arrow from start to end, tip exactly on `end`, its head `size` points; nothing for an arrow of length 0."""
    if np.allclose(start, end):
        return
    style = {"arrowstyle": "-|>", "mutation_scale": size, "shrinkA": 0, "shrinkB": 0}
    ax.add_patch(FancyArrowPatch(tuple(start), tuple(end), color=colour, lw=lw, ls=ls, alpha=alpha, **style))


def spread_out(ys: list[float], gap: float) -> list[float]:
    """Label heights near `ys`, pushed apart (upwards, lowest first) so no two are closer than `gap`."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    out = list(ys)
    for previous, current in itertools.pairwise(order):
        out[current] = max(out[current], out[previous] + gap)
    return out


def _crosses(box: Any, a: np.ndarray, b: np.ndarray, pad: float = 2.0) -> bool:
    """Whether the segment from a to b (display points) passes through the box, grown by pad points.

    The last 8% of the segment, its tip, does not count: a label may sit at the tip it names."""
    t = np.linspace(0.0, 0.92, 80)[:, None]
    pts = a + t * (b - a)
    inside = (
        (pts[:, 0] > box.x0 - pad)
        & (pts[:, 0] < box.x1 + pad)
        & (pts[:, 1] > box.y0 - pad)
        & (pts[:, 1] < box.y1 + pad)
    )
    return bool(inside.any())


def keep_labels_clear(fig: Any, ax: Any, labels: list, segments: list[tuple[Any, Any]]) -> None:
    """Move each label, if it must, to the first nearby spot where it crosses no arrow and no label placed before it.

    labels: texts drawn at an arrow's tip; segments: every arrow's (start, end) in data coordinates.
    The spots are the label's own, then a line higher or lower, a little to the right, two lines, then left of its anchor.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ends = [(ax.transData.transform(a), ax.transData.transform(b)) for a, b in segments]
    placed: list = []
    spots = [(0, 0), (0, 11), (0, -11), (14, 0), (14, 11), (14, -11), (0, 20), (0, -20)]
    spots += [(-8, 0), (-8, 11), (-8, -11), (0, 30), (0, -30)]
    for label in labels:
        base, ha = label.get_transform(), label.get_ha()
        for dx, dy in spots:
            label.set_transform(offset_copy(base, fig=fig, x=dx, y=dy, units="points"))
            label.set_ha("right" if dx < 0 else ha)
            box = label.get_window_extent(renderer)
            if not any(_crosses(box, a, b) for a, b in ends) and not any(box.overlaps(other) for other in placed):
                break
        else:
            label.set_transform(base)
            label.set_ha(ha)
            box = label.get_window_extent(renderer)
        placed.append(box)


def vec_text(v: np.ndarray) -> str:
    return "[" + ", ".join(f"{x:g}" for x in v) + "]"


def math_label(text: str) -> str:
    """Typeset a plain label such as 'd_model', 'W_Q' or 'n × d_k' as mathtext: a real subscript, no underscore (the matrix x chapter)."""
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


def tint(colour: str, amount: float) -> tuple[float, float, float]:
    """An opaque light version of `colour`: `amount` of it mixed with white."""
    r, g, b = matplotlib.colors.to_rgb(colour)
    return (1 - amount * (1 - r), 1 - amount * (1 - g), 1 - amount * (1 - b))


def _word_of(label: str) -> str:
    """The word a tick label names: "kitten", “kitten” and "1 kitten" (a word at position 1) all name kitten."""
    text = label.strip().strip("“”\"'")
    parts = text.split()
    if len(parts) == 2 and parts[0].isdigit():
        text = parts[1]
    return text.lower()


def colour_words(labels: Sequence[Any], words: Sequence[str] | None = None) -> None:
    """Write word labels (matplotlib Texts, e.g. ax.get_yticklabels()) in their word's colour, in bold (the vectors chapter).

    Without `words`, a label is coloured when it names a word of the vocabulary ("kitten", “kitten”,
    or "1 kitten", the word at position 1). With `words`, label k takes the colour of words[k]
    (a word outside the vocabulary gets a steady colour of its own).
    """
    for k, label in enumerate(labels):
        if words is not None:
            colour = word_colour(words[k]) if k < len(words) else None
        else:
            word = _word_of(label.get_text())
            colour = WORD_COLOURS.get(word)
        if colour is not None:
            label.set_color(colour)
            label.set_fontweight("bold")


def word_ticks(fig: Any) -> Any:
    """Colour every tick label that names a word of the vocabulary in that word's colour, e.g. a heatmap's (the dot product scores chapter)."""
    for ax in fig.axes:
        colour_words(ax.get_xticklabels() + ax.get_yticklabels())
    return fig


def wrap(text: str, width: int = 48) -> str:
    """Break a long title into lines of at most `width` characters, never inside $...$ math (the query key value chapter)."""
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
