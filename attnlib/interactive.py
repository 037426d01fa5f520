"""Interactive figures that run in the built book itself: plain JavaScript and inline SVG, no kernel (chapters 7-10).

Each function returns an `InteractiveFigure`, one self-contained piece of HTML with its own
<style> and <script>: no library, no CDN, no network. Its bytes depend only on its arguments
(element ids come from the figure's name and a hash of its parameters), so a stored notebook
output is the same on every run. Whatever takes real computation (random draws, attention) is
done here by attnlib and embedded as data; the page's JavaScript does only dot products,
division and softmax, which tests/test_interactive.py checks against attnlib in Chromium.

The readouts (numbers, tables) are written by Python for the starting setting, so a page whose
scripts do not run still shows those numbers. JupyterLab runs the scripts of outputs it trusts
(a cell you ran yourself); for a notebook opened from a fresh clone it shows the HTML sanitized,
without the SVG, and a "Run" button above it that switches the figure on.
"""
from __future__ import annotations

import hashlib
import html
import json
import math
from typing import Any, Sequence

import numpy as np

from .core import attention, softmax
from .data import FEATURES, RUNNING_SENTENCE, running_lenses, sentence_matrix, words

Q_COLOUR = "#0072B2"     # plot.BLUE, the query arrow of chapter 7's pictures
K_COLOUR = "#D55E00"     # plot.VERMILLION
Q_COLOUR_DARK = "#56B4E9"  # the lighter blue of the same palette, legible on a dark page
K_COLOUR_DARK = "#F28E4C"


class InteractiveFigure:
    """One interactive figure: HTML that a notebook and the book display as it is (chapters 7-10)."""

    def __init__(self, name: str, html_text: str):
        self.name = name
        self.html = html_text

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return (f"<attnlib interactive figure {self.name!r}: open it in the book, or in JupyterLab, "
                "to move its controls>")


def _fig_id(name: str, params: Any) -> str:
    """A stable element id: the figure's name and a short hash of its parameters."""
    digest = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:8]
    return f"attnfig-{name}-{digest}"


def _f2(x: float) -> str:
    """A number with two decimals, as the page's JavaScript writes it (no "-0.00")."""
    x = float(x)
    if x == float("-inf"):
        return "−∞"
    return f"{0.0 if abs(x) < 0.005 else x:.2f}".replace("-", "−")


_STYLE = """<style>
.attnfig{color:inherit;background:transparent;font-size:15px;line-height:1.45;margin:0.8rem 0;max-width:36rem;
--attnfig-q:%(q)s;--attnfig-k:%(k)s;--attnfig-faint:rgba(127,127,127,0.35)}
html[data-theme=dark] .attnfig{--attnfig-q:%(qd)s;--attnfig-k:%(kd)s}
@media (prefers-color-scheme: dark){html:not([data-theme=light]) .attnfig{--attnfig-q:%(qd)s;--attnfig-k:%(kd)s}}
html[data-theme=dark] .bd-content div.cell_output .text_html.text_html:has(> .attnfig){background-color:transparent;color:inherit;padding:0}
.attnfig label{display:inline}
.attnfig svg{color:inherit;display:block;width:100%%;max-width:26rem;height:auto;overflow:visible;background:transparent}
.attnfig svg text{fill:currentColor;font-size:13px;font-family:inherit}
.attnfig .attnfig-controls{display:grid;gap:0.35rem;margin:0.4rem 0}
.attnfig .attnfig-controls label{font-weight:600}
.attnfig input[type=range]{width:100%%;max-width:22rem;accent-color:var(--attnfig-q);min-height:28px}
.attnfig input[type=checkbox],.attnfig input[type=radio]{accent-color:var(--attnfig-q);width:18px;height:18px;vertical-align:middle}
.attnfig .attnfig-readout{font-variant-numeric:tabular-nums;margin:0.3rem 0}
.attnfig .attnfig-readout output{font-weight:700}
.attnfig table{border-collapse:collapse;font-size:13px;width:auto;margin:0.3rem 0;font-variant-numeric:tabular-nums;background:transparent}
.attnfig th,.attnfig td{padding:2px 4px;white-space:nowrap;text-align:right;border-bottom:1px solid var(--attnfig-faint);background:transparent;color:inherit}
.attnfig th:first-child,.attnfig td:first-child{text-align:left}
.attnfig .attnfig-words{display:flex;flex-wrap:wrap;gap:0.2rem 0.9rem;border:0;padding:0;margin:0.3rem 0}
.attnfig .attnfig-words legend{font-weight:600;padding:0;margin:0;font-size:15px;float:none;width:auto;line-height:1.45}
.attnfig .attnfig-words label{font-weight:700;cursor:pointer}
.attnfig .attnfig-bar{display:inline-block;height:0.8em;vertical-align:middle;margin-left:4px}
.attnfig .attnfig-static{font-size:13px;opacity:0.8;font-style:italic}
.attnfig[data-live] .attnfig-static{display:none}
</style>""" % {"q": Q_COLOUR, "k": K_COLOUR, "qd": Q_COLOUR_DARK, "kd": K_COLOUR_DARK}

