"""The dot product scores chapter's figure: a real query against the running example's real keys; q · k is the length of q times the shadow of k on q."""

from __future__ import annotations

import math

import numpy as np

from ..core import dot
from ..data import running_qkv
from .page import InteractiveFigure, f2, fig_id, radios, slider, word_span, wrap


def arrow_pair(
    theta: float, q_length: float, k_length: float, q_direction: float = 26.57
) -> tuple[np.ndarray, np.ndarray]:
    """Two arrows q and k: q at q_direction degrees, k turned θ degrees further (the dot product scores chapter)."""
    aq, ak = math.radians(q_direction), math.radians(q_direction + theta)
    return (
        np.array([q_length * math.cos(aq), q_length * math.sin(aq)]),
        np.array([k_length * math.cos(ak), k_length * math.sin(ak)]),
    )


def own_key(q: np.ndarray, theta: float, k_length: float) -> np.ndarray:
    """The key the sliders make: length k_length, turned θ degrees from q (the dot product scores chapter)."""
    direction = math.degrees(math.atan2(q[1], q[0]))
    return arrow_pair(theta, 1.0, k_length, direction)[1]


def reading(q: np.ndarray, k: np.ndarray) -> dict:
    """What the figure reads out for one pair: q · k, the lengths, the angle, cos θ and the shadow of k on q."""
    qk = float(dot(q, k))
    lq, lk = float(np.linalg.norm(q)), float(np.linalg.norm(k))
    if lk < 1e-12:
        return {"dot": qk, "lq": lq, "lk": 0.0, "theta": None, "cos": None, "shadow": 0.0}
    cos = max(-1.0, min(1.0, qk / (lq * lk)))
    return {"dot": qk, "lq": lq, "lk": lk, "theta": math.degrees(math.acos(cos)), "cos": cos, "shadow": qk / lq}


def verdict(r: dict) -> str:
    if r["theta"] is None:
        return "k is the zero arrow: it has no direction and no shadow, so q · k = 0"
    if abs(r["theta"] - 90) < 0.5:
        return "k stands at right angles to q: no shadow, so q · k = 0"
    if r["theta"] < 90:
        return "k's shadow falls along q, so q · k is positive"
    return "k's shadow falls behind q, so q · k is negative"


def _starting_geometry(q, k, scale: float) -> dict[str, str]:
    """The SVG attributes of the starting picture, as dot.js's update() sets them (so that a page
    whose script does not run, and the PDF, show the arrows, the shadow and their labels)."""

    def pt(v):
        return (float(v[0]) * scale, -float(v[1]) * scale)

    def line(a, b):
        return f'x1="{a[0]:.2f}" y1="{a[1]:.2f}" x2="{b[0]:.2f}" y2="{b[1]:.2f}"'

    def head(tip):
        length = math.hypot(*tip)
        if length < 1e-9:
            return 'points=""'
        ux, uy, s = tip[0] / length, tip[1] / length, min(11.0, length)
        bx, by = tip[0] - ux * s, tip[1] - uy * s
        points = [tip[0], tip[1], bx - uy * s * 0.45, by + ux * s * 0.45, bx + uy * s * 0.45, by - ux * s * 0.45]
        return 'points="' + " ".join(f"{v:.2f}" for v in points) + '"'

    def label(p):
        return f'x="{p[0] + (6 if p[0] >= 0 else -16):.2f}" y="{p[1] + (16 if p[1] > 0 else -6):.2f}"'

    lq = math.hypot(float(q[0]), float(q[1]))
    u = (float(q[0]) / lq, float(q[1]) / lq)
    shadow = (float(q[0]) * float(k[0]) + float(q[1]) * float(k[1])) / lq
    qp, kp, foot = pt(q), pt(k), pt((shadow * u[0], shadow * u[1]))
    return {
        "qline": line(pt((-4.4 * u[0], -4.4 * u[1])), pt((4.4 * u[0], 4.4 * u[1]))),
        "q": line((0, 0), qp),
        "qhead": head(qp),
        "k": line((0, 0), kp),
        "khead": head(kp),
        "shadow": line((0, 0), foot),
        "drop": line(kp, foot),
        "qlabel": label(qp),
        "klabel": label(kp),
        "slabel": f'x="{foot[0] / 2 + (8 if u[1] >= 0 else -8):.2f}" y="{foot[1] / 2 + 18:.2f}"',
    }


