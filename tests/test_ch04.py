"""Chapter 4: the loop matmul agrees with numpy's @, and the chapter's checkers give the right hints."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlib
from attnlib import check
from attnlib.exercises import ch04


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_loop_matmul_matches_numpy(rows, inner, cols, seed):
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(rows, inner)), rng.normal(size=(inner, cols))
    assert np.allclose(attnlib.matmul(A, B), A @ B)


def test_attnlib_matmul_passes_the_write_your_own_checker(capsys):
    assert check("ch04.my_matmul", attnlib.matmul) is True


def test_a_matmul_that_never_raises_is_told_to_raise(capsys):
    assert check("ch04.my_matmul", ch04._matmul_no_shape_check) is False
    assert "ValueError" in capsys.readouterr().out


def test_a_square_only_matmul_is_caught_on_a_non_square_case(capsys):
    assert check("ch04.my_matmul", ch04._matmul_square_only) is False
    out = capsys.readouterr().out
    assert "(1, 4)" in out and "column of B" in out


def test_by_hand_hints_name_the_mistake(capsys):
    check("ch04.by_hand", ch04.HAND_C.T)
    assert "swapped" in capsys.readouterr().out
    check("ch04.by_hand", ch04.HAND_B @ ch04.HAND_A)
    assert "B times A" in capsys.readouterr().out


def test_shapes_hint_for_an_illegal_product(capsys):
    check("ch04.shapes", [(3, 2), (5, 8), (1, 1), (3, 3), (6, 2)])
    assert "illegal" in capsys.readouterr().out
