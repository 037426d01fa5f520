"""The softmax chapter's figure: multiply a row of scores by t = 1/temperature and watch softmax sharpen or even out."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..core import softmax
from ..data import running_qkv
from .page import InteractiveFigure, esc, f2, fig_id, radios, slider, word_span, word_style, wrap

T_MAX = 2.5  # past this the running example's rows are already 1.00 / 0.00


def running_scaled_scores() -> tuple[list[str], np.ndarray]:
    """The running example's words and its scaled scores S / √d_k, d_k = 2 (the softmax and weighted sum chapters)."""
    labels, Q, K, _ = running_qkv()
    return labels, (Q @ K.T) / math.sqrt(Q.shape[1])


def pie_paths(weights: Sequence[float], r: float = 80.0) -> list[str]:
    """SVG path data of the pie slices, clockwise from twelve o'clock (the page's script draws the same)."""
    paths, a = [], 0.0
    for w in weights:
        b = a + 2 * math.pi * w
        if w >= 1 - 1e-9:
            paths.append(f"M 0 {-r:.3f} A {r} {r} 0 1 1 0 {r:.3f} A {r} {r} 0 1 1 0 {-r:.3f} Z")
        else:
            paths.append(
                f"M 0 0 L {r * math.sin(a):.3f} {-r * math.cos(a):.3f} "
                f"A {r} {r} 0 {1 if b - a > math.pi else 0} 1 {r * math.sin(b):.3f} {-r * math.cos(b):.3f} Z"
            )
        a = b
    return paths


def leaders(weights: Sequence[float], labels: Sequence[str]) -> str:
    """Who has the largest weight, saying so when it is a tie (the page's script writes the same)."""
    w = np.asarray(weights, dtype=float)
    top = [j for j in range(len(w)) if w.max() - w[j] < 1e-9]
    if len(top) == 1:
        return f"largest weight {f2(w[top[0]])}, on k{top[0]} “{labels[top[0]]}”"
    names = ", ".join(f"k{j} “{labels[j]}”" for j in top)
    return f"a tie: {len(top)} keys share the largest weight, {f2(w[top[0]])} ({names})"


def softmax_stretch(
    row_scores: Sequence[float] | None = None,
    labels: Sequence[str] | None = None,
    stretch: float = 1.0,
    word: str = "sat",
) -> InteractiveFigure:
    """A slider multiplies a row of scores by t = 1/temperature: the shares softmax makes, as a pie and a table (the softmax chapter).

    By default the rows are the running example's scaled scores, starting at `word`'s row ("sat"),
    and any row can be chosen; pass `row_scores` (and `labels`) to show one row of your own.
    """
    if row_scores is None:
        labels, S = running_scaled_scores()
        if word not in labels:
            raise ValueError(f"softmax_stretch: word must be one of {labels}, not {word!r}")
        rows, start = S, labels.index(word)
    else:
        s = np.asarray(row_scores, dtype=float)
        labels = [f"key {j}" for j in range(len(s))] if labels is None else list(labels)
        if len(labels) != len(s):
            raise ValueError(f"softmax_stretch: {len(s)} scores but {len(labels)} labels")
        rows, start = s[None, :], 0
    labels = list(labels)
    if not 0 <= stretch <= T_MAX:
        raise ValueError(f"softmax_stretch: stretch must be between 0 and {T_MAX}, not {stretch}")
    p = fig_id("stretch", [rows.tolist(), labels, stretch, start])
    s = rows[start]
    w = softmax(stretch * s)
    r = 80.0
    slices, a = [], 0.0
    for j, (d, lab) in enumerate(zip(pie_paths(w, r), labels)):
        mid = a + math.pi * w[j]
        a += 2 * math.pi * w[j]
        show = "" if w[j] >= 0.06 else "display:none;"
        slices.append(
            f'<path class="attnfig-slice wk" d="{d}" style="{word_style(lab)};stroke:currentColor" stroke-opacity="0.4"/>'
            f'<text class="attnfig-slabel" x="{0.62 * r * math.sin(mid):.3f}" y="{-0.62 * r * math.cos(mid) + 5:.3f}" '
            f'text-anchor="middle" style="{show}fill:#ffffff;font-weight:700;paint-order:stroke;stroke:#000000;stroke-width:3px">k{j}</text>'
        )
    table = "".join(
        f'<tr><td>k{j} {word_span(lab)}</td><td class="attnfig-s">{f2(stretch * x)}</td><td class="attnfig-w">{f2(y)}</td>'
        f'<td style="text-align:left;width:5rem"><span class="attnfig-bar" style="background:currentColor;width:{60 * y:.1f}px"></span></td></tr>'
        for j, (lab, x, y) in enumerate(zip(labels, s, w))
    )
    chooser = ""
    if len(rows) > 1:
        options = [(str(i), f"q{i} {word_span(lab)}") for i, lab in enumerate(labels)]
        chooser = radios(p, "row", "the row of scores (the query):", options, start)
    temperature = "∞" if stretch == 0 else f"{1 / stretch:.2f}"
    body = f"""{chooser}<div class="attnfig-controls">
{slider(p, "t", "stretch t = 1/temperature (every score times t)", 0, T_MAX, 0.1, stretch, f"{stretch:g}")}
</div>
<div class="attnfig-readout">temperature T = 1/t = <output class="attnfig-temp">{temperature}</output></div>
<svg viewBox="-100 -90 200 180" role="img" aria-labelledby="{p}-desc" class="attnfig-pie" style="max-width:14rem">
<desc id="{p}-desc" class="attnfig-desc">Pie of the softmax shares, slices labelled by key</desc>
{"".join(slices)}
</svg>
<table aria-label="scores and shares"><tr><th>key</th><th>t × score</th><th>weight</th><th></th></tr>{table}</table>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-leader">{esc(leaders(w, labels))}</output>; the weights add up to <output class="attnfig-sum">{f2(w.sum())}</output></div>"""
    data = {"rows": rows.tolist(), "labels": labels}
    return wrap(p, "stretch", "Stretch the gaps between the scores", body, data, "stretch.js")
