"""Every figure of the course, drawn from code with matplotlib.

Each function returns a matplotlib Figure; in a notebook, `fig = plot.arrows(...)` shows it.
The palette is Okabe–Ito (safe for colour-blind readers). Heatmaps use viridis when no value is
below 0, and a diverging map, white at 0 on a scale symmetric about it, when values take both signs
(`colour_scale`); marks drawn over a heatmap keep out of its colours and its cells. Labels keep off
the arrows they name, and the figures are sized and lettered to stay readable on a phone.

The figures live in modules by kind: `style` (palette, word colours, the matplotlib style, SVG
output, the helpers every kind of figure uses), `arrows`, `geometry`, `tables` (matrices as tables
of numbers), `heatmaps` (matrices as coloured cells), `blocks` (shapes as blocks), `curves`,
`roofline`, `learning` (Part IV), and `trained` and `causal` (the two real models); every figure is
reachable as `plot.NAME`. The real models' figures round their float32 numbers to two decimals
(`style.two_decimals`), so a notebook re-run on another processor stores the same bytes.

Importing `attnlib.plot` inside a Jupyter kernel switches that kernel's inline figures to SVG
(`style.show_svg_inline`), so every figure of the course is stored sharp at any width; outside a
kernel the import changes nothing.
"""

from .arrows import arrow_parts, arrows, arrows_to_rows, dot_cases, dot_projection
from .blocks import projections, shape_blocks
from .causal import head_scores, next_token_bars
from .curves import blend, lines, loss_curve, position_waves, softmax_shares, timings
from .geometry import angle_between, moved_arrows, query_key_arrows, row_combination, transpose_mirror
from .heatmaps import attention_maps, before_after, heatmap, labelled_panels, word_heatmap
from .learning import heads_flow, turning_arrows, weight_by_position
from .roofline import roofline, roofline_limit
from .style import (
    BLACK,
    BLUE,
    DIVERGING,
    GREEN,
    HEATMAP,
    ORANGE,
    PALETTE,
    PURPLE,
    SKY,
    STYLE,
    SVG_STYLE,
    VERMILLION,
    WORD_COLOURS,
    YELLOW,
    colour_scale,
    colour_words,
    math_label,
    show_svg_inline,
    word_colour,
    word_ticks,
)
from .tables import grid, labelled_grids, matmul_cell, stacked_rows, transpose_reflection
from .toolbox import cosine_triangle, page_grid, sum_axes
from .trained import all_heads

# One line per module, as imported above.
# fmt: off
__all__ = [
    "arrow_parts", "arrows", "arrows_to_rows", "dot_cases", "dot_projection",
    "projections", "shape_blocks",
    "head_scores", "next_token_bars",
    "blend", "lines", "loss_curve", "position_waves", "softmax_shares", "timings",
    "angle_between", "moved_arrows", "query_key_arrows", "row_combination", "transpose_mirror",
    "attention_maps", "before_after", "heatmap", "labelled_panels", "word_heatmap",
    "heads_flow", "turning_arrows", "weight_by_position",
    "roofline", "roofline_limit",
    "BLACK", "BLUE", "DIVERGING", "GREEN", "HEATMAP", "ORANGE", "PALETTE", "PURPLE", "SKY", "STYLE", "SVG_STYLE",
    "VERMILLION", "WORD_COLOURS", "YELLOW", "colour_scale", "colour_words", "math_label", "show_svg_inline",
    "word_colour", "word_ticks",
    "grid", "labelled_grids", "matmul_cell", "stacked_rows", "transpose_reflection",
    "cosine_triangle", "page_grid", "sum_axes",
    "all_heads",
]
# fmt: on

show_svg_inline()
