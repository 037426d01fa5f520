"""The course map of the introduction, `_static/prerequisite_map.svg`: what each chapter stands on.

`make figures` runs `python tools/course_map.py`, which draws it from the book's table of contents,
`_toc.yml`, in attnlib's style. This module adds only what a table of contents does not say: the
short label in each chapter's box, and the chapters that stand on more than the one before them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.path import Path

from attnlib.plot.style import BLUE, GREEN, ORANGE, PURPLE, SKY, STYLE, SVG_STYLE, figure, tint

# The label in a chapter's box (typeset as mathtext), by the chapter's file name without its number.
# A chapter missing here is labelled by its file name ("13_word_order" -> "word order").
LABELS: dict[str, str] = {
    "vectors": "vector",
    "the_matrix_x": "matrix $X$",
    "shapes_in_r": r"shape tag $X \in \mathbb{R}^{n \times d_{\mathrm{model}}}$",
    "matrix_multiplication": "matmul $XW$",
    "query_key_value": "$W_Q, W_K, W_V$ → $Q, K, V$",
    "transpose": r"transpose $K^{\mathsf{T}}$",
    "dot_product_scores": r"dot product, $S = QK^{\mathsf{T}}$",
    "scaling": r"scale by $\sqrt{d_k}$",
    "softmax": "softmax → $A$",
    "weighted_sum": "$Z = AV$",
    "masks": "masks",
    "many_heads": "many heads, $W_O$",
    "word_order": "word order, positions",
    "learning_the_lenses": "learning the lenses",
    "cpu_vs_gpu": "CPU vs GPU",
}

# Every chapter stands on the one before it; these stand on an earlier one too.
ALSO_NEEDS: dict[str, list[str]] = {
    "weighted_sum": ["query_key_value"],  # Z = AV needs V
    "causal_model": ["masks"],  # the causal mask at work
}

# One colour per part, in order.
PART_COLOURS = [SKY, BLUE, ORANGE, PURPLE, GREEN]


@dataclass
class Chapter:
    """One numbered chapter of the book, as the course map draws it."""

    number: int  # 1, 2, ... in the order of the table of contents
    file: str  # as _toc.yml writes it, e.g. "chapters/01_vectors"
    label: str  # what its box says, e.g. "1  vector"
    part: str  # its part's numeral, e.g. "I"
    needs: list[int]  # the numbers of the chapters it stands on


def read_toc(toc: Any) -> dict:
    """The table of contents: a path to a `_toc.yml` file, read with PyYAML, or its contents already loaded."""
    if isinstance(toc, dict):
        return toc
    import yaml

    return yaml.safe_load(FilePath(toc).read_text(encoding="utf-8"))


def _topic(file: str) -> str:
    """'chapters/05_query_key_value' -> 'query_key_value'."""
    name = FilePath(file).name
    number, _, rest = name.partition("_")
    return rest if number.isdigit() else name


def _numeral(caption: str, k: int) -> str:
    """'Part IV — Attention that learns' -> 'IV'; a caption without one gets the k-th numeral."""
    words = caption.split()
    if len(words) > 1 and words[0] == "Part":
        return words[1]
    return ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"][k]


def course_chapters(toc: Any) -> list[Chapter]:
    """The numbered chapters of the book, in order, each with its part and the chapters it stands on."""
    chapters: list[Chapter] = []
    numbered = [part for part in read_toc(toc)["parts"] if part.get("numbered")]
    for k, part in enumerate(numbered):
        for entry in part["chapters"]:
            number, topic = len(chapters) + 1, _topic(entry["file"])
            label = LABELS.get(topic, topic.replace("_", " "))
            needs = [number - 1] if number > 1 else []
            needs += [c.number for c in chapters if _topic(c.file) in ALSO_NEEDS.get(topic, [])]
            chapters.append(Chapter(number, entry["file"], f"{number}  {label}", _numeral(part["caption"], k), needs))
    return chapters


def prerequisite_map(toc: Any) -> Any:
    """The course as a map, one box per chapter from the bottom up; edges go around boxes, never through.

    `toc` is the book's table of contents: the path of `_toc.yml`, or its loaded contents.
    """
    chapters = course_chapters(toc)
    parts = list(dict.fromkeys(c.part for c in chapters))  # the numerals, in order
    colour = {part: PART_COLOURS[k % len(PART_COLOURS)] for k, part in enumerate(parts)}
    width, height, step = 3.5, 0.6, 1.0  # every box the same size, one level per chapter
    lane = width / 2 + 0.35  # a skipping edge runs up this line, right of every box
    fig, ax = figure(4.4, 1.0 + 0.75 * len(chapters))
    with plt.rc_context(STYLE):
        for chapter in chapters:
            for need in chapter.needs:
                y0, y1 = (need - 1) * step, (chapter.number - 1) * step
                if y1 - y0 == step:  # the next chapter: straight up, tip on the box's bottom edge
                    path = Path([(0, y0 + height / 2), (0, y1 - height / 2)])
                else:  # a skip: out to the right, up the lane, back in from the side
                    path = Path([(width / 2, y0), (lane, y0), (lane, y1), (width / 2, y1)])
                ax.add_patch(
                    FancyArrowPatch(
                        path=path, arrowstyle="-|>", mutation_scale=14, color="0.35", lw=1.4, shrinkA=0, shrinkB=0,
                        zorder=3,
                    )
                )  # fmt: skip
        for k, chapter in enumerate(chapters):
            ax.add_patch(
                FancyBboxPatch(
                    (-width / 2, k * step - height / 2), width, height, boxstyle="round,pad=0,rounding_size=0.12",
                    facecolor=tint(colour[chapter.part], 0.4), edgecolor="0.25", lw=1.2, zorder=2,
                )
            )  # fmt: skip
            ax.text(0, k * step, chapter.label, ha="center", va="center", fontsize=12, zorder=4)
        for part in parts:
            numbers = [c.number for c in chapters if c.part == part]
            y0, y1 = (min(numbers) - 1) * step - height / 2, (max(numbers) - 1) * step + height / 2
            ax.plot([-width / 2 - 0.22] * 2, [y0, y1], color=colour[part], lw=4, solid_capstyle="butt")
            ax.text(-width / 2 - 0.38, (y0 + y1) / 2, part, ha="right", va="center", fontsize=11, color="0.25")
        ax.set_xlim(-width / 2 - 0.75, lane + 0.15)
        ax.set_ylim(-height, (len(chapters) - 1) * step + height)
        ax.axis("off")
        ax.set_title("What each chapter stands on\n(read from the bottom up)")
    return fig


def save_svg(fig: Any, path: str) -> None:
    """Save a figure as SVG with no date and a fixed id salt, so the same drawing gives the same bytes.

    A saved file gets a white background (it may be opened in any viewer); figures shown in a
    notebook keep STYLE's transparent one.
    """
    with plt.rc_context(SVG_STYLE):
        fig.savefig(path, format="svg", metadata={"Date": None}, facecolor="white")


if __name__ == "__main__":
    save_svg(prerequisite_map("_toc.yml"), "_static/prerequisite_map.svg")
