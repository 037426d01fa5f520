"""Exercise ids survive a new chapter: they are named by the chapter's subject, never its number.

The ids of the number days (`ch09.by_hand`, written here on purpose, so the rename tool leaves this
file alone) still work: in `check`, in a learner's record, and in a grader ported as it was.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

import attncheck
from attncheck import get, registry
from attncheck.record import ids, recording
from attnlib import course

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import course_data
import rename_exercise_ids as tool

TOC = ROOT / "_toc.yml"


@pytest.fixture
def toc_with_a_new_chapter(monkeypatch):
    """A copy of _toc.yml with a dummy chapter inserted after the fourteenth, as the course will gain one."""
    today = {subject: number for number, subject, _ in course.chapters()}  # each chapter's number before it
    text = TOC.read_text(encoding="utf-8")
    last_of_part_four = re.search(r"^(\s*- file: chapters/14_\w+\n)", text, re.MULTILINE).group(1)
    toc = text.replace(last_of_part_four, last_of_part_four + "      - file: chapters/15_a_new_idea\n")
    monkeypatch.setattr(course, "CHAPTERS", course_data.chapters_in(toc))  # as `make course-data` would write it
    return today


def test_a_chapter_inserted_first_moves_the_numbers_hints_name(monkeypatch, capsys):
    text = TOC.read_text(encoding="utf-8")
    first = re.search(r"^(\s*- file: chapters/01_\w+\n)", text, re.MULTILINE).group(1)
    toc = text.replace(first, "      - file: chapters/01_a_preface\n" + first)
    monkeypatch.setattr(course, "CHAPTERS", course_data.chapters_in(toc))  # as `make course-data` would write it
    before = [ex.id for ex in registry.exercises()]
    unscaled = get("weighted_sum.self_attention").wrong[0]  # no division by √d_k
    assert not attncheck.check("weighted_sum.self_attention", unscaled)
    assert "(chapter 9)" in capsys.readouterr().out  # the scaling chapter, 8 in today's book
    assert attncheck.exercise_ids() == before


def test_every_id_is_named_by_a_chapter_of_the_toc():
    subjects = {s for _, s, _ in course.chapters()}
    exercises = registry.exercises()
    assert exercises and all(ex.id.startswith(ex.subject + ".") and ex.subject in subjects for ex in exercises)
    assert [course.number(ex.subject) for ex in exercises] == sorted(course.number(ex.subject) for ex in exercises)


def test_each_grader_registers_ids_of_its_own_chapter():
    """One prefix per grader module, and no prefix in two chapters: an old `ch15.` id kept in the new chapter's
    module fails here. A chapter may spread its graders over modules named for it (many_heads, many_heads_capstone)."""
    prefixes: dict[str, set[str]] = {}
    chapters: dict[str, set[str]] = {}
    for ex in registry.exercises():
        chapter = sys.modules[ex.checker.__module__].CHAPTER[0]
        assert chapter == ex.subject
        assert ex.checker.__module__.rpartition(".")[2].startswith(chapter), ex.checker.__module__
        prefix = ex.id.partition(".")[0]
        prefixes.setdefault(ex.checker.__module__, set()).add(prefix)
        chapters.setdefault(prefix, set()).add(chapter)
    assert all(len(p) == 1 for p in prefixes.values()), prefixes
    assert all(len(c) == 1 for c in chapters.values()), chapters


def test_an_id_may_name_its_chapter_by_a_shorter_word(toc_with_a_new_chapter, tmp_path, monkeypatch):
    import attncheck as package

    (tmp_path / "a_new_idea.py").write_text(NEW_GRADER.replace('"a_new_idea.guess"', '"new.guess"'))
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_loaded", False)
    try:
        assert get("new.guess").subject == "a_new_idea" and registry.chapter_number("a_new_idea") == 15
        assert attncheck.exercise_ids().index("new.guess") < attncheck.exercise_ids().index("counting_and_timing.flops")
    finally:
        registry._REGISTRY.pop("new.guess", None)
        sys.modules.pop("attncheck.a_new_idea", None)


def test_a_new_chapter_changes_no_id_and_the_numbers_shown_follow(toc_with_a_new_chapter, monkeypatch):
    before = attncheck.exercise_ids()
    timing = [i for i in before if i.startswith("counting_and_timing.")]
    monkeypatch.setenv("ATTNLIB_PROGRESS", "off")
    numbers = {c.title: c.number for c in attncheck.progress().chapters}
    today = toc_with_a_new_chapter
    assert numbers["Counting and timing"] == today["counting_and_timing"] + 1  # one place later
    assert numbers["CPU versus GPU"] == today["cpu_vs_gpu"] + 1
    assert numbers["Softmax and the attention matrix A"] == 9
    assert [e.id for e in attncheck.progress(chapter=numbers["Counting and timing"]).chapters[0].exercises] == timing
    assert course.chapter_ref("counting_and_timing") == f"chapter {today['counting_and_timing'] + 1}"
    assert attncheck.exercise_ids() == before


def test_without_the_new_chapter_the_numbers_are_as_today():
    last = len(course.chapters())  # the timing chapters close the book, after the trained model's
    assert course.number("counting_and_timing") == last - 1 and course.number("cpu_vs_gpu") == last
    assert course.number("trained_model") == 15


def test_old_ids_are_read_as_the_new_ones():
    assert ids.current_id("ch09.by_hand") == "softmax.by_hand"
    assert ids.current_id("ch15.flops") == "counting_and_timing.flops"  # the old numbers are frozen
    assert ids.current_id("softmax.by_hand") == "softmax.by_hand"
    assert ids.current_id("ch99.x") == "ch99.x"
    assert set(ids.OLD_NUMBERS.values()) <= {s for _, s, _ in course.chapters()}
    assert get("ch09.by_hand") is get("softmax.by_hand")


def test_an_old_id_in_a_learners_notebook_is_still_checked(capsys):
    assert bool(attncheck.check("ch09.by_hand", get("softmax.by_hand").right[0]))
    assert not attncheck.check("ch09.by_hnad", [1.0])
    assert "this chapter has: softmax.by_hand" in " ".join(capsys.readouterr().out.split())


def test_a_grader_ported_with_an_old_id_registers_the_new_one():
    registry.exercise("ch09.ported_as_it_was", right=[], wrong=[])(lambda answer: None)
    try:
        assert get("softmax.ported_as_it_was").subject == "softmax"
    finally:
        registry._REGISTRY.pop("softmax.ported_as_it_was")


TODAYS_RECORD = {  # a record file as the number-id version wrote it
    "format": 1,
    "exercises": {
        "ch09.by_hand": {
            "attempts": 2,
            "solved": True,
            "first": "2026-11-01T10:00:00Z",
            "last": "2026-11-01T10:05:00Z",
        },
        "ch16.online_step": {"attempts": 1, "solved": True, "first": "2026-11-20T09:00:00Z", "last": None},
        "ch10.z_row": {"attempts": 3, "solved": False, "first": "2026-11-02T10:00:00Z", "last": "2026-11-02T11:00:00Z"},
        "weighted_sum.z_row": {
            "attempts": 1,
            "solved": True,
            "first": "2026-12-02T08:00:00Z",
            "last": "2026-12-02T08:00:00Z",
        },
    },
}


def test_a_record_with_old_ids_shows_every_solved_exercise_under_the_new_ids(tmp_path, monkeypatch, capsys):
    path = tmp_path / "progress.json"
    path.write_text(json.dumps(TODAYS_RECORD))
    monkeypatch.setenv("ATTNLIB_PROGRESS", str(path))
    monkeypatch.setattr(recording, "off", {})
    shown = attncheck.progress()
    solved = {i for i, e in shown.exercises.items() if e.status == "solved"}
    assert solved == {"softmax.by_hand", "cpu_vs_gpu.online_step", "weighted_sum.z_row"}
    z_row = shown.exercises["weighted_sum.z_row"]  # an old and a new entry of one exercise, merged
    assert (z_row.attempts, z_row.first, z_row.last) == (4, "2026-11-02T10:00:00Z", "2026-12-02T08:00:00Z")
    assert shown.unknown == []
    attncheck.check("softmax.doubled", get("softmax.doubled").wrong[0])  # the next write keeps only new ids
    saved = json.loads(path.read_text())["exercises"]
    assert sorted(saved) == ["cpu_vs_gpu.online_step", "softmax.by_hand", "softmax.doubled", "weighted_sum.z_row"]
    assert saved["softmax.by_hand"] == TODAYS_RECORD["exercises"]["ch09.by_hand"]


def test_the_rename_tool_rewrites_registered_ids_only_and_twice_is_once():
    known = set(attncheck.exercise_ids())
    text = 'check("ch09.by_hand", x)  # see ch09.py, ch09._helper, "ch09.", ch09.by_hnad, `check("ch01.…")`'
    once = tool.renamed(text, known)
    assert (
        once
        == 'check("softmax.by_hand", x)  # see ch09.py, ch09._helper, "softmax.", ch09.by_hnad, `check("vectors.…")`'
    )
    assert tool.renamed(once, known) == once


def test_no_old_id_is_left_in_the_repository():
    known = set(attncheck.exercise_ids())
    left = [
        str(p.relative_to(ROOT))
        for p in tool.files()
        if tool.renamed(p.read_text(encoding="utf-8"), known) != p.read_text(encoding="utf-8")
    ]
    assert left == [], "run tools/rename_exercise_ids.py"


NEW_GRADER = """
from attncheck import Wrong, exercise

