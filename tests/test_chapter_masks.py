"""Chapter 11 (masks): each grader accepts every right form and names each plausible slip."""

import numpy as np
import pytest
from helpers import said

import attnlib
from attncheck import check
from attncheck import masks as ch


@pytest.mark.parametrize(
    "answer, words",
    [
        (500500, "look at itself"),
        (500000, "neither half"),
        (999000, "both triangles"),
        (999, "one row"),
        (15, "running example"),
        (499501, "Row i of A"),
        ("499500", "text"),
    ],
)
def test_masked_count_hints(answer, words, capsys):
    assert bool(check("masks.masked_count", answer)) is False
    assert words in said(capsys)


def test_masked_count_matches_the_library():
    assert int((~attnlib.causal_mask(ch.N_COUNT)).sum()) == ch.MASKED_COUNT
    assert bool(check("masks.masked_count", ch.MASKED_COUNT)) is True


@pytest.mark.parametrize(
    "fn, words",
    [
        (ch._pad_no_middle_axis, "middle axis"),
        (ch._pad_inverted, "opposite convention"),
        (ch._pad_off_by_one, "sentence 1 at key 1"),
        (ch._pad_longest, "n is the second argument"),
        (ch._pad_in_front, "in front"),
        (ch._pad_numbers, "dtype=bool"),
        (ch._pad_masks_queries, "not key columns"),
        (ch._pad_sorts_in_place, "changed its input"),
    ],
)
def test_padding_mask_hints(fn, words, capsys):
    assert bool(check("masks.padding_mask", fn)) is False
    assert words in said(capsys)


def test_the_learner_cannot_reach_the_expected_answers(capsys):
    def vandal(lengths, n):  # writes True into every array of the grader's module it can find
        for value in vars(ch).values():
            if isinstance(value, np.ndarray) and value.dtype == bool:
                value[...] = True
        return np.ones((len(lengths), 1, n), dtype=bool)

    saved = {k: v.copy() for k, v in vars(ch).items() if isinstance(v, np.ndarray)}
    try:
        assert bool(check("masks.padding_mask", vandal)) is False
    finally:
        for k, v in saved.items():
            getattr(ch, k)[...] = v
    assert capsys.readouterr().out.startswith("✗")
    for lengths, n in ch.PADDING_CASES:
        assert np.array_equal(ch._expected_padding(lengths, n), attnlib.padding_mask(list(lengths), n))


def test_padding_mask_hidden_cases_cover_the_edges():
    for lengths, n in ch.PADDING_CASES:
        assert max(lengths) <= n
    assert any(max(lengths) < n for lengths, n in ch.PADDING_CASES)  # catches n = max(lengths)
    assert any(lengths != sorted(lengths) for lengths, _ in ch.PADDING_CASES)  # catches sorting
    assert any(len(lengths) == 1 for lengths, _ in ch.PADDING_CASES)  # one sentence
    assert any(len(lengths) == n for lengths, n in ch.PADDING_CASES)  # batch = n, where (batch, n) broadcasts


def test_a_function_raising_or_returning_junk_gets_a_hint(capsys):
    for fn in [lambda lengths, n: 1 / 0, lambda lengths, n: "mask", lambda lengths, n: [[[True]], [[True, False]]]]:
        assert bool(check("masks.padding_mask", fn)) is False
        assert capsys.readouterr().out.startswith("✗")


@pytest.mark.parametrize(
    "answer, words",
    [
        (ch.ROW_ZEROED_AFTER, "add up to 0.32"),
        (ch.ROW_SCORE_ZERO, "e⁰ = 1"),
        (ch.ROW_UNMASKED, "without the mask"),
        (ch.ROW_INVERTED, "masked ones"),
        ([0.7, 0.0, 0.3, 0.0], "2 decimals"),
        ([0.731, 0.0, 0.269], "4 in all"),
        ([0.6, 0.0, 0.4, 0.0], "differ"),
    ],
)
def test_masked_row_hints(answer, words, capsys):
    assert bool(check("masks.masked_row", answer)) is False
    assert words in said(capsys)


def test_masked_row_matches_the_library_and_torch():
    torch = pytest.importorskip("torch")
    S = torch.tensor(ch.ROW_SCORES)[None]
    A = torch.softmax(S.masked_fill(~torch.tensor(ch.ROW_MASK), float("-inf")), -1)
    assert np.allclose(A.numpy()[0], ch.ROW_A)
    _, A_lib = attnlib.attention(np.ones((1, 1)), ch.ROW_SCORES[:, None], np.eye(4), mask=ch.ROW_MASK[None])
    assert np.allclose(A_lib[0], ch.ROW_A)
    assert np.allclose(ch.ROW_A, [0.7311, 0, 0.2689, 0], atol=1e-4)
    assert bool(check("masks.masked_row", torch.tensor(ch.ROW_A, dtype=torch.bfloat16).float())) is True


@pytest.mark.parametrize(
    "fn, words",
    [
        (ch._causal_upper, "AFTER it"),
        (ch._causal_no_diagonal, "diagonal is False"),
        (ch._causal_inverted, "may NOT look"),
        (ch._causal_numbers, "use dtype=bool"),
        (ch._causal_additive, "grid M"),
        (ch._causal_fixed_size, "shape (6, 6)"),
        (ch._causal_one_row, "(n, n)"),
        (lambda n: [[True] * n for _ in range(n)], "row 0, column 1"),
    ],
)
def test_causal_mask_hints(fn, words, capsys):
    assert bool(check("masks.causal_mask", fn)) is False
    assert words in said(capsys)


def test_causal_mask_agrees_with_the_library():
    for n in ch.CAUSAL_SIZES:
        assert np.array_equal(attnlib.causal_mask(n), ch._causal(n))
