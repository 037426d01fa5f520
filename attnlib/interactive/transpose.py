"""The transpose chapter's figure: point at a cell of Q Kᵀ; its row of Q, its column of Kᵀ and its mirror cell in the transpose light up."""

from __future__ import annotations

import numpy as np

from ..core import matmul, transpose
from ..data import running_qkv
from .page import InteractiveFigure, esc, f2, fig_id, word_span, wrap


def cell_text(Q: np.ndarray, K: np.ndarray, i: int, j: int) -> str:
    """How cell (i, j) of Q Kᵀ is made, in numbers (the page writes the same)."""
    terms = " + ".join(f"{f2(a)} × {f2(b)}" for a, b in zip(Q[i], K[j]))
    return f"(Q Kᵀ)[{i}][{j}] = row {i} of Q · column {j} of Kᵀ = {terms} = {f2(float(Q[i] @ K[j]))}"


def transpose_explorer(Q=None, K=None, labels=None, cell: tuple[int, int] = (2, 1)) -> InteractiveFigure:
    """Q Kᵀ with Q at its left and Kᵀ above it; point at (or tab to) a cell to light its row, its column and its mirror cell in (Q Kᵀ)ᵀ (the transpose chapter).

    By default Q and K are the running example's (the query key value chapter's lenses).
    """
    if Q is None and K is None:
        running, Q, K, _ = running_qkv()
        labels = running if labels is None else labels
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    if Q.ndim != 2 or Q.shape != K.shape:
        raise ValueError(
            f"transpose_explorer: Q and K must be matrices of the same shape, but Q has shape "
            f"{Q.shape} and K has shape {K.shape}"
        )
    n, d = Q.shape
    labels = [str(i) for i in range(n)] if labels is None else list(labels)
    i0, j0 = cell
    if not (0 <= i0 < n and 0 <= j0 < n):
        raise ValueError(f"transpose_explorer: cell must be a pair of positions from 0 to {n - 1}, not {cell}")
    KT = transpose(K)
    S = matmul(Q, KT)
    p = fig_id("transpose", [Q.tolist(), K.tolist(), labels, [i0, j0]])

    def lit(on: bool) -> str:
        return ' class="attnfig-lit"' if on else ""

    blank = "<td></td>" * d
    head = "".join(
        f'<th scope="col" aria-label="key {j} {esc(w)}">{word_span(w, str(j))}</th>' for j, w in enumerate(labels)
    )
    rows = [f"<tr><th></th>{''.join(f'<th>Q[:,{c}]</th>' for c in range(d))}{head}</tr>"]
    for r in range(d):
        rows.append(
            f"<tr><th>Kᵀ[{r}]</th>{blank}"
            + "".join(f'<td data-col="{j}"{lit(j == j0)}>{f2(KT[r, j])}</td>' for j in range(n))
            + "</tr>"
        )
    for i, w in enumerate(labels):
        qcells = "".join(f'<td data-row="{i}"{lit(i == i0)}>{f2(Q[i, c])}</td>' for c in range(d))
        scells = "".join(
            f'<td><button type="button" class="attnfig-cell{" attnfig-lit" if (i, j) == (i0, j0) else ""}" data-i="{i}" '
            f'data-j="{j}" tabindex="{0 if (i, j) == (i0, j0) else -1}" aria-label="cell {i}, {j}: {f2(S[i, j])}">{f2(S[i, j])}</button></td>'
            for j in range(n)
        )
        rows.append(f"<tr><th>{i}&nbsp;{word_span(w)}</th>{qcells}{scells}</tr>")
    mirror_head = "".join(f'<th scope="col">{word_span(w, str(j))}</th>' for j, w in enumerate(labels))
    mirror = [f"<tr><th>(Q Kᵀ)ᵀ</th>{mirror_head}</tr>"]
    for a, w in enumerate(labels):
        mirror.append(
            f"<tr><th>{a}&nbsp;{word_span(w)}</th>"
            + "".join(
                f'<td class="attnfig-mirror{" attnfig-lit" if (b, a) == (i0, j0) else ""}">{f2(S[b, a])}</td>'
                for b in range(n)
            )
            + "</tr>"
        )
    body = f"""<p style="margin:0.2rem 0">Q at the left, Kᵀ on top, Q Kᵀ in the middle: point at a cell, or tab to the table and use the arrow keys.</p>
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="Q, K transposed and their product, scrollable"><table class="attnfig-grid" aria-label="Q, K transposed and their product" style="font-size:12.5px">{"".join(rows)}</table></div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-how">{esc(cell_text(Q, K, i0, j0))}</output><br>
its mirror: <output class="attnfig-where">(Q Kᵀ)ᵀ[{j0}][{i0}] = {f2(S[i0, j0])}</output>, row and column swapped</div>
<table aria-label="the transpose of Q K transposed" style="font-size:12.5px">{"".join(mirror)}</table>"""
    data = {"Q": Q.tolist(), "K": K.tolist(), "n": n}
    return wrap(p, "transpose", "Point at a cell of Q Kᵀ", body, data, "transpose.js")
