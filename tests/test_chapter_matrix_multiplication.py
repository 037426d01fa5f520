"""Chapter 4: the loop matmul agrees with numpy's @, the figure names its panels, and the chapter's
checkers accept every right form, reject every plausible wrong answer with the hint meant for it,
contain anything a learner's code raises, and never hand out the solution."""

import matplotlib
import numpy as np
import pytest
from helpers import hint_for
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlib
from attncheck import _matmul_samples as samples
from attncheck import check, get, mentions_shape
from attncheck import matrix_multiplication as graders
from attnlib import plot

CH04 = [
    "matrix_multiplication.by_hand",
    "matrix_multiplication.design_w",
    "matrix_multiplication.my_matmul",
    "matrix_multiplication.shapes",
]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_loop_matmul_matches_numpy(rows, inner, cols, seed):
    rng = np.random.default_rng(seed)
    M, N = rng.normal(size=(rows, inner)), rng.normal(size=(inner, cols))
    assert np.allclose(attnlib.matmul(M, N), M @ N)


# --- the registrations follow the exercise contract ------------------------------------

# --- matrix_multiplication.by_hand ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer, words",
    [
        (graders._HAND_MN.T, "swapped"),
        (graders._HAND_N @ graders._HAND_M, "N times M"),
        (graders._HAND_SHORT, "short of a term"),
        ([[2, 9], [16, -1]], "cell (1, 1) is off"),
        ([2, 9, 16, -5], "grid of 2 rows"),
        ([["2", "9"], ["16", "-5"]], "text"),
        ([[2 + 0j, 9], [16, -5]], "complex"),
        ([[2, 9], [16]], "ragged"),
    ],
)
def test_by_hand_hints_name_the_mistake(answer, words, capsys):
    assert words in hint_for("matrix_multiplication.by_hand", answer, capsys)


def test_by_hand_accepts_low_precision_tensors():
    torch = pytest.importorskip("torch")
    for dtype in (torch.float16, torch.bfloat16, torch.int64):
        assert bool(check("matrix_multiplication.by_hand", torch.tensor([[2, 9], [16, -5]], dtype=dtype))) is True


# --- matrix_multiplication.my_matmul ---------------------------------------------------------------------


def test_attnlib_matmul_passes_the_write_your_own_checker(capsys):
    assert bool(check("matrix_multiplication.my_matmul", attnlib.matmul)) is True


@pytest.mark.parametrize(
    "fn, words",
    [
        (samples.no_shape_check, "returned a result"),
        (samples.numpy_unchecked, "does not name the shape"),
        (samples.vague_message, "does not name the shape"),
        (samples.one_shape, "does not name the shape (4, 5)"),
        (samples.type_error, "raised TypeError"),
        (samples.square_only, "(1, 4) and (4, 3)"),
        (samples.wrong_index, "cell (0, 1)"),
        (samples.off_by_one, "misses its last product"),
        (samples.transposed, "flipped"),
        (samples.no_return, "return"),
        (samples.zeroes_input, "changed its input `M`"),
        (samples.scribbles_after, "changed its input `N`"),
    ],
)
def test_my_matmul_catches_each_plausible_mistake(fn, words, capsys):
    assert words in hint_for("matrix_multiplication.my_matmul", fn, capsys)


def test_my_matmul_cases_cover_one_row_one_column_inner_one_and_square():
    shapes = [(M.shape, N.shape) for M, N, _ in graders._MATMUL_PAIRS]
    assert any(m[0] == 1 for m, _ in shapes)  # one row
    assert any(n[1] == 1 for _, n in shapes)  # one column
    assert any(m[1] == 1 for m, _ in shapes)  # inner number 1
    assert any(m[0] != n[1] for m, n in shapes)  # non-square result
    assert any(m == n and m[0] == m[1] for m, n in shapes)  # square
    for a, b in graders._MATMUL_BAD:
        assert a[1] != b[0] and a != b  # really illegal, and the two shapes can be told apart


def test_the_expected_products_cannot_be_touched_by_the_learner(capsys):
    before = [want.copy() for _, _, want in graders._MATMUL_PAIRS]
    check("matrix_multiplication.my_matmul", samples.zeroes_input)
    check("matrix_multiplication.my_matmul", samples.scribbles_after)
    for (M, N, want), saved in zip(graders._MATMUL_PAIRS, before):
        assert np.array_equal(want, saved) and np.array_equal(M @ N, want)


@pytest.mark.parametrize(
    "message, shape, named",
    [
        ("cannot multiply (2, 3) by (4, 5)", (4, 5), True),
        ("M is 2×3 but N is 4×5", (2, 3), True),
        ("shapes [2, 3] and [4, 5]", (4, 5), True),
        ("3 != 4", (2, 3), False),
        ("size 4 is different from 3", (4, 5), False),
    ],
)
def test_a_shape_is_recognised_in_any_usual_spelling(message, shape, named):
    assert mentions_shape(message, shape) is named


# --- matrix_multiplication.shapes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer, words",
    [
        ([(3, 2), (5, 8), (1, 1), (3, 3), (6, 2)], "illegal"),
        ([(3, 2), (5, 8), (3, 3), (1, 1), "illegal"], "inner numbers"),
        ([(2, 3), (5, 8), (1, 1), (3, 3), "illegal"], "wrong order"),
        ([(3, 2), (5, 8), 1, (3, 3), "illegal"], "single number"),
        ([(3, 2), "illegal", (1, 1), (3, 3), "illegal"], "legal"),
    ],
)
def test_shapes_hints_say_which_product_and_why(answer, words, capsys):
    assert words in hint_for("matrix_multiplication.shapes", answer, capsys)


