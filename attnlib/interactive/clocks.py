"""The word order chapter's figure: the sine–cosine pairs of the positional encoding as clock hands, and PE[i] · PE[j] against i − j."""

from __future__ import annotations

from ..positions import positional_encoding
from .page import InteractiveFigure, f2, fig_id, slider, wrap

R = 34  # a clock's radius in viewBox units


def _vec(v) -> str:
    return ", ".join(f2(x) for x in v)


def position_clocks(i: int = 3, j: int = 1, n: int = 50, d_model: int = 8) -> InteractiveFigure:
    """Two position sliders: each sine–cosine pair of PE[i] and PE[j] drawn as a clock hand, and PE[i] · PE[j],
    which depends only on the offset i − j (the word order chapter)."""
    PE = positional_encoding(n, d_model)
    if not (0 <= i < n and 0 <= j < n):
        raise ValueError(f"position_clocks: i and j must be positions from 0 to {n - 1}, not {i} and {j}")
    p = fig_id("clocks", [i, j, n, d_model])
    pairs = d_model // 2
    by_offset = PE @ PE[0]  # PE[Δ] · PE[0] for Δ = 0 … n − 1; the dot product is the same for −Δ
    clocks = []
    for k in range(pairs):
        cx = 45 + 90 * k
        hands = "".join(
            f'<line class="attnfig-hand{tag}" x1="{cx}" y1="45" x2="{cx + R * PE[pos, 2 * k]:.3f}" '
            f'y2="{45 - R * PE[pos, 2 * k + 1]:.3f}" stroke="{colour}" stroke-width="{width}" stroke-linecap="round"{dash}/>'
            for tag, pos, colour, width, dash in (
                ("i", i, "var(--attnfig-q)", 4, ""),
                ("j", j, "var(--attnfig-k)", 3, ' stroke-dasharray="4 3"'),
            )
        )
        clocks.append(
            f'<circle cx="{cx}" cy="45" r="{R}" fill="none" stroke="currentColor" stroke-opacity="0.5"/>{hands}'
            f'<text x="{cx}" y="98" text-anchor="middle">pair {k}</text>'
        )
    W, H, x0, top = 320, 90, 20, 20
    lo, hi = float(by_offset.min()), float(by_offset.max())

    def px(offset: float) -> float:
        return x0 + (offset + (n - 1)) / (2 * (n - 1)) * W

    def py(value: float) -> float:
        return top + (hi - value) / (hi - lo) * H

    curve = " ".join(f"{px(o):.2f},{py(by_offset[abs(o)]):.2f}" for o in range(-(n - 1), n))
    dot = float(PE[i] @ PE[j])
    body = f"""<div class="attnfig-controls">
{slider(p, "i", "position i", 0, n - 1, 1, i, str(i))}
{slider(p, "j", "position j", 0, n - 1, 1, j, str(j))}
</div>
<svg viewBox="0 0 360 105" role="img" aria-labelledby="{p}-cdesc" class="attnfig-clocks">
<desc id="{p}-cdesc" class="attnfig-cdesc">{pairs} clocks, one per sine–cosine pair; solid hands for position {i}, dashed for position {j}</desc>
{"".join(clocks)}
</svg>
<div class="attnfig-readout" aria-live="polite">
<div><span style="color:var(--attnfig-q);font-weight:700">━ PE[<output class="attnfig-iname">{i}</output>]</span> = [<output class="attnfig-pei">{_vec(PE[i])}</output>]</div>
<div><span style="color:var(--attnfig-k);font-weight:700">┅ PE[<output class="attnfig-jname">{j}</output>]</span> = [<output class="attnfig-pej">{_vec(PE[j])}</output>]</div>
<div>PE[i] · PE[j] = <output class="attnfig-dot">{f2(dot)}</output> at offset i − j = <output class="attnfig-offset">{str(i - j).replace("-", "−")}</output></div>
</div>
<svg viewBox="0 0 360 150" role="img" aria-labelledby="{p}-ddesc" class="attnfig-curve">
<desc id="{p}-ddesc" class="attnfig-ddesc">PE[i] · PE[j] against the offset i − j, from −{n - 1} to {n - 1}; it is largest, {f2(hi)}, at offset 0</desc>
<line x1="{x0}" y1="{top + H}" x2="{x0 + W}" y2="{top + H}" stroke="currentColor" stroke-opacity="0.4"/>
<polyline points="{curve}" fill="none" stroke="currentColor" stroke-width="1.5"/>
<circle class="attnfig-marker" cx="{px(i - j):.2f}" cy="{py(dot):.2f}" r="6" fill="var(--attnfig-mark)"/>
<text x="{x0}" y="12">PE[i] · PE[j] (from {f2(lo)} to {f2(hi)})</text>
<text x="{px(-(n - 1)):.2f}" y="{top + H + 18}" text-anchor="start">−{n - 1}</text>
<text x="{px(0):.2f}" y="{top + H + 18}" text-anchor="middle">0</text>
<text x="{px(n - 1):.2f}" y="{top + H + 18}" text-anchor="end">{n - 1}</text>
<text x="{px(0):.2f}" y="{top + H + 36}" text-anchor="middle">offset i − j</text>
</svg>"""
    data = {"PE": PE.tolist(), "r": R, "x0": x0, "W": W, "top": top, "H": H, "lo": lo, "hi": hi, "n": n}
    return wrap(p, "clocks", "Turn the clocks: positions as sine–cosine hands", body, data, "clocks.js")
