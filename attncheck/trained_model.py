"""Checkers for the chapter inside a trained model (all-MiniLM-L6-v2's 72 heads).

The expected answers are constants here, taken from the model once (tests/test_trained.py checks
them against attnlib.trained), so that loading the exercises never loads the model.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import (
    Wrong,
    counted_from_one,
    exercise,
    expect_layer_head,
    expect_no_slip,
    expect_number,
    to_number,
    torch_form,
)

# the chapter's subject (its file's name without the number) and its title
CHAPTER = "trained_model", "inside a trained model: the course's formula in a real transformer"

# What each statement promises, and the slips registered with the words of the hint each must get.
EDGES: dict = {}
SLIPS: dict = {}

# --- trained_model.find_head: the head whose row "mat" puts the most weight on "kitten" ----------
# In "the kitten sat on the mat": tokens [CLS] the kitten sat on the mat [SEP], so mat is row 6 and
# kitten is column 2; A[:, :, 6, 2] is largest at layer 5, head 11 (0.68), then layer 5, head 4 (0.62).

_HEAD = (5, 11)
_SECOND = (5, 4)  # the runner-up, 0.62
_SWAPPED_ROWS = (5, 3)  # the row of "kitten" on "mat": A[:, :, 2, 6]
_WITHOUT_CLS = (4, 10)  # A[:, :, 5, 1]: positions counted as if [CLS] were not there
_PREVIOUS, _NEXT = (0, 2), (1, 8)  # the chapter's previous-word and next-word heads
_LAYERS, _HEADS = 6, 12

EDGES["trained_model.find_head"] = (
    "the row of mat, the column of kitten",
    "[CLS] is token 0",
    "counted from 0",
    "(layer, head)",
)
_HEAD_SLIPS = [  # each with the hint it gets, the whole of it
    (
        counted_from_one(_HEAD),
        "That counts layers and heads from 1. The course counts from 0: layers 0 to 5, heads 0 to 11.",
        "counted from 0",
    ),
    (
        _HEAD[::-1],
        "Those are the right two numbers in the other order: give the layer first, then the head.",
        "(layer, head)",
    ),
    (
        _SECOND,
        "That head puts a large weight there too, but not the largest: compare all 72 again.",
        "the row of mat, the column of kitten",
    ),
    (
        _SWAPPED_ROWS,
        (
            'That is the row of "kitten" looking at "mat". The question asks for the row of "mat": the query is '
            "mat, the key is kitten."
        ),
        "the row of mat, the column of kitten",
    ),
    (
        _WITHOUT_CLS,
        (
            "That reads row 5, column 1, counting the words as if [CLS] were not there. [CLS] is token 0, so every "
            "word sits one place later."
        ),
        "[CLS] is token 0",
    ),
    (
        _PREVIOUS,
        "That is the previous-word head. Kitten is not the word before mat: look at the row of mat itself.",
        "the row of mat, the column of kitten",
    ),
    (
        _NEXT,
        "That is the next-word head. Look at the row of mat, at the column of kitten, in every head.",
        "the row of mat, the column of kitten",
    ),
]
SLIPS["trained_model.find_head"] = [
    *_HEAD_SLIPS,
    (11, "two are wanted", "(layer, head)"),
    ((5, 11, 0), "two are wanted", "(layer, head)"),
]


@exercise(
    "trained_model.find_head",
    right=[(5, 11), [5, 11], (np.int64(5), np.int64(11)), np.array([5, 11]), (5.0, 11.0)],
    wrong=[a for a, _, _ in SLIPS["trained_model.find_head"]],
    catches="layer and head swapped; the runner-up (5, 4); the row of kitten on mat instead; positions "
    "counted without [CLS]; counted from 1; the chapter's previous- and next-word heads; one number; three numbers",
    solution="answer = np.unravel_index(A[:, :, 6, 2].argmax(), A.shape[:2])",
)
def _find_head(answer: Any) -> None:
    expect_layer_head(answer, _HEAD, _HEAD_SLIPS, _LAYERS, _HEADS, "read A[layer, head, i, j] with i the row of mat.")


# --- trained_model.score: one real score, scaled ------------------------------------------------
# Layer 3, head 1, on "the kitten sat on the mat because it was tired": the query row of "it" and
# the key row of "kitten" (32 numbers each), as the chapter prints them.

_Q_IT = [1.9479305744171143, -1.1984118223190308, 3.245393753051758, 0.522864818572998, -0.14544402062892914,
         -0.44583287835121155, -1.901766300201416, -1.3589109182357788, -1.6585506200790405, 0.26944297552108765,
         2.6244513988494873, 0.0702429711818695, -1.9068808555603027, 0.42435312271118164, 0.8031429052352905,
         1.1745661497116089, 0.531769871711731, -0.20282331109046936, 0.41558825969696045, 0.38104844093322754,
         0.1501236855983734, -0.9296299815177917, -0.5949877500534058, 1.4527976512908936, 1.9428852796554565,
         1.7236474752426147, -0.18302090466022491, 0.2371930181980133, 0.31356295943260193, 3.599593162536621,
         -0.09491828083992004, -0.09789460152387619]  # fmt: skip
_K_KITTEN = [1.9589556455612183, -0.80801922082901, 1.1806719303131104, 0.21261632442474365, -3.124950885772705,
             -0.24593187868595123, -0.40758585929870605, -0.7664008140563965, 0.5488878488540649, -0.18008102476596832,
             1.2412517070770264, 1.495916724205017, -0.5307086110115051, 0.9053367376327515, 0.5541811585426331,
             -0.29650259017944336, -0.7163571119308472, 1.0546057224273682, -1.349080204963684, 0.7711893320083618,
             0.6731473207473755, 0.386026531457901, -2.022108793258667, 0.7505190372467041, 1.4753106832504272,
             1.817247748374939, 1.23026704788208, 0.3713303804397583, 1.716774821281433, 0.6376926898956299,
             -2.200093984603882, -0.4038380980491638]  # fmt: skip
_D_K, _D_MODEL = 32, 384
_DOT = float(np.dot(_Q_IT, _K_KITTEN))  # 25.12
_SCORE = _DOT / math.sqrt(_D_K)  # 4.44
_WEIGHT = 0.711  # A[3, 1, it, kitten]: the softmax of the whole row, not one score
_QQ = float(np.dot(_Q_IT, _Q_IT)) / math.sqrt(_D_K)
_KK = float(np.dot(_K_KITTEN, _K_KITTEN)) / math.sqrt(_D_K)
_ATOL = 0.01  # the printed rows have two decimals; from them the score comes out within 0.002


EDGES["trained_model.score"] = (
    "divided by √d_k, d_k = 32",
    "the query of it, the key of kitten",
    "one score, before softmax",
    "two decimals",
)
_SCORE_SLIPS = [  # each with the hint it gets, the whole of it
    (_DOT, "That is q · k before scaling: divide by √d_k = √32 ≈ 5.66.", "divided by √d_k, d_k = 32"),
    (
        _DOT / _D_K,
        "That divides by d_k = 32 itself, a factor of √d_k too much: divide by √d_k.",
        "divided by √d_k, d_k = 32",
    ),
    (
        _DOT / math.sqrt(_D_MODEL),
        "That divides by √d_model = √384. One head compares d_k = 32 numbers: divide by √d_k.",
        "divided by √d_k, d_k = 32",
    ),
    (
        _WEIGHT,
        "That is the weight A after the softmax of the whole row. The question asks for one score, before softmax.",
        "one score, before softmax",
    ),
    (
        _QQ,
        _SELF := 'That multiplies a row by itself. The score pairs the query of "it" with the key of "kitten".',
        "the query of it, the key of kitten",
    ),
    (_KK, _SELF, "the query of it, the key of kitten"),
]
SLIPS["trained_model.score"] = [
    *_SCORE_SLIPS,
    (-_SCORE, "the wrong sign", "the query of it, the key of kitten"),
    (round(_SCORE, 1), "rounded to one decimal", "two decimals"),
]


@exercise(
    "trained_model.score",
    right=[_SCORE, 4.44, round(_SCORE, 3), np.float32(_SCORE), torch_form(_SCORE, "float32"), [4.44]],
    wrong=[4.5, *(a for a, _, _ in SLIPS["trained_model.score"])],
    catches="no scaling; divided by d_k instead of √d_k; divided by √d_model; the softmax weight A; "
    "q with itself; k with itself; the wrong sign; rounded to one decimal",
    solution="answer = q @ k / np.sqrt(32)",
)
def _score(answer: Any) -> None:
    v = to_number(answer, "Your score")
    if math.isclose(v, _SCORE, abs_tol=_ATOL):
        return
    expect_no_slip(v, _SCORE_SLIPS, rtol=0.01)  # the exercise's own slips before any generic check
    if math.isclose(v, round(_SCORE, 1)):
        raise Wrong("That looks rounded to one decimal. Keep at least two decimals.")
    expect_number(
        v,
        _SCORE,
        what="Your score",
        atol=_ATOL,
        rtol=0.0,
        hint="A score is the dot product of the query row and the key row, divided by √d_k.",
    )
