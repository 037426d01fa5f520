"""The masks chapter's figure: click score cells to mask them; −∞ before softmax, 0 before softmax, or zeroing after."""

from __future__ import annotations

import numpy as np

from ..core import softmax
from ..masks import causal_mask
from .blend import running_attention
from .page import InteractiveFigure, esc, f2, fig_id, radios, word_span, wrap
from .stretch import running_scaled_scores

#: The three ways to hide a key, and what each does to a row of weights.
MODES = {"minus_inf": "−∞ before softmax", "zero_before": "0 before softmax", "zero_after": "zero after softmax"}


def masked_weights(allowed: np.ndarray, mode: str) -> np.ndarray:
    """The running example's A with the keys where `allowed` is False hidden in one of three ways (the masks chapter)."""
    if mode == "minus_inf":
        return running_attention(mask=allowed)[1]  # attnlib.attention: the course's way
    _, S = running_scaled_scores()
    if mode == "zero_before":
        return softmax(np.where(allowed, S, 0.0))
    if mode == "zero_after":
        return softmax(S) * allowed
    raise ValueError(f"masked_weights: mode must be one of {list(MODES)}, not {mode!r}")


def sums_note(A: np.ndarray, mode: str) -> str:
    """What the row sums say (the page's script writes the same)."""
    sums = A.sum(axis=1)
    off = [i for i, s in enumerate(sums) if abs(s - 1) > 0.005]
    if not off:
        if mode == "zero_before":
            return "every row sums to 1.00, but a hidden key still gets weight: a score of 0 is not “no score”"
        return "every row sums to 1.00: softmax shares each row among the keys it may see"
    rows = ", ".join(f"row {i}" for i in off)
    return f"{rows} no longer sum{'s' if len(off) == 1 else ''} to 1: zeroing after softmax loses the hidden share"


def mask_explorer(mode: str = "minus_inf", causal: bool = True) -> InteractiveFigure:
    """The running example's scaled scores as buttons: press one to hide that key from that query; see A re-normalise (the masks chapter)."""
    if mode not in MODES:
        raise ValueError(f"mask_explorer: mode must be one of {list(MODES)}, not {mode!r}")
    labels, S = running_scaled_scores()
    n = len(labels)
    allowed = causal_mask(n) if causal else np.ones((n, n), dtype=bool)
    A = masked_weights(allowed, mode)
    p = fig_id("mask", [mode, causal])
    head = "".join(f"<th>{j}&nbsp;{word_span(w)}</th>" for j, w in enumerate(labels))
    score_rows = "".join(
        f"<tr><th>{i}&nbsp;{word_span(w)}</th>"
        + "".join(
            f'<td><button type="button" class="attnfig-cell" data-i="{i}" data-j="{j}" aria-pressed="{str(not allowed[i, j]).lower()}" '
            f'aria-label="query {i} {esc(w)}, key {j} {esc(labels[j])}: score {f2(S[i, j])}">{f2(S[i, j])}</button></td>'
            for j in range(n)
        )
        + "</tr>"
        for i, w in enumerate(labels)
    )
    weight_rows = "".join(
        f"<tr><th>{i}&nbsp;{word_span(w)}</th>"
        + "".join(f'<td class="attnfig-a">{f2(A[i, j])}</td>' for j in range(n))
        + f'<td class="attnfig-rowsum" style="font-weight:700">{f2(A[i].sum())}</td></tr>'
        for i, w in enumerate(labels)
    )
    options = [(key, text) for key, text in MODES.items()]
    body = f"""<p style="margin:0.2rem 0">Scores S/√d<sub>k</sub>: press a cell to hide key j from query i (pressed cells are struck through).</p>
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="score table, scrollable"><table class="attnfig-grid" aria-label="scores; each cell a button that masks it"><tr><th>i \\ j</th>{head}</tr>{score_rows}</table></div>
<div class="attnfig-controls" style="grid-auto-flow:column;justify-content:start">
<button type="button" class="attnfig-causal">causal mask</button> <button type="button" class="attnfig-clear">no mask</button></div>
{radios(p, "mode", "how a hidden key is hidden:", options, list(MODES).index(mode))}
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="weights table, scrollable"><table aria-label="the weights A and each row's sum"><tr><th>A</th>{head}<th>sum</th></tr>{weight_rows}</table></div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-note">{esc(sums_note(A, mode))}</output></div>"""
    data = {"S": S.tolist()}
    return wrap(p, "mask", "Mask a score: the row re-normalises", body, data, "mask.js")
