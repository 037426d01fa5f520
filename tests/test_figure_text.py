"""Every course figure stays legible on a 390 px phone: its smallest text renders at >= 9 CSS px.

A figure is stored as SVG and shown at the phone's content width (about 358 px), so text of
`pt` points in a figure `w` inches wide renders at pt * 358 / (w * 72) px. Each figure function
is drawn with the inputs the chapters give it (grep chapters/*.ipynb for `plot.`).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import course_map  # tools/course_map.py
import matplotlib.pyplot as plt
import numpy as np
import pytest

import attnlib
from attnlib import plot

ROOT = Path(__file__).resolve().parents[1]
PHONE_CONTENT_PX = 358  # a 390 px phone's text column
MIN_PX = 9.0


def _sentence():
    words = attnlib.words(attnlib.RUNNING_SENTENCE)
    X = attnlib.sentence_matrix(words)
    W_Q, W_K, W_V = attnlib.running_lenses()
    return words, X, W_Q, W_K, W_V


def _timing_runs(panels: int) -> dict:
    n = np.array([128, 256, 512, 1024, 2048])
    impls = ["naive-numpy", "naive-torch", "tiled-numpy", "tiled-torch", "sdpa-torch"]
    curves = {impl: (n, 1e-9 * (k + 1) * n.astype(float) ** 2) for k, impl in enumerate(impls)}
    names = [
        "live: this machine, float32, 1 head, 1 thread",
        "cpu_epyc.json: AMD EPYC (family 25, model 1; AVX2, no AVX-512), float32, 1 heads, 1 thread(s), 2026-12-01",
        "gpu_h100.json: NVIDIA H100 80GB HBM3, bfloat16, 1 heads, 2026-12-01",
    ]
    return {names[k]: curves for k in range(panels)}


def _cases():
    words, X, W_Q, W_K, W_V = _sentence()
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T
    A = attnlib.softmax(S / np.sqrt(2))
    Z = A @ V
    sat, kitten = words.index("sat"), words.index("kitten")
    M, N = np.array([[1, 2, 3], [4, 5, 6]]), np.array([[1, 0], [0, 1], [2, 1]])
    Q6, K6 = np.array([[1, 0], [2, 1], [0, 1]]), np.array([[1, 2], [3, 4], [5, 6]])
    d_ks = [2**i for i in range(11)]
    small = ["kitten", "mat", "the"]
    quantities = {
        "X": np.zeros((6, 4)),
        "W_Q": np.zeros((4, 2)),
        "W_K": np.zeros((4, 2)),
        "W_V": np.zeros((4, 4)),
        "Q": np.zeros((6, 2)),
        "K": np.zeros((6, 2)),
        "V": np.zeros((6, 4)),
        "S": np.zeros((6, 6)),
        "A": np.zeros((6, 6)),
        "Z": np.zeros((6, 4)),
    }
    lines3 = [["X", "W_Q", "W_K", "W_V"], ["Q", "K", "V"], ["S", "A", "Z"]]
    three = ["cat", "dog", "car"]
    cat = np.asarray(attnlib.embed("cat"))[:2]
    causal = np.tril(np.ones((6, 6), dtype=bool))
    PE = attnlib.positional_encoding(6, 4)
    placed = [f"{pos} {word}" for pos, word in enumerate(words)]
    learned_rows = ["pos 0", "pos 1", "pos 2", "pos 3"] + attnlib.FEATURES
    learned = np.random.default_rng(0).uniform(-3, 3, (8, 4))  # the shape of chapter 14's learned lenses
    return {
        "arrow_parts": lambda: plot.arrow_parts("cat", attnlib.VOCAB_2D["cat"]),
        "arrows": lambda: plot.arrows(
            attnlib.VOCAB_2D,
            title="Five words as arrows",
            xlabel="animal-ness (first number)",
            ylabel="vehicle-ness (second number)",
        ),
        "arrows_to_rows": lambda: plot.arrows_to_rows(
            {w: attnlib.VOCAB_2D[w] for w in three},
            xlabel="animal-ness",
            ylabel="vehicle-ness",
            col_labels=["animal", "vehicle"],
        ),
        "stacked_rows": lambda: plot.stacked_rows(words, X, col_labels=attnlib.FEATURES),
        "grid": lambda: plot.grid(
            X[:3],
            row_labels=["the", "cat", "sat"],
            col_labels=attnlib.FEATURES,
            rows_name="n",
            cols_name="d_model",
            title="$" + attnlib.shape_tag("X", X[:3], latex=True) + "$",
        ),
        "grid 6 columns": lambda: plot.grid(A, row_labels=words, col_labels=words, title="$A$"),
        "heatmap 8×8": lambda: plot.heatmap(np.arange(64.0).reshape(8, 8) / 64, title="eight words"),
        "shape_blocks": lambda: plot.shape_blocks(
            [{k: quantities[k] for k in line} for line in lines3],
            captions={k: f"{v.shape[0]} × {v.shape[1]}" for k, v in quantities.items()},
            title="Every quantity of attention, drawn to size",
        ),
        "matmul_cell ch04": lambda: plot.matmul_cell(M, N, 0, 1),
        "matmul_cell ch06": lambda: plot.matmul_cell(Q6, K6.T, 1, 2, left_name="Q", right_name=r"K^{\mathsf{T}}"),
        "projections": lambda: plot.projections(n=6, d_model=4, d_k=2, d_v=4),
        "labelled_grids lenses": lambda: plot.labelled_grids(
            {"W_Q": W_Q, "W_K": W_K, "W_V": W_V},
            row_labels=attnlib.FEATURES,
            col_labels={
                "W_Q": attnlib.data.QUERY_SLOTS,
                "W_K": attnlib.data.KEY_SLOTS,
                "W_V": attnlib.data.VALUE_SLOTS,
            },
            title="The hand-made lenses: rows read $X$, columns make new numbers",
        ),
        "labelled_grids QKV": lambda: plot.labelled_grids(
            {"Q": Q, "K": K, "V": V},
            row_labels=words,
            col_labels={"Q": attnlib.data.QUERY_SLOTS, "K": attnlib.data.KEY_SLOTS, "V": attnlib.data.VALUE_SLOTS},
            highlight_nonzero=False,
            word_rows=True,
            fmt="{:.2g}",
            title="Queries, keys and values of the sentence",
        ),
        "transpose_reflection": lambda: plot.transpose_reflection(np.array([[1, 2], [3, 4], [5, 6]]), name="K"),
        "dot_cases": lambda: plot.dot_cases(),
        "dot_projection": lambda: plot.dot_projection(
            [("sat", Q[sat], "kitten", K[kitten]), ("kitten", Q[kitten], "sat", K[sat])],
            title="S[sat, kitten] and S[kitten, sat]\ncompare different arrows",
            xlabel=r"slot 1: animal",
            ylabel=r"slot 2: action",
        ),
        "dot_projection cat": lambda: plot.dot_projection(
            [("kitten", X[kitten, :2], "kitten", X[kitten, :2]), ("kitten", X[kitten, :2], "cat", cat)],
            title="The same query, two keys:\nlength times shadow",
            xlabel="animal-ness",
            ylabel="vehicle-ness",
        ),
        "heatmap S": lambda: plot.word_ticks(
            plot.heatmap(
                S,
                row_labels=words,
                col_labels=words,
                title="Scores S = QKᵀ for “the kitten sat on the mat”",
                xlabel=r"key $k_j$ of word $j$",
                ylabel=r"query $q_i$ of word $i$",
                colorbar_label=r"score $S_{ij} = q_i \cdot k_j$",
            )
        ),
        "heatmap A": lambda: plot.heatmap(
            A,
            row_labels=words,
            col_labels=words,
            vmin=0,
            vmax=1,
            title=r'$A$ for "the kitten sat on the mat"',
            colorbar_label=r"weight $A_{ij}$",
            size=(4.6, 4.2),
            colour_labels=True,
        ),
        "lines ch08": lambda: plot.lines(
            d_ks,
            {"none": d_ks, r"divide by $\sqrt{d_k}$": d_ks, r"divide by $d_k$": d_ks, "even shares, 1/8": [1 / 8] * 11},
            xlabel=r"$d_k$ (doubling at each step)",
            ylabel="largest weight in a row",
            logx=True,
            title="Three choices of divisor",
            styles={"even shares, 1/8": ":"},
        ),
        "lines ch11": lambda: plot.lines(
            [2**k for k in range(7, 18)],
            {
                "A alone, kept by naive attention (n×n)": [2.0**k for k in range(11)],
                "all of tiled: Q, K, V, Z and one 256×256 block": [1.0] * 11,
            },
            xlabel="n (sequence length)",
            ylabel="MiB, float32, one head",
            title="Memory against n",
            logx=True,
            logy=True,
        ),
        "softmax_shares 3": lambda: plot.softmax_shares(
            [2.0, 1.0, 0.1], small, title='The scores of "sat" become shares'
        ),
        "softmax_shares 6": lambda: plot.softmax_shares(
            S[sat] / np.sqrt(2), words, title=r'Row "sat": scaled scores become weights'
        ),
        "blend 3": lambda: plot.blend(
            [0.1, 0.6, 0.3],
            [[0.0, 1.0], [4.0, 0.0], [2.0, 2.0]],
            ["the", "kitten", "sat"],
            target=r"$z_{\mathrm{kitten}}$",
        ),
        "blend 6": lambda: plot.blend(A[sat], V, words, target=r"$z_{\mathrm{sat}}$"),
        "before_after": lambda: plot.before_after(X, Z, words, attnlib.FEATURES),
        "prerequisite_map": lambda: course_map.prerequisite_map(ROOT / "_toc.yml"),
        "attention_maps ch11 causal": lambda: plot.attention_maps(
            {"no mask": A, "causal mask": attnlib.self_attention(X, W_Q, W_K, W_V, mask=causal)[1]},
            words,
            masks={"causal mask": causal},
            title="Who attends to whom, before and after the mask",
        ),
        "attention_maps ch11 padding": lambda: plot.attention_maps(
            {"no padding mask": A, "padding mask": A},
            words[:3] + ["pad", "pad", "pad"],
            masks={"padding mask": np.broadcast_to(np.arange(6) < 3, (6, 6))},
            title="'the kitten sat', padded to six positions",
        ),
        "attention_maps ch12": lambda: plot.attention_maps(
            {"head 1: who?": A, "head 2: where?": A.T}, words, title="Two heads, two questions, one sentence"
        ),
        "labelled_panels ch13 Z": lambda: plot.labelled_panels(
            [
                ("Z, in sentence order", Z, words, attnlib.FEATURES),
                ("Z of the shuffled words", Z[::-1], words[::-1], attnlib.FEATURES),
            ],
            title="Shuffle the words: each row of Z moves with its word",
        ),
        "position_waves": lambda: plot.position_waves(
            attnlib.positional_encoding(50, 16), title="Positional encoding PE: 50 positions, 16 dimensions"
        ),
        "labelled_panels ch13 X+PE": lambda: plot.labelled_panels(
            [
                ("X (the words)", X, placed, attnlib.FEATURES),
                ("PE (the places)", PE, placed, ["0", "1", "2", "3"]),
                ("X + PE", X + PE, placed, attnlib.FEATURES),
            ],
            title="Positions are added to X",
            vmin=-1.0,
            vmax=2.0,
        ),
        "loss_curve": lambda: plot.loss_curve(
            np.geomspace(0.8, 2e-4, 200), title="Training the lenses: the loss falls"
        ),
        "word_heatmap ch14": lambda: plot.word_heatmap(
            A,
            row_labels=placed,
            col_labels=placed,
            vmin=0,
            vmax=1,
            title="Learned A: each word attends to the word before",
            colorbar_label=r"weight $\alpha_{ij}$",
        ),
        "labelled_panels ch14 lenses": lambda: plot.labelled_panels(
            [
                (r"hand-made $W_Q$", W_Q, attnlib.FEATURES, attnlib.data.QUERY_SLOTS),
                (r"hand-made $W_K$", W_K, attnlib.FEATURES, attnlib.data.KEY_SLOTS),
                (r"hand-made $W_V$", W_V, attnlib.FEATURES, attnlib.FEATURES),
                (r"learned $W_Q$", learned[:, :2], learned_rows, ["0", "1"]),
                (r"learned $W_K$", learned[:, 2:], learned_rows, ["0", "1"]),
                (r"learned $W_V$", learned, learned_rows, attnlib.FEATURES),
            ],
            ncols=3,
            title="Chapter 5's lenses (left) and the learned lenses (right)",
            fmt="{:.1f}",
        ),
        "roofline": lambda: plot.roofline(
            {
                "plain-numpy": (5.0, 1.5e10),
                "naive-numpy": (5.0, 5.1e10),
                "naive-torch": (5.0, 5.1e10),
                "tiled-numpy": (205.0, 7.8e10),
                "tiled-torch": (205.0, 1.1e11),
                "sdpa-torch": (512.0, 1.4e11),
                "matmul 2048": (341.0, 1.8e11),
            },
            {"this CPU, 1 thread (measured)": (1.84e11, 2.7e10), "H200, from its data sheet": (989e12, 4.8e12)},
            title="Attention at n = 2048, 8 heads, float32",
        ),
        "timings 1": lambda: plot.timings(_timing_runs(1)),
        "timings 3": lambda: plot.timings(_timing_runs(3)),
    }


def _arrows_moved_cases():
    """The figures of plot.geometry and plot.learning, with the inputs their chapters give them."""
    words, X, W_Q, W_K, _ = _sentence()
    Q, K = X @ W_Q, X @ W_K
    vocab_2d, W_turn = attnlib.VOCAB_2D, np.array([[1.0, 1.0], [-1.0, 1.0]])
    turned = [(f"{a} rad", (np.cos(a), np.sin(a)), plot.PALETTE[a]) for a in range(6)]
    return {
        "angle_between": lambda: plot.angle_between("cat", vocab_2d["cat"], "car", vocab_2d["car"]),
        "moved_arrows": lambda: plot.moved_arrows(
            vocab_2d,
            W_turn,
            title=r"$XW_{\mathrm{turn}}$: every arrow moves",
            xlabel="new number 0: animal − vehicle",
            ylabel="new number 1: animal + vehicle",
        ),
        "row_combination": lambda: plot.row_combination("cat", vocab_2d["cat"], W_turn, w_name=r"W_{\mathrm{turn}}"),
        "query_key_arrows": lambda: plot.query_key_arrows(
            Q,
            K,
            words,
            attnlib.data.QUERY_SLOTS,
            key_slot_names=attnlib.data.KEY_SLOTS,
            title="Queries and keys in the plane of the two slots",
        ),
        "transpose_mirror": lambda: plot.transpose_mirror(K, name="K"),
        "heads_flow": lambda: plot.heads_flow(n=6, d_model=4, h=2),
        "turning_arrows": lambda: plot.turning_arrows(turned, title="An arrow turned by 0, 1, ..., 5 radians"),
        "weight_by_position": lambda: plot.weight_by_position(
            np.linspace(0.9, 0.3, 11),
            trained_length=6,
            title="Trained on 6 words, tested on 12: weight on the word before",
        ),
    }


CASES = {**_cases(), **_arrows_moved_cases()}


def drawn_and_svg(fig) -> tuple[list[tuple[float, str]], str]:
    """(font size in pt, text) of every text the figure really draws (not the hidden ticks of an axis turned
    off), and the figure as the notebooks store it (tight SVG): both from one save."""
    drawn: list[tuple[float, str]] = []
    original = matplotlib.text.Text.draw

    def record(self, renderer):
        if self.get_visible() and self.get_text().strip():
            drawn.append((self.get_fontsize(), self.get_text()))
        return original(self, renderer)

    buf = io.BytesIO()
    matplotlib.text.Text.draw = record
    try:
        with plt.rc_context(plot.SVG_STYLE):
            fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    finally:
        matplotlib.text.Text.draw = original
    return drawn, buf.getvalue().decode()


def drawn_texts(fig) -> list[tuple[float, str]]:
    return drawn_and_svg(fig)[0]


def smallest_text_px(fig, drawn: list[tuple[float, str]] | None = None) -> tuple[float, str]:
    """The smallest text of a drawn figure, in CSS px at the phone's content width, and that text."""
    pt, text = min(drawn or drawn_texts(fig))
    width_pt = fig.get_figwidth() * 72
    shown = min(PHONE_CONTENT_PX, width_pt * 4 / 3)  # a narrow figure is shown at its own size
    return pt * shown / width_pt, text


def svg_smallest_px(fig, svg: str | None = None) -> float:
    """The same, measured as tests/test_browser.py does: glyph scale over the tight SVG's viewBox."""
    svg = svg or drawn_and_svg(fig)[1]
    width = float(re.search(r'viewBox="[\d.-]+ [\d.-]+ ([\d.]+)', svg).group(1))
    scales = [100 * float(m) for m in re.findall(r"scale\(([\d.]+) -\1\)", svg)]
    return min(scales) * min(PHONE_CONTENT_PX, width * 4 / 3) / width


@pytest.mark.parametrize("name", list(CASES))
def test_figure_text_legible_on_a_phone(name):
    fig = CASES[name]()
    try:
        drawn, svg = drawn_and_svg(fig)
        px, text = smallest_text_px(fig, drawn)
        assert px >= MIN_PX, f"{name}: {text!r} renders at {px:.1f} px on a phone ({fig.get_figwidth():.1f} in wide)"
        assert svg_smallest_px(fig, svg) >= MIN_PX - 0.05
        for pt, text in drawn:
            assert pt >= 10, f"{name}: {text!r} is {pt} pt (< 10 pt)"
    finally:
        plt.close(fig)
