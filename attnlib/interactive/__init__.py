"""Interactive figures that run in the built book itself: plain JavaScript and inline SVG, no kernel.

Each function returns an `InteractiveFigure`, one self-contained piece of HTML (see `page`). Whatever
takes real computation (attention, random draws, training, a trained model's weights) is done by
attnlib and embedded as data; the page's JavaScript does only the arithmetic that
tests/test_interactive.py checks against attnlib in Chromium.

The figures, by the chapter they belong to: `word_arrows` (vectors), `matrix_lens` (matrix
multiplication), `transpose_explorer` (transpose), `dot_product_arrows` (dot product scores),
`scaling_explorer` (scaling), `softmax_stretch` (softmax), `attention_explorer` (weighted sum),
`mask_explorer` (masks), `head_explorer` (many heads), `position_clocks` (word order),
`training_replay` (learning the lenses), `trained_heads` (trained model) and `causal_heads` (causal model).
"""

from .arrows import word_arrows
from .blend import attention_explorer, running_attention
from .clocks import position_clocks
from .dot import arrow_pair, dot_product_arrows
from .heads import head_explorer
from .lens import matrix_lens
from .mask import mask_explorer
from .page import InteractiveFigure
from .replay import training_replay
from .scaling import scaling_data, scaling_explorer
from .stretch import running_scaled_scores, softmax_stretch
from .trained import causal_heads, trained_heads
from .transpose import transpose_explorer

__all__ = [
    "InteractiveFigure",
    "arrow_pair",
    "attention_explorer",
    "causal_heads",
    "dot_product_arrows",
    "head_explorer",
    "mask_explorer",
    "matrix_lens",
    "position_clocks",
    "running_attention",
    "running_scaled_scores",
    "scaling_data",
    "scaling_explorer",
    "softmax_stretch",
    "trained_heads",
    "training_replay",
    "transpose_explorer",
    "word_arrows",
]
