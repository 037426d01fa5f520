"""The learning the lenses chapter's figure: replay the real, seeded training; the loss so far and A sharpening onto the previous word.

attnlib.training records the loss at every step but not the lenses, so the lenses after k steps are
found by running the same seeded training for k steps: Adam's steps are the same numbers in the same
order, so its first k steps are exactly the first k steps of the full run (tests/test_interactive.py
checks this on the loss).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ..core import self_attention
from ..data import RUNNING_SENTENCE, words
from ..masks import causal_mask
from .blend import viridis_hex
from .page import InteractiveFigure, esc, f2, fig_id, slider, word_style, wrap

#: The steps the figure can show: dense early, where A changes fast, sparse late.
CHECKPOINTS = (0, 1, 2, 4, 6, 8, 10, 13, 16, 20, 25, 30, 40, 50, 70, 100, 140, 200)


SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(e: int) -> str:
    return "1" if e == 0 else "10" + str(e).translate(SUPERSCRIPTS)


def sci(x: float) -> str:
    """x with three digits and a power of ten, as the page's JavaScript writes it: 8.29e-1."""
    mantissa, exponent = f"{x:.2e}".split("e")
    return f"{mantissa}e{int(exponent):+d}"


@cache
def replay() -> dict:
    """The learning the lenses chapter's training (128 sentences, seed 0, train_lenses' defaults): the loss after every
    step, and the running sentence's A and the average weight on the word before after each of the CHECKPOINTS."""
    from .. import training

    steps = CHECKPOINTS[-1]
    task = training.make_task(n_sentences=128, n=6, seed=0)
    full = training.train_lenses(task, steps=steps)
    X_run = training.task_input(RUNNING_SENTENCE)
    mask = causal_mask(len(X_run))
    A_run, on_previous, losses = [], [], []
    for k in CHECKPOINTS:
        run = full if k == steps else training.train_lenses(task, steps=k)
        Z, _ = self_attention(task.X, run.W_Q, run.W_K, run.W_V, mask=mask)
        losses.append(float(((np.asarray(Z) - task.targets) ** 2).mean()))  # the loss of these lenses
        A = np.asarray(self_attention(X_run, run.W_Q, run.W_K, run.W_V, mask=mask)[1])
        A_run.append(A.tolist())
        on_previous.append(training.weight_on_keys(A, task.keys, range(1, len(X_run))))
    return {"steps": list(CHECKPOINTS), "history": full.history, "loss": losses, "A": A_run, "previous": on_previous}


#: The loss curve's geometry in the SVG's units: width, height, left edge of the plot, top edge.
CURVE_W, CURVE_H, CURVE_X0, CURVE_TOP = 300, 100, 46, 14
#: The heatmap's geometry: left edge, cell width, cell height, top edge.
HEAT_LEFT, HEAT_CELL, HEAT_CH, HEAT_TOP = 62, 44, 28, 34


def _losses(data: dict) -> list[float]:
    """The loss after t steps, t = 0 … the last step."""
    return data["history"] + [data["loss"][-1]]


def _scale(data: dict) -> tuple[int, int]:
    """The lowest and highest power of ten of the loss curve's log scale."""
    curve_loss = _losses(data)
    return math.floor(math.log10(min(curve_loss))), math.ceil(math.log10(max(curve_loss)))


def _curve(data: dict) -> tuple[list[str], str]:
    """The loss after t steps (t = 0 … 200) as SVG points on a log scale, and its tick labels and grid lines."""
    W, x0 = CURVE_W, CURVE_X0
    curve_loss = _losses(data)
    lo, hi = _scale(data)
    points = [f"{_px(t, data):.2f},{_py(v, lo, hi):.2f}" for t, v in enumerate(curve_loss)]
    ticks = "".join(
        f'<text x="{x0 - 4}" y="{_py(10.0**e, lo, hi) + 4:.2f}" text-anchor="end">{power_of_ten(e)}</text>'
        f'<line x1="{x0}" y1="{_py(10.0**e, lo, hi):.2f}" x2="{x0 + W}" y2="{_py(10.0**e, lo, hi):.2f}" stroke="currentColor" stroke-opacity="0.15"/>'
        for e in range(lo, hi + 1, 2 if hi - lo > 3 else 1)
    )
    return points, ticks


def _px(t: float, data: dict) -> float:
    """The x of step t on the loss curve."""
    return CURVE_X0 + t / data["steps"][-1] * CURVE_W


def _py(v: float, lo: int, hi: int) -> float:
    """The y of loss v on the loss curve's log scale from 10**lo to 10**hi."""
    return CURVE_TOP + (hi - math.log10(v)) / (hi - lo) * CURVE_H


