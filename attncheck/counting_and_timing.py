"""Checkers for the chapter on counting and timing."""

from __future__ import annotations

import math
from typing import Any

from . import Wrong, exercise, expect_no_slip, expect_number
from . import one_number as _one_number  # one finite number, or None

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "counting_and_timing", "counting and timing"


def _units(value: float | None, right: float, unit: str) -> None:
    """Raise Wrong when the value is the right count written in thousands, millions, billions or trillions."""
    if value is None or value == 0:
        return
    for scale, prefix, words in (
        (1e3, "k", "thousands"),
        (1e6, "M", "millions"),
        (1e9, "G", "billions"),
        (1e12, "T", "trillions"),
    ):
        if math.isclose(value * scale, right, rel_tol=1e-3):
            raise Wrong(
                f"That looks like the count in {prefix}{unit}, {words} of {unit}s. Give the count itself, "
                f"in {unit}s: the whole number."
            )


# --- the FLOPs of one attention call ------------------------------------------------------

N, D, HEADS = 4096, 64, 8
FLOPS = HEADS * (2 * N**2 * D + 2 * N**2 * D)
SIDE, BYTES = 1536, 4  # the intensity exercise's square matrices, float32
INTENSITY = 2 * SIDE**3 / (3 * SIDE**2 * BYTES)


EDGES = {
    "counting_and_timing.flops": ("the count in FLOPs, not GFLOP", "every head", "both products"),
    "counting_and_timing.intensity": ("float32: 4 bytes a number", "a multiply-add is 2 FLOPs", "read and write"),
}
SLIPS = {  # each with the hint it gets, the whole of it (a count in GFLOP or TFLOP: `_units`)
    "counting_and_timing.flops": [
        (FLOPS / 1e9, "in GFLOP", "the count in FLOPs, not GFLOP"),
        (FLOPS / 1e12, "in TFLOP", "the count in FLOPs, not GFLOP"),
        (FLOPS // HEADS, "That is the work of one head. Every head does the same work again.", "every head"),
        (
            FLOPS // 2,
            (
                "That is half the count: it has one of the two products, or a multiply-add counted as 1 FLOP. Look "
                "again at what each product costs (section 'From O(n²) to a number')."
            ),
            "both products",
        ),
        (FLOPS // 2 // HEADS, "That is half the work of one head. Count both products and every head.", "every head"),
        (HEADS * 4 * N * D, "That grows only like n. Every query meets every key.", "both products"),
    ],
    "counting_and_timing.intensity": [
        (
            2 * SIDE**3 / (2 * SIDE**2 * BYTES),
            "That counts the two matrices read, but not the one written: the result goes to memory too.",
            "read and write",
        ),
        (
            2 * SIDE**3 / (3 * SIDE**2 * 2),
            "That counts 2 bytes a number. The statement says float32.",
            "float32: 4 bytes a number",
        ),
        (
            SIDE**3 / (3 * SIDE**2 * BYTES),  # two slips give this one number, so the hint names both
            (
                "That is half the intensity: either a multiply-add counted as 1 FLOP (it is 2), or 8 bytes a number "
                "(numpy's default floats; the statement says float32, 4 bytes)."
            ),
            "a multiply-add is 2 FLOPs",
        ),
        (
            2 * SIDE**3 / (3 * SIDE**2),
            "That divides by numbers, not by bytes. Intensity is FLOPs per byte.",
            "float32: 4 bytes a number",
        ),
        (1 / INTENSITY, "That is bytes per FLOP, the ratio upside down.", "float32: 4 bytes a number"),
    ],
}


@exercise(
    "counting_and_timing.flops",
    right=[FLOPS, float(FLOPS), 3.4359738368e10],
    wrong=[a for a, _, _ in SLIPS["counting_and_timing.flops"]],
    catches="the count in GFLOP or TFLOP, one head only, one product only or a multiply-add as 1 FLOP, both slips at once, growth like n",
    solution="answer = 8 * (2 * 4096**2 * 64 + 2 * 4096**2 * 64)",
)
def _flops(answer: Any) -> None:
    value = _one_number(answer, "your count")
    _units(value, FLOPS, "FLOP")  # the whole answer's unit before its arithmetic
    expect_no_slip(value, SLIPS["counting_and_timing.flops"][2:])
    expect_number(
        answer,
        FLOPS,
        what="your count",
        rtol=1e-6,
        hint="Count the FLOPs of each of the two products, for every head (section 'From O(n²) to a number').",
    )


# --- how the time grows ------------------------------------------------------------------

T_MS, FACTOR = 30.0, 2
T_2N_MS = T_MS * FACTOR**2


EDGES["counting_and_timing.time_at_2n"] = ("the work grows like n²", "in milliseconds")
SLIPS["counting_and_timing.time_at_2n"] = [  # each with the hint it gets, the whole of it
    (
        T_MS * FACTOR,
        "That doubles the time, as if the work grew like n. What does doubling n do to n²?",
        "the work grows like n²",
    ),
    (T_MS * FACTOR**3, "That grows like n³. Attention's work has n², not n³.", "the work grows like n²"),
    (
        T_MS,
        "The time does not stay the same: twice the words means more pairs of words to compare.",
        "the work grows like n²",
    ),
    (T_2N_MS / 1000, "That looks like seconds. Give the answer in milliseconds.", "in milliseconds"),
]


@exercise(
    "counting_and_timing.time_at_2n",
    right=[120, 120.0, 1.2e2],
    wrong=[a for a, _, _ in SLIPS["counting_and_timing.time_at_2n"]],
    catches="growth like n (×2), like n³ (×8), no growth, the answer in seconds",
    solution="answer = 30 * (2000 / 1000) ** 2",
)
def _time_at_2n(answer: Any) -> None:
    value = _one_number(answer, "your time")
    expect_no_slip(value, SLIPS["counting_and_timing.time_at_2n"])
    expect_number(
        answer,
        T_2N_MS,
        what="your time",
        rtol=1e-3,
        hint="The work grows like n² (section 'Slopes on a log–log plot').",
    )


# --- arithmetic intensity ----------------------------------------------------------------------


@exercise(
    "counting_and_timing.intensity",
    right=[INTENSITY, int(INTENSITY), 2.56e2],
    wrong=[a for a, _, _ in SLIPS["counting_and_timing.intensity"]],
    catches="8 bytes a number (float64; the same number as a multiply-add counted as 1 FLOP, so the hint names both), the result matrix not counted, 2 bytes a number, a multiply-add as 1 FLOP, numbers "
    "instead of bytes, the ratio upside down",
    solution="answer = 2 * 1536**3 / (3 * 1536**2 * 4)",
)
def _intensity(answer: Any) -> None:
    value = _one_number(answer, "your intensity")
    expect_no_slip(value, SLIPS["counting_and_timing.intensity"])
    expect_number(
        answer,
        INTENSITY,
        what="your intensity",
        rtol=1e-3,
        hint="Intensity is the FLOPs of the product over the bytes it moves at least (section "
        "'The second limit: memory').",
    )
