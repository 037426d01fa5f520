"""Chapter 1: the arrow figures, one colour per word, and the chapter's exercise checkers."""

import itertools

import matplotlib
import numpy as np
import pytest
from helpers import said

import attncheck
import attnlib
from attncheck import check
from attncheck import vectors as graders
from attnlib import plot

# --- figures ------------------------------------------------------------------------------


def test_arrow_parts_draws_the_two_steps_dashed_and_the_arrow_in_the_word_colour():
    fig = plot.arrow_parts("cat", [3.0, 0.5])
    (ax,) = fig.axes
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert [list(line.get_xdata()) for line in dashed] == [[0, 3.0], [3.0, 3.0]]  # right, then up
    assert [list(line.get_ydata()) for line in dashed] == [[0, 0], [0, 0.5]]
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "x = 3" in texts and "y = 0.5" in texts and "cat [3, 0.5]" in texts
    label = next(t for t in ax.texts if t.get_text().startswith("cat"))
    assert matplotlib.colors.to_hex(label.get_color()) == plot.word_colour("cat").lower()
    matplotlib.pyplot.close(fig)


def test_arrow_parts_says_left_and_down_for_negative_numbers():
    fig = plot.arrow_parts("x", [-2.0, -1.0])
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "2 to the left" in texts and "1 down" in texts
    matplotlib.pyplot.close(fig)


def test_arrows_colour_each_word_by_word_colour():
    fig = plot.arrows(attnlib.VOCAB_2D)
    labels = [t for t in fig.axes[0].texts if t.get_text()]
    for text in labels:
        word = text.get_text().split()[0]
        assert matplotlib.colors.to_hex(text.get_color()) == plot.word_colour(word).lower()
    matplotlib.pyplot.close(fig)


# --- one colour per word ----------------------------------------------------------------------


