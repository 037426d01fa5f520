"""Chapter 6: the transpose checkers follow the exercise contract, the reflection figure draws both
grids at one scale with the traced row, and the prerequisite map (drawn in the intro; its edges
and labels are chapter 4–6 work) routes every edge around the boxes with typeset labels."""

import re

import matplotlib
import numpy as np
import pytest
from helpers import hint_for
from matplotlib.patches import FancyArrowPatch, Rectangle

from attncheck import check, get
from attncheck import transpose as graders
from attnlib import plot

CH06 = ["transpose.by_hand", "transpose.pair_cell", "transpose.transpose_order", "transpose.trap"]


def test_the_chapter_has_the_exercises_the_notebook_checks():
    ids = [i for i in __import__("attncheck").exercise_ids() if i.startswith("transpose.")]
    assert sorted(ids) == CH06  # transpose.qkt_shape (a repeat of the shapes chapter) is gone


@pytest.mark.parametrize(
    "answer, words",
    [
        (graders._P, "unchanged"),
        (graders._P_RESHAPED, "reshape"),
        (graders._P_COLUMNS_SWAPPED, "wrong order"),
        (graders._P_ROTATED, "quarter turn"),
        ([[2, -1], [0, 5], [7, -3]], "(2, 1) is off"),
        ([2, -1, 0, 5, 7, 3], "as a grid"),
    ],
)
def test_by_hand_hints_name_the_mistake(answer, words, capsys):
    assert words in hint_for("transpose.by_hand", answer, capsys)


@pytest.mark.parametrize(
    "answer, words",
    [
        ([(2, 4), "illegal", (4, 2)], "shape of MN"),
        ([(4, 2), (3, 3), (4, 2)], "Mᵀ first"),
        ([(4, 2), (4, 2), "illegal"], "Mᵀ first"),
        ([(4, 2), "illegal", "illegal"], "Nᵀ first"),
        ([(4, 2), "illegal"], "three answers"),
        (["illegal", "illegal", (4, 2)], "every matrix has a transpose"),
    ],
)
def test_transpose_order_hints_name_the_mistake(answer, words, capsys):
    assert bool(check("transpose.transpose_order", answer)) is False
    assert words in " ".join(capsys.readouterr().out.split())


def test_the_transpose_order_answer_is_what_numpy_says():
    M, N = np.ones(graders._M_SHAPE), np.ones(graders._N_SHAPE)
    assert (M @ N).T.shape == graders._MN_T_SHAPE == (N.T @ M.T).shape
    with pytest.raises(ValueError):
        M.T @ N.T


def test_trap_qk_runs_and_gives_wrong_numbers(capsys):
    Q, K = graders._TRAP_Q, graders._TRAP_K
    assert Q.shape == K.shape == (2, 2)  # n = d_k: Q @ K is legal
    assert not np.allclose(Q @ K, Q @ K.T)  # and wrong
    assert np.isclose((Q @ K.T)[1, 0], Q[1] @ K[0])
    assert check("transpose.trap", Q @ K.T)
    capsys.readouterr()
    check("transpose.trap", Q @ K)
    out = " ".join(capsys.readouterr().out.split())
    assert "n = d_k = 2" in out and "slot 0 of every key" in out


def test_transpose_mirror_puts_each_number_at_its_mirror_cell_and_reads_on_a_phone():
    from test_figure_text import MIN_PX, smallest_text_px

    K = np.array([[1, 2], [3, 4], [5, 6]])
    fig = plot.transpose_mirror(K, name="K")
    ax = fig.axes[0]
    placed = {}
    for t in ax.texts:
        if t.get_text().isdigit():
            x, y = t.get_position()
            placed.setdefault(t.get_text(), []).append((int(y), int(x)))  # (row, column)
    for i in range(3):
        for j in range(2):
            assert sorted(placed[str(K[i, j])]) == sorted([(i, j), (j, i)])
    assert fig.get_figwidth() <= 5.8 and smallest_text_px(fig)[0] >= MIN_PX


@pytest.mark.parametrize(
    "answer, words",
    [
        ([(1, 3), (3, 1), 12], "swapped"),
        ([(4, 2), (2, 4), 12], "from 0"),
        ([(3, 1), (3, 1), 12], "different questions"),
        ([(2, 1), (1, 2), 12], "(a) is not right yet"),  # the sat-kitten pair the widget prints, not on-kitten
        ([(3, 1), (1, 3), 6], "how many times"),
        ([(3, 1), (1, 3), 2], "counts columns"),
        ([(3, 1), (1, 3), 20], "rows"),
        ([(3, 1), (1, 3)], "three answers"),
        ([(3, 1), (1, 3), 12.5], "whole number"),
    ],
)
def test_pair_cell_hints_name_the_mistake(answer, words, capsys):
    assert words in hint_for("transpose.pair_cell", answer, capsys)


def test_trap_names_the_slots_against_slots_slip(capsys):
    Q, K = graders._TRAP_Q, graders._TRAP_K
    assert "slots against slots" in hint_for("transpose.trap", (Q.T @ K).tolist(), capsys)


def test_pair_cell_answers_agree_with_the_running_example():
    import attnlib

    words = attnlib.RUNNING_SENTENCE.split()
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, W_K, _ = attnlib.running_lenses()
    table = (X @ W_Q) @ (X @ W_K).T
    on, kitten = words.index("on"), words.index("kitten")
    assert graders._ON_KITTEN == (on, kitten) and graders._KITTEN_ON == (kitten, on)
    assert np.isclose(table[graders._ON_KITTEN], (X @ W_Q)[on] @ (X @ W_K)[kitten])
    assert graders._CELLS_WITH_THE_KEY == words.count("the") * len(words)


# --- the reflection figure ---------------------------------------------------------------


def test_reflection_draws_both_grids_at_one_scale_with_the_traced_row():
    K = np.array([[1, 2], [3, 4], [5, 6]])
    fig = plot.transpose_reflection(K, name="K")
    ax = fig.axes[0]
    cells = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(cells) == 12 and {(p.get_width(), p.get_height()) for p in cells} == {(1, 1)}
    shaded = [p for p in cells if p.get_facecolor()[:3] != (1.0, 1.0, 1.0)]
    assert len(shaded) == 4  # row 0 of K (2 cells) and column 0 of Kᵀ (2 cells)
    assert len({tuple(np.round(p.get_facecolor(), 3)) for p in shaded}) == 1
    assert any(isinstance(p, FancyArrowPatch) for p in ax.patches), "the trace arrow"
    diagonal = [line for line in ax.lines if line.get_linestyle() != "None"]
    numbers = [t for t in ax.texts if t.get_bbox_patch() is not None]
    assert diagonal and all(line.get_zorder() < t.get_zorder() for line in diagonal for t in numbers)
    texts = [t.get_text() for t in ax.texts] + [fig._suptitle.get_text()]
    assert "$K$   3×2" in texts and r"$K^{\mathsf{T}}$   2×3" in texts
    matplotlib.pyplot.close(fig)


# --- the notebook and the registry agree -----------------------------------------------------


def test_each_registered_solution_is_the_notebooks_solution_line():
    import json
    from pathlib import Path

    from helpers import solution_codes

    nb = json.loads((Path(__file__).resolve().parents[1] / "chapters/06_transpose.ipynb").read_text(encoding="utf-8"))
    text = "\n".join(solution_codes("chapters/06_transpose.ipynb"))
    for exercise_id in CH06:
        assert get(exercise_id).solution in text, exercise_id
    checked = {m for c in nb["cells"] for m in re.findall(r'check\("(transpose\.\w+)"', "".join(c["source"]))}
    assert checked == set(CH06)
