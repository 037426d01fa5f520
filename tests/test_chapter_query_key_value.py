"""Chapter 5: its figures, and its checkers accept every right form, reject plausible wrong answers
with the hint meant for them, and never give the answer away."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from helpers import hint_for

import attnlib
from attncheck import check, get
from attncheck import query_key_value as graders
from attnlib import plot

CH05 = [
    "query_key_value.q_by_hand",
    "query_key_value.w_shapes",
    "query_key_value.head_w_q",
    "query_key_value.cat_changes",
]


# ----------------------------------------------------------------------------- figures


def test_labelled_grids_draws_one_typeset_panel_per_matrix():
    W_Q, W_K, W_V = attnlib.running_lenses()
    fig = plot.labelled_grids(
        {"W_Q": W_Q, "W_K": W_K, "W_V": W_V},
        row_labels=attnlib.FEATURES,
        col_labels={"W_V": attnlib.data.VALUE_SLOTS},
        title="lenses",
    )
    assert isinstance(fig, matplotlib.figure.Figure)
    assert len(fig.axes) == 3
    assert [t.get_text() for t in fig.axes[2].get_xticklabels()] == attnlib.FEATURES
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith("$W_Q$") and "4×2" in titles[0]  # mathtext, not a raw underscore
    assert titles[2].startswith("$W_V$") and "4×4" in titles[2]
    plt.close(fig)


def test_labelled_grids_colours_word_rows_and_can_leave_cells_plain():
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    words = attnlib.words(attnlib.RUNNING_SENTENCE)
    fig = plot.labelled_grids({"Q": X}, row_labels=words, highlight_nonzero=False, word_rows=True)
    ax = fig.axes[0]
    colours = [matplotlib.colors.to_hex(t.get_color()) for t in ax.get_yticklabels()]
    assert colours == [plot.word_colour(w).lower() for w in words]
    faces = {matplotlib.colors.to_hex(p.get_facecolor()) for p in ax.patches}
    assert faces == {"#ffffff"}, "highlight_nonzero=False should leave every cell white"
    plt.close(fig)


def test_labelled_grids_accepts_a_single_matrix():
    fig = plot.labelled_grids({"W": np.eye(3)}, row_labels=["r0", "r1", "r2"])
    assert len(fig.axes) == 1
    plt.close(fig)


def test_projections_labels_are_typeset():
    fig = plot.projections(n=6, d_model=4, d_k=2, d_v=4)
    texts = [t.get_text() for t in fig.axes[0].texts] + [fig.axes[0].get_title()]
    assert not [t for t in texts if "_" in t.replace("$", "") and "$" not in t], texts
    assert any("$W_Q$" in t for t in texts) and any("6×4" in t for t in texts)
    plt.close(fig)


# ----------------------------------------------------------------------------- the contract


@pytest.mark.parametrize("exercise_id", CH05)
def test_registration_follows_the_contract(exercise_id):
    ex = get(exercise_id)
    assert len(ex.right) >= 3, "at least three right forms"
    assert len(ex.wrong) >= 4, "at least four plausible wrong answers"
    assert ex.catches and ex.solution


@pytest.mark.parametrize("exercise_id", CH05)
def test_right_forms_pass(exercise_id, capsys):
    for answer in get(exercise_id).right:
        assert bool(check(exercise_id, answer)) is True, f"rejected a right form {answer!r}"
        assert capsys.readouterr().out.startswith("✓")


@pytest.mark.parametrize("exercise_id", CH05)
def test_wrong_hints_start_with_a_capital_and_never_give_the_solution(exercise_id, capsys):
    ex = get(exercise_id)
    finished = {
        "query_key_value.q_by_hand": ["[[3, 2], [1, 3]]", "[[3.0, 2.0]"],
        "query_key_value.w_shapes": ["(6, 3), (6, 3), (6, 4)"],
        "query_key_value.head_w_q": ["(768, 64)", "768, 64", "64 columns", "d_k = 64"],
        "query_key_value.cat_changes": ["[1 1 1 1 1 0]", "row 1 and column 1"],
    }[exercise_id]
    for answer in ex.wrong:
        hint = hint_for(exercise_id, answer, capsys)
        assert hint[0].isupper(), hint
        assert ex.solution not in hint
        assert not any(f in hint for f in finished), hint
        assert len(hint) < 400, "a hint that floods the screen"


# ----------------------------------------------------------------------------- each hint


@pytest.mark.parametrize(
    "answer, fragment",
    [
        (graders.HAND_W_Q @ graders.HAND_X, "W_Q times X"),
        ((graders.HAND_X @ graders.HAND_W_Q).T, "swapped"),
        (graders.HAND_X[:, :2] @ graders.HAND_W_Q[:2, :], "three products"),
        ([3, 2, 1, 3], "arranged in shape (4,)"),
        ([[3, 2]], "one row"),
        ([[3, 2], [1, 2]], "row 1, column 1"),
        ([["3", "2"], ["1", "3"]], "text"),
        ([[3, 2], [1, 3j]], "complex"),
        ([[3, 2], [1]], "ragged"),
    ],
)
def test_q_by_hand_hints(answer, fragment, capsys):
    assert fragment in hint_for("query_key_value.q_by_hand", answer, capsys)


@pytest.mark.parametrize(
    "answer, fragment",
    [
        ([(5, 3), (5, 3), (5, 4)], "number of words"),
        ([(3, 6), (3, 6), (4, 6)], "swapped"),
        ([(6, 3), (6, 3), (6, 3)], "d_v = 4"),
        ([(6, 3), (6, 4), (6, 4)], "W_K (6, 4)"),
        ([(6, 3), (6, 4)], "three shapes"),
        ([(6, 3), (6, 3), (6, 4.5)], "whole number"),
        ([("6", "3"), (6, 3), (6, 4)], "whole numbers"),
        ([(6, 3), (6, 3), (6, 4, 1)], "two"),
        ([(7, 3), (6, 3), (6, 4)], "rows first"),
    ],
)
def test_w_shapes_hints(answer, fragment, capsys):
    assert fragment in hint_for("query_key_value.w_shapes", answer, capsys)


@pytest.mark.parametrize(
    "answer, fragment",
    [
        ((64, 768), "swapped"),
        ((768, 768), "all 12 heads together"),
        ((768, 12), "number of heads"),
        ((64, 64), "64 rows"),
        ((768, 768 * 12), "share"),
        (64, "single number"),
        ((768, 32), "columns are not yet"),
        ((768, 64.5), "whole number"),
        (lambda: (768, 64), "a function"),
    ],
)
def test_head_w_q_hints(answer, fragment, capsys):
    assert fragment in hint_for("query_key_value.head_w_q", answer, capsys)


def test_torch_forms_are_accepted(capsys):
    torch = pytest.importorskip("torch")
    for dtype in (torch.float32, torch.bfloat16, torch.float16, torch.int64):
        assert bool(check("query_key_value.q_by_hand", torch.tensor([[3, 2], [1, 3]], dtype=dtype))) is True, dtype
    assert bool(check("query_key_value.cat_changes", torch.from_numpy(graders._CHANGES.copy()))) is True
    assert (
        bool(check("query_key_value.cat_changes", torch.tensor(graders._CHANGES.tolist(), dtype=torch.bfloat16)))
        is True
    )
    assert bool(check("query_key_value.w_shapes", [torch.Size([6, 3]), torch.Size([6, 3]), torch.Size([6, 4])])) is True
    assert bool(check("query_key_value.head_w_q", torch.zeros(768, 64).shape)) is True
    assert bool(check("query_key_value.head_w_q", torch.tensor([768, 64]))) is True
    assert bool(check("query_key_value.q_by_hand", torch.tensor([[3, 1], [2, 3]], dtype=torch.bfloat16))) is False


def test_head_w_q_wants_whole_numbers_not_the_float_of_a_division(capsys):
    assert "whole numbers" in hint_for("query_key_value.head_w_q", (768, 768 / 12), capsys)
    assert bool(check("query_key_value.head_w_q", (768, 768 // 12))) is True


def test_cat_changes_expected_answer_is_the_notebooks_computation(capsys):
    W_Q, W_K, _ = attnlib.running_lenses()

    def fits(sentence):
        X = attnlib.sentence_matrix(sentence)
        return np.array([[np.sum(q * k) for k in X @ W_K] for q in X @ W_Q])

    changed = fits("the cat sat on the mat") != fits("the kitten sat on the mat")
    assert bool(check("query_key_value.cat_changes", changed)) is True
    # the subtle part: the cells of "mat" (all-zero query and key) stay
    assert changed[1].tolist() == [True] * 5 + [False]
    assert changed[:, 1].tolist() == [True] * 5 + [False]


def _mask(rows=(), cols=(), cells=()):
    m = np.zeros((6, 6), dtype=bool)
    for i in rows:
        m[i] = True
    for j in cols:
        m[:, j] = True
    for c in cells:
        m[c] = True
    return m


@pytest.mark.parametrize(
    "answer, fragment",
    [
        (_mask(rows=[1], cols=[1]), "cell (1, 5)"),
        (_mask(cols=[1]), "its query"),
        (_mask(rows=[1]), "its key"),
        (_mask(cells=[(1, 1)]), "beyond its own cell"),
        (np.ones((6, 6), dtype=bool), "stays"),
        (_mask(rows=[1], cols=[1]) & ~_mask(cells=[(1, 5), (5, 1), (0, 1)]), "Cell (0, 1)"),
        (np.zeros((5, 5), dtype=bool), "6×6"),
        (np.full((6, 6), 0.5), "True (changes) or False"),
    ],
)
def test_cat_changes_hints(answer, fragment, capsys):
    assert fragment in hint_for("query_key_value.cat_changes", answer, capsys)


def test_checking_neither_changes_the_answer_nor_the_expected_one(capsys):
    expected = {name: getattr(graders, name).copy() for name in ("_HAND_Q", "_CHANGES")}
    mine = np.array([[3.0, 2.0], [1.0, 3.0]])
    assert bool(check("query_key_value.q_by_hand", mine)) is True
    assert mine.tolist() == [[3.0, 2.0], [1.0, 3.0]]
    grid = np.ones((6, 6), dtype=bool)
    assert bool(check("query_key_value.cat_changes", grid)) is False
    assert grid.all()
    for name, value in expected.items():
        assert np.array_equal(getattr(graders, name), value), f"{name} changed"


def test_an_oversized_answer_gets_a_short_hint(capsys):
    for exercise_id in CH05:
        hint = hint_for(exercise_id, ["x" * 20_000], capsys)
        assert len(hint) < 400, (exercise_id, len(hint))


# --- the no-lens baseline, the slot rule and the two-slot picture ------------------------------


def test_without_lenses_the_strong_words_fit_themselves_best_and_the_table_is_symmetric():
    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    words = attnlib.words(attnlib.RUNNING_SENTENCE)
    raw = X @ X.T
    sat, kitten = words.index("sat"), words.index("kitten")
    assert raw[sat].argmax() == sat and raw[kitten].argmax() == kitten
    assert raw[sat, kitten] < raw[sat, sat] / 3
    assert np.allclose(raw, raw.T)


def test_swap_slots_answer_follows_from_slot_meets_slot(capsys):
    from attncheck import query_key_value as graders

    assert graders._SWAPPED_BEST == "sat"
    assert check("query_key_value.swap_slots", "sat")
    capsys.readouterr()
    check("query_key_value.swap_slots", "kitten")
    out = " ".join(capsys.readouterr().out.split())
    assert "slot 0" in out and "'sat'" not in out


def test_cat_changes_all_false_gets_its_own_hint(capsys):
    check("query_key_value.cat_changes", [[False] * 6 for _ in range(6)])
    out = " ".join(capsys.readouterr().out.split())
    assert "marks no cell" in out


def test_query_key_arrows_draws_each_distinct_word_once_per_panel_and_reads_on_a_phone():
    from test_figure_text import MIN_PX, smallest_text_px

    X = attnlib.sentence_matrix(attnlib.RUNNING_SENTENCE)
    W_Q, W_K, _ = attnlib.running_lenses()
    words = attnlib.words(attnlib.RUNNING_SENTENCE)
    fig = plot.query_key_arrows(
        X @ W_Q, X @ W_K, words, attnlib.data.QUERY_SLOTS, key_slot_names=attnlib.data.KEY_SLOTS
    )
    top, bottom = fig.axes
    for ax in (top, bottom):
        labels = [t.get_text().split()[0] for t in ax.texts]
        assert sorted(labels) == sorted(set(words))  # "the" drawn once
    assert "animal?" in top.get_xlabel() and "animal" in bottom.get_xlabel()
    assert any("sat [3.6, 0.2]" in t.get_text() for t in top.texts)
    assert fig.get_figwidth() <= 5.8 and smallest_text_px(fig)[0] >= MIN_PX