_STATIC_NOTE = ('<p class="attnfig-static">The picture and the controls need JavaScript. Below are the '
                'numbers for the starting setting. In JupyterLab, run this cell (or press "Run" above) '
                'to switch the figure on.</p>')

_JS_HELPERS = """
function f2(x){ if(x===-Infinity) return "\\u2212\\u221e"; if(Math.abs(x)<0.005) x=0; return x.toFixed(2).replace("-","\\u2212"); }
function softmax(s){ var m=-Infinity, i, e=[], t=0; for(i=0;i<s.length;i++) if(s[i]>m) m=s[i];
  for(i=0;i<s.length;i++){ e.push(s[i]===-Infinity?0:Math.exp(s[i]-m)); t+=e[i]; }
  return e.map(function(x){ return x/t; }); }
function q(sel){ return root.querySelector(sel); }
function qa(sel){ return Array.prototype.slice.call(root.querySelectorAll(sel)); }
function set(sel, text){ q(sel).textContent = text; }
"""


def _wrap(fig_id: str, name: str, title: str, body: str, data: dict, script: str) -> InteractiveFigure:
    """One figure: its styles, its markup, the static note and a script that finds its root by id."""
    payload = json.dumps(data, sort_keys=True, ensure_ascii=True).replace("</", "<\\/")
    js = ("(function(){\nvar root = document.getElementById(%s);\nif(!root || root.dataset.live) return;\n"
          "var D = %s;\n%s\n%s\nroot.dataset.live = \"1\";\n})();") % (json.dumps(fig_id), payload, _JS_HELPERS,
                                                                      script)
    text = (f'<div class="attnfig" id="{fig_id}" data-attnfig="{name}">\n{_STYLE}\n'
            f'<p style="font-weight:700;margin:0 0 0.3rem 0">{html.escape(title)}</p>\n'
            f'{_STATIC_NOTE}\n{body}\n<script>\n{js}\n</script>\n</div>')
    return InteractiveFigure(name, text)


# --- chapter 7: q · k = |q| |k| cos θ -----------------------------------------------------


