"""The weighted sum chapter's figure: one row of A blends the value vectors into that word's z."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core import attention
from ..data import FEATURES, running_qkv
from .page import InteractiveFigure, esc, f2, fig_id, radios, word_span, word_style, wrap


def running_attention(mask: np.ndarray | None = None) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The running example through attnlib.attention: (words, A, V, Z), with an optional mask (the weighted sum and masks chapters)."""
    labels, Q, K, V = running_qkv()
    Z, A = attention(Q, K, V, mask=mask)
    return labels, np.asarray(A), np.asarray(V), np.asarray(Z)


def viridis_hex(x: float) -> tuple[str, str]:
    """The viridis colour of a weight in [0, 1] and a text colour that reads on it."""
    from matplotlib import colormaps

    r, g, b, _ = colormaps["viridis"](float(x))
    fill = f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"
    from .page import contrast

    return fill, ("#000000" if contrast(fill, "#000000") >= contrast(fill, "#ffffff") else "#ffffff")


def summary(labels: Sequence[str], i: int, w: np.ndarray) -> str:
    top = int(np.argmax(w))
    return (
        f"z{i} of “{labels[i]}” blends all {len(labels)} value vectors; the largest weight, {f2(w[top])}, "
        f"is on v{top} of “{labels[top]}”."
    )


def attention_explorer(word: str = "sat") -> InteractiveFigure:
    """The running example's A as a heatmap: pick a word to see its row blend the value vectors into z (the weighted sum chapter)."""
    labels, A, V, Z = running_attention()
    if word not in labels:
        raise ValueError(f"attention_explorer: word must be one of {labels}, not {word!r}")
    n = len(labels)
    p = fig_id("blend", [word])
    sel = labels.index(word)
    colours = [[viridis_hex(x) for x in row] for row in A]
    left, cell, ch, top = 70, 42, 30, 22
    parts = []
    for j, lab in enumerate(labels):
        parts.append(
            f'<text class="w" x="{left + (j + 0.5) * cell}" y="{top - 7}" text-anchor="middle" '
            f'style="{word_style(lab)}">{j} {esc(lab)}</text>'
        )
    for i, lab in enumerate(labels):
        parts.append(
            f'<g class="attnfig-hrow" data-row="{i}" style="cursor:pointer">'
            f'<text class="w" x="{left - 6}" y="{top + (i + 0.5) * ch + 5}" text-anchor="end" '
            f'style="{word_style(lab)}">{i} {esc(lab)}</text>'
        )
        for j in range(n):
            fill, ink = colours[i][j]
            parts.append(
                f'<rect x="{left + j * cell}" y="{top + i * ch}" width="{cell}" height="{ch}" fill="{fill}" '
                f'stroke="currentColor" stroke-opacity="0.15"/><text x="{left + (j + 0.5) * cell}" '
                f'y="{top + (i + 0.5) * ch + 5}" text-anchor="middle" style="fill:{ink}">{f2(A[i, j])}</text>'
            )
        parts.append("</g>")
    width, height = left + n * cell + 4, top + n * ch + 4
    options = [(str(i), f"{i} {word_span(lab)}") for i, lab in enumerate(labels)]
    z = A[sel] @ V
    blend_rows = "".join(
        f'<tr><th scope="row">v{j} {word_span(lab)}</th>'
        f'<td><span class="attnfig-a">{f2(A[sel, j])}</span><span class="attnfig-bar" '
        f'style="background:currentColor;width:{30 * A[sel, j]:.1f}px"></span></td>'
        + "".join(f"<td>{f2(x)}</td>" for x in V[j])
        + "</tr>"
        for j, lab in enumerate(labels)
    )
    body = f"""{radios(p, "word", "the query word i (click a row, or use the arrow keys):", options, sel)}
<svg viewBox="0 0 {width} {height}" role="img" aria-labelledby="{p}-desc" class="attnfig-heat">
<desc id="{p}-desc" class="attnfig-desc">Heatmap of the attention weights A; row {sel} {esc(word)} selected</desc>
{"".join(parts)}
<rect class="attnfig-sel" x="{left - 2}" y="{top + sel * ch - 1}" width="{n * cell + 4}" height="{ch + 2}" fill="none" stroke="var(--attnfig-mark)" stroke-width="3"/>
</svg>
<div class="attnfig-readout">Row <output class="attnfig-rowname">{sel} {esc(word)}</output> of A: the weights that blend the value vectors v<sub>j</sub> into z<sub>i</sub> = Σ<sub>j</sub> A<sub>ij</sub> v<sub>j</sub>.</div>
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="the blend of one row, scrollable"><table aria-label="the blend of one row"><tr><th scope="col">value</th><th scope="col">A<sub>ij</sub></th>{"".join(f'<th scope="col">{f}</th>' for f in FEATURES)}</tr>
{blend_rows}
<tr style="font-weight:700"><th scope="row">z<sub class="attnfig-zname">{sel}</sub></th><td class="attnfig-sum">{f2(A[sel].sum())}</td>{"".join(f'<td class="attnfig-z">{f2(x)}</td>' for x in z)}</tr></table></div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-summary">{esc(summary(labels, sel, A[sel]))}</output></div>"""
    data = {"words": labels, "A": A.tolist(), "V": V.tolist()}
    return wrap(p, "blend", "Pick a word: its row of A blends the values into its z", body, data, "blend.js")