def dot_product_arrows(
    query: str = "sat", key: str = "sat", theta: float = 40.0, k_length: float = 2.0
) -> InteractiveFigure:
    """A real query q against the running example's keys, or a key of your own: q · k = (length of q) × shadow (the dot product scores chapter).

    Pick a key by its word (positions counted from 0), or choose "your own k" and turn and stretch it.
    """
    labels, Q, K, _ = running_qkv()
    if query not in labels:
        raise ValueError(f"dot_product_arrows: query must be one of {labels}, not {query!r}")
    if key != "own" and key not in labels:
        raise ValueError(f"dot_product_arrows: key must be one of {labels} or 'own', not {key!r}")
    p = fig_id("dot", [query, key, theta, k_length])
    qi = labels.index(query)
    q = Q[qi]
    choice = len(labels) if key == "own" else labels.index(key)
    k = own_key(q, theta, k_length) if key == "own" else K[choice]
    r = reading(q, k)
    options = [(str(j), f"k{j} {word_span(w)}") for j, w in enumerate(labels)] + [("own", "your own k")]
    g = _starting_geometry(q, k, 36)
    theta_txt = "—" if r["theta"] is None else f"{r['theta']:.1f}°"
    cos_txt = "—" if r["cos"] is None else f2(r["cos"])
    body = f"""{radios(p, "key", f"the key k, against q{qi} = the query of “{query}”:", options, choice)}
<svg viewBox="-160 -150 320 300" role="img" aria-labelledby="{p}-desc" class="attnfig-plane">
<desc id="{p}-desc" class="attnfig-desc">Arrow q and arrow k from the origin; q · k = {f2(r["dot"])}</desc>
<line x1="-160" y1="0" x2="160" y2="0" stroke="currentColor" stroke-opacity="0.3"/>
<line x1="0" y1="-150" x2="0" y2="150" stroke="currentColor" stroke-opacity="0.3"/>
<line class="attnfig-qline" {g["qline"]} stroke="currentColor" stroke-opacity="0.3" stroke-dasharray="2 4"/>
<line class="attnfig-shadow" {g["shadow"]} stroke="var(--attnfig-k)" stroke-opacity="0.45" stroke-width="9"/>
<line class="attnfig-drop" {g["drop"]} stroke="currentColor" stroke-opacity="0.6" stroke-dasharray="5 4"/>
<line class="attnfig-q" {g["q"]} stroke="var(--attnfig-q)" stroke-width="3.5"/>
<polygon class="attnfig-qhead" {g["qhead"]} fill="var(--attnfig-q)"/>
<line class="attnfig-k" {g["k"]} stroke="var(--attnfig-k)" stroke-width="3.5"/>
<polygon class="attnfig-khead" {g["khead"]} fill="var(--attnfig-k)"/>
<text class="attnfig-qlabel" {g["qlabel"]} style="fill:var(--attnfig-q);font-weight:700;font-size:15px">q</text>
<text class="attnfig-klabel" {g["klabel"]} style="fill:var(--attnfig-k);font-weight:700;font-size:15px">k</text>
<text class="attnfig-slabel" {g["slabel"]} style="font-size:13px">shadow</text>
</svg>
<div class="attnfig-controls">
{slider(p, "theta", "your own k: angle θ from q", -180, 180, 1, theta, f"{theta:g}°")}
{slider(p, "klen", "your own k: length |k|", 0, 3.5, 0.1, k_length, f"{k_length:g}")}
</div>
<div class="attnfig-readout" aria-live="polite">
<div>q = [<output class="attnfig-qvec">{f2(q[0])}, {f2(q[1])}</output>], k = [<output class="attnfig-kvec">{f2(k[0])}, {f2(k[1])}</output>]</div>
<div>q · k = q[0] k[0] + q[1] k[1] = <output class="attnfig-dot">{f2(r["dot"])}</output></div>
<div>|q| = <output class="attnfig-lq">{f2(r["lq"])}</output>, |k| = <output class="attnfig-lk">{f2(r["lk"])}</output>, θ = <output class="attnfig-th">{theta_txt}</output>, cos θ = <output class="attnfig-cos">{cos_txt}</output></div>
<div>shadow of k on q = |k| cos θ = <output class="attnfig-shadowlen">{f2(r["shadow"])}</output>; |q| × shadow = <output class="attnfig-product">{f2(r["lq"] * r["shadow"])}</output></div>
<div><output class="attnfig-verdict">{verdict(r)}</output></div>
</div>"""
    data = {"q": [float(x) for x in q], "K": K.tolist(), "scale": 36}
    return wrap(
        p, "dot", "Which key scores highest against q? q · k = |q| × (the shadow of k on q)", body, data, "dot.js"
    )