# --- the figure ---------------------------------------------------------------------------


def _panel_texts(fig):
    return [t.get_text() for t in fig.axes[0].texts]


def test_matmul_cell_names_its_panels_and_keeps_one_scale():
    Q, K = np.array([[1, 0], [2, 1], [0, 1]]), np.array([[1, 2], [3, 4], [5, 6]])
    fig = plot.matmul_cell(Q, K.T, 1, 2, left_name="Q", right_name=r"K^{\mathsf{T}}")
    texts = _panel_texts(fig)
    assert "$Q$   3×2" in texts and r"$K^{\mathsf{T}}$   2×3" in texts and r"$QK^{\mathsf{T}}$   3×3" in texts
    assert not any(t.startswith(("$A", "$B")) for t in texts)
    assert "16" in fig._suptitle.get_text()
    sides = {(round(p.get_width(), 6), round(p.get_height(), 6)) for p in fig.axes[0].patches}
    assert sides == {(1.0, 1.0)}, "every cell of the three grids has the same size"
    fig.canvas.draw()
    matplotlib.pyplot.close(fig)


def test_matmul_cell_defaults_to_the_chapter_names():
    fig = plot.matmul_cell(np.ones((2, 3)), np.ones((3, 2)), 0, 1)
    texts = _panel_texts(fig)
    assert "$M$   2×3" in texts and "$N$   3×2" in texts and "$MN$   2×2" in texts
    matplotlib.pyplot.close(fig)


# --- the notebook and the registry agree -----------------------------------------------------


def test_each_registered_solution_is_the_notebooks_solution_line():
    from helpers import solution_codes

    text = "\n".join(solution_codes("chapters/04_matrix_multiplication.ipynb"))
    for exercise_id in CH04:
        assert get(exercise_id).solution in text, exercise_id


# --- matrix_multiplication.design_w -------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer, words",
    [
        (graders._W_DESIGN.T, "rows and columns swapped"),
        (graders._W_DESIGN[:, ::-1], "other order"),
        ([[0, 1], [1, 1], [0, 0], [1, 0]], "column 1 (creature) of W, the row for 'vehicle' is"),
        ([[1, 0], [0, -1], [0, 0], [1, 0]], "the rows for 'animal', 'vehicle' are"),
        (graders._CHAPTER_W, "chapter's W"),
        ([0, 1, 1, -1, 0, 0, 1, 0], "arranged in shape (8,)"),
    ],
)
def test_design_w_hints_name_the_entry(answer, words, capsys):
    assert words in hint_for("matrix_multiplication.design_w", answer, capsys)


def test_design_w_means_what_the_statement_says():
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    animal, vehicle, small, action = X.T
    assert np.allclose(X @ graders._W_DESIGN, np.stack([vehicle + action, animal - vehicle], axis=1))
    assert list(graders._FEATURES) == list(attnlib.FEATURES)


# --- the geometry figures: a matrix moves arrows, a row of XW is a sum of W's rows ------------


def test_moved_arrows_draws_each_word_before_and_after_and_stays_legible_on_a_phone():
    from test_figure_text import MIN_PX, smallest_text_px

    W = np.array([[1.0, 1.0], [-1.0, 1.0]])
    fig = plot.moved_arrows(attnlib.VOCAB_2D, W)
    ax = fig.axes[0]
    assert len(ax.patches) == 2 * len(attnlib.VOCAB_2D)  # one dashed before, one solid after
    tips = sorted(tuple(np.round(p.get_path().vertices.max(axis=0), 6)) for p in ax.patches)
    assert len(tips) == 10
    labels = {t.get_text().strip() for t in ax.texts}
    assert set(attnlib.VOCAB_2D) <= labels
    assert fig.get_figwidth() <= 5.8 and smallest_text_px(fig)[0] >= MIN_PX
    with pytest.raises(ValueError, match="2×2"):
        plot.moved_arrows(attnlib.VOCAB_2D, np.ones((3, 2)))


def test_row_combination_ends_on_the_row_of_xw():
    from test_figure_text import MIN_PX, smallest_text_px

    W = np.array([[1.0, 1.0], [-1.0, 1.0]])
    fig = plot.row_combination("cat", [3.0, 0.5], W)
    text = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "[2.5, 3.5]" in text and "3 × row 0" in text and "0.5 × row 1" in text
    assert fig.get_figwidth() <= 5.8 and smallest_text_px(fig)[0] >= MIN_PX


def test_row_view_exercise_is_the_weighted_sum_of_rows():
    from attncheck import matrix_multiplication as graders

    rows = [sum(graders._ROW_X[i, t] * graders._ROW_W[t] for t in range(3)) for i in range(3)]
    assert np.allclose(rows, graders._ROW_X @ graders._ROW_W)


def test_page_grid_moves_the_page_s_lines_and_lands_the_two_unit_arrows_on_the_rows_of_w():
    W = np.array([[1.0, 1.0], [-1.0, 1.0]])
    fig = plot.page_grid(W, reach=2)
    before, after = fig.axes
    assert len(before.lines) == len(after.lines) == 2 * 5  # x = k and y = k for k in -2..2
    for line_before, line_after in zip(before.lines, after.lines):
        points = np.column_stack(line_before.get_data())
        assert np.allclose(np.column_stack(line_after.get_data()), points @ W)  # every point x moved to xW
    assert len(after.patches) == 2  # the arrows [1, 0] and [0, 1], moved
    assert {t.get_text().strip() for t in after.texts} == {"row 0", "row 1"}
    with pytest.raises(ValueError, match="2×2"):
        plot.page_grid(np.eye(3))
    matplotlib.pyplot.close(fig)
