"""The scaling chapter's figure: the spread of q · k grows like √d_k; dividing by √d_k brings it back to 1."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..core import softmax
from .page import InteractiveFigure, f2, fig_id, slider, wrap

HIST_BINS = 61  # an odd count, so that one bar sits on 0


def histogram(x: np.ndarray, reach: float, bins: int = HIST_BINS) -> list[int]:
    """The counts of x in `bins` equal bars over [−reach, reach]."""
    if np.abs(x).max() > reach:
        raise ValueError(f"histogram: a value of {np.abs(x).max():.1f} lies outside ±{reach}")
    counts, _ = np.histogram(x, bins=np.linspace(-reach, reach, bins + 1))
    return [int(c) for c in counts]


def scaling_data(d_ks: Sequence[int] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512), n_keys: int = 8, seed: int = 0) -> dict:
    """What the scaling chapter's interactive figure embeds: per d_k, the unclipped histogram and spread of 10,000
    seeded dot products, raw and divided by √d_k, one row of n_keys raw scores and the average largest weight (the scaling chapter)."""
    from ..scaling import dot_products, largest_weight, random_scores

    out: dict = {
        "dks": [int(d) for d in d_ks],
        "bins": HIST_BINS,
        "reach": {"raw": [], "scaled": []},
        "hist": {"raw": [], "scaled": []},
        "spread": {"raw": [], "scaled": []},
        "row": [],
        "meanmax": {"raw": [], "scaled": []},
    }
    dots = {d_k: dot_products(d_k, seed=seed) for d_k in d_ks}
    # one axis per panel for every d_k, wide enough for every draw: nothing is clipped, and the raw bars visibly spread
    reach = {
        "raw": float(math.ceil(max(np.abs(x).max() for x in dots.values()))),
        "scaled": float(math.ceil(max(np.abs(x).max() / math.sqrt(d) for d, x in dots.items()))),
    }
    for d_k in d_ks:
        raw = random_scores(d_k, n_keys=n_keys, seed=seed)
        for mode, x, S in (("raw", dots[d_k], raw), ("scaled", dots[d_k] / math.sqrt(d_k), raw / math.sqrt(d_k))):
            out["reach"][mode].append(reach[mode])
            out["hist"][mode].append(histogram(x, reach[mode]))
            out["spread"][mode].append(float(x.std()))
            out["meanmax"][mode].append(largest_weight(S))
        out["row"].append([float(s) for s in raw[0]])
    return out


def _panel(p: str, mode: str, title: str, counts: list[int], reach: float, mark: float, label: str) -> str:
    """One histogram: bars over [−reach, reach], a dashed mark at ±mark, ticks at −reach, 0, reach."""
    W, H, x0 = 160, 80, 10
    top = max(counts)
    bw = W / len(counts)
    bars = "".join(
        f'<rect class="attnfig-hbar-{mode}" x="{x0 + b * bw:.2f}" y="{20 + H - H * c / top:.2f}" width="{bw:.2f}" '
        f'height="{H * c / top:.2f}" fill="var(--attnfig-q)"/>'
        for b, c in enumerate(counts)
    )
    marks = "".join(
        f'<line class="attnfig-mark-{mode}" x1="{x0 + W / 2 + s * W / 2 * mark / reach:.2f}" y1="16" '
        f'x2="{x0 + W / 2 + s * W / 2 * mark / reach:.2f}" y2="{20 + H}" stroke="var(--attnfig-mark)" stroke-width="2" stroke-dasharray="4 3"/>'
        for s in (-1, 1)
    )
    ticks = "".join(
        f'<text class="attnfig-tick-{mode}" x="{x0 + W / 2 * (1 + s):.2f}" y="{H + 38}" text-anchor="middle">'
        f"{f'{s * reach:g}'.replace('-', '−')}</text>"
        for s in (-1, 0, 1)
    )
    return (
        f'<svg viewBox="0 0 180 {H + 62}" role="img" aria-labelledby="{p}-{mode}desc" class="attnfig-hist-{mode}" style="width:calc(50% - 0.4rem);max-width:13rem">'
        f'<desc id="{p}-{mode}desc" class="attnfig-{mode}desc">Histogram of {title}</desc>'
        f'<text x="{x0}" y="11">{title}</text>'
        f'<line x1="{x0}" y1="{20 + H}" x2="{x0 + W}" y2="{20 + H}" stroke="currentColor" stroke-opacity="0.5"/>'
        f'{bars}{marks}{ticks}<text class="attnfig-marklabel-{mode}" x="{x0 + W / 2}" y="{H + 56}" text-anchor="middle" '
        f'style="fill:var(--attnfig-mark)">{label}</text></svg>'
    )


def scaling_explorer(d_k: int = 64, divide: bool = False, seed: int = 0) -> InteractiveFigure:
    """A d_k slider (1 … 512): 10,000 random q · k raw and divided by √d_k side by side, and one softmax row (the scaling chapter)."""
    data = scaling_data(seed=seed)
    if d_k not in data["dks"]:
        raise ValueError(f"scaling_explorer: d_k must be one of {data['dks']}, not {d_k}")
    p = fig_id("scaling", [d_k, divide, seed])
    i = data["dks"].index(d_k)
    mode = "scaled" if divide else "raw"
    root = math.sqrt(d_k)
    row = np.array(data["row"][i]) / (root if divide else 1.0)
    weights = softmax(row)
    n_keys = len(row)
    raw_panel = _panel(
        p, "raw", "q · k", data["hist"]["raw"][i], data["reach"]["raw"][i], root, f"dashes at ±√dₖ = ±{f2(root)}"
    )
    scaled_panel = _panel(
        p, "scaled", "q · k / √dₖ", data["hist"]["scaled"][i], data["reach"]["scaled"][i], 1.0, "dashes at ±1"
    )
    rows = "".join(
        f'<tr><td>k{j}</td><td class="attnfig-s">{f2(s)}</td><td class="attnfig-w">{f2(w)}</td>'
        f'<td style="text-align:left;width:7rem"><span class="attnfig-bar" style="background:var(--attnfig-k);width:{100 * w:.1f}px"></span></td></tr>'
        for j, (s, w) in enumerate(zip(row, weights))
    )
    body = f"""<div class="attnfig-controls">
{slider(p, "dk", "d<sub>k</sub> (numbers in each query and key)", 0, len(data["dks"]) - 1, 1, i, str(d_k))}
</div>
<div style="display:flex;gap:0.8rem">{raw_panel}{scaled_panel}</div>
<div class="attnfig-readout" aria-live="polite">spread of q · k: <output class="attnfig-spread-raw">{f2(data["spread"]["raw"][i])}</output> (√d<sub>k</sub> = <output class="attnfig-sqrt">{f2(root)}</output>); divided by √d<sub>k</sub>: <output class="attnfig-spread-scaled">{f2(data["spread"]["scaled"][i])}</output></div>
<div class="attnfig-controls"><div><input type="checkbox" id="{p}-div" class="attnfig-div"{" checked" if divide else ""}> <label for="{p}-div">softmax of the scores divided by √d<sub>k</sub></label></div></div>
<table aria-label="one query's scores against {n_keys} keys and their softmax weights"><tr><th>key</th><th class="attnfig-shead">{"S / √dₖ" if divide else "S"}</th><th>weight</th><th></th></tr>{rows}</table>
<div class="attnfig-readout" aria-live="polite">largest weight in this row: <output class="attnfig-max">{f2(weights.max())}</output>; averaged over 1000 random rows: <output class="attnfig-meanmax">{f2(data["meanmax"][mode][i])}</output> (even shares would be {1 / n_keys:g})</div>"""
    return wrap(p, "scaling", "Grow dₖ: the raw scores spread out, the divided ones do not", body, data, "scaling.js")
