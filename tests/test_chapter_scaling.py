"""Chapter 8: the scaling experiments and the softmax Jacobian."""

import math
from pathlib import Path

import numpy as np
import pytest
from helpers import hint_for
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attnlib
from attncheck import check
from attnlib.scaling import dot_products, jacobian_size, largest_weight, random_scores, softmax_jacobian

rows = arrays(np.float64, st.integers(1, 6), elements=st.floats(-20, 20))


def finite_difference_jacobian(x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Column m: how softmax(x) moves when x_m is nudged up and down by h."""
    J = np.empty((x.size, x.size))
    for m in range(x.size):
        up, down = x.copy(), x.copy()
        up[m] += h
        down[m] -= h
        J[:, m] = (attnlib.softmax(up) - attnlib.softmax(down)) / (2 * h)
    return J


@settings(max_examples=60, deadline=None)
@given(rows)
def test_jacobian_matches_finite_differences(x):
    assert np.allclose(softmax_jacobian(x), finite_difference_jacobian(x), atol=1e-6)


def test_jacobian_matches_torch_autograd():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 8):
        x = rng.standard_normal(n) * 3
        auto = torch.autograd.functional.jacobian(
            lambda t: torch.softmax(t, dim=-1), torch.tensor(x, dtype=torch.float64)
        )
        assert np.allclose(softmax_jacobian(x), auto.numpy(), atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(rows)
def test_jacobian_is_symmetric_and_its_rows_add_to_zero(x):
    J = softmax_jacobian(x)
    assert np.allclose(J, J.T)
    assert np.allclose(J.sum(axis=1), 0, atol=1e-12)  # the weights always add to 1, so their changes add to 0


def test_jacobian_of_many_rows_is_one_jacobian_per_row():
    S = np.arange(24.0).reshape(2, 3, 4) / 7
    J = softmax_jacobian(S)
    assert J.shape == (2, 3, 4, 4)
    assert np.allclose(J[1, 2], softmax_jacobian(S[1, 2]))
    assert jacobian_size(S).shape == (2, 3)
    assert math.isclose(float(jacobian_size(S)[0, 0]), float(np.linalg.norm(J[0, 0])))


def test_jacobian_of_a_scalar_is_a_shape_error():
    with pytest.raises(ValueError, match=r"softmax_jacobian.*\(\)"):
        softmax_jacobian(np.float64(3.0))


def test_saturated_softmax_has_a_vanishing_jacobian():
    x = np.array([1.0, 2.0, 3.0])
    assert jacobian_size(x) > 0.3
    assert jacobian_size(30 * x) < 1e-8
    assert np.isfinite(jacobian_size(1000 * x))  # stable softmax inside: no overflow


def test_dot_products_spread_grows_like_sqrt_dk():
    for d_k in (1, 16, 256):
        spread = dot_products(d_k, trials=20_000).std()
        assert spread == pytest.approx(math.sqrt(d_k), rel=0.03)


def test_experiments_are_seeded():
    assert np.array_equal(dot_products(8, 100, seed=3), dot_products(8, 100, seed=3))
    assert not np.array_equal(dot_products(8, 100, seed=3), dot_products(8, 100, seed=4))
    assert np.array_equal(random_scores(4, seed=1), random_scores(4, seed=1))


def test_random_scores_shape_and_scaling():
    S = random_scores(64, n_keys=5, trials=2000)
    assert S.shape == (2000, 5)
    assert attnlib.scale(S, 64).std() == pytest.approx(1.0, rel=0.05)


@pytest.mark.parametrize("bad", [{"d_k": 0}, {"d_k": 4, "trials": 0}])
def test_experiments_reject_empty_sizes(bad):
    with pytest.raises(ValueError):
        dot_products(**bad)
    with pytest.raises(ValueError):
        random_scores(**bad)


def test_hints_name_the_mistake(capsys):
    check("scaling.spread", 400)
    assert "variance" in capsys.readouterr().out
    from attncheck.scaling import SCALE_K, SCALE_Q

    check("scaling.scale", SCALE_Q @ SCALE_K.T / 4)
    assert "square root" in capsys.readouterr().out


def test_largest_weight_runs_from_even_shares_to_one():
    S = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 50.0]])
    assert largest_weight(S[:1]) == pytest.approx(0.25)
    assert largest_weight(S[1:]) == pytest.approx(1.0)
    assert largest_weight(S) == pytest.approx(0.625)


# --- the graders of the chapter's exercises -------------------------------------------------


@pytest.mark.parametrize(
    "answer, says",
    [
        (10, "spread 2"),
        (400, "variance"),
        (40, "Variances add"),
        (200, "Variances add"),
        (2, "after dividing"),
        (14.14, "2²"),
    ],
)
def test_spread_hints(answer, says, capsys):
    assert says in hint_for("scaling.spread", answer, capsys)


def test_spread_answer_is_what_an_experiment_measures(capsys):
    """The transfer question's answer agrees with a seeded measurement, inside the accepted 5%."""
    rng = np.random.default_rng(1)
    q = rng.standard_normal((20_000, 100))
    k = 2 * rng.standard_normal((20_000, 100))
    measured = float((q * k).sum(axis=1).std())
    assert measured == pytest.approx(20, rel=0.02)
    assert check("scaling.spread", measured)
    assert not check("scaling.spread", dot_products(100).std())  # the unit-variance answer is not it


def test_spread_is_not_in_the_chapters_table():
    import json

    nb = json.loads(Path("chapters/08_scaling.ipynb").read_text(encoding="utf-8"))
    outputs = " ".join(
        "".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
    )
    table = outputs.split("sqrt(d_k)")[1].split("\n\n")[0]
    assert " 100 " not in table and "20.0" not in table


@pytest.mark.parametrize(
    "answer, says",
    [
        ((9, 1), "VARIANCE"),
        ((3, 3), "second is off"),
        ((1, 3), "swapped"),
        ((2, 1), "first factor is off"),
        ((3,), "two numbers"),
    ],
)
def test_ninefold_hints(answer, says, capsys):
    assert says in hint_for("scaling.ninefold", answer, capsys)


def test_ninefold_answer_is_what_the_experiment_shows(capsys):
    raw = random_scores(576, trials=4000).std() / random_scores(64, trials=4000).std()
    scaled = (
        attnlib.scale(random_scores(576, trials=4000), 576).std()
        / attnlib.scale(random_scores(64, trials=4000), 64).std()
    )
    assert check("scaling.ninefold", (raw, scaled))


def test_scale_hints(capsys):
    from attncheck.scaling import SCALED

    for answer, says in [(np.round(SCALED), "rounded"), (SCALED.ravel(), "arranged in shape"), (SCALED.T, "swapped")]:
        assert not check("scaling.scale", answer)
        assert says in capsys.readouterr().out