def dot_product_arrows(theta: float = 40.0, q_length: float = 2.2, k_length: float = 2.5,
                       q_direction: float = 26.57) -> InteractiveFigure:
    """Two arrows q and k; sliders turn k and change both lengths; q · k, |q||k| and cos θ follow (chapter 7)."""
    fig_id = _fig_id("dot", [theta, q_length, k_length, q_direction])
    q, k = arrow_pair(theta, q_length, k_length, q_direction)
    qk = float(np.dot(q, k))
    cos = math.cos(math.radians(theta))
    p = fig_id

    def slider(key: str, label: str, lo: float, hi: float, step: float, value: float, unit: str) -> str:
        return (f'<div><label for="{p}-{key}">{label}: <output id="{p}-{key}-out" class="attnfig-{key}-out">'
                f'{value:g}{unit}</output></label><br>'
                f'<input type="range" id="{p}-{key}" class="attnfig-{key}" min="{lo}" max="{hi}" step="{step}" '
                f'value="{value:g}" aria-valuetext="{value:g}{unit}"></div>')

    body = f"""<svg viewBox="-160 -150 320 300" role="img" aria-labelledby="{p}-desc" class="attnfig-plane">
<desc id="{p}-desc" class="attnfig-desc">Arrow q and arrow k from the origin; q · k = {_f2(qk)}</desc>
<line x1="-160" y1="0" x2="160" y2="0" stroke="currentColor" stroke-opacity="0.3"/>
<line x1="0" y1="-150" x2="0" y2="150" stroke="currentColor" stroke-opacity="0.3"/>
<line class="attnfig-qline" stroke="currentColor" stroke-opacity="0.25" stroke-dasharray="2 4"/>
<line class="attnfig-shadow" stroke="currentColor" stroke-opacity="0.3" stroke-width="9"/>
<line class="attnfig-drop" stroke="currentColor" stroke-opacity="0.6" stroke-dasharray="5 4"/>
<path class="attnfig-arc" fill="none" stroke="currentColor" stroke-opacity="0.7"/>
<text class="attnfig-thetalabel" text-anchor="middle"></text>
<line class="attnfig-q" stroke="var(--attnfig-q)" stroke-width="3.5"/>
<polygon class="attnfig-qhead" fill="var(--attnfig-q)"/>
<line class="attnfig-k" stroke="var(--attnfig-k)" stroke-width="3.5"/>
<polygon class="attnfig-khead" fill="var(--attnfig-k)"/>
<text class="attnfig-qlabel" style="fill:var(--attnfig-q);font-weight:700;font-size:15px">q</text>
<text class="attnfig-klabel" style="fill:var(--attnfig-k);font-weight:700;font-size:15px">k</text>
</svg>
<div class="attnfig-controls">
{slider("theta", "angle θ from q to k", -180, 180, 1, theta, "°")}
{slider("qlen", "length |q|", 0.5, 3.5, 0.1, q_length, "")}
{slider("klen", "length |k|", 0.5, 3.5, 0.1, k_length, "")}
</div>
<div class="attnfig-readout" aria-live="polite">
<div>q = [<output class="attnfig-qvec">{_f2(q[0])}, {_f2(q[1])}</output>], k = [<output class="attnfig-kvec">{_f2(k[0])}, {_f2(k[1])}</output>]</div>
<div>q · k = q₁k₁ + q₂k₂ = <output class="attnfig-dot">{_f2(qk)}</output></div>
<div>|q| |k| = <output class="attnfig-lens">{_f2(q_length * k_length)}</output>, cos θ = <output class="attnfig-cos">{_f2(cos)}</output></div>
<div>|q| |k| cos θ = <output class="attnfig-product">{_f2(q_length * k_length * cos)}</output>: <output class="attnfig-verdict">{_verdict(qk)}</output></div>
</div>"""
    data = {"qdir": q_direction, "scale": 40}
    script = """
var sT=q(".attnfig-theta"), sQ=q(".attnfig-qlen"), sK=q(".attnfig-klen");
function pt(v){ return [v[0]*D.scale, -v[1]*D.scale]; }
function line(sel, a, b){ var e=q(sel); e.setAttribute("x1",a[0]); e.setAttribute("y1",a[1]); e.setAttribute("x2",b[0]); e.setAttribute("y2",b[1]); }
function head(sel, tip){ var L=Math.hypot(tip[0],tip[1]), ux=tip[0]/L, uy=tip[1]/L, s=11;
  var bx=tip[0]-ux*s, by=tip[1]-uy*s;
  q(sel).setAttribute("points", [tip[0],tip[1], bx-uy*s*0.45,by+ux*s*0.45, bx+uy*s*0.45,by-ux*s*0.45].join(" ")); }
function verdict(d){ return Math.abs(d)<0.005 ? "zero: the arrows are perpendicular" : (d>0 ? "positive: they point the same way, more or less" : "negative: they point away from each other"); }
function update(){
  var th=parseFloat(sT.value), lq=parseFloat(sQ.value), lk=parseFloat(sK.value);
  var aq=D.qdir*Math.PI/180, ak=(D.qdir+th)*Math.PI/180;
  var qv=[lq*Math.cos(aq), lq*Math.sin(aq)], kv=[lk*Math.cos(ak), lk*Math.sin(ak)];
  var dot=qv[0]*kv[0]+qv[1]*kv[1], cos=Math.cos(th*Math.PI/180);
  var u=[Math.cos(aq), Math.sin(aq)], sh=kv[0]*u[0]+kv[1]*u[1], foot=[sh*u[0], sh*u[1]];
  var O=[0,0], Q=pt(qv), K=pt(kv), F=pt(foot);
  line(".attnfig-qline", pt([-4*u[0],-4*u[1]]), pt([4*u[0],4*u[1]]));
  line(".attnfig-q", O, Q); head(".attnfig-qhead", Q);
  line(".attnfig-k", O, K); head(".attnfig-khead", K);
  line(".attnfig-shadow", O, F); line(".attnfig-drop", K, F);
  var r=26, a0=-aq, a1=-ak, large=Math.abs(th)>180?1:0, sweep=th>0?0:1;
  q(".attnfig-arc").setAttribute("d", "M "+(r*Math.cos(a0))+" "+(r*Math.sin(a0))+" A "+r+" "+r+" 0 "+large+" "+sweep+" "+(r*Math.cos(a1))+" "+(r*Math.sin(a1)));
  var am=-(aq+ak)/2, t=q(".attnfig-thetalabel"); t.setAttribute("x", 42*Math.cos(am)); t.setAttribute("y", 42*Math.sin(am)+5); t.textContent="\\u03b8";
  var lqx=q(".attnfig-qlabel"), lkx=q(".attnfig-klabel");
  lqx.setAttribute("x", Q[0]+(Q[0]>=0?6:-16)); lqx.setAttribute("y", Q[1]+(Q[1]>0?16:-6));
  lkx.setAttribute("x", K[0]+(K[0]>=0?6:-16)); lkx.setAttribute("y", K[1]+(K[1]>0?16:-6));
  set(".attnfig-theta-out", th+"\\u00b0"); set(".attnfig-qlen-out", String(lq)); set(".attnfig-klen-out", String(lk));
  sT.setAttribute("aria-valuetext", th+" degrees"); sQ.setAttribute("aria-valuetext", String(lq)); sK.setAttribute("aria-valuetext", String(lk));
  set(".attnfig-qvec", f2(qv[0])+", "+f2(qv[1])); set(".attnfig-kvec", f2(kv[0])+", "+f2(kv[1]));
  set(".attnfig-dot", f2(dot)); set(".attnfig-lens", f2(lq*lk)); set(".attnfig-cos", f2(cos));
  set(".attnfig-product", f2(lq*lk*cos)); set(".attnfig-verdict", verdict(dot));
  set(".attnfig-desc", "Arrow q and arrow k from the origin, angle "+th+" degrees; q \\u00b7 k = "+f2(dot));
}
[sT,sQ,sK].forEach(function(s){ s.addEventListener("input", update); });
update();
"""
    return _wrap(fig_id, "dot", "Turn and stretch the arrows: q · k = |q| |k| cos θ", body, data, script)


