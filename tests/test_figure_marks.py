"""Figures never hide what they mark: signed tables in a diverging map white at 0, cell numbers that
read on their cell, frames that are not a colour of the map and sit outside its cells, labels off the
arrows, step captions clear of the blocks' labels, and one table in one colouring across chapters."""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import FancyArrowPatch, Rectangle

import attnlib
from attnlib import plot
from attnlib.plot.trained import CELL, MARK_DISTANCE, ROW, colour_distance_from_map

ROOT = Path(__file__).resolve().parents[1]


def _running():
    words = attnlib.words(attnlib.RUNNING_SENTENCE)
    X = attnlib.sentence_matrix(words)
    W_Q, W_K, W_V = attnlib.running_lenses()
    return words, X @ W_Q, X @ W_K


def _images(fig):
    return [im for ax in fig.axes for im in ax.get_images()]


def test_a_table_with_both_signs_is_drawn_diverging_and_symmetric_about_zero():
    words, Q, K = _running()
    signed = plot.heatmap(np.array([[-1.07, 0.07], [0.5, -0.25]]))
    positive = plot.heatmap(Q @ K.T, row_labels=words, col_labels=words)
    given = plot.heatmap(Q @ K.T, vmin=-5.8, vmax=5.8)
    panels = plot.labelled_panels([("PE", attnlib.positional_encoding(6, 4), words, None)])
    waves = plot.position_waves(attnlib.positional_encoding(50, 8))
    try:
        for fig in (signed, given, panels, waves):
            (im,) = _images(fig)
            lo, hi = im.get_clim()
            assert im.cmap.name == plot.DIVERGING and lo == -hi
            assert np.allclose(im.cmap(im.norm(0.0))[:3], 1.0, atol=0.05), "0 is not (near) white"
        (im,) = _images(positive)
        assert im.cmap.name == plot.HEATMAP
    finally:
        for fig in (signed, positive, given, panels, waves):
            plt.close(fig)


def _contrast(a, b) -> float:
    def luminance(c):
        rgb = np.array(matplotlib.colors.to_rgb(c))
        lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        return float(lin @ [0.2126, 0.7152, 0.0722])

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("vmin", [-5.8, None])
def test_every_cell_number_reads_on_its_own_cell(vmin):
    words, Q, K = _running()
    S = Q @ K.T - (2.0 if vmin is None else 0.0)
    fig = plot.heatmap(S, row_labels=words, col_labels=words, vmin=vmin, vmax=None if vmin is None else 5.8)
    try:
        (im,) = _images(fig)
        for text in fig.axes[0].texts:
            j, i = (round(c) for c in text.get_position())
            assert _contrast(text.get_color(), im.cmap(im.norm(S[i, j]))) >= 4.5, text.get_text()
    finally:
        plt.close(fig)


def _small_attention(layers=2, heads=2, n=5):
    A = np.full((layers, heads, n, n), 0.02)
    A[..., 0] = 0.92  # a sink on the first token: the bright column along a map's left edge
    return A


def test_all_heads_refuses_a_frame_in_a_colour_of_its_own_heatmap():
    A, tokens = _small_attention(), ["[CLS]", "the", "kitten", "sat", "[SEP]"]
    with pytest.raises(ValueError, match="colour of the heatmap"):
        plot.all_heads(A, tokens, marked={"most on [CLS]": ((1, 1), plot.YELLOW)})
    for colour in (plot.VERMILLION, plot.PURPLE, plot.ORANGE, plot.SKY):
        assert colour_distance_from_map(colour) >= MARK_DISTANCE


def test_all_heads_frames_sit_outside_the_cells_they_mark():
    A, tokens = _small_attention(), ["[CLS]", "the", "kitten", "sat", "[SEP]"]
    fig = plot.all_heads(A, tokens, marked={"most on [CLS]": ((1, 1), plot.PURPLE)})
    try:
        (grid,) = [ax for ax in fig.axes if any(isinstance(p, Rectangle) for p in ax.patches)]
        (frame,) = [p for p in grid.patches if isinstance(p, Rectangle)]
        n = A.shape[-1]
        block = n + max(1, round(n * (ROW - CELL) / CELL))
        fig.canvas.draw()
        line_half_width = frame.get_linewidth() / 72 * fig.dpi / 2  # pixels
        frame_left = grid.transData.transform((frame.get_x(), 0))[0]
        cells_left = grid.transData.transform((1 * block - 0.5, 0))[0]  # layer 1's map, its first column
        assert frame_left + line_half_width < cells_left, "the frame's line covers the marked map's first column"
    finally:
        plt.close(fig)