def _heat(A: np.ndarray, labels: list[str]) -> str:
    """The running sentence's A as SVG cells under the causal mask, the keys above, the queries at the left."""
    left, cell, ch, ctop = HEAT_LEFT, HEAT_CELL, HEAT_CH, HEAT_TOP
    n = len(labels)
    heat = []
    for j, w in enumerate(labels):  # a key's position above its word: "1 kitten" on one line is wider than a cell
        x = left + (j + 0.5) * cell
        heat.append(
            f'<text class="w" x="{x}" y="{ctop - 20}" text-anchor="middle" style="{word_style(w)}">{j}</text>'
            f'<text class="w" x="{x}" y="{ctop - 6}" text-anchor="middle" style="{word_style(w)}">{esc(w)}</text>'
        )
    for i, w in enumerate(labels):
        heat.append(
            f'<text class="w" x="{left - 6}" y="{ctop + (i + 0.5) * ch + 5}" text-anchor="end" style="{word_style(w)}">{i} {esc(w)}</text>'
        )
        for j in range(n):
            fill, ink = viridis_hex(round(100 * A[i, j]) / 100) if j <= i else ("none", "currentColor")
            heat.append(
                f'<rect class="attnfig-cell" x="{left + j * cell}" y="{ctop + i * ch}" width="{cell}" height="{ch}" '
                f'fill="{fill}" stroke="currentColor" stroke-opacity="0.15"/>'
                f'<text class="attnfig-ctext" x="{left + (j + 0.5) * cell}" y="{ctop + (i + 0.5) * ch + 5}" '
                f'text-anchor="middle" style="fill:{ink}">{f2(A[i, j]) if j <= i else ""}</text>'
            )
    return "".join(heat)


def _body(p: str, data: dict, step: int, points: list[str], ticks: str, heat: str) -> str:
    """The slider, the readout, the loss curve up to `step` and the heatmap of A after `step` steps."""
    s = data["steps"].index(step)
    n = len(words(RUNNING_SENTENCE))
    W, H, x0, top = CURVE_W, CURVE_H, CURVE_X0, CURVE_TOP
    left, cell, ch, ctop = HEAT_LEFT, HEAT_CELL, HEAT_CH, HEAT_TOP
    last = data["steps"][-1]
    return f"""<div class="attnfig-controls">
{slider(p, "step", "training step", 0, len(data["steps"]) - 1, 1, s, str(step))}
</div>
<div class="attnfig-readout" aria-live="polite">after <output class="attnfig-stepname">{step}</output> steps: loss <output class="attnfig-loss">{sci(data["loss"][s])}</output>; average weight on the word before (rows 1–5): <output class="attnfig-prev">{f2(data["previous"][s])}</output></div>
<svg viewBox="0 0 360 {top + H + 36}" role="img" aria-labelledby="{p}-ldesc" class="attnfig-losscurve">
<desc id="{p}-ldesc" class="attnfig-ldesc">The loss over the first {step} steps, on a log scale</desc>
{ticks}
<polyline class="attnfig-curve" points="{" ".join(points[: step + 1])}" fill="none" stroke="var(--attnfig-q)" stroke-width="2"/>
<circle class="attnfig-now" cx="{_px(step, data):.2f}" cy="{_py(data["loss"][s], *_scale(data)):.2f}" r="5" fill="var(--attnfig-mark)"/>
<text x="{x0}" y="{top + H + 18}">0</text><text x="{x0 + W}" y="{top + H + 18}" text-anchor="end">{last}</text>
<text x="{x0 + W / 2}" y="{top + H + 32}" text-anchor="middle">step (loss on a log scale)</text>
</svg>
<svg viewBox="0 0 {left + n * cell + 4} {ctop + n * ch + 4}" role="img" aria-labelledby="{p}-hdesc" class="attnfig-heat">
<desc id="{p}-hdesc" class="attnfig-hdesc">The running sentence's A after {step} steps, causal mask; the word before gets {f2(data["previous"][s])} on average</desc>
{heat}
</svg>"""


def training_replay(step: int = 0) -> InteractiveFigure:
    """A slider over the stored steps of the learning the lenses chapter's training: the loss so far, and the running
    sentence's A (the learning the lenses chapter)."""
    data = replay()
    if step not in data["steps"]:
        raise ValueError(f"training_replay: step must be one of {data['steps']}, not {step}")
    s = data["steps"].index(step)
    p = fig_id("replay", [step])
    points, ticks = _curve(data)
    lo, hi = _scale(data)
    heat = _heat(np.array(data["A"][s]), words(RUNNING_SENTENCE))
    colours = [viridis_hex(x / 100)[0] for x in range(101)]  # the heatmap's colour for weights 0.00 … 1.00
    body = _body(p, data, step, points, ticks, heat)
    payload = {key: data[key] for key in ("steps", "loss", "A", "previous")}
    payload.update(points=points, colours=colours, x0=CURVE_X0, W=CURVE_W, top=CURVE_TOP, H=CURVE_H, lo=lo, hi=hi)
    payload["last"] = data["steps"][-1]
    return wrap(p, "replay", "Replay the training: the lenses learn to look one word back", body, payload, "replay.js")
