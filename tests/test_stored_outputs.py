"""Stored outputs that CI's machine reproduces: nbval compares every stored output with a fresh run.

CI gets whatever processor it is given (Intel Xeon, AMD EPYC with or without AVX-512), and each
processor's matrix routines add float32 products in their own order. Two float32 computations that
agree then differ in their last digits by an amount that changes with the processor: printed as it
is (3.3e-07 on one machine, 5.7e-07 on another), it fails the next machine's comparison. A chapter
prints such an agreement as a bound ("largest difference < 1e-5: True"), as the weighted sum
chapter does, and a figure drawn from a model's float32 numbers rounds them first
(`attnlib.plot.style.two_decimals`).
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from course_map import save_svg  # tools/course_map.py (tests/conftest.py puts tools/ on the path)

from attnlib import plot

CHAPTERS = sorted((Path(__file__).resolve().parents[1] / "chapters").glob("[0-9][0-9]_*.ipynb"))
#: a line about how far apart two results are: a difference, an error, or |A - B|
ABOUT_A_DIFFERENCE = re.compile(r"differ|error|\|\s*\w+\s*-", re.IGNORECASE)
SCIENTIFIC = re.compile(r"[-+]?\d+(?:\.\d+)?e[-+]?\d+")
#: the words that make the number after them a bound
BOUND = {"<", "<=", "≤", "to", "below", "under"}


def raw_differences(line: str) -> list[str]:
    """The numbers of `line` that print a small difference itself (under 1e-4), not a bound on it."""
    if not ABOUT_A_DIFFERENCE.search(line):
        return []
    words = line.split()
    raw = []
    for before, word in zip(["", *words], words):
        number = word.strip(",;:()[]")
        if SCIENTIFIC.fullmatch(number) and 0 < abs(float(number)) < 1e-4 and before not in BOUND:
            raw.append(number)
    return raw


def stored_lines(path: Path) -> list[str]:
    """Every line a chapter stores as printed: its code cells' text outputs and its solutions' "It prints" blocks."""
    lines = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            for block in re.findall(r"```text\n(.*?)```", source, re.DOTALL):
                lines += block.splitlines()
            continue
        for out in cell.get("outputs", []):
            text = out.get("text", out.get("data", {}).get("text/plain", ""))
            lines += "".join(text).splitlines()
    return lines


def test_the_rule_tells_a_raw_difference_from_a_bound():
    assert raw_differences("max |A - transformers' A|: 3.3e-07") == ["3.3e-07"]
    assert raw_differences("largest difference from the output above: 4.7683716e-07") == ["4.7683716e-07"]
    assert raw_differences("layer 0: largest difference, A 2.4e-07, next X 1.1e-06") == ["2.4e-07", "1.1e-06"]
    assert raw_differences("logits: largest difference 5.0e-05, largest logit 27.4") == ["5.0e-05"]
    assert raw_differences("  largest difference < 1e-06: True") == []
    assert raw_differences("logits agree to 1e-3: True") == []
    assert raw_differences("tiled                         1.7e-03") == []  # no difference named, and not small
    assert raw_differences("float32   3.4e+38  1.19e-07") == []  # a table of formats, not a difference


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_stored_output_prints_a_small_difference_itself(path):
    found = [line.strip() for line in stored_lines(path) if raw_differences(line)]
    assert not found, f"{path.name}: print a bound, e.g. 'largest difference < 1e-5: True', not {found}"


def _svg(fig, path: Path) -> bytes:
    import matplotlib.pyplot as plt

    save_svg(fig, str(path))
    plt.close(fig)
    return path.read_bytes()


def test_a_model_s_figures_draw_the_same_bytes_when_its_last_digits_differ(tmp_path):
    """What another processor's float32 pass changes, a millionth here and there, leaves the figures' bytes alone."""
    p = np.array([0.7731236, 0.0651372, 0.0123914, 0.0098713])
    # weights a millionth below where the colour map (256 colours) turns to its next colour,
    # and not near where two decimals round up or down
    edges = np.arange(1, 256) / 256 - 1e-7
    edges = edges[np.abs((edges * 100) % 1 - 0.5) > 0.1]
    S = np.resize(edges, (30, 9))
    A = np.resize(edges[::-1], (2, 3, 4, 4))
    drawn = []
    for shift in (0.0, 3e-7):
        steps = [("The capital of France is", [(piece, q + shift) for piece, q in zip("abcd", p)])]
        drawn.append(
            [
                _svg(plot.next_token_bars(steps, title="bars"), tmp_path / "bars.svg"),
                _svg(plot.head_scores({"score": S + shift}, marked={"score": [(1, 2)]}), tmp_path / "grid.svg"),
                _svg(plot.all_heads(A + shift, ["w", "x", "y", "z"]), tmp_path / "heads.svg"),
            ]
        )
    assert drawn[0] == drawn[1]
