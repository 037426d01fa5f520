"""The live figure of the chapter inside a model that writes: pick a text, a layer and a head; see its weights A."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .page import InteractiveFigure, esc, f2, fig_id, radios, slider, word_span, word_style, wrap

#: the figure's texts: the chapter's prompt, a sentence with a pronoun, and three words written twice
TEXTS = (
    "The capital of France is",
    "The kitten sat on the mat because it was tired",
    "red blue green red blue green",
)
NAMES = ("previous token", "itself", "first token")


def _measures(A: np.ndarray) -> list[float]:
    """Averages over rows 1 … n - 1 (row 0 can see only itself) of the weight on the previous token,
    the token itself and the first token, as the chapter measures them."""
    w = np.arange(1, A.shape[0])
    return [float(A[w, w - 1].mean()), float(A[w, w].mean()), float(A[w, 0].mean())]


def _lower(h: np.ndarray) -> list:
    """Every head's rows, each cut after its diagonal: [layer][head][i] holds A[i, 0 … i]."""
    return [[[row[: i + 1].tolist() for i, row in enumerate(A)] for A in layer] for layer in h]


def _say(layer: int, head: int, values: Sequence[float]) -> str:
    return f"layer {layer}, head {head} (key/value head {head // 3}), weight on: " + ", ".join(
        f"{k} {f2(v)}" for k, v in zip(NAMES, values)
    )


def _table(tokens: Sequence[str], A: np.ndarray) -> str:
    cols = "".join(f"<th>{word_span(t)}</th>" for t in tokens)
    rows = "".join(
        f"<tr><th>{word_span(t)}</th>"
        + "".join(
            f'<td class="attnfig-a">{f2(x)}</td>' if j <= i else '<td class="attnfig-hid">·</td>'
            for j, x in enumerate(A[i])
        )
        + "</tr>"
        for i, t in enumerate(tokens)
    )
    return f'<tr><th class="attnfig-aname">query \\ key</th>{cols}</tr>{rows}'


def causal_heads(texts: Sequence[str] = TEXTS, layer: int = 16, head: int = 0) -> InteractiveFigure:
    """Every head of the causal model on a few short texts: choose one and read its weights A, token by token.

    Only the weights on and left of the diagonal are stored (the causal mask makes the others 0),
    in hundredths, as the table shows them.
    """
    from .. import causal_lm

    if not texts:
        raise ValueError("causal_heads: give at least one text")
    if not (0 <= layer < causal_lm.LAYERS and 0 <= head < causal_lm.HEADS):
        raise ValueError(f"causal_heads: layer must be 0 to {causal_lm.LAYERS - 1} and head 0 to {causal_lm.HEADS - 1}")
    runs = [causal_lm.attention_maps(t) for t in texts]
    shown = [[p.replace(" ", "␣").replace("\n", "⏎") for p in pieces] for pieces, _ in runs]
    hundredths = [np.rint(A.astype(float) * 100).astype(int) for _, A in runs]
    p = fig_id("causal", [list(texts), layer, head])
    start = hundredths[0][layer, head] / 100
    body = f"""{radios(p, "sentence", "the text:", [(str(k), esc(t)) for k, t in enumerate(texts)], 0)}
<div class="attnfig-controls">{slider(p, "layer", "layer", 0, causal_lm.LAYERS - 1, 1, layer, str(layer))}
{slider(p, "head", "head", 0, causal_lm.HEADS - 1, 1, head, str(head))}</div>
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="this head's weights A, scrollable"><table class="attnfig-atable" aria-label="this head's weights A; a dot marks a weight the causal mask hides">{_table(shown[0], start)}</table></div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-say">{_say(layer, head, _measures(start))}</output></div>"""
    data = {
        "tokens": shown,
        "styles": [[word_style(t) for t in toks] for toks in shown],
        "A": [_lower(h) for h in hundredths],
    }
    return wrap(p, "causal", "Every head of a model that writes, one at a time", body, data, "causal.js")
