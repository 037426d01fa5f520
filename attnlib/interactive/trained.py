"""The live figure of the chapter inside a trained model: pick a sentence, a layer and a head; see its weights A."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .page import InteractiveFigure, esc, f2, fig_id, radios, slider, word_span, word_style, wrap

#: the chapter's sentences: the running example and the intro's two
SENTENCES = (
    "the kitten sat on the mat",
    "the kitten sat on the mat because it was tired",
    "the kitten sat on the mat because it was soft",
)


def _measures(A: np.ndarray) -> list[float]:
    """Averages over the word rows (not [CLS], not [SEP]) of the weight on the previous token, the next,
    the token itself, [CLS] and [SEP], as the chapter measures them."""
    n = A.shape[0]
    w = np.arange(1, n - 1)
    return [float(A[w, w - 1].mean()), float(A[w, w + 1].mean()), float(A[w, w].mean()),
            float(A[w, 0].mean()), float(A[w, n - 1].mean())]  # fmt: skip


def _say(layer: int, head: int, values: Sequence[float]) -> str:
    names = ("previous token", "next token", "itself", "[CLS]", "[SEP]")
    return f"layer {layer}, head {head}, weight on: " + ", ".join(f"{k} {f2(v)}" for k, v in zip(names, values))


def _table(tokens: Sequence[str], A: np.ndarray) -> str:
    cols = "".join(f"<th>{word_span(t)}</th>" for t in tokens)
    rows = "".join(
        f"<tr><th>{word_span(t)}</th>" + "".join(f'<td class="attnfig-a">{f2(x)}</td>' for x in A[i]) + "</tr>"
        for i, t in enumerate(tokens)
    )
    return f'<tr><th class="attnfig-aname">query \\ key</th>{cols}</tr>{rows}'


def trained_heads(sentences: Sequence[str] = SENTENCES, layer: int = 0, head: int = 2) -> InteractiveFigure:
    """Every head of the trained model on a few sentences: choose one and read its weights A, token by token."""
    from .. import trained

    if not sentences:
        raise ValueError("trained_heads: give at least one sentence")
    if not (0 <= layer < trained.LAYERS and 0 <= head < trained.HEADS):
        raise ValueError(f"trained_heads: layer must be 0 to {trained.LAYERS - 1} and head 0 to {trained.HEADS - 1}")
    runs = [trained.attention_maps(s) for s in sentences]
    hundredths = [np.rint(A.astype(float) * 100).astype(int) for _, A in runs]  # two decimals, as shown
    p = fig_id("trained", [list(sentences), layer, head])
    start = hundredths[0][layer, head] / 100
    body = f"""{radios(p, "sentence", "the sentence:", [(str(k), esc(s)) for k, s in enumerate(sentences)], 0)}
<div class="attnfig-controls">{slider(p, "layer", "layer", 0, trained.LAYERS - 1, 1, layer, str(layer))}
{slider(p, "head", "head", 0, trained.HEADS - 1, 1, head, str(head))}</div>
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="this head's weights A, scrollable"><table class="attnfig-atable" aria-label="this head's weights A">{_table(runs[0][0], start)}</table></div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-say">{_say(layer, head, _measures(start))}</output></div>"""
    data = {
        "tokens": [toks for toks, _ in runs],
        "styles": [[word_style(t) for t in toks] for toks, _ in runs],
        "A": [h.tolist() for h in hundredths],
    }
    return wrap(p, "trained", "Every head of a trained model, one at a time", body, data, "trained.js")
