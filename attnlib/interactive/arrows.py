"""The vectors chapter's figure: drag a word's arrow; its numbers, its length and its direction follow, and the angle to another word."""

from __future__ import annotations

import math

from ..data import VOCAB_2D
from .page import InteractiveFigure, esc, f2, fig_id, radios, slider, word_span, word_style, wrap

LOW, HIGH, UNIT = -1.0, 4.0, 60  # the plane's range in both numbers, and pixels per unit


def direction(v) -> float:
    """The angle of arrow v in degrees, counter-clockwise from the rightward axis (the vectors chapter)."""
    return math.degrees(math.atan2(v[1], v[0]))


def angle_between(u, v) -> float:
    """The angle between two arrows in degrees, 0 to 180: the gap between their directions."""
    gap = abs(direction(u) - direction(v)) % 360
    return 360 - gap if gap > 180 else gap


def _check(word: str) -> None:
    if word not in VOCAB_2D:
        raise ValueError(f"word_arrows: words must be among {list(VOCAB_2D)}, not {word!r}")


def word_arrows(
    word: str = "kitten", other: str = "cat", position: tuple[float, float] | None = None
) -> InteractiveFigure:
    """The drawing vocabulary as arrows: move one word's arrow (drag its tip, or the sliders); read its numbers,
    length and direction, and the angle to another word's arrow (the vectors chapter)."""
    _check(word)
    _check(other)
    vocab = {w: [float(x) for x in v] for w, v in VOCAB_2D.items()}
    words = list(vocab)
    v = list(position) if position is not None else vocab[word]
    if not all(LOW <= x <= HIGH for x in v):
        raise ValueError(f"word_arrows: position must lie between {LOW} and {HIGH}, not {v}")
    p = fig_id("arrows", [word, other, v])
    start = dict(vocab, **{word: v})
    u = vocab[other] if other != word else v
    lo, hi = LOW * UNIT, HIGH * UNIT
    arrows = []
    for w in words:
        x, y = start[w]
        arrows.append(
            f'<g class="attnfig-arrow" data-word="{esc(w)}" style="{word_style(w)}">'
            f'<line x1="0" y1="0" x2="{x * UNIT:.2f}" y2="{-y * UNIT:.2f}" class="wk" stroke-width="3"/>'
            f'<circle class="attnfig-tip wk" cx="{x * UNIT:.2f}" cy="{-y * UNIT:.2f}" r="6"/>'
            f'<text class="w" x="{x * UNIT + 8:.2f}" y="{-y * UNIT - 6:.2f}">{esc(w)}</text></g>'
        )
    body = f"""{radios(p, "move", "the arrow you move:", [(w, word_span(w)) for w in words], words.index(word))}
{radios(p, "other", "the arrow you compare it with:", [(w, word_span(w)) for w in words], words.index(other))}
<svg viewBox="{lo - 10} {-hi - 10} {hi - lo + 20} {hi - lo + 20}" role="img" aria-labelledby="{p}-desc" class="attnfig-plane" style="touch-action:none">
<desc id="{p}-desc" class="attnfig-desc">The words as arrows from the origin; {esc(word)} at [{f2(v[0])}, {f2(v[1])}]</desc>
<line x1="{lo}" y1="0" x2="{hi}" y2="0" stroke="currentColor" stroke-opacity="0.4"/>
<line x1="0" y1="{-lo}" x2="0" y2="{-hi}" stroke="currentColor" stroke-opacity="0.4"/>
<text x="{hi}" y="18" text-anchor="end">animal-ness →</text>
<text x="6" y="{-hi + 12}">↑ vehicle-ness</text>
<path class="attnfig-arc" fill="none" stroke="currentColor" stroke-width="2" stroke-dasharray="4 3"/>
{"".join(arrows)}
</svg>
<div class="attnfig-controls">
{slider(p, "x", "first number (animal-ness)", LOW, HIGH, 0.1, v[0], f"{v[0]:g}")}
{slider(p, "y", "second number (vehicle-ness)", LOW, HIGH, 0.1, v[1], f"{v[1]:g}")}
</div>
<div class="attnfig-readout" aria-live="polite">
<div><output class="attnfig-name">{esc(word)}</output> = [<output class="attnfig-vec">{f2(v[0])}, {f2(v[1])}</output>]</div>
<div>length √(x² + y²) = <output class="attnfig-len">{f2(math.hypot(*v))}</output>; direction <output class="attnfig-dir">{direction(v):.1f}°</output></div>
<div>the angle between <output class="attnfig-pair">{esc(word)} and {esc(other)}</output>: <output class="attnfig-between">{angle_between(v, u):.1f}°</output></div>
</div>"""
    data = {"words": words, "start": start, "unit": UNIT, "low": LOW, "high": HIGH}
    return wrap(p, "arrows", "Move a word's arrow: its numbers, length and direction", body, data, "arrows.js")
