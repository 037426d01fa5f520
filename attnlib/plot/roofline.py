"""The roofline: achieved FLOP/s against arithmetic intensity, under a machine's two ceilings (the counting and timing chapter)."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np

from .style import BLACK, PALETTE, STYLE, figure


def roofline_limit(intensity: float | Sequence[float], peak: float, bandwidth: float) -> np.ndarray:
    """The most FLOP/s a kernel of this intensity (FLOPs per byte) can reach: min(peak, bandwidth · intensity)."""
    return np.minimum(peak, bandwidth * np.asarray(intensity, dtype=float))


def roofline(
    points: dict[str, tuple[float, float]], ceilings: dict[str, tuple[float, float]], title: str = ""
) -> object:
    """Kernels as points (FLOPs per byte, achieved FLOP/s) under each machine's roof (the counting and timing chapter).

    `points` maps a kernel's name to (intensity, FLOP/s); `ceilings` maps a machine's
    label to (peak FLOP/s, bandwidth in bytes/s). Each roof is drawn as the slanted memory
    line bandwidth · intensity up to the ridge, then the flat compute line; the ridge
    (peak / bandwidth) is the intensity from which compute, not memory, limits a kernel.
    """
    fig, ax = figure(5.8, 5.2)
    xs = [x for x, _ in points.values()] + [p / b for p, b in ceilings.values()]
    lo, hi = min(xs) / 4, max(xs) * 8
    grid = np.geomspace(lo, hi, 200)
    styles = ["-", "--", "-.", ":"]
    with plt.rc_context(STYLE):
        for i, (label, (peak, bandwidth)) in enumerate(ceilings.items()):
            ax.plot(grid, roofline_limit(grid, peak, bandwidth), styles[i % 4], color=BLACK, lw=1.8, label=label)
            ax.plot([peak / bandwidth], [peak], "|", color=BLACK, markersize=12)
        markers = "osD^vP"
        for i, (name, (x, y)) in enumerate(points.items()):
            ax.plot(
                [x],
                [y],
                markers[i % len(markers)],
                color=PALETTE[i % len(PALETTE)],
                markersize=9,
                label=name,
                linestyle="none",
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (FLOPs per byte moved)")
        ax.set_ylabel("FLOP/s")
        if title:
            ax.set_title(title, fontsize=11)
        ax.grid(alpha=0.3, which="major")
        ax.legend(fontsize=11, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=1, frameon=False)
    return fig
