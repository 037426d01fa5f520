"""The matrix multiplication chapter's figure: a 2×2 matrix W moves every arrow; each moved arrow x W is a weighted sum of W's rows."""

from __future__ import annotations

import numpy as np

from ..core import matmul
from ..data import VOCAB_2D
from .page import InteractiveFigure, esc, f2, fig_id, radios, word_span, word_style, wrap

REACH, UNIT, W_LIMIT = 4.6, 33, 1.2  # the plane runs from −REACH to REACH; entries of W from −W_LIMIT to W_LIMIT


def weighted_sum_text(x, W) -> str:
    """x W written as x[0] × (row 0 of W) + x[1] × (row 1 of W) = the result (the page writes the same)."""
    out = matmul(np.array([x]), np.array(W))[0]
    return (
        f"{f2(x[0])} × [{f2(W[0][0])}, {f2(W[0][1])}] + {f2(x[1])} × [{f2(W[1][0])}, {f2(W[1][1])}] "
        f"= [{f2(out[0])}, {f2(out[1])}]"
    )


def matrix_lens(W=((1.0, 0.5), (0.0, 1.0)), word: str = "kitten") -> InteractiveFigure:
    """Edit the four entries of W: the drawing vocabulary's arrows x move to x W, each a weighted sum of W's rows (the matrix multiplication chapter)."""
    W = np.asarray(W, dtype=float)
    if W.shape != (2, 2):
        raise ValueError(f"matrix_lens: W must have shape (2, 2), but it has shape {W.shape}")
    if np.abs(W).max() > W_LIMIT:
        raise ValueError(f"matrix_lens: the entries of W must lie between −{W_LIMIT} and {W_LIMIT}")
    if word not in VOCAB_2D:
        raise ValueError(f"matrix_lens: word must be one of {list(VOCAB_2D)}, not {word!r}")
    words = list(VOCAB_2D)
    X = np.array([VOCAB_2D[w] for w in words], dtype=float)
    XW = matmul(X, W)  # the course's own loops (the matrix multiplication chapter)
    p = fig_id("lens", [W.tolist(), word])
    U = UNIT
    arrows = []
    for w, x, m in zip(words, X, XW):
        hidden = "" if w == word else ' display="none"'
        arrows.append(
            f'<g style="{word_style(w)}"><line x1="0" y1="0" x2="{x[0] * U:.2f}" y2="{-x[1] * U:.2f}" class="wk" '
            f'stroke-width="1.5" stroke-dasharray="3 3" style="opacity:0.6"/>'
            f'<line class="attnfig-moved wk" x1="0" y1="0" x2="{m[0] * U:.2f}" y2="{-m[1] * U:.2f}" '
            f'stroke-width="{4 if w == word else 2}"/>'
            f'<text class="attnfig-mlabel w" x="{m[0] * U + 5:.2f}" y="{-m[1] * U - 5:.2f}"{hidden}>{esc(w)}</text></g>'
        )
    cells = "".join(
        f'<label style="display:flex;gap:0.3rem;align-items:center">W[{r}][{c}] <input type="number" class="attnfig-w" '
        f'data-r="{r}" data-c="{c}" min="{-W_LIMIT}" max="{W_LIMIT}" step="0.1" value="{W[r, c]:g}" '
        f'aria-label="W row {r}, column {c}"></label>'
        for r in range(2)
        for c in range(2)
    )
    table = "".join(
        f'<tr><td>{word_span(w)}</td><td>[{f2(x[0])}, {f2(x[1])}]</td><td class="attnfig-xw">[{f2(m[0])}, {f2(m[1])}]</td></tr>'
        for w, x, m in zip(words, X, XW)
    )
    i = words.index(word)
    body = f"""<div class="attnfig-controls" style="grid-template-columns:auto auto;justify-content:start;gap:0.3rem 1rem" role="group" aria-label="the entries of W">{cells}</div>
{radios(p, "word", "follow one word:", [(w, word_span(w)) for w in words], i)}
<svg viewBox="{-REACH * U - 10} {-REACH * U - 10} {2 * REACH * U + 20} {2 * REACH * U + 20}" role="img" aria-labelledby="{p}-desc" class="attnfig-plane">
<desc id="{p}-desc" class="attnfig-desc">Dashed: the words' arrows x; solid: the moved arrows x W</desc>
<line x1="{-REACH * U}" y1="0" x2="{REACH * U}" y2="0" stroke="currentColor" stroke-opacity="0.4"/>
<line x1="0" y1="{-REACH * U}" x2="0" y2="{REACH * U}" stroke="currentColor" stroke-opacity="0.4"/>
{"".join(arrows)}
<line class="attnfig-leg0" x1="0" y1="0" stroke="var(--attnfig-q)" stroke-width="5" stroke-opacity="0.7"/>
<line class="attnfig-leg1" stroke="var(--attnfig-k)" stroke-width="5" stroke-opacity="0.7"/>
</svg>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-name">{esc(word)}</output> × W = <output class="attnfig-sum">{weighted_sum_text(X[i], W)}</output><br>
<span style="color:var(--attnfig-q);font-weight:700">━ its first number times row 0</span>, then <span style="color:var(--attnfig-k);font-weight:700">━ its second number times row 1</span></div>
<table aria-label="each word before and after W"><tr><th>word</th><th>x</th><th>x W</th></tr>{table}</table>"""
    data = {"words": words, "X": X.tolist(), "unit": U}
    return wrap(p, "lens", "Change W and watch every arrow move", body, data, "lens.js")