def _luminance(hex_colour: str) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in matplotlib.colors.to_rgb(hex_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _lab(hex_colour: str) -> np.ndarray:
    from matplotlib.colors import to_rgb

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in to_rgb(hex_colour))
    xyz = np.array(
        [
            (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
            0.2126 * r + 0.7152 * g + 0.0722 * b,
            (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
        ]
    )
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


@pytest.mark.parametrize("word", sorted(plot.WORD_COLOURS))
def test_every_word_colour_reads_on_white_and_on_a_dark_page(word):
    lum = _luminance(plot.word_colour(word))
    dark = _luminance("#121212")
    assert 1.05 / (lum + 0.05) >= 3.0, f"{word} is too light for a white page"
    assert (lum + 0.05) / (dark + 0.05) >= 3.0, f"{word} is too dark for a dark page"


# Every sentence the course draws or prints, and chapter 1's five arrows drawn together.
SENTENCES = [
    attnlib.RUNNING_SENTENCE,
    "the cat sat",
    "a puppy ran",
    "a kitten ran",
    "the truck drove",
    "the dog drove the truck",
    "the dog drove a truck",
    "the kitten drove the truck",
    "a puppy drove the car",
    " ".join(attnlib.VOCAB_2D),
]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_words_of_one_sentence_get_clearly_different_colours(sentence):
    for a, b in itertools.combinations(sorted(set(sentence.split())), 2):
        distance = float(np.linalg.norm(_lab(plot.word_colour(a)) - _lab(plot.word_colour(b))))
        assert distance >= 20, f"{a!r} and {b!r} look alike (ΔE {distance:.1f})"


def test_word_colour_is_one_colour_per_word_whatever_the_spelling():
    assert len(set(plot.WORD_COLOURS.values())) == len(plot.WORD_COLOURS)
    assert plot.word_colour("Cat") == plot.word_colour(" cat ") == plot.word_colour("“cat”")
    assert set(attnlib.VOCAB) <= set(plot.WORD_COLOURS)
    assert plot.word_colour("zebra") == plot.word_colour("zebra")  # outside the vocabulary: steady


# --- vectors.angle_between -------------------------------------------------------------------


def test_angle_between_cases_cover_two_three_and_four_numbers_and_every_edge():
    cases = graders.BETWEEN_CASES
    assert {len(a) for a, _ in cases} == {2, 3, 4}
    cosines = [graders._cosine(a, b) for a, b in cases]
    assert any(abs(c) < 1e-12 for c in cosines)  # a right angle
    assert any(c > 1 for c in cosines)  # rounding past 1
    assert any(c < -0.999 for c in cosines)  # opposite arrows


@pytest.mark.parametrize(
    "fn",
    [
        graders._between_solution,
        graders._between_numpy,
        graders._between_hypot,
        lambda a, b: np.float32(graders._between_solution(a, b)),
        lambda a, b: np.degrees(np.arccos(np.clip(np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b), -1, 1))),
    ],
)
def test_angle_between_accepts_every_right_form(fn, capsys):
    assert check("vectors.angle_between", fn), said(capsys)


@pytest.mark.parametrize(
    "fn, hint",
    [
        (graders._between_radians, "radians"),
        (graders._between_cosine, "cosine of the angle"),
        (graders._between_no_lengths, "division by both lengths"),
        (graders._between_a_twice, "length of one arrow twice"),  # uses every entry: not "only the first two"
        (graders._between_asin, "math.asin"),
        (graders._between_clips_top_only, "between -1 and 1"),
        (graders._between_catches_domain, "180°"),
        (graders._between_first_two, "only the first two"),
        (graders._between_unclipped, "between -1 and 1"),
        (graders._between_atan2, "only the first two"),
        (graders._between_no_return, "return"),
        (graders._between_mutates, "changed"),
        (lambda a, b: [graders._between_solution(a, b)], "one number"),
    ],
)
def test_angle_between_rejects_plausible_wrong_functions_with_a_pointed_hint(fn, hint, capsys):
    assert not check("vectors.angle_between", fn)
    assert hint in said(capsys)


def test_angle_between_agrees_with_the_chapter_s_picture():
    cat, car = attnlib.VOCAB_2D["cat"], attnlib.VOCAB_2D["car"]
    assert round(graders._between_solution(cat, car)) == 71
    assert round(graders._between_solution(attnlib.embed("cat"), attnlib.embed("kitten"))) == 30
    assert round(graders._between_solution(attnlib.embed("cat"), attnlib.embed("car"))) == 85


# --- vectors.closest_to_sat ----------------------------------------------------------------------


def test_closest_to_sat_hints_never_name_the_answer(capsys):
    assert check("vectors.closest_to_sat", "ran")
    capsys.readouterr()
    for word in ["drove", "on", "kitten", "the"]:
        check("vectors.closest_to_sat", word)
        out = said(capsys)
        assert "closer" in out and "ran" not in out.replace("than", "")
    check("vectors.closest_to_sat", "sat")
    assert "OTHER" in said(capsys)


# --- vectors.longer_arrow ----------------------------------------------------------------------


@pytest.mark.parametrize("answer", [[1.70, 5.75], (1.705, 5.753), np.array([1.5, 5.81]), np.float32([1.70, 5.75])])
def test_longer_arrow_accepts_any_6_long_arrow_pointing_nearest_truck_s_way(answer, capsys):
    assert check("vectors.longer_arrow", answer), said(capsys)


def test_longer_arrow_accepts_a_torch_tensor(capsys):
    torch = pytest.importorskip("torch")
    assert check("vectors.longer_arrow", torch.tensor([1.70, 5.75])), said(capsys)
    assert check("vectors.longer_arrow", torch.tensor([1.70, 5.75], dtype=torch.bfloat16)), said(capsys)


@pytest.mark.parametrize(
    "answer, hint",
    [
        ([0.8, 2.7], "2.816 long"),  # truck itself
        ([1.6, 5.4], "5.632 long"),  # twice truck: the Recall's doubling, not the length asked for
        ([2.4, 8.1], "8.448 long"),  # too long
        ([2.7, 0.8], "from kitten's"),  # x and y swapped
        ([0.0, 6.0], "from car's"),  # 6 long, but nearer car
        ([-1.6, -5.4], "opposite"),
        ([1.6, 5.4, 0.0], "shape (3,)"),
        ([[1.6, 5.4]], "shape (1, 2)"),
        ([0, 0], "length 0"),
    ],
)
def test_longer_arrow_rejects_with_a_hint(answer, hint, capsys):
    assert not check("vectors.longer_arrow", answer)
    assert hint in said(capsys)


# --- every chapter 1 grader keeps the contract -------------------------------------------------

CH01 = [i for i in attncheck.exercise_ids() if i.startswith("vectors.")]


def test_chapter_1_has_the_exercises_the_notebook_uses():
    assert CH01 == ["vectors.angle_between", "vectors.closest_to_sat", "vectors.longer_arrow"]


def test_angle_between_figure_marks_the_angle_and_reads_on_a_phone():
    from test_figure_text import MIN_PX, smallest_text_px

    fig = plot.angle_between("cat", attnlib.VOCAB_2D["cat"], "car", attnlib.VOCAB_2D["car"])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "71°" in texts
    assert fig.get_figwidth() <= 5.8 and smallest_text_px(fig)[0] >= MIN_PX