CHAPTER = "a_new_idea", "a new idea"


@exercise("a_new_idea.guess", right=[1], wrong=[2], catches="a two", solution="answer = 1")
def _guess(answer):
    if answer != 1:
        raise Wrong("Not that one.")
"""


def test_a_grader_for_a_new_chapter_is_found_whatever_its_file_is_called(toc_with_a_new_chapter, tmp_path, monkeypatch):
    import attncheck as package

    (tmp_path / "a_new_idea.py").write_text(NEW_GRADER)
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setenv("ATTNLIB_PROGRESS", "off")
    try:
        assert "a_new_idea.guess" in attncheck.exercise_ids()
        chapters = {c.number: c for c in attncheck.progress().chapters}
        assert chapters[15].title == "A new idea" and [e.id for e in chapters[15].exercises] == ["a_new_idea.guess"]
        assert chapters[toc_with_a_new_chapter["counting_and_timing"] + 1].title == "Counting and timing"
        assert attncheck.exercise_ids().index("a_new_idea.guess") < attncheck.exercise_ids().index(
            "counting_and_timing.flops"
        )
    finally:
        registry._REGISTRY.pop("a_new_idea.guess", None)
        sys.modules.pop("attncheck.a_new_idea", None)


# --- every id the course ever published -------------------------------------------------------

# Every `chNN.` id a grader registered from the first commit (30 November 2026) to the subject
# ids (2 December), recovered with `git grep 'exercise("ch'` over each commit of that history.
PUBLISHED = [
    "ch01.angle",
    "ch01.angle_between",
    "ch01.closest_to_kitten",
    "ch01.closest_to_sat",
    "ch01.d_model",
    "ch01.longer_arrow",
    "ch02.build_x",
    "ch02.make_x",
    "ch02.shapes_after_edit",
    "ch03.attention_shapes",
    "ch03.illegal_tag",
    "ch03.read_shapes",
    "ch03.tag_of_array",
    "ch03.true_tags",
    "ch04.by_hand",
    "ch04.design_w",
    "ch04.my_matmul",
    "ch04.row_view",
    "ch04.shapes",
    "ch05.d_k_heads",
    "ch05.q_by_hand",
    "ch05.swap_slots",
    "ch05.w_shapes",
    "ch06.ab_transpose",
    "ch06.by_hand",
    "ch06.pair_cell",
    "ch06.product_transpose",
    "ch06.qkt_shape",
    "ch06.transpose_order",
    "ch06.trap",
    "ch07.changed_key",
    "ch07.distance",
    "ch07.dots_by_hand",
    "ch07.doubling",
    "ch07.key_design",
    "ch07.most_aligned",
    "ch07.score_cell",
    "ch08.ninefold",
    "ch08.scale",
    "ch08.spread",
    "ch09.by_hand",
    "ch09.doubled",
    "ch09.gap",
    "ch09.most_attended",
    "ch09.stable_softmax",
    "ch10.causal_mask",
    "ch10.flops",
    "ch10.self_attention",
    "ch10.what_changes",
    "ch10.z_row",
    "ch11.causal_mask",
    "ch11.causal_zeros",
    "ch11.crossover",
    "ch11.flops",
    "ch11.masked_count",
    "ch11.masked_row",
    "ch11.memory_of_a",
    "ch11.online_step",
    "ch11.padding_mask",
    "ch11.time_at_2n",
    "ch12.multi_head",
    "ch12.score_flops",
    "ch12.split_shape",
    "ch13.pe_row",
    "ch13.shuffled_rows",
    "ch14.expected_key",
    "ch14.weight_on",
    "ch15.crossover",
    "ch15.flops",
    "ch15.intensity",
    "ch15.memory_of_a",
    "ch15.online_step",
    "ch15.time_at_2n",
    "ch16.memory_of_a",
    "ch16.online_step",
]
# first-edition ids the issue names, and where each must lead
FIRST_EDITION = {
    "ch15.online_step": "cpu_vs_gpu.online_step",
    "ch10.causal_mask": "masks.causal_mask",
    "ch11.flops": "counting_and_timing.flops",
    "ch11.memory_of_a": "cpu_vs_gpu.memory_of_a",
}


@pytest.mark.parametrize("old", PUBLISHED)
def test_every_published_id_resolves_or_says_which_id_asks_now(old, capsys):
    found = registry.find(old)
    if old in ids.RETIRED:
        assert found is None
        instead = ids.RETIRED[old]
        assert registry.find(instead) is not None, f"{old} points at {instead}, which is not registered"
        assert instead in ids.retired_note(old)
        printed = " ".join(attncheck.check(old, 1.0).message.split())
        assert instead in printed, f"{old}: {printed}"
        assert " ".join(ids.retired_note(old).split()) in printed, f"{old} is not told its one-line note: {printed}"
        return
    assert found is not None, f"{old} names no exercise: {attncheck.check(old, None).message}"
    right = get(found.id).right[0]
    assert attncheck.check(old, right), f"{old} ({found.id}) rejected its right answer"
    capsys.readouterr()


@pytest.mark.parametrize(("old", "now"), FIRST_EDITION.items())
def test_first_edition_ids_lead_to_their_exercise_not_the_chapter_of_that_number_today(old, now):
    assert get(old).id == now


def test_second_edition_numbers_are_the_bare_numbers():
    assert ids.current_id("ch15.flops") == "counting_and_timing.flops"
    assert ids.current_id("ch16.online_step") == "cpu_vs_gpu.online_step"
    assert ids.current_id("ch12.score_flops") == "many_heads.score_flops"