def arrow_pair(theta: float, q_length: float, k_length: float, q_direction: float = 26.57) -> tuple[np.ndarray, np.ndarray]:
    """The arrows q and k of chapter 7's interactive figure for one setting of its sliders (chapter 7)."""
    aq, ak = math.radians(q_direction), math.radians(q_direction + theta)
    return (np.array([q_length * math.cos(aq), q_length * math.sin(aq)]),
            np.array([k_length * math.cos(ak), k_length * math.sin(ak)]))


def _verdict(d: float) -> str:
    if abs(d) < 0.005:
        return "zero: the arrows are perpendicular"
    return "positive: they point the same way, more or less" if d > 0 else \
        "negative: they point away from each other"


# --- chapter 8: the spread of q · k and softmax saturation ---------------------------------

HIST_LOW, HIST_HIGH, HIST_BINS = -50.0, 50.0, 100


def scaling_data(d_ks: Sequence[int] = tuple(2 ** i for i in range(10)), n_keys: int = 8,
                 seed: int = 0) -> dict:
    """What chapter 8's interactive figure embeds: per d_k, the histogram and spread of 10,000 seeded
    dot products, raw and divided by √d_k, one row of n_keys raw scores and the average largest weight (chapter 8)."""
    from .scaling import dot_products, largest_weight, random_scores
    edges = np.linspace(HIST_LOW, HIST_HIGH, HIST_BINS + 1)
    out: dict = {"dks": [int(d) for d in d_ks], "lo": HIST_LOW, "hi": HIST_HIGH, "bins": HIST_BINS,
                 "hist": {"raw": [], "scaled": []}, "spread": {"raw": [], "scaled": []},
                 "row": [], "meanmax": {"raw": [], "scaled": []}}
    for d_k in d_ks:
        dots = dot_products(d_k, seed=seed)
        raw = random_scores(d_k, n_keys=n_keys, seed=seed)
        for mode, x, S in (("raw", dots, raw), ("scaled", dots / math.sqrt(d_k), raw / math.sqrt(d_k))):
            counts, _ = np.histogram(np.clip(x, HIST_LOW, HIST_HIGH - 1e-9), bins=edges)
            out["hist"][mode].append([int(c) for c in counts])
            out["spread"][mode].append(float(x.std()))
            out["meanmax"][mode].append(largest_weight(S))
        out["row"].append([float(s) for s in raw[0]])
    return out


