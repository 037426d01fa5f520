"""Checkers for chapter 3: the set ℝ and shape tags such as X ∈ ℝ^{n×d_model}."""
from __future__ import annotations

import re
from typing import Any

from . import Wrong, exercise, expect_shape

# P ∈ ℝ^{5×2},  v ∈ ℝ^{7},  M ∈ ℝ^{1×6}
READ_SHAPES = [(5, 2), (7,), (1, 6)]


@exercise("ch03.read_shapes", right=[READ_SHAPES, [[5, 2], [7], [1, 6]]],
          wrong=[[(2, 5), (7,), (6, 1)], [(5, 2), 7, (1, 6)], [(5, 2), (7, 1), (1, 6)], [(5, 2), (1, 6)]])
def _read_shapes(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        raise Wrong("give a list of THREE shapes, one per tag, in the order P, v, M.")
    for name, got, want in zip("PvM", answer, READ_SHAPES):
        if isinstance(got, int) and not isinstance(got, bool):
            raise Wrong(f"the shape of {name} is the number {got}, not a shape. In Python, (7) is just 7; "
                        "a shape with a single entry needs a comma inside the brackets.")
        if name == "v" and isinstance(got, (list, tuple)) and len(got) == 2 and 7 in got:
            raise Wrong("the superscript of v holds ONE number, so its shape has one entry: "
                        "v is a plain list of numbers, not a grid.")
        expect_shape(got, want, what=f"the shape of {name}")


# The printed array P in the notebook has 2 rows and 3 columns.
TAG_SHAPE = (2, 3)

_LATEX = [(r"\mathbb{R}", "ℝ"), (r"\mathbb R", "ℝ"), (r"\times", "×"), (r"\in", "∈"), ("$", ""), ("\\", "")]


def parse_tag(text: str) -> tuple[str, tuple[int, ...]]:
    """Read 'P ∈ ℝ^{2×3}' (or 'R^(2x3)', or LaTeX) as ('P', (2, 3)); raise Wrong when it is not a tag."""
    for old, new in _LATEX:
        text = text.replace(old, new)
    text = text.strip()
    if "^" not in text:
        raise Wrong("a tag looks like P ∈ ℝ^{rows×cols}; there is no ^ in yours. "
                    "You may type it as plain text, e.g. \"R^(rows x cols)\".")
    before, after = text.split("^", 1)
    before = before.strip()
    if not (before.endswith("ℝ") or before.endswith("R")):
        raise Wrong("the superscript belongs on ℝ (type R if you have no ℝ key): the set of real numbers.")
    name = re.sub(r"(∈|\bin\b|ℝ|R$)", " ", before).split()
    inside = after.strip().strip("{}()[] ")
    parts = [p.strip() for p in re.split(r"[×xX*,]", inside)]
    if not parts or not all(re.fullmatch(r"\d+", p) for p in parts):
        raise Wrong(f"the superscript {after.strip()!r} should be whole numbers joined by ×, "
                    "such as {4×2}; the numbers count rows and columns.")
    return (name[0] if name else ""), tuple(int(p) for p in parts)


@exercise("ch03.tag_of_array", right=["P ∈ ℝ^{2×3}", r"P \in \mathbb{R}^{2 \times 3}", "R^(2x3)", " ℝ^{2 × 3} "],
          wrong=["P ∈ ℝ^{3×2}", "P ∈ ℝ^{6}", (2, 3), "P ∈ 2×3", "Q ∈ ℝ^{2×3}"])
def _tag_of_array(answer: Any) -> None:
    if isinstance(answer, (tuple, list)):
        raise Wrong("that is a shape; a tag is TEXT in quotes that wraps the shape, "
                    "like \"P ∈ ℝ^{rows×cols}\" (you may type \"R^(rows x cols)\").")
    if not isinstance(answer, str):
        raise Wrong(f"write the tag as text in quotes, like \"P ∈ ℝ^{{...}}\", not a {type(answer).__name__}.")
    name, dims = parse_tag(answer)
    if name and name != "P":
        raise Wrong(f"the tag names {name!r}, but the array is called P.")
    if dims == (TAG_SHAPE[0] * TAG_SHAPE[1],):
        raise Wrong(f"{dims[0]} is how many numbers P holds in all. The tag of a grid gives rows and "
                    "columns separately: ℝ^{rows×cols}.")
    expect_shape(dims, TAG_SHAPE, what="the shape in your tag")


# (a) X ∈ ℝ^{3×4}   (b) W ∈ ℝ^{4×2.5}   (c) S ∈ ℝ^{n×n}   (d) x ∈ ℝ^{4}
_LEGAL_HINTS = {
    "a": "(a) is a grid with 3 rows and 4 columns of real numbers: the shape of X for \"the cat sat\".",
    "c": "(c) uses letters, and that is allowed: n stands for a whole number, the number of words.",
    "d": "(d) has one number in its superscript, and that is allowed: a plain list of 4 real numbers, "
         "like one word's vector.",
}


@exercise("ch03.illegal_tag", right=["b", "(b)", " B "], wrong=["a", "c", "d", "e"])
def _illegal_tag(answer: Any) -> None:
    if not isinstance(answer, str):
        raise Wrong(f"answer with a letter in quotes, such as \"a\", not a {type(answer).__name__}.")
    letter = answer.strip().strip("()").strip().lower()
    if letter in _LEGAL_HINTS:
        raise Wrong(f"{_LEGAL_HINTS[letter]} Look for a superscript that could not count anything.")
    if letter != "b":
        raise Wrong(f"{letter!r} is not one of the choices a, b, c, d.")


# n = 6 words, d_model = 8, d_k = 4, d_v = 3
ATTENTION_SIZES = {"n": 6, "d_model": 8, "d_k": 4, "d_v": 3}
ATTENTION_SHAPES = {"W_V": (8, 3), "K": (6, 4), "S": (6, 6), "Z": (6, 3)}
_ATTENTION_HINTS = {
    ("W_V", (6, 3)): "W_V takes one row per number of a word's vector; it knows nothing of how many words there are.",
    ("W_V", (8, 4)): "W_V makes the VALUES, so its columns count d_v, not d_k.",
    ("K", (6, 8)): "K has one row per word, and each row has d_k numbers, not d_model.",
    ("S", (6, 4)): "S holds one score for every (word, word) pair.",
    ("S", (4, 4)): "S has a row for each word and a column for each word; its sides count words.",
    ("Z", (6, 4)): "Z's rows are blends of the rows of V. How many numbers does one row of V have?",
    ("Z", (6, 8)): "Z's rows are blends of the rows of V, not of X. How many numbers does one row of V have?",
}


@exercise("ch03.attention_shapes", right=[ATTENTION_SHAPES, {k: list(v) for k, v in ATTENTION_SHAPES.items()}],
          wrong=[dict(ATTENTION_SHAPES, Z=(6, 4)), dict(ATTENTION_SHAPES, W_V=(6, 3)),
                 dict(ATTENTION_SHAPES, S=(6, 4)), dict(ATTENTION_SHAPES, K=(4, 6)),
                 {"W_V": (8, 3), "K": (6, 4)}])
def _attention_shapes(answer: Any) -> None:
    if not isinstance(answer, dict):
        raise Wrong("give a dictionary with one shape per name, like "
                    "{\"W_V\": (?, ?), \"K\": (?, ?), \"S\": (?, ?), \"Z\": (?, ?)}.")
    missing = [k for k in ATTENTION_SHAPES if k not in answer]
    if missing:
        raise Wrong(f"the dictionary has no shape for {', '.join(missing)}; "
                    f"it needs the keys {', '.join(ATTENTION_SHAPES)}.")
    for name, want in ATTENTION_SHAPES.items():
        got = answer[name]
        whole = isinstance(got, (list, tuple)) and all(isinstance(d, int) for d in got)
        key = (name, tuple(got)) if whole else None
        if key in _ATTENTION_HINTS:
            raise Wrong(f"{name}: {_ATTENTION_HINTS[key]}")
        expect_shape(got, want, what=f"the shape of {name}")
