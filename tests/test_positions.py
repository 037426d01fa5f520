"""Chapter 13's positional encoding: the formula of "Attention Is All You Need", numpy and torch alike."""

import math

import numpy as np
import pytest

import attnlib
from attnlib.positions import learned_position_table, positional_encoding


def _direct(n, d_model):
    return np.array(
        [
            [
                math.sin(p / 10000 ** (c / d_model)) if c % 2 == 0 else math.cos(p / 10000 ** ((c - 1) / d_model))
                for c in range(d_model)
            ]
            for p in range(n)
        ]
    )


@pytest.mark.parametrize("n, d_model", [(1, 2), (6, 4), (50, 16), (7, 10), (128, 64)])
def test_matches_the_formula_cell_by_cell(n, d_model):
    assert np.abs(positional_encoding(n, d_model) - _direct(n, d_model)).max() < 1e-12


def test_hand_checked_values():
    PE = positional_encoding(3, 4)
    assert np.allclose(PE[0], [0, 1, 0, 1])  # sin 0 = 0, cos 0 = 1
    assert np.allclose(PE[1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)])
    assert np.allclose(PE[2, :2], [0.9093, -0.4161], atol=1e-4)  # sin 2, cos 2 from a table


def test_every_row_is_distinct_and_bounded():
    PE = positional_encoding(100, 8)
    assert np.abs(PE).max() <= 1.0
    assert len({tuple(np.round(r, 9)) for r in PE}) == 100
    assert np.allclose((PE**2).sum(axis=1), 4.0)  # each sin²+cos² pair adds 1


def test_a_shift_is_the_same_rotation_for_every_position():
    PE = positional_encoding(40, 6)
    M, *_ = np.linalg.lstsq(PE[:-3], PE[3:], rcond=None)  # PE[pos+3] = PE[pos] @ M for all pos
    assert np.abs(PE[:-3] @ M - PE[3:]).max() < 1e-9


def test_torch_gives_the_same_numbers_in_its_own_dtype():
    torch = pytest.importorskip("torch")
    for dtype in (torch.float64, torch.float32):
        PE = positional_encoding(20, 8, like=torch.zeros(1, dtype=dtype))
        assert isinstance(PE, torch.Tensor) and PE.dtype == dtype and PE.shape == (20, 8)
        assert np.abs(PE.double().numpy() - _direct(20, 8)).max() < (1e-12 if dtype == torch.float64 else 1e-6)
    assert positional_encoding(3, 4, like=torch.zeros(1, dtype=torch.int64)).dtype == torch.float64


def test_numpy_result_is_float64_and_import_stays_light():
    assert positional_encoding(2, 2).dtype == np.float64
    assert attnlib.positional_encoding is positional_encoding


@pytest.mark.parametrize(
    "n, d_model, error, words",
    [
        (5, 3, ValueError, "must be even"),
        (5, 0, ValueError, "at least 2"),
        (0, 4, ValueError, "at least 1"),
        (-2, 4, ValueError, "at least 1"),
        (2.5, 4, TypeError, "whole number"),
        (3, "4", TypeError, "whole number"),
        (True, 4, TypeError, "whole number"),
    ],
)
def test_bad_sizes_get_a_clear_error(n, d_model, error, words):
    with pytest.raises(error, match=words):
        positional_encoding(n, d_model)


def test_learned_table_is_trainable_seeded_and_one_row_per_position():
    torch = pytest.importorskip("torch")
    table = learned_position_table(6, 4, seed=3)
    assert isinstance(table, torch.nn.Parameter) and table.requires_grad and table.shape == (6, 4)
    assert torch.equal(table, learned_position_table(6, 4, seed=3))
    assert not torch.equal(table, learned_position_table(6, 4, seed=4))
    with pytest.raises(ValueError):
        learned_position_table(0, 4)