def scaling_explorer(d_k: int = 64, divide: bool = False, seed: int = 0) -> InteractiveFigure:
    """A d_k slider (1 … 512) and a "divide by √d_k" switch: the spread of random q · k and one softmax row (chapter 8)."""
    data = scaling_data(seed=seed)
    if d_k not in data["dks"]:
        raise ValueError(f"scaling_explorer: d_k must be one of {data['dks']}, not {d_k}")
    fig_id = _fig_id("scaling", [d_k, divide, seed])
    p = fig_id
    i = data["dks"].index(d_k)
    mode = "scaled" if divide else "raw"
    row = np.array(data["row"][i]) / (math.sqrt(d_k) if divide else 1.0)
    weights = softmax(row)
    n_keys = len(row)
    W, H = 320, 110  # the histogram's drawing area, in viewBox units
    bw = W / data["bins"]
    counts = data["hist"][mode][i]
    top = max(counts)
    bars = "".join(f'<rect class="attnfig-hbar" x="{20 + b * bw:.2f}" y="{20 + H - H * c / top:.2f}" '
                   f'width="{bw:.2f}" height="{H * c / top:.2f}" fill="var(--attnfig-q)"/>'
                   for b, c in enumerate(counts))
    ticks = "".join(f'<line x1="{20 + (t - HIST_LOW) / (HIST_HIGH - HIST_LOW) * W:.2f}" y1="{20 + H}" '
                    f'x2="{20 + (t - HIST_LOW) / (HIST_HIGH - HIST_LOW) * W:.2f}" y2="{25 + H}" stroke="currentColor"/>'
                    f'<text x="{20 + (t - HIST_LOW) / (HIST_HIGH - HIST_LOW) * W:.2f}" y="{42 + H}" '
                    f'text-anchor="middle">{str(t).replace("-", "−")}</text>'
                    for t in (-50, -25, 0, 25, 50))
    bw2 = 320 / n_keys
    wbars = "".join(f'<rect class="attnfig-wbar" x="{20 + j * bw2 + 4:.2f}" y="{20 + 100 - 100 * w:.2f}" '
                    f'width="{bw2 - 8:.2f}" height="{100 * w:.2f}" fill="var(--attnfig-k)"/>'
                    f'<text class="attnfig-wtext" x="{20 + (j + 0.5) * bw2:.2f}" y="{14 + 100 - 100 * w:.2f}" '
                    f'text-anchor="middle">{_f2(w)}</text>'
                    f'<text x="{20 + (j + 0.5) * bw2:.2f}" y="138" text-anchor="middle">k{j + 1}</text>'
                    for j, w in enumerate(weights))
    cells = "".join(f"<td>{_f2(s)}</td>" for s in row)
    body = f"""<div class="attnfig-controls">
<div><label for="{p}-dk">d<sub>k</sub> (numbers in each query and key): <output class="attnfig-dk-out">{d_k}</output></label><br>
<input type="range" id="{p}-dk" class="attnfig-dk" min="0" max="{len(data['dks']) - 1}" step="1" value="{i}" aria-valuetext="dₖ = {d_k}"></div>
<div><input type="checkbox" id="{p}-div" class="attnfig-div"{" checked" if divide else ""}> <label for="{p}-div">divide the scores by √d<sub>k</sub></label></div>
</div>
<svg viewBox="0 0 360 175" role="img" aria-labelledby="{p}-hdesc" class="attnfig-hist">
<desc id="{p}-hdesc" class="attnfig-hdesc">Histogram of 10,000 random dot products</desc>
<text x="20" y="12">10,000 random q · k{" / √dₖ" if divide else ""} (tallest bar = top)</text>
<line x1="20" y1="{20 + H}" x2="{20 + W}" y2="{20 + H}" stroke="currentColor" stroke-opacity="0.5"/>
{bars}{ticks}
</svg>
<div class="attnfig-readout" aria-live="polite">spread of q · k<span class="attnfig-slabel">{" / √dₖ" if divide else ""}</span>: <output class="attnfig-spread">{_f2(data["spread"][mode][i])}</output> (√d<sub>k</sub> = <output class="attnfig-sqrt">{_f2(math.sqrt(d_k))}</output>)</div>
<svg viewBox="0 0 360 145" role="img" aria-labelledby="{p}-wdesc" class="attnfig-weights">
<desc id="{p}-wdesc" class="attnfig-wdesc">Softmax weights of one query over {n_keys} random keys</desc>
<text x="20" y="12">softmax of one query's {n_keys} scores</text>
<line x1="20" y1="120" x2="340" y2="120" stroke="currentColor" stroke-opacity="0.5"/>
{wbars}
</svg>
<div style="overflow-x:auto"><table aria-label="one query's scores"><tr><th>scores</th>{"".join(f"<th>k{j + 1}</th>" for j in range(n_keys))}</tr>
<tr class="attnfig-row"><td>{"S / √dₖ" if divide else "S"}</td>{cells}</tr></table></div>
<div class="attnfig-readout" aria-live="polite">largest weight in this row: <output class="attnfig-max">{_f2(weights.max())}</output>; averaged over 1000 random rows: <output class="attnfig-meanmax">{_f2(data["meanmax"][mode][i])}</output> (even shares would be {_f2(1 / n_keys)})</div>"""
    script = """
var sD=q(".attnfig-dk"), cb=q(".attnfig-div");
var hbars=qa(".attnfig-hbar"), wbars=qa(".attnfig-wbar"), wtext=qa(".attnfig-wtext"), tds=qa(".attnfig-row td");
function update(){
  var i=parseInt(sD.value,10), dk=D.dks[i], div=cb.checked, mode=div?"scaled":"raw";
  var c=D.hist[mode][i], top=Math.max.apply(null,c);
  hbars.forEach(function(r,b){ var h=110*c[b]/top; r.setAttribute("y", 130-h); r.setAttribute("height", h); });
  var s=D.row[i].map(function(x){ return div ? x/Math.sqrt(dk) : x; }), w=softmax(s);
  wbars.forEach(function(r,j){ r.setAttribute("y", 120-100*w[j]); r.setAttribute("height", 100*w[j]); });
  wtext.forEach(function(t,j){ t.setAttribute("y", 114-100*w[j]); t.textContent=f2(w[j]); });
  tds[0].textContent = div ? "S / \\u221ad\\u2096" : "S";
  s.forEach(function(x,j){ tds[j+1].textContent=f2(x); });
  set(".attnfig-dk-out", String(dk)); sD.setAttribute("aria-valuetext", "d\\u2096 = "+dk);
  set(".attnfig-slabel", div ? " / \\u221ad\\u2096" : "");
  set(".attnfig-spread", f2(D.spread[mode][i])); set(".attnfig-sqrt", f2(Math.sqrt(dk)));
  set(".attnfig-max", f2(Math.max.apply(null,w))); set(".attnfig-meanmax", f2(D.meanmax[mode][i]));
  q(".attnfig-hist text").textContent = "10,000 random q \\u00b7 k" + (div ? " / \\u221ad\\u2096" : "") + " (tallest bar = top)";
  set(".attnfig-hdesc", "Histogram of 10,000 random dot products"+(div?" divided by the square root of d\\u2096":"")+" at d\\u2096 = "+dk+"; spread "+f2(D.spread[mode][i]));
  set(".attnfig-wdesc", "Softmax weights of one query over "+w.length+" random keys; largest "+f2(Math.max.apply(null,w)));
}
sD.addEventListener("input", update); cb.addEventListener("change", update);
update();
"""
    return _wrap(fig_id, "scaling", "Grow dₖ, then divide by √dₖ", body, data, script)


# --- chapter 9: stretch the gaps between scores --------------------------------------------