def _crosses(box, a, b, pad=1.0) -> bool:
    """Whether the segment a to b passes through the box; its tip (the last 8%), where a label may sit, aside."""
    t = np.linspace(0.0, 0.92, 200)[:, None]
    pts = a + t * (b - a)
    inside = (pts[:, 0] > box.x0 - pad) & (pts[:, 0] < box.x1 + pad)
    inside &= (pts[:, 1] > box.y0 - pad) & (pts[:, 1] < box.y1 + pad)
    return bool(inside.any())


def _arrow_figures():
    words, Q, K = _running()
    W_turn = np.array([[1.0, 1.0], [-1.0, 1.0]])
    return {
        "query_key_arrows": lambda: plot.query_key_arrows(
            Q, K, words, attnlib.data.QUERY_SLOTS, key_slot_names=attnlib.data.KEY_SLOTS
        ),
        "moved_arrows": lambda: plot.moved_arrows(attnlib.VOCAB_2D, W_turn),
        "row_combination": lambda: plot.row_combination("cat", attnlib.VOCAB_2D["cat"], W_turn),
    }


@pytest.mark.parametrize("name", list(_arrow_figures()))
def test_no_label_lies_on_an_arrow(name):
    fig = _arrow_figures()[name]()
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes:
            arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
            ends = [tuple(ax.transData.transform(end) for end in p._posA_posB) for p in arrows]
            boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text().strip()]
            for text, box in zip([t for t in ax.texts if t.get_text().strip()], boxes):
                for a, b in ends:
                    assert not _crosses(box, np.array(a), np.array(b)), f"{text.get_text()!r} lies on an arrow"
            for k, box in enumerate(boxes):
                assert not any(box.overlaps(other) for other in boxes[k + 1 :]), "two labels overlap"
    finally:
        plt.close(fig)


def test_heads_flow_steps_never_overlap_a_label_and_its_output_shows_every_head_colour():
    fig = plot.heads_flow(n=6, d_model=4, h=2)
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        texts = [t for t in ax.texts if t.get_text().strip()]
        boxes = [t.get_window_extent(renderer) for t in texts]
        for k, box in enumerate(boxes):
            for m in range(k + 1, len(boxes)):
                assert not box.overlaps(boxes[m]), f"{texts[k].get_text()!r} overlaps {texts[m].get_text()!r}"
        lowest = min(p.get_y() for p in ax.patches if isinstance(p, Rectangle))
        output_faces = {
            matplotlib.colors.to_hex(p.get_facecolor())
            for p in ax.patches
            if isinstance(p, Rectangle) and p.get_y() < lowest + 6
        }
        assert len(output_faces) >= 2, "the mixed output shows one colour, not the heads' colours"
    finally:
        plt.close(fig)


def _heatmap_scale(notebook: str, marker: str) -> tuple[str | None, str | None]:
    """vmin and vmax (as written) of the plot.heatmap call in the code cell that contains `marker`."""
    cells = json.loads((ROOT / "chapters" / notebook).read_text())["cells"]
    (source,) = ["".join(c["source"]) for c in cells if c["cell_type"] == "code" and marker in "".join(c["source"])]
    vmin, vmax = re.search(r"vmin=([-\d.]+)", source), re.search(r"vmax=([-\d.]+)", source)
    return (vmin and vmin.group(1)), (vmax and vmax.group(1))


def test_the_running_example_s_score_table_has_one_colour_scale_in_chapters_5_and_7():
    fit = _heatmap_scale("05_query_key_value.ipynb", "Hand-made lenses: how well query")
    scores = _heatmap_scale("07_dot_product_scores.ipynb", "Scores S = QKᵀ for")
    assert fit == scores and None not in fit
