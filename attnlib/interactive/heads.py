"""The many heads chapter's figure: choose a head (or both, concatenated and mixed by W_O) and a word; see its A, its z and the output."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..heads import multi_head_attention, split_heads
from .page import InteractiveFigure, esc, f2, fig_id, radios, word_span, wrap


def _row(values) -> str:
    return ", ".join(f2(x) for x in values)


def _check(X: np.ndarray, h: int, labels: Sequence[str], names: Sequence[str] | None, word: int) -> list[str]:
    """The heads' names, after checking that X, the labels, the names and the word agree."""
    n = len(labels)
    if X.shape[0] != n:
        raise ValueError(f"head_explorer: X has {X.shape[0]} rows but there are {n} labels")
    names = [f"head {k}" for k in range(h)] if names is None else list(names)
    if len(names) != h:
        raise ValueError(f"head_explorer: {h} heads but {len(names)} names")
    if not 0 <= word < n:
        raise ValueError(f"head_explorer: word must be a position from 0 to {n - 1}, not {word}")
    return names


def _a_table(A: np.ndarray, labels: Sequence[str]) -> str:
    """Head 0's weights A as the rows of a table, a column per key, headed by its position and word."""
    n = len(labels)
    cols = "".join(f"<th>{j}&nbsp;{word_span(w)}</th>" for j, w in enumerate(labels))
    a_rows = "".join(
        f'<tr class="attnfig-arow"><th>{i}&nbsp;{word_span(w)}</th>'
        + "".join(f'<td class="attnfig-a">{f2(A[0, i, j])}</td>' for j in range(n))
        + "</tr>"
        for i, w in enumerate(labels)
    )
    return f'<tr><th class="attnfig-aname">A, head 0</th>{cols}</tr>{a_rows}'


def _wo_table(W_O: np.ndarray) -> str:
    """The rows of a table of W_O, headed by its column numbers."""
    d_out = W_O.shape[1]
    wo_rows = "".join(
        f"<tr><th>{r}</th>" + "".join(f"<td>{f2(W_O[r, c])}</td>" for c in range(d_out)) + "</tr>"
        for r in range(W_O.shape[0])
    )
    return f"<tr><th>W<sub>O</sub></th>{''.join(f'<th>{c}</th>' for c in range(d_out))}</tr>{wo_rows}"


def _body(
    p: str, A: np.ndarray, Z: np.ndarray, W_O: np.ndarray, labels: Sequence[str], names: list[str], word: int
) -> str:
    """The figure's controls, head 0's table of A, the hidden table of W_O and the readout for `word`."""
    head_opts = [(str(k), f"head {k}: {esc(name)}") for k, name in enumerate(names)] + [("all", "all heads, then W_O")]
    word_opts = [(str(i), f"{i} {word_span(w)}") for i, w in enumerate(labels)]
    z0 = Z[0, word]
    return f"""{radios(p, "head", "the head:", head_opts, 0)}
{radios(p, "word", "the word i:", word_opts, word)}
<div class="attnfig-onehead">
<div class="attnfig-scroll" tabindex="0" role="region" aria-label="this head's weights A, scrollable"><table class="attnfig-atable" aria-label="this head's weights A">{_a_table(A, labels)}</table></div>
</div>
<div class="attnfig-allheads" style="display:none">
<table aria-label="W_O">{_wo_table(W_O)}</table>
</div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-say">head 0 ({esc(names[0])}): z{word} = row {word} of A times its V = [{_row(z0)}]</output></div>"""


def head_explorer(
    X, W_Q, W_K, W_V, W_O, h: int, labels: Sequence[str], names: Sequence[str] | None = None, word: int = 2
) -> InteractiveFigure:
    """The h heads of attnlib.multi_head_attention side by side: pick a head to see its A and its z for one word,
    or "all heads" to see the z's concatenated and mixed by W_O into the output (the many heads chapter)."""
    X, W_Q, W_K, W_V, W_O = (np.asarray(M, dtype=float) for M in (X, W_Q, W_K, W_V, W_O))
    output, A = multi_head_attention(X, W_Q, W_K, W_V, W_O, h)
    A = np.asarray(A)
    V = np.asarray(split_heads(X @ W_V, h))  # (h, n, d_v): each head's values
    Z = A @ V  # (h, n, d_v)
    concat = np.concatenate(list(Z), axis=-1)
    names = _check(X, h, labels, names, word)
    matrices = [M.tolist() for M in (X, W_Q, W_K, W_V, W_O)]
    p = fig_id("heads", [*matrices, h, list(labels), names, word])
    data = {
        "A": A.tolist(),
        "V": V.tolist(),
        "WO": W_O.tolist(),
        "names": names,
        "labels": list(labels),
        "concat": concat.tolist(),
        "output": np.asarray(output).tolist(),
    }
    body = _body(p, A, Z, W_O, labels, names, word)
    return wrap(p, "heads", "One head at a time, then all of them", body, data, "heads.js")
