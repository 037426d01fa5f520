"""The live figures of the two real models (the trained model and causal model chapters): pick a
sentence, a layer and a head; read that head's weights A, token by token."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .._model_files import check_stored
from .page import InteractiveFigure, esc, f2, fig_id, radios, slider, word_span, word_style, wrap

#: the trained model chapter's sentences: the running example and the intro's two
SENTENCES = (
    "the kitten sat on the mat",
    "the kitten sat on the mat because it was tired",
    "the kitten sat on the mat because it was soft",
)
#: the causal model chapter's texts: its prompt, a sentence with a pronoun, and three words written twice
TEXTS = ("The capital of France is", "The kitten sat on the mat because it was tired", "red blue green red blue green")
NAMES = ("previous token", "itself", "first token")
#: the default texts' tokens and weights in hundredths, written by tools/figure_weights.py (package data)
STORED = Path(__file__).resolve().parents[1] / "figure_weights.npz"
STORED_SHA256 = "0550e15ec1e7fcaed1368070465c979d2c6e45372ea63d7bf99d5f89ebfe4e31"


def hundredths(model, texts: Sequence[str]) -> list[tuple[list[str], np.ndarray]]:
    """Each text's tokens and every head's weights A in hundredths (uint8, as the table shows them), run now."""
    runs = [model.attention_maps(t) for t in texts]
    return [(toks, np.rint(A.astype(float) * 100).astype(np.uint8)) for toks, A in runs]


def _weights(name: str, model, texts: Sequence[str]) -> list[tuple[list[str], np.ndarray]]:
    """hundredths(model, texts), read from the stored file when `texts` are the figure's default ones."""
    with np.load(check_stored(STORED, STORED_SHA256, "tools/figure_weights.py")) as data:
        if list(texts) != data[f"{name}_texts"].tolist():
            return hundredths(model, texts)
        return [_unpacked(data[f"{name}_tokens_{k}"].tolist(), data[f"{name}_A_{k}"]) for k in range(len(texts))]


def _unpacked(tokens: list[str], A: np.ndarray) -> tuple[list[str], np.ndarray]:
    """(tokens, A of shape (layers, heads, n, n)): the causal model's A is stored only on and left of the diagonal."""
    if A.ndim == 4:
        return tokens, A
    full = np.zeros(A.shape[:2] + (len(tokens),) * 2, np.uint8)
    full[(..., *np.tril_indices(len(tokens)))] = A
    return tokens, full


def _table(tokens: Sequence[str], A: np.ndarray, causal: bool = False) -> str:
    """A as an HTML table, a token per row and column; causal: a dot for each weight the causal mask hides."""
    cols = "".join(f"<th>{word_span(t)}</th>" for t in tokens)
    rows = "".join(
        f"<tr><th>{word_span(t)}</th>"
        + "".join(
            '<td class="attnfig-hid">·</td>' if causal and j > i else f'<td class="attnfig-a">{f2(x)}</td>'
            for j, x in enumerate(A[i])
        )
        + "</tr>"
        for i, t in enumerate(tokens)
    )
    return f'<tr><th class="attnfig-aname">query \\ key</th>{cols}</tr>{rows}'


def _controls(p: str, what: str, choices: Sequence[str], model, layer: int, head: int) -> str:
    """The radio buttons that pick a sentence, and the layer and head sliders."""
    options = [(str(k), esc(s)) for k, s in enumerate(choices)]
    return f"""{radios(p, "sentence", f"the {what}:", options, 0)}
<div class="attnfig-controls">{slider(p, "layer", "layer", 0, model.LAYERS - 1, 1, layer, str(layer))}
{slider(p, "head", "head", 0, model.HEADS - 1, 1, head, str(head))}</div>"""


def _checked(name: str, choices: Sequence[str], what: str, model, layer: int, head: int) -> None:
    if not choices:
        raise ValueError(f"{name}: give at least one {what}")
    if not (0 <= layer < model.LAYERS and 0 <= head < model.HEADS):
        raise ValueError(f"{name}: layer must be 0 to {model.LAYERS - 1} and head 0 to {model.HEADS - 1}")


def trained_heads(sentences: Sequence[str] = SENTENCES, layer: int = 0, head: int = 2) -> InteractiveFigure:
    """Every head of the trained model on a few sentences: choose one and read its weights A, token by token.

    The default sentences' weights were computed by this same code and stored (tools/figure_weights.py), so
    the page is the same on any processor; other sentences are run now.
    """
    from .. import trained

    _checked("trained_heads", sentences, "sentence", trained, layer, head)
    runs = _weights("trained", trained, sentences)
    p = fig_id("trained", [list(sentences), layer, head])
    A = runs[0][1][layer, head] / 100
    w = np.arange(1, len(A) - 1)  # the word rows: not [CLS], not [SEP]
    measures = (A[w, w - 1], A[w, w + 1], A[w, w], A[w, 0], A[w, len(A) - 1])
    names = ("previous token", "next token", "itself", "[CLS]", "[SEP]")
    say = f"layer {layer}, head {head}, weight on: " + ", ".join(
        f"{k} {f2(float(v.mean()))}" for k, v in zip(names, measures)
    )
    body = f"""{_controls(p, "sentence", sentences, trained, layer, head)}
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="this head's weights A, scrollable"><table class="attnfig-atable" aria-label="this head's weights A">{_table(runs[0][0], A)}</table></div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-say">{say}</output></div>"""
    data = {
        "tokens": [toks for toks, _ in runs],
        "styles": [[word_style(t) for t in toks] for toks, _ in runs],
        "A": [h.tolist() for _, h in runs],
        "causal": False,
    }
    return wrap(p, "trained", "Every head of a trained model, one at a time", body, data, "trained.js")


def causal_heads(texts: Sequence[str] = TEXTS, layer: int = 16, head: int = 0) -> InteractiveFigure:
    """Every head of the causal model on a few short texts: choose one and read its weights A, token by token.

    Only the weights on and left of the diagonal are stored (the causal mask makes the others 0),
    in hundredths, as the table shows them. The default texts' weights were computed by this same code and
    stored (tools/figure_weights.py), so the page is the same on any processor; other texts are run now.
    """
    from .. import causal_lm

    _checked("causal_heads", texts, "text", causal_lm, layer, head)
    runs = _weights("causal", causal_lm, texts)
    shown = [[causal_lm.label(p) for p in pieces] for pieces, _ in runs]
    p = fig_id("causal", [list(texts), layer, head])
    A = runs[0][1][layer, head] / 100
    w = np.arange(1, A.shape[0])  # row 0 can see only itself
    measures = (A[w, w - 1], A[w, w], A[w, 0])
    say = f"layer {layer}, head {head} (key/value head {head // causal_lm.GROUP}), weight on: " + ", ".join(
        f"{k} {f2(float(v.mean()))}" for k, v in zip(NAMES, measures)
    )
    lower = [[[[row[: i + 1].tolist() for i, row in enumerate(M)] for M in heads] for heads in h] for _, h in runs]
    body = f"""{_controls(p, "text", texts, causal_lm, layer, head)}
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="this head's weights A, scrollable"><table class="attnfig-atable" aria-label="this head's weights A; a dot marks a weight the causal mask hides">{_table(shown[0], A, causal=True)}</table></div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-say">{say}</output></div>"""
    styles = [[word_style(t) for t in toks] for toks in shown]
    data = {
        "tokens": shown,
        "styles": styles,
        "A": lower,
        "causal": True,
        "group": causal_lm.HEADS // causal_lm.KV_HEADS,
    }
    return wrap(p, "causal", "Every head of a model that writes, one at a time", body, data, "trained.js")