def running_scaled_scores() -> tuple[list[str], np.ndarray]:
    """The running example's words and its scaled scores S / √d_k, d_k = 2 (chapters 9 and 10)."""
    labels = words(RUNNING_SENTENCE)
    X = sentence_matrix(RUNNING_SENTENCE)
    W_Q, W_K, _ = running_lenses()
    Q, K = X @ W_Q, X @ W_K
    return labels, (Q @ K.T) / math.sqrt(Q.shape[1])


def _pie_paths(weights: Sequence[float], r: float = 80.0) -> list[str]:
    """SVG path data of the pie slices, clockwise from twelve o'clock (the page's script draws the same)."""
    paths, a = [], 0.0
    for w in weights:
        b = a + 2 * math.pi * w
        if w >= 1 - 1e-9:
            paths.append(f"M 0 {-r:.3f} A {r} {r} 0 1 1 0 {r:.3f} A {r} {r} 0 1 1 0 {-r:.3f} Z")
        else:
            paths.append(f"M 0 0 L {r * math.sin(a):.3f} {-r * math.cos(a):.3f} "
                         f"A {r} {r} 0 {1 if b - a > math.pi else 0} 1 {r * math.sin(b):.3f} {-r * math.cos(b):.3f} Z")
        a = b
    return paths


def softmax_stretch(row_scores: Sequence[float] | None = None, labels: Sequence[str] | None = None,
                    stretch: float = 1.0) -> InteractiveFigure:
    """A slider multiplies every score by t (stretching the gaps): the shares softmax makes and the largest weight (chapter 9).

    By default the row is "sat"'s scaled scores in the running example, as in chapter 9's static figure.
    """
    from .plot import word_colour
    if row_scores is None:
        all_labels, S = running_scaled_scores()
        row_scores = S[all_labels.index("sat")]
        labels = all_labels if labels is None else labels
    s = np.asarray(row_scores, dtype=float)
    labels = [f"key {j + 1}" for j in range(len(s))] if labels is None else list(labels)
    if len(labels) != len(s):
        raise ValueError(f"softmax_stretch: {len(s)} scores but {len(labels)} labels")
    fig_id = _fig_id("stretch", [[float(x) for x in s], labels, stretch])
    p = fig_id
    w = softmax(stretch * s)
    colours = [word_colour(x) for x in labels]
    slices = "".join(f'<path class="attnfig-slice" d="{d}" fill="{c}" stroke="currentColor" stroke-opacity="0.25"/>'
                     for d, c in zip(_pie_paths(w), colours))
    rows = "".join(f'<tr><td style="color:{c};font-weight:700">{html.escape(lab)}</td>'
                   f'<td class="attnfig-s">{_f2(stretch * x)}</td><td class="attnfig-w">{_f2(y)}</td>'
                   f'<td style="text-align:left"><span class="attnfig-bar" style="background:{c};width:{60 * y:.1f}px"></span></td></tr>'
                   for lab, c, x, y in zip(labels, colours, s, w))
    top = int(np.argmax(w))
    body = f"""<div class="attnfig-controls">
<div><label for="{p}-t">stretch t (every score times t): <output class="attnfig-t-out">{stretch:g}</output></label><br>
<input type="range" id="{p}-t" class="attnfig-t" min="0" max="5" step="0.1" value="{stretch:g}" aria-valuetext="t = {stretch:g}"></div>
</div>
<svg viewBox="-100 -90 200 180" role="img" aria-labelledby="{p}-desc" class="attnfig-pie" style="max-width:14rem">
<desc id="{p}-desc" class="attnfig-desc">Pie of the softmax shares</desc>
{slices}
</svg>
<table aria-label="scores and shares"><tr><th>word</th><th>t × score</th><th>weight</th><th></th></tr>{rows}</table>
<div class="attnfig-readout" aria-live="polite">largest weight: <output class="attnfig-max">{_f2(w[top])}</output> on <output class="attnfig-argmax">{html.escape(labels[top])}</output>; the weights add up to <output class="attnfig-sum">{_f2(w.sum())}</output></div>"""
    data = {"scores": [float(x) for x in s], "labels": labels}
    script = """
var sl=q(".attnfig-t"), paths=qa(".attnfig-slice"), ss=qa(".attnfig-s"), ws=qa(".attnfig-w"), bars=qa(".attnfig-bar");
function pie(w){ var r=80, a=0, out=[];
  w.forEach(function(x){ var b=a+2*Math.PI*x;
    if(x>=1-1e-9) out.push("M 0 "+(-r)+" A "+r+" "+r+" 0 1 1 0 "+r+" A "+r+" "+r+" 0 1 1 0 "+(-r)+" Z");
    else out.push("M 0 0 L "+(r*Math.sin(a)).toFixed(3)+" "+(-r*Math.cos(a)).toFixed(3)+" A "+r+" "+r+" 0 "+(b-a>Math.PI?1:0)+" 1 "+(r*Math.sin(b)).toFixed(3)+" "+(-r*Math.cos(b)).toFixed(3)+" Z");
    a=b; });
  return out; }
function update(){
  var t=parseFloat(sl.value), s=D.scores.map(function(x){ return t*x; }), w=softmax(s), top=0, sum=0;
  w.forEach(function(x,j){ if(x>w[top]) top=j; sum+=x; });
  pie(w).forEach(function(d,j){ paths[j].setAttribute("d", d); });
  s.forEach(function(x,j){ ss[j].textContent=f2(x); ws[j].textContent=f2(w[j]); bars[j].style.width=(60*w[j]).toFixed(1)+"px"; });
  set(".attnfig-t-out", String(t)); sl.setAttribute("aria-valuetext", "t = "+t);
  set(".attnfig-max", f2(w[top])); set(".attnfig-argmax", D.labels[top]); set(".attnfig-sum", f2(sum));
  set(".attnfig-desc", "Pie of the softmax shares at stretch "+t+"; largest "+f2(w[top])+" on "+D.labels[top]);
}
sl.addEventListener("input", update);
update();
"""
    return _wrap(fig_id, "stretch", "Stretch the gaps between the scores", body, data, script)


