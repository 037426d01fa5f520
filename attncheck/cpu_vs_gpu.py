"""Checkers for the chapter on CPU versus GPU."""

from __future__ import annotations

import math
from typing import Any

from . import Wrong, call, exercise, expect_number, to_numpy
from . import one_number as _one_number  # one finite number, or None

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "cpu_vs_gpu", "CPU versus GPU"

# --- the memory of A -----------------------------------------------------------------------

N_MEM, HEADS_MEM, BYTES_PER = 16_384, 32, 2  # bfloat16
A_BYTES = N_MEM**2 * HEADS_MEM * BYTES_PER


EDGES = {"cpu_vs_gpu.memory_of_a": ("bfloat16: 2 bytes a number", "every head", "the size in bytes, not GB or GiB")}
SLIPS = {
    "cpu_vs_gpu.memory_of_a": [
        (4 * A_BYTES, "8 bytes a number", "bfloat16: 2 bytes a number"),
        (2 * A_BYTES, "4 bytes a number", "bfloat16: 2 bytes a number"),
        (A_BYTES / 1e9, "the size in GB", "the size in bytes, not GB or GiB"),
        (A_BYTES / 2**30, "the size in GiB", "the size in bytes, not GB or GiB"),
        (A_BYTES // HEADS_MEM, "the A of one head", "every head"),
    ]
}


@exercise(
    "cpu_vs_gpu.memory_of_a",
    right=[A_BYTES, float(A_BYTES), 1.7179869184e10],
    wrong=[
        2 * A_BYTES,
        A_BYTES // HEADS_MEM,
        N_MEM * HEADS_MEM * BYTES_PER,
        A_BYTES // BYTES_PER,
        16,
        17.18,
        *(a for a, _, _ in SLIPS["cpu_vs_gpu.memory_of_a"]),
    ],
    catches="float64's 8 bytes, MiB or MB, float32's 4 bytes, one head only, growth like n, numbers instead of bytes, GiB or GB instead of bytes",
    solution="answer = 16_384**2 * 32 * 2",
)
def _memory_of_a(answer: Any) -> None:
    value = _one_number(answer, "your count of bytes")
    slips = {
        2 * A_BYTES: "That counts 4 bytes a number (float32). How many bytes does a bfloat16 number take?",
        4
        * A_BYTES: "That counts 8 bytes a number (numpy's default floats). How many bytes does a bfloat16 number take?",
        A_BYTES / 2**20: "That is the size in MiB. Give it in bytes: 1 MiB is 2²⁰ bytes.",
        A_BYTES / 1e6: "That is the size in MB (10⁶ bytes). Give it in bytes.",
        A_BYTES // HEADS_MEM: "That is the A of one head. Every head has its own A.",
        N_MEM * HEADS_MEM * BYTES_PER: "That grows only like n. A has a row and a column for every word.",
        A_BYTES // BYTES_PER: "That counts numbers, not bytes.",
        A_BYTES / 2**30: "That is the size in GiB. Give it in bytes: 1 GiB is 2³⁰ bytes.",
        A_BYTES / 1e9: "That is the size in GB (10⁹ bytes). Give it in bytes.",
    }
    for slip, hint in slips.items():
        if value is not None and math.isclose(value, slip, rel_tol=1e-3):
            raise Wrong(hint)
    expect_number(
        answer,
        A_BYTES,
        what="your count of bytes",
        rtol=1e-6,
        hint="Count the numbers in one head's A, then all heads, then bytes (section 'The memory of A').",
    )


# --- the online softmax: one block's update --------------------------------------------------

# Hidden cases: (mu, l, z, s, v). Built to catch: a z that is not rescaled, the rescale upside down
# (e^(mu_new − mu_old)), a new max that forgets the old one, exponentials not shifted by the new max
# (they overflow at scores near 1000), and the old max returned. Inputs are plain lists, as promised.
_ROW = [  # the first block (mu = -inf, nothing seen yet), a larger max, a smaller max, a tie, huge scores
    (-math.inf, 0.0, [0.0, 0.0], [2.0, 1.0], [[10.0, 1.0], [20.0, 2.0]]),
    (2.0, 1.3678794411714423, [17.357588823428847, 1.7357588823428847], [4.0, 0.0], [[30.0, 3.0], [40.0, 4.0]]),
    (3.0, 2.5, [1.0, -2.0, 0.5], [-1.0, 2.0, 0.5], [[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [3.0, 3.0, 3.0]]),
    (1.5, 0.7, [0.2], [1.5], [[4.0]]),
    (1000.0, 1.2, [3.0, 1.0], [1001.0, 999.0, 1003.0], [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]),
    (-math.inf, 0.0, [0.0, 0.0], [-3.0, -1.5], [[2.0, 1.0], [-1.0, 4.0]]),  # a first block of negative scores
]


def _reference(mu: float, l: float, z: list, s: list, v: list) -> tuple:
    """The update of the chapter, from the private cases only."""
    mu_new = max(mu, max(s))
    c = math.exp(mu - mu_new) if mu != -math.inf else 0.0
    p = [math.exp(x - mu_new) for x in s]
    return mu_new, c * l + sum(p), [c * z[j] + sum(p[i] * v[i][j] for i in range(len(s))) for j in range(len(z))]


_EXPECTED = [_reference(*case) for case in _ROW]


def _right_numpy(mu, l, z, s, v):
    import numpy as np

    mu_new = max(mu, float(np.max(s)))
    c = np.exp(mu - mu_new)
    p = np.exp(np.asarray(s) - mu_new)
    return mu_new, c * l + p.sum(), c * np.asarray(z) + p @ np.asarray(v)


def _right_math(mu, l, z, s, v):
    mu_new = max([mu] + list(s))
    c = math.exp(mu - mu_new)
    p = [math.exp(x - mu_new) for x in s]
    return [mu_new, c * l + sum(p), [c * zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]]


def _right_torch(mu, l, z, s, v):
    import torch

    s, z, v = (torch.tensor(x, dtype=torch.float64) for x in (s, z, v))
    mu_new = torch.maximum(torch.tensor(mu, dtype=torch.float64), s.max())
    c = torch.exp(mu - mu_new)
    p = torch.exp(s - mu_new)
    return mu_new, c * l + p.sum(), c * z + p @ v


def _with(mu_new, c, s, l, z, v, shift=True):
    p = [math.exp(x - mu_new) if shift else math.exp(x) for x in s]
    return mu_new, c * l + sum(p), [c * zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]


def _wrong_no_rescale_of_z(mu, l, z, s, v):
    mu_new, l_new, _ = _right_math(mu, l, z, s, v)
    p = [math.exp(x - mu_new) for x in s]
    return mu_new, l_new, [zj + sum(pi * row[j] for pi, row in zip(p, v)) for j, zj in enumerate(z)]


def _wrong_upside_down(mu, l, z, s, v):
    mu_new = max([mu] + list(s))
    return _with(mu_new, math.exp(mu_new - mu) if mu != -math.inf else 0.0, s, l, z, v)


def _wrong_forgets_old_max(mu, l, z, s, v):
    mu_new = max(s)
    return _with(mu_new, math.exp(mu - mu_new) if mu != -math.inf else 0.0, s, l, z, v)


def _wrong_not_shifted(mu, l, z, s, v):
    mu_new = max([mu] + list(s))
    return _with(mu_new, math.exp(mu - mu_new), s, l, z, v, shift=False)


def _wrong_no_rescale(mu, l, z, s, v):
    mu_new = max([mu] + list(s))
    return _with(mu_new, 1.0 if mu != -math.inf else 0.0, s, l, z, v)


def _wrong_divides_each_step(mu, l, z, s, v):
    mu_new, l_new, z_new = _right_math(mu, l, z, s, v)
    return mu_new, l_new, [zj / l_new for zj in z_new]


def _wrong_returns_old_max(mu, l, z, s, v):
    _, l_new, z_new = _right_math(mu, l, z, s, v)
    return mu, l_new, z_new


EDGES["cpu_vs_gpu.online_step"] = (
    "a block that raises the max and one that does not",
    "the first block (the max starts at -inf)",
    "z and s may be updated in place",
)
SLIPS["cpu_vs_gpu.online_step"] = [
    (
        _wrong_no_rescale_of_z,
        "the old z was summed with the old max",
        "a block that raises the max and one that does not",
    ),
    (_wrong_upside_down, "which way does the rescale go", "a block that raises the max and one that does not"),
    (_wrong_forgets_old_max, "it must cover the old max", "a block that raises the max and one that does not"),
    (_wrong_not_shifted, "exponentials of the raw scores", "the first block (the max starts at -inf)"),
    (_wrong_returns_old_max, "not the old one", "a block that raises the max and one that does not"),
    (_wrong_no_rescale, "both ℓ and z still carry the old max", "a block that raises the max and one that does not"),
    (_wrong_divides_each_step, "already divided by ℓ", "z and s may be updated in place"),
]


@exercise(
    "cpu_vs_gpu.online_step",
    right=[_right_numpy, _right_math, _right_torch],
    wrong=[
        _wrong_no_rescale_of_z,
        _wrong_upside_down,
        _wrong_forgets_old_max,
        _wrong_not_shifted,
        _wrong_returns_old_max,
        _wrong_no_rescale,
        _wrong_divides_each_step,
    ],
    catches="z not rescaled, no rescale at all, z divided by ℓ at every step, the rescale upside down, a new max that forgets the old one, exponentials not "
    "shifted by the new max (overflow near 1000), the old max returned",
    solution="c = np.exp(mu - mu_new)",
    in_place=True,  # the statement lets z and s be updated in place
)
def _online_step(answer: Any) -> None:
    for case, (mu_want, l_want, z_want) in zip(_ROW, _EXPECTED):
        got = call(answer, *case, what="your function online_step")
        if not isinstance(got, (tuple, list)) or len(got) != 3:
            raise Wrong(
                "Return three things, in this order: the new running max μ, the new running sum ℓ "
                "and the new running z."
            )
        if all(x is None for x in got):
            raise Wrong(
                "All three values online_step returns are still None: replace each None with the "
                "update of the section 'The online softmax, step by step'."
            )
        old = _floats(got[0], finite=False)
        if old is not None and old.size == 1 and float(old.reshape(())) == case[0] != mu_want:
            raise Wrong(
                "The running max must move up when the block brings a larger score: return "
                "the new max, not the old one."
            )
        mu_got, l_got, z_got = (_floats(x) for x in got)
        if mu_got is None or l_got is None or z_got is None:
            _tell(case[0] == -math.inf and mu_got is not None and _NAN_AT_FIRST_BLOCK)
            raise Wrong(
                "The three things you return should be numbers (μ and ℓ) and a list or array of "
                "numbers (z), with no NaN or infinity in them. Were the exponentials shifted by "
                "the new max before exp (section 'The online softmax, step by step')?"
            )
        if mu_got.size != 1 or l_got.size != 1:
            raise Wrong("The new max μ and the new sum ℓ are one number each for the query row.")
        if z_got.size != len(z_want):
            raise Wrong(f"The new z should have one entry per column of the values ({len(z_want)}), not {z_got.size}.")
        mu_got, l_got = float(mu_got.reshape(())), float(l_got.reshape(()))
        if not math.isclose(mu_got, mu_want, rel_tol=1e-9):
            _tell(case[0] == -math.inf and mu_got == 0 and _MAX_FROM_ZERO)
            raise Wrong("The new running max is not right: it must cover the old max and the new block.")
        if not math.isclose(l_got, l_want, rel_tol=1e-9):
            unscaled = case[1] + sum(math.exp(x - mu_want) for x in case[3])
            if case[0] != -math.inf and case[0] != mu_want and math.isclose(l_got, unscaled, rel_tol=1e-9):
                raise Wrong(
                    "Both ℓ and z still carry the old max: before adding the block, multiply both by the "
                    "rescale c = e^(μ_old − μ_new)."
                )
            if case[0] != -math.inf and l_got > l_want * 1.5:
                raise Wrong(
                    "The running sum ℓ came out too large. Which way does the rescale go? The old sum "
                    "was computed with the old, smaller max."
                )
            _tell(_unshifted(case, mu_want, l_got))
            raise Wrong("The new running sum ℓ is not right (section 'The online softmax, step by step').")
        _tell(_z_slip(case, z_got.ravel()))
        if not all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(z_got.ravel(), z_want)):
            if all(math.isclose(a, b / l_want, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(z_got.ravel(), z_want)):
                raise Wrong(
                    "Your z is already divided by ℓ. Keep z as the running sum, and divide once, after the last block."
                )
            raise Wrong("The sum ℓ is right, but z is not: the old z was summed with the old max, as the old ℓ was.")


_NAN_AT_FIRST_BLOCK = (
    "At the first block (μ = −∞, nothing seen yet) your ℓ or z came out NaN or infinite: the rescale "
    "of the old sums blew up. Which way does the rescale go? When the max grows, it shrinks the old "
    "sums, and at the first block there is nothing left of them."
)
_MAX_FROM_ZERO = (
    "For a first block of negative scores your new max is 0. Before the first block the running max "
    "is −∞, not 0: the new max is then the block's own largest score."
)


def _tell(hint: Any) -> None:
    """Raise Wrong with the hint, if there is one (a slip recognised), else nothing."""
    if hint:
        raise Wrong(hint)


def _unshifted(case: tuple, mu_new: float, l_got: float) -> str:
    """The hint for a sum ℓ of the raw scores' exponentials (not shifted by the new max), else ''."""
    mu, l, _, s, _ = case
    if max(s) > 700:  # e^s itself would overflow: the NaN hint says it
        return ""
    if not math.isclose(l_got, math.exp(mu - mu_new) * l + sum(math.exp(x) for x in s), rel_tol=1e-9):
        return ""
    return (
        "The sum ℓ took the exponentials of the raw scores: shift the block's scores by the new max "
        "before exp, as every softmax of the course does."
    )


def _z_slip(case: tuple, z_got: Any) -> str:
    """With μ and ℓ right, the slip in z that no hint of `_online_step` names (weights left out, the
    product turned), a plain hint when z matches no slip at all, and '' otherwise."""
    mu, l, z, s, v = case
    mu_new = max(mu, max(s))
    c = math.exp(mu - mu_new)
    p = [math.exp(x - mu_new) for x in s]
    k, d = len(s), len(z)

    def near(values: list) -> bool:
        return all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(z_got, values))

    want = _reference(*case)
    if near(want[2]):
        return ""
    if near([c * z[j] + sum(v[i][j] for i in range(k)) for j in range(d)]):
        return (
            "The sum ℓ is right, but z is not: the block's value rows were added as they are. Each "
            "value row counts with the weight its score gets, the same exponential that ℓ adds up."
        )
    if k == d and near([c * z[j] + sum(v[j][i] * p[i] for i in range(k)) for j in range(d)]):
        return (
            "The sum ℓ is right, but z is not: the weights met the columns of v instead of its rows. "
            "Weight i belongs to key i, that is row i of v: mind the order of the product."
        )
    named = [[z[j] + sum(p[i] * v[i][j] for i in range(k)) for j in range(d)], [x / want[1] for x in want[2]]]
    if any(near(values) for values in named):
        return ""  # the old z not rescaled, or z divided by ℓ: named where z is compared
    return (
        "The sum ℓ is right, but z is not. z is built as ℓ is: the old z rescaled, plus the block's "
        "value rows, each with its weight (section 'The online softmax, step by step')."
    )


def _floats(x: Any, finite: bool = True) -> Any:
    """x as a float numpy array, or None when it is not numbers (or, with finite=True, not finite ones)."""
    import numpy as np

    try:
        arr = to_numpy(x, "a returned value")
    except Wrong:
        return None
    if not arr.size or (finite and not np.all(np.isfinite(arr))):
        return None
    return arr
