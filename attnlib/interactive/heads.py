"""The many heads chapter's figure: choose a head (or both, concatenated and mixed by W_O) and a word; see its A, its z and the output."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..heads import multi_head_attention, split_heads
from .page import InteractiveFigure, esc, f2, fig_id, radios, word_span, wrap


def _row(values) -> str:
    return ", ".join(f2(x) for x in values)


def head_explorer(
    X, W_Q, W_K, W_V, W_O, h: int, labels: Sequence[str], names: Sequence[str] | None = None, word: int = 2
) -> InteractiveFigure:
    """The h heads of attnlib.multi_head_attention side by side: pick a head to see its A and its z for one word,
    or "all heads" to see the z's concatenated and mixed by W_O into the output (the many heads chapter)."""
    X, W_V, W_O = (np.asarray(M, dtype=float) for M in (X, W_V, W_O))
    output, A = multi_head_attention(X, np.asarray(W_Q, float), np.asarray(W_K, float), W_V, W_O, h)
    A = np.asarray(A)
    V = np.asarray(split_heads(X @ W_V, h))  # (h, n, d_v): each head's values
    Z = A @ V  # (h, n, d_v)
    concat = np.concatenate(list(Z), axis=-1)
    n = len(labels)
    if X.shape[0] != n:
        raise ValueError(f"head_explorer: X has {X.shape[0]} rows but there are {n} labels")
    names = [f"head {k}" for k in range(h)] if names is None else list(names)
    if len(names) != h:
        raise ValueError(f"head_explorer: {h} heads but {len(names)} names")
    if not 0 <= word < n:
        raise ValueError(f"head_explorer: word must be a position from 0 to {n - 1}, not {word}")
    p = fig_id(
        "heads",
        [
            X.tolist(),
            np.asarray(W_Q, float).tolist(),
            np.asarray(W_K, float).tolist(),
            W_V.tolist(),
            W_O.tolist(),
            h,
            list(labels),
            names,
            word,
        ],
    )
    head_opts = [(str(k), f"head {k}: {esc(name)}") for k, name in enumerate(names)] + [("all", "all heads, then W_O")]
    word_opts = [(str(i), f"{i} {word_span(w)}") for i, w in enumerate(labels)]
    cols = "".join(f"<th>{j}&nbsp;{word_span(w)}</th>" for j, w in enumerate(labels))
    a_rows = "".join(
        f'<tr class="attnfig-arow"><th>{i}&nbsp;{word_span(w)}</th>'
        + "".join(f'<td class="attnfig-a">{f2(A[0, i, j])}</td>' for j in range(n))
        + "</tr>"
        for i, w in enumerate(labels)
    )
    d_out = W_O.shape[1]
    wo_rows = "".join(
        f"<tr><th>{r}</th>" + "".join(f"<td>{f2(W_O[r, c])}</td>" for c in range(d_out)) + "</tr>"
        for r in range(W_O.shape[0])
    )
    z0 = Z[0, word]
    body = f"""{radios(p, "head", "the head:", head_opts, 0)}
{radios(p, "word", "the word i:", word_opts, word)}
<div class="attnfig-onehead">
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="this head's weights A, scrollable"><table class="attnfig-atable" aria-label="this head's weights A"><tr><th class="attnfig-aname">A, head 0</th>{cols}</tr>{a_rows}</table></div>
</div>
<div class="attnfig-allheads" style="display:none">
<table aria-label="W_O"><tr><th>W<sub>O</sub></th>{"".join(f"<th>{c}</th>" for c in range(d_out))}</tr>{wo_rows}</table>
</div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-say">head 0 ({esc(names[0])}): z{word} = row {word} of A times its V = [{_row(z0)}]</output></div>"""
    data = {
        "A": A.tolist(),
        "V": V.tolist(),
        "WO": W_O.tolist(),
        "names": names,
        "labels": list(labels),
        "concat": concat.tolist(),
        "output": np.asarray(output).tolist(),
    }
    return wrap(p, "heads", "One head at a time, then all of them", body, data, "heads.js")