# --- chapter 10: one row of A blends the value vectors --------------------------------------


def causal_mask(n: int) -> np.ndarray:
    """True where query i may attend to key j, that is j ≤ i (chapter 10)."""
    return np.tril(np.ones((n, n), dtype=bool))


def running_attention(mask: bool = False) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The running example through attnlib.attention: (words, A, V, Z), with or without the causal mask (chapter 10)."""
    labels = words(RUNNING_SENTENCE)
    X = sentence_matrix(RUNNING_SENTENCE)
    W_Q, W_K, W_V = running_lenses()
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    Z, A = attention(Q, K, V, mask=causal_mask(len(labels)) if mask else None)
    return labels, np.asarray(A), np.asarray(V), np.asarray(Z)


def _viridis_hex(x: float) -> tuple[str, str]:
    """The viridis colour of a weight in [0, 1] and a text colour that reads on it."""
    from matplotlib import colormaps
    r, g, b, _ = colormaps["viridis"](float(x))
    text = "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "#ffffff"
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}", text


def attention_explorer(word: str = "sat", masked: bool = False) -> InteractiveFigure:
    """The running example's A as a heatmap: pick a word to see its row blend the value vectors into z; a causal-mask switch (chapter 10)."""
    from .plot import word_colour
    labels, A, V, Z = running_attention(mask=False)
    _, Am, _, Zm = running_attention(mask=True)
    if word not in labels:
        raise ValueError(f"attention_explorer: word must be one of {labels}, not {word!r}")
    n = len(labels)
    fig_id = _fig_id("blend", [word, masked])
    p = fig_id
    sel = labels.index(word)
    allowed = causal_mask(n)
    colours = {"plain": [[_viridis_hex(x) for x in row] for row in A],
               "masked": [[_viridis_hex(x) if allowed[i, j] else ("none", "currentColor")
                           for j, x in enumerate(row)] for i, row in enumerate(Am)]}
    state = "masked" if masked else "plain"
    M = Am if masked else A
    left, cell, ch, top = 58, 44, 30, 22
    parts = []
    for j, lab in enumerate(labels):
        parts.append(f'<text x="{left + (j + 0.5) * cell}" y="{top - 7}" text-anchor="middle" '
                     f'style="fill:{word_colour(lab)};font-weight:700">{html.escape(lab)}</text>')
    for i, lab in enumerate(labels):
        parts.append(f'<g class="attnfig-hrow" data-row="{i}" style="cursor:pointer">'
                     f'<text x="{left - 6}" y="{top + (i + 0.5) * ch + 5}" text-anchor="end" '
                     f'style="fill:{word_colour(lab)};font-weight:700">{html.escape(lab)}</text>')
        for j in range(n):
            fill, ink = colours[state][i][j]
            value = M[i, j]
            parts.append(f'<rect class="attnfig-cell" x="{left + j * cell}" y="{top + i * ch}" width="{cell}" '
                         f'height="{ch}" fill="{fill}" stroke="currentColor" stroke-opacity="0.15"/>'
                         f'<text class="attnfig-ctext" x="{left + (j + 0.5) * cell}" y="{top + (i + 0.5) * ch + 5}" '
                         f'text-anchor="middle" style="fill:{ink}">{_f2(value) if fill != "none" else "0"}</text>')
        parts.append("</g>")
    width, height = left + n * cell + 4, top + n * ch + 4
    radios = "".join(f'<label style="color:{word_colour(lab)}"><input type="radio" name="{p}-word" '
                     f'class="attnfig-word" value="{i}"{" checked" if i == sel else ""}> {html.escape(lab)}</label>'
                     for i, lab in enumerate(labels))
    z = M[sel] @ V
    blend_rows = "".join(
        f'<tr><td style="color:{word_colour(lab)};font-weight:700">v<sub>{html.escape(lab)}</sub></td>'
        f'<td><span class="attnfig-a">{_f2(M[sel, j])}</span><span class="attnfig-bar" '
        f'style="background:{word_colour(lab)};width:{30 * M[sel, j]:.1f}px"></span></td>'
        + "".join(f"<td>{_f2(x)}</td>" for x in V[j]) + "</tr>" for j, lab in enumerate(labels))
    body = f"""<fieldset class="attnfig-words"><legend>the query word i (click a row, or use the arrow keys):</legend>{radios}</fieldset>
<div class="attnfig-controls"><div><input type="checkbox" id="{p}-mask" class="attnfig-mask"{" checked" if masked else ""}> <label for="{p}-mask">causal mask: each word may attend only to itself and the words before it (key j ≤ query i; masked scores become −∞ before softmax)</label></div></div>
<svg viewBox="0 0 {width} {height}" role="img" aria-labelledby="{p}-desc" class="attnfig-heat">
<desc id="{p}-desc" class="attnfig-desc">Heatmap of the attention weights A</desc>
{"".join(parts)}
<rect class="attnfig-sel" x="{left - 2}" y="{top + sel * ch - 1}" width="{n * cell + 4}" height="{ch + 2}" fill="none" stroke="currentColor" stroke-width="3"/>
</svg>
<div class="attnfig-readout">Row <output class="attnfig-rowname">{html.escape(word)}</output> of A: the weights that blend the value vectors v<sub>j</sub> into z<sub>i</sub> = Σ<sub>j</sub> A<sub>ij</sub> v<sub>j</sub>.</div>
<div style="overflow-x:auto"><table aria-label="the blend of one row"><tr><th></th><th>weight A<sub>ij</sub></th>{"".join(f"<th>{f}</th>" for f in FEATURES)}</tr>
{blend_rows}
<tr style="font-weight:700"><td>z<sub class="attnfig-zname">{html.escape(word)}</sub></td><td class="attnfig-sum">{_f2(M[sel].sum())}</td>{"".join(f'<td class="attnfig-z">{_f2(x)}</td>' for x in z)}</tr></table></div>
<div class="attnfig-readout" aria-live="polite"><output class="attnfig-summary">{_blend_summary(labels, word, M[sel], masked)}</output></div>"""
    data = {"words": labels, "A": {"plain": A.tolist(), "masked": Am.tolist()}, "V": V.tolist(),
            "colours": colours, "allowed": allowed.tolist()}
    script = """
var radios=qa(".attnfig-word"), cb=q(".attnfig-mask"), rects=qa(".attnfig-cell"), ctext=qa(".attnfig-ctext");
var arow=qa(".attnfig-a"), bars=qa(".attnfig-bar"), zs=qa(".attnfig-z"), n=D.words.length;
function current(){ for(var i=0;i<radios.length;i++) if(radios[i].checked) return i; return 0; }
function update(){
  var i=current(), st=cb.checked?"masked":"plain", M=D.A[st];
  rects.forEach(function(r,k){ var a=Math.floor(k/n), b=k%n, c=D.colours[st][a][b];
    r.setAttribute("fill", c[0]); ctext[k].style.fill=c[1];
    ctext[k].textContent = (st==="masked" && !D.allowed[a][b]) ? "0" : f2(M[a][b]); });
  var s=q(".attnfig-sel"); s.setAttribute("y", 22+i*30-1);
  var w=M[i], z=[], j, f, sum=0, top=0;
  for(f=0;f<D.V[0].length;f++){ z.push(0); for(j=0;j<n;j++) z[f]+=w[j]*D.V[j][f]; }
  for(j=0;j<n;j++){ arow[j].textContent=f2(w[j]); bars[j].style.width=(30*w[j]).toFixed(1)+"px"; sum+=w[j]; if(w[j]>w[top]) top=j; }
  zs.forEach(function(td,f){ td.textContent=f2(z[f]); });
  set(".attnfig-sum", f2(sum)); set(".attnfig-rowname", D.words[i]); set(".attnfig-zname", D.words[i]);
  var seen = st==="masked" ? (i+1)+" word"+(i?"s":"")+" (itself and the words before it)" : "all "+n+" words";
  set(".attnfig-summary", "z of \\u201c"+D.words[i]+"\\u201d blends "+seen+"; the largest weight, "+f2(w[top])+", is on \\u201c"+D.words[top]+"\\u201d (word "+(top+1)+").");
  set(".attnfig-desc", "Heatmap of the attention weights A"+(st==="masked"?" with the causal mask":"")+"; row "+D.words[i]+" selected, largest weight "+f2(w[top])+" on "+D.words[top]);
}
radios.forEach(function(r){ r.addEventListener("change", update); });
cb.addEventListener("change", update);
qa(".attnfig-hrow").forEach(function(g){ g.addEventListener("click", function(){ var r=radios[parseInt(g.getAttribute("data-row"),10)]; r.checked=true; r.focus(); update(); }); });
update();
"""
    return _wrap(fig_id, "blend", "Pick a word: its row of A blends the values into its z", body, data, script)


def _blend_summary(labels: Sequence[str], word: str, w: np.ndarray, masked: bool = False) -> str:
    top = int(np.argmax(w))
    i = list(labels).index(word)
    seen = f"{i + 1} word{'s' if i else ''} (itself and the words before it)" if masked else f"all {len(labels)} words"
    return (f"z of “{word}” blends {seen}; the largest weight, {_f2(w[top])}, "
            f"is on “{labels[top]}” (word {top + 1}).")
