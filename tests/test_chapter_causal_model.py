"""The causal model chapter's graders: right forms pass, plausible wrong answers fail with the hint they are meant to get."""

import pytest
from helpers import hint_for, passes

from attncheck import causal_model as graders


@pytest.mark.parametrize(
    "answer, words",
    [
        ((3, 14), "other order"),
        ((15, 4), "from 1"),
        ((8, 0), "not the most"),
        ((18, 6), "induction head"),
        ((16, 0), "previous-token head"),
        ((14, 1), "key/value head"),
        ((30, 9), "layers 0 to 29"),
        ((2, 2), "not the one"),
        (14, "two are wanted"),
        ((14, 3, 0), "two are wanted"),
        ((14.5, 3), "whole number"),
        (("14", "3"), "text"),
    ],
)
def test_duplicate_head_hints(answer, words, capsys):
    assert words in hint_for("causal_model.duplicate_head", answer, capsys)


def test_duplicate_head_accepts_a_torch_pair(capsys):
    torch = pytest.importorskip("torch")
    passes("causal_model.duplicate_head", torch.tensor([14, 3]), capsys)


@pytest.mark.parametrize(
    "answer, words",
    [
        (268435456, "K and V"),
        (1073741824, "4 bytes"),
        (2147483648, "every query head"),
        (16777216, "one layer"),
        (4294967296, "bits"),
        (512, "MiB"),
        (0.5, "GiB"),
        (536870000, "rounded"),
        (123456789, "Count K and V"),
        ("536870912", "text"),
    ],
)
def test_cache_bytes_hints(answer, words, capsys):
    assert words in hint_for("causal_model.cache_bytes", answer, capsys)


def test_cache_bytes_numbers_not_bytes_is_named(capsys):
    # 2 * 32 * 8 * 128 * 4096 numbers, without the 2 bytes each: the same count as K or V alone
    assert "K and V" in hint_for("causal_model.cache_bytes", 268435456, capsys)


@pytest.mark.parametrize("answer", [536870912, 536870912.0, [536870912], 2 * 32 * 8 * 128 * 4096 * 2])
def test_cache_bytes_accepts_every_form(answer, capsys):
    passes("causal_model.cache_bytes", answer, capsys)


def test_cache_bytes_accepts_a_numpy_and_a_torch_number(capsys):
    import numpy as np

    passes("causal_model.cache_bytes", np.int64(536870912), capsys)
    torch = pytest.importorskip("torch")
    passes("causal_model.cache_bytes", torch.tensor(536870912), capsys)


def test_the_cache_statement_constants():
    assert graders._CACHE == 536_870_912 == 512 * 2**20


IDS = ["causal_model.duplicate_head", "causal_model.cache_bytes"]


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_hint_gives_the_solution_away(exercise_id, capsys):
    from attncheck import get

    ex = get(exercise_id)
    assert ex.catches and ex.solution and len(ex.right) >= 3 and len(ex.wrong) >= 4
    for answer in ex.wrong:
        hint = hint_for(exercise_id, answer, capsys)
        assert ex.solution not in " ".join(hint.split())


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_solution_line_is_in_the_notebook(exercise_id):
    from pathlib import Path

    from helpers import solution_codes

    from attncheck import get

    notebook = next(Path(__file__).resolve().parents[1].glob("chapters/*_causal_model.ipynb"))
    solutions = solution_codes(f"chapters/{notebook.name}")
    assert any(get(exercise_id).solution in s for s in solutions)
