"""Checkers for the chapter on the set ℝ and shape tags such as X ∈ ℝ^{n×d_model}."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from . import Wrong, describe, exercise, expect_no_slip, expect_shape, to_shape

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "shapes_in_r", "the set ℝ and shape tags such as X ∈ ℝ^(n×d_model)"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

# P ∈ ℝ^{5×2},  v ∈ ℝ^{7},  M ∈ ℝ^{1×6}
READ_SHAPES = [(5, 2), (7,), (1, 6)]


EDGES["shapes_in_r.read_shapes"] = (
    "rows first, then columns",
    "a one-entry shape (n,)",
    "a one-row grid",
    "three shapes",
)
_READ_WHOLE = [  # a slip of the whole answer, diagnosed before its shapes, with its hint
    (
        [(2, 5), (7,), (6, 1)],
        "Both grids have their numbers in the wrong order: a tag gives rows first, then columns, and so does a shape.",
        "rows first, then columns",
    )
]
SLIPS["shapes_in_r.read_shapes"] = [
    *_READ_WHOLE,
    (
        [(2, 5), (7,), (1, 6)],
        "the shape of P (2, 5) is the right numbers in the wrong order",
        "rows first, then columns",
    ),
    ([(5, 2), 7, (1, 6)], "put a comma inside the brackets", "a one-entry shape (n,)"),
    ([(5, 2), (7, 1), (1, 6)], "v is a plain list of numbers, not a grid", "a one-entry shape (n,)"),
    ([(5, 2), (7,), (6,)], "M is a grid with one row", "a one-row grid"),
    ([(5, 2), (1, 6)], "give a list of THREE shapes", "three shapes"),
]


@exercise(
    "shapes_in_r.read_shapes",
    right=[
        list(READ_SHAPES),
        [[5, 2], [7], [1, 6]],
        tuple(READ_SHAPES),
        [(np.int64(5), np.int64(2)), (np.int64(7),), (np.int64(1), np.int64(6))],
    ],
    wrong=[a for a, _, _ in SLIPS["shapes_in_r.read_shapes"]],
    catches="columns first, (7) without the comma, v read as a grid (7×1 or 1×7), a missing tag, "
    "the one-row grid M read as a list",
    solution="answer = [(5, 2), (7,), (1, 6)]",
)
def _read_shapes(answer: Any) -> None:
    if not isinstance(answer, (list, tuple)) or len(answer) != 3:
        raise Wrong("Give a list of THREE shapes, one per tag, in the order P, v, M.")
    expect_no_slip(answer, _READ_WHOLE)
    for name, got, want in zip("PvM", answer, READ_SHAPES):
        got = to_shape(got, f"The shape of {name}", len(want))
        if name == "v" and len(got) == 2 and 7 in got:
            raise Wrong(
                "The superscript of v holds ONE number, so its shape has one entry: "
                "v is a plain list of numbers, not a grid."
            )
        if name == "M" and len(got) == 1:
            raise Wrong(
                "The superscript of M holds two numbers, 1 × 6: M is a grid with one row, and its shape "
                "has two entries (section 'The superscript is a size label')."
            )
        expect_shape(got, want, what=f"The shape of {name}")


# The printed array P in the notebook has 2 rows and 3 columns.
TAG_SHAPE = (2, 3)

_LATEX = [
    (r"\notin", "∉"),
    (r"\mathbb{R}", "ℝ"),
    (r"\mathbb R", "ℝ"),
    (r"\times", "×"),
    (r"\in", "∈"),
    ("$", ""),
    ("\\", ""),
]


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹ˣ", "0123456789×")


def _unsuperscript(text: str) -> str:
    """'P ∈ ℝ²ˣ³', as attnlib.shape_tag prints it, written the typed way: 'P ∈ ℝ^{2×3}'."""
    match = re.search(r"[⁰¹²³⁴⁵⁶⁷⁸⁹ˣ]+", text)
    if not match or "^" in text:
        return text.translate(_SUPERSCRIPTS)
    return text[: match.start()] + "^{" + match.group(0).translate(_SUPERSCRIPTS) + "}" + text[match.end() :]


def parse_tag(text: str) -> tuple[str, tuple[int, ...]]:
    """Read 'P ∈ ℝ^{2×3}' (or 'P ∈ ℝ²ˣ³', 'R^(2x3)', LaTeX) as ('P', (2, 3)); raise Wrong when it is not a tag."""
    for old, new in _LATEX:
        text = text.replace(old, new)
    text = _unsuperscript(text.strip())
    if "^" not in text:
        raise Wrong(
            "A tag looks like P ∈ ℝ^{rows×cols}; there is no ^ in yours. "
            'You may type it as plain text, e.g. "R^(rows x cols)".'
        )
    before, after = text.split("^", 1)
    before = before.strip()
    if not (before.endswith(("ℝ", "R"))):
        raise Wrong("The superscript belongs on ℝ (type R if you have no ℝ key): the set of real numbers.")
    statement = re.fullmatch(r"(?:([^\W\d]\w*)\s*(?:∈|in)\s*)?[ℝR]", before)
    if statement is None:
        said = re.sub(r"\s*[ℝR]$", "", before).strip()
        raise Wrong(
            f"{said[:40]!r} before ℝ is not a shape tag: a tag says that the array is IN the set, "
            'with ∈ (type "in" if you have no ∈ key), such as "P ∈ ℝ^{rows×cols}".'
        )
    name = [statement.group(1)] if statement.group(1) else []
    inside = after.strip().strip("{}()[] ")
    parts = [p.strip() for p in re.split(r"[×xX*,]", inside)]
    if not parts or not all(re.fullmatch(r"\d+", p) for p in parts):
        raise Wrong(
            f"The superscript {after.strip()[:40]!r} should be whole numbers joined by ×, "
            "such as {4×2}; the numbers count rows and columns."
        )
    return (name[0] if name else ""), tuple(int(p) for p in parts)


EDGES["shapes_in_r.tag_of_array"] = ("rows first, then columns", "rows and columns separately", "a tag as text")
SLIPS["shapes_in_r.tag_of_array"] = [
    ("P ∈ ℝ^{3×2}", "(3, 2) is the right numbers in the wrong order", "rows first, then columns"),
    ("P ∈ ℝ^{6}", "how many numbers P holds in all", "rows and columns separately"),
    ("P ∈ ℝ^{2}", "has 1 number(s)", "rows and columns separately"),
    ((2, 3), "that is a shape; a tag is TEXT", "a tag as text"),
    ("P ∈ 2×3", "there is no ^ in yours", "a tag as text"),
    ("Q ∈ ℝ^{2×3}", "the array is called P", "a tag as text"),
]


@exercise(
    "shapes_in_r.tag_of_array",
    right=["P ∈ ℝ^{2×3}", r"P \in \mathbb{R}^{2 \times 3}", "R^(2x3)", " ℝ^{2 × 3} "],
    wrong=[a for a, _, _ in SLIPS["shapes_in_r.tag_of_array"]],
    catches="rows and columns swapped, the count of all numbers, a bare shape, no ℝ, the wrong name, only the rows",
    solution='answer = "P ∈ ℝ^{2×3}"',
)
def _tag_of_array(answer: Any) -> None:
    if isinstance(answer, (tuple, list)):
        raise Wrong(
            "That is a shape; a tag is TEXT in quotes that wraps the shape, "
            'like "P ∈ ℝ^{rows×cols}" (you may type "R^(rows x cols)").'
        )
    if not isinstance(answer, str):
        raise Wrong(f'Write the tag as text in quotes, like "P ∈ ℝ^{{...}}", not {describe(answer)}.')
    name, dims = parse_tag(answer)
    if name and name != "P":
        raise Wrong(f"The tag names {name[:20]!r}, but the array is called P.")
    if dims == (TAG_SHAPE[0] * TAG_SHAPE[1],):
        raise Wrong(
            f"The number {dims[0]} is how many numbers P holds in all. The tag of a grid gives rows and "
            "columns separately: ℝ^{rows×cols}."
        )
    expect_shape(dims, TAG_SHAPE, what="The shape in your tag")


# The array shown: c = X[:, 3:4] for "the cat sat" (n = 3, d_model = 4), the action-ness column kept
# as a grid: 3 rows, 1 column. Every tag below is legal; only some are true for c.
#   (a) c ∈ ℝ^{3×1}   (b) c ∈ ℝ^{3}   (c) c ∈ ℝ^{1×3}   (d) c ∈ ℝ^{n×1}   (e) c ∈ ℝ^{n×d_model}
TRUE_TAGS = frozenset({"a", "d"})
_TAG_CHOICES = "abcde"
_FALSE_TAG_HINTS = {
    "b": "Tag (b), ℝ^{3}, is legal, but it is the tag of a plain list of 3 numbers. Look at the brackets in "
    "the printout: each number sits in a bracket of its own, so c is a grid (section 'The superscript "
    "is a size label').",
    "c": "Tag (c) is legal, but it says 1 row and 3 columns. Rows come first: count the lines of the printout.",
    "e": "Tag (e) is legal, but d_model = 4 here, and c has only one column.",
}
_MISSING_HINTS = {
    "a": "A true tag is missing: the one that says exactly what the printout shows, rows then columns.",
    "d": 'A true tag is missing. A letter in a superscript stands for a count: what is n for "the cat sat"?',
}


def _letters(answer: Any) -> set[str]:
    """Read "ad", "a, d", ["a", "(d)"] or {"a", "d"} as the set of letters {"a", "d"}, or raise Wrong."""
    if isinstance(answer, str):
        parts = [p for p in re.split(r"[\s,;()\[\]'\"]+|(?<=[a-z])(?=[a-z])", answer.lower()) if p]
    elif isinstance(answer, (list, tuple, set, frozenset)) and all(isinstance(p, str) for p in answer):
        parts = [p.strip().strip("()").strip().lower() for p in answer]
    elif isinstance(answer, (list, tuple, set, frozenset)):
        raise Wrong(
            'Answer with the letters of the true tags, each in quotes, such as ["a", "c"]: '
            f"your list holds {describe(next(p for p in answer if not isinstance(p, str)))}, not a letter."
        )
    else:
        raise Wrong(
            'Answer with the letters of the true tags, as text or a list such as ["a", "c"]; '
            f"your answer is {describe(answer)}."
        )
    unknown = [p for p in parts if p not in _TAG_CHOICES]
    if unknown:
        raise Wrong(
            f"Not one of the letters a to e: {', '.join(repr(u[:20]) for u in unknown[:3])}. Answer with "
            'the letters of the true tags, such as ["a", "c"].'
        )
    return set(parts)


EDGES["shapes_in_r.true_tags"] = ("a column is a grid", "rows first, then columns", "a letter stands for a count")
SLIPS["shapes_in_r.true_tags"] = [
    (["a", "b"], "the tag of a plain list of 3 numbers", "a column is a grid"),
    (["c"], "it says 1 row and 3 columns", "rows first, then columns"),
    (["a", "c", "d"], "it says 1 row and 3 columns", "rows first, then columns"),
    (["a", "d", "e"], "c has only one column", "a letter stands for a count"),
    (["a"], "what is n for", "a letter stands for a count"),
    (["d"], "the one that says exactly what the printout shows", "rows first, then columns"),
    ([], "names no tag", "a letter stands for a count"),
]


@exercise(
    "shapes_in_r.true_tags",
    right=[["a", "d"], ("d", "a"), "ad", "a, d", {"a", "d"}, ["(a)", "(D)"]],
    wrong=[["a", "b", "d"], *(a for a, _, _ in SLIPS["shapes_in_r.true_tags"])],
    catches="the column read as a plain list (b), rows and columns swapped (c), n confused with "
    "d_model or with the rows of c (e), a letter not trusted to stand for a count (d missing), "
    "the printed shape left out (a missing)",
    solution='answer = ["a", "d"]',
)
def _true_tags(answer: Any) -> None:
    chosen = _letters(answer)
    if not chosen:
        raise Wrong("Your answer names no tag; at least one of them is true.")
    for letter in sorted(chosen - TRUE_TAGS):
        raise Wrong(_FALSE_TAG_HINTS[letter])
    for letter in sorted(TRUE_TAGS - chosen):
        raise Wrong(_MISSING_HINTS[letter])


# n = 6 words, d_model = 8, d_k = 4, d_v = 3
ATTENTION_SHAPES = {"W_V": (8, 3), "K": (6, 4), "S": (6, 6), "Z": (6, 3)}
_ATTENTION_HINTS = {
    ("W_V", (6, 3)): "W_V takes one row per number of a word's vector; it knows nothing of how many words there are.",
    ("W_V", (8, 4)): "W_V makes the VALUES, so its columns count d_v, not d_k.",
    ("K", (6, 8)): "K has one row per word, and each row has d_k numbers, not d_model.",
    ("S", (6, 4)): "S holds one score for every (word, word) pair.",
    ("S", (4, 4)): "S has a row for each word and a column for each word; its sides count words.",
    ("Z", (6, 4)): "Z has the shape of V in the table: how many columns does V have?",
    ("Z", (6, 8)): "Z has the shape of V in the table, not of X: how many columns does V have?",
}


EDGES["shapes_in_r.attention_shapes"] = (
    "d_k and d_v apart",
    "rows first, then columns",
    "weights know no n",
    "every name",
)
_ATTENTION_WHOLE = [  # slips of the whole answer, diagnosed before its shapes, with their hints
    (
        {"W_V": (3, 8), "K": (4, 6), "S": (6, 6), "Z": (3, 6)},
        "Every shape is written columns first. Rows come first, then columns, as in the table of this chapter.",
        "rows first, then columns",
    ),
    (
        {"W_V": (8, 4), "K": (6, 3), "S": (6, 6), "Z": (6, 4)},
        "The widths d_k and d_v are swapped throughout: queries and keys have d_k = 4 numbers a word, values d_v = 3.",
        "d_k and d_v apart",
    ),
]
SLIPS["shapes_in_r.attention_shapes"] = [
    *_ATTENTION_WHOLE,
    (dict(ATTENTION_SHAPES, Z=(6, 4)), "in the table: how many columns", "d_k and d_v apart"),
    (dict(ATTENTION_SHAPES, W_V=(8, 4)), "its columns count d_v, not d_k", "d_k and d_v apart"),
    (dict(ATTENTION_SHAPES, W_V=(6, 3)), "it knows nothing of how many words", "weights know no n"),
    (dict(ATTENTION_SHAPES, S=(6, 4)), "one score for every (word, word) pair", "rows first, then columns"),
    (dict(ATTENTION_SHAPES, K=(4, 6)), "the shape of K (4, 6) is the right numbers", "rows first, then columns"),
    (dict(ATTENTION_SHAPES, K=(6, 8)), "d_k numbers, not d_model", "d_k and d_v apart"),
    (dict(ATTENTION_SHAPES, Z=(6, 8)), "not of X", "d_k and d_v apart"),
    ({"W_V": (8, 3), "K": (6, 4)}, "no shape for S, Z", "every name"),
]


@exercise(
    "shapes_in_r.attention_shapes",
    right=[
        dict(ATTENTION_SHAPES),
        {k: list(v) for k, v in ATTENTION_SHAPES.items()},
        {k: tuple(np.int64(d) for d in v) for k, v in reversed(list(ATTENTION_SHAPES.items()))},
    ],
    wrong=[a for a, _, _ in SLIPS["shapes_in_r.attention_shapes"]],
    catches="d_k and d_v confused (Z or W_V with d_k), W_V counting words, S as n × d_k, K transposed, "
    "K or Z with d_model, a missing name",
    solution='answer = {"W_V": (d_model, d_v), "K": (n, d_k), "S": (n, n), "Z": (n, d_v)}',
)
def _attention_shapes(answer: Any) -> None:
    if not isinstance(answer, dict):
        raise Wrong(
            'Give a dictionary with one shape per name, like {"W_V": (?, ?), "K": (?, ?), "S": (?, ?), "Z": (?, ?)}.'
        )
    missing = [k for k in ATTENTION_SHAPES if k not in answer]
    if missing:
        raise Wrong(
            f"The dictionary has no shape for {', '.join(missing)}; it needs the keys {', '.join(ATTENTION_SHAPES)}."
        )
    expect_no_slip(answer, _ATTENTION_WHOLE)
    for name, want in ATTENTION_SHAPES.items():
        got = answer[name]
        got = to_shape(got, f"The shape of {name}", len(want))
        key = (name, got)
        if key in _ATTENTION_HINTS:
            raise Wrong(f"{name}: {_ATTENTION_HINTS[key]}")
        expect_shape(got, want, what=f"The shape of {name}")
