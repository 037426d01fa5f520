"""The learner's record of exercises: `check` records each verdict, `attncheck.progress()` reads it.

The suite runs with ATTNLIB_PROGRESS=off (tests/conftest.py); each test here points it at a
file of its own. The tests that matter most run in a fresh process, as a fresh kernel would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import make_commands

import attncheck
import attnlib
from attncheck import check, exercise_ids, get, verdicts
from attncheck import record as R
from attncheck.record import attempts, recording, store
from attnlib import course

ROOT = Path(__file__).resolve().parents[1]
ID = "softmax.by_hand"  # an exercise whose answers are plain lists


@pytest.fixture
def record(tmp_path, monkeypatch):
    """A fresh record file for this test, and a fresh session (no notice given, nothing off)."""
    path = tmp_path / "progress.json"
    monkeypatch.setenv("ATTNLIB_PROGRESS", str(path))
    monkeypatch.setattr(recording, "off", {})
    monkeypatch.setattr(recording, "noticed", False)
    return path


def entries(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))["exercises"]


def flat(text: str) -> str:
    """Printed text with its line wrapping undone."""
    return " ".join(text.split())


def run_python(code: str, record_file: Path | str, timeout: int = 120) -> str:
    """Run `code` in a fresh interpreter, as a fresh kernel would; return its stdout."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTNLIB_PROGRESS": str(record_file)}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        check=False,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


# --- the "Done when" ------------------------------------------------------------

FRESH_KERNEL = f"""
    import attncheck
    from attncheck import get
    ex = get({ID!r})
    print("WRONG", bool(attncheck.check({ID!r}, ex.wrong[0])))
    print("RIGHT", bool(attncheck.check({ID!r}, ex.right[0])))
    shown = attncheck.progress()
    e = shown.exercises[{ID!r}]
    print("STATUS", e.status, e.attempts)
    print(shown)
"""


def test_done_when_wrong_then_right_shows_solved_after_two_attempts(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text("")  # an empty temporary file
    out = run_python(FRESH_KERNEL, path)
    assert "WRONG False" in out and "RIGHT True" in out
    assert "STATUS solved 2" in out
    assert f"✓ {ID}" in out and "solved, 2 attempts" in out
    saved = entries(path)[ID]
    assert saved["attempts"] == 2 and saved["solved"] is True
    assert saved["first"].endswith("Z") and saved["first"] <= saved["last"]
    assert "notice" not in out.lower() and "record is off" not in out


def test_done_when_a_corrupt_file_gives_one_notice_and_no_error(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text('{"format": 1, "exercises": {"ch09.by_ha')
    out = flat(run_python(FRESH_KERNEL, path))  # the notice is wrapped like a hint
    assert "WRONG False" in out and "RIGHT True" in out
    assert out.count("record is off") == 1, out
    assert "not valid JSON" in out and "progress(reset=True)" in out
    assert "STATUS not started 0" in out  # progress() still shows the course
    assert path.read_text() == '{"format": 1, "exercises": {"ch09.by_ha'  # as it was


# --- 1. check records each verdict -------------------------------------------------------


def test_each_verdict_is_recorded_and_solved_stays_solved(record, capsys):
    ex = get(ID)
    check(ID, ex.right[0])
    check(ID, ex.wrong[0])
    saved = entries(record)[ID]
    assert saved["attempts"] == 2 and saved["solved"] is True
    check("softmax.doubled", get("softmax.doubled").wrong[0])
    assert entries(record)["softmax.doubled"] == {
        **entries(record)["softmax.doubled"],
        "attempts": 1,
        "solved": False,
    }


def test_missing_file_and_folders_are_created(tmp_path, monkeypatch, capsys):
    path = tmp_path / "a" / "b" / "progress.json"
    monkeypatch.setenv("ATTNLIB_PROGRESS", str(path))
    check(ID, get(ID).right[0])
    assert entries(path)[ID]["solved"] is True
    assert "record" not in capsys.readouterr().out.lower()


def test_placeholders_typos_and_solution_cells_are_not_attempts(record, monkeypatch, capsys):
    def softmax(x): ...  # the exercise's placeholder, unfilled

    def online_step(m, l, z, s, v):  # a stub with lines to fill in, as chapter 17 has
        m_new = None  # replace each None
        l_new = None
        z_new = None
        return m_new, l_new, z_new

    check(ID, None)
    check(ID, ...)
    check("softmax.stable_softmax", softmax)
    check("cpu_vs_gpu.online_step", online_step)
    check("ch09.by_hnad", [0.1, 0.2, 0.7])
    assert not record.exists() or entries(record) == {}
    monkeypatch.setattr(attempts, "in_solution_cell", lambda: True)
    check(ID, get(ID).right[0])
    assert not record.exists() or entries(record) == {}


def test_a_function_with_a_body_is_an_attempt(record, capsys):
    def softmax(x):
        return x  # wrong, but written

    def online_step(m, l, z, s, v):
        """Not filled in, but it says something."""
        return 0.0, None, None

    check("softmax.stable_softmax", softmax)
    check("softmax.stable_softmax", lambda x: None)  # a placeholder: not counted
    check("cpu_vs_gpu.online_step", online_step)
    assert entries(record)["softmax.stable_softmax"]["attempts"] == 1
    assert entries(record)["cpu_vs_gpu.online_step"]["attempts"] == 1


def test_recording_off_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ATTNLIB_PROGRESS", "off")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    check(ID, get(ID).right[0])
    assert list(tmp_path.rglob("*.json")) == []
    assert "off" in attncheck.progress().note


def test_default_file_follows_each_platform(monkeypatch, tmp_path):
    monkeypatch.delenv("ATTNLIB_PROGRESS", raising=False)
    monkeypatch.setattr(Path, "home", lambda: tmp_path)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", "/xdg")
    assert R.record_path() == Path("/xdg/attnlib/progress.json")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    assert R.record_path() == tmp_path / ".local/share/attnlib/progress.json"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert R.record_path() == tmp_path / "Library/Application Support/attnlib/progress.json"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "Roaming"))
    assert R.record_path() == tmp_path / "Roaming" / "attnlib" / "progress.json"
    monkeypatch.setenv("ATTNLIB_PROGRESS", "~/mine.json")
    assert R.record_path() == Path("~/mine.json").expanduser()
    monkeypatch.setenv("ATTNLIB_PROGRESS", " OFF ")
    assert R.record_path() is None


# --- 2 and 3. progress(): per chapter, next, reset, one chapter ---------------------------


def test_progress_shows_every_chapter_in_order_with_titles(record, capsys):
    shown = attncheck.progress()
    numbers = [c.number for c in shown.chapters]
    assert numbers == sorted(numbers) and numbers[0] == 1 and len(numbers) == len(course.chapters())
    assert list(shown.exercises) == exercise_ids()  # both in the course's order
    assert [e.id for e in shown.chapters[8].exercises] == [  # as chapter 9 asks them
        "softmax.by_hand",
        "softmax.gap",
        "softmax.stable_softmax",
        "softmax.doubled",
    ]
    text = repr(shown)  # a chapter not started is one line
    assert "Chapter 2: Stacking word vectors into the matrix X (not started, 3 exer" in text
    assert "the_matrix_x.make_x" not in text
    titles = {c.number: c.title for c in shown.chapters}
    assert titles[9] == "Softmax and the attention matrix A"
    assert titles[1] == "The vector, its length and the angle between two arrows"
    assert all(e.status == "not started" for e in shown.exercises.values())
    assert shown.next == exercise_ids()[0]


def test_solved_tried_and_not_started_per_chapter(record, capsys):
    check(ID, get(ID).right[0])
    check("softmax.stable_softmax", get("softmax.stable_softmax").wrong[0])
    nine = attncheck.progress(chapter=9)
    assert [c.number for c in nine.chapters] == [9]
    status = {e.id: (e.status, e.attempts) for e in nine.chapters[0].exercises}
    assert status == {
        ID: ("solved", 1),
        "softmax.stable_softmax": ("tried", 1),
        "softmax.gap": ("not started", 0),
        "softmax.doubled": ("not started", 0),
    }
    assert nine.chapters[0].count("solved") == 1
    assert nine.next == "softmax.stable_softmax"  # the last one checked, still unsolved
    text = repr(nine)
    assert "Chapter 9: Softmax and the attention matrix A" in text
    assert "1 solved, 1 tried, 2 not started" in text
    assert "Next to try: chapter 9, exercise 3 (softmax.stable_softmax)" in text
    assert "weighted_sum" not in text


def test_next_goes_on_from_the_last_solved_and_wraps_round(record, monkeypatch, capsys):
    nine = [e.id for e in attncheck.progress(chapter=9).chapters[0].exercises]
    ten = [e.id for e in attncheck.progress(chapter=10).chapters[0].exercises]
    monkeypatch.setattr(store, "now", lambda: "2026-01-01T00:00:00Z")  # all in one second
    check(nine[0], get(nine[0]).wrong[0])
    check(nine[-1], get(nine[-1]).right[0])  # the later check counts
    assert attncheck.progress().next == ten[0]  # the exercise after the last one checked
    assert attncheck.progress(chapter=9).next == nine[0]  # its last: wrap to its first
    check(ten[0], get(ten[0]).wrong[0])
    check(nine[0], get(nine[0]).wrong[0])  # back to an earlier one, left unsolved
    assert attncheck.progress().next == nine[0]
    for i in exercise_ids():
        check(i, get(i).right[0])
    assert attncheck.progress().next is None
    assert "Every exercise here is solved." in repr(attncheck.progress())


def test_progress_is_an_html_table_in_jupyter(record, capsys):
    check(ID, get(ID).wrong[0])
    html = attncheck.progress()._repr_html_()
    assert html.count("<table") == 1 and "<th" in html
    assert "9. Softmax and the attention matrix A" in html
    assert f"<code>{ID}</code>" in html and "tried (1 attempt)" in html
    assert "Next to try: chapter 9, exercise 1 (softmax.by_hand)" in html
    three = attncheck.progress(chapter=3)._repr_html_()
    assert "X ∈ ℝ^(n×d_model)" in three and "{" not in three and "<script" not in three


def test_a_chapter_without_exercises_is_a_clear_error(record):
    last = len(course.chapters())  # every chapter has checked exercises
    for bad in (0, last + 1, "9", True, 9.0):
        with pytest.raises(ValueError, match=rf"from 1 to {last}"):
            attncheck.progress(chapter=bad)


def test_reset_clears_and_says_how_many(record, capsys):
    for i in (ID, "softmax.doubled", "weighted_sum.z_row"):
        check(i, get(i).wrong[0])
    capsys.readouterr()
    assert attncheck.progress(reset=True, chapter=9) is None
    assert capsys.readouterr().out.strip() == ("Cleared your exercise record of chapter 9: 2 entries removed.")
    assert list(entries(record)) == ["weighted_sum.z_row"]
    attncheck.progress(reset=True)
    assert capsys.readouterr().out.strip() == "Cleared your exercise record: 1 entry removed."
    assert entries(record) == {}
    assert all(e.status == "not started" for e in attncheck.progress().exercises.values())


def test_reset_replaces_a_corrupt_record_and_recording_resumes(record, capsys):
    record.write_text("not json")
    check(ID, get(ID).wrong[0])
    assert "record is off" in flat(capsys.readouterr().out)
    attncheck.progress(reset=True)
    assert "replaced by an empty record" in capsys.readouterr().out
    check(ID, get(ID).right[0])
    assert entries(record)[ID]["solved"] is True


def test_reset_with_recording_off_says_so(monkeypatch, capsys):
    monkeypatch.setenv("ATTNLIB_PROGRESS", "off")
    attncheck.progress(reset=True)
    assert "Recording is off" in capsys.readouterr().out


# --- 4. robust --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, why",
    [
        ("{]", "not valid JSON"),
        ("[1, 2]", "no exercises"),
        ('{"format": 99, "exercises": {}}', "newer attncheck"),
        (
            '{"format": 1, "exercises": {"softmax.by_hand": {"attempts": "two"}}}',
            "damaged",
        ),
        (b"\xff\xfe\x00junk", "cannot be read"),
    ],
)
def test_an_unreadable_record_is_left_alone_with_one_notice(record, capsys, content, why):
    record.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = record.read_bytes()
    verdicts = [bool(check(ID, get(ID).right[0])) for _ in range(3)]
    out = flat(capsys.readouterr().out)
    assert verdicts == [True] * 3
    assert out.count("✓") == 3 and out.count("record is off") == 1 and why in out
    assert record.read_bytes() == before
    assert why in attncheck.progress().note


def test_a_read_only_record_is_left_alone_with_one_notice(record, capsys):
    check(ID, get(ID).wrong[0])
    record.chmod(0o444)
    before = record.read_text()
    try:
        check(ID, get(ID).right[0])
        check(ID, get(ID).right[0])
    finally:
        record.chmod(0o644)
    out = flat(capsys.readouterr().out)
    assert out.count("record is off") == 1 and "read-only" in out
    assert "make the file writable" in out and "reset" not in out  # a reset would not help
    assert record.read_text() == before


def test_a_folder_that_cannot_be_made_gives_one_notice(tmp_path, monkeypatch, capsys):
    (tmp_path / "a_file").write_text("")
    monkeypatch.setenv("ATTNLIB_PROGRESS", str(tmp_path / "a_file" / "progress.json"))
    monkeypatch.setattr(recording, "off", {})
    monkeypatch.setattr(recording, "noticed", False)
    assert bool(check(ID, get(ID).right[0])) and bool(check(ID, get(ID).right[0]))
    out = flat(capsys.readouterr().out)
    assert out.count("record is off") == 1 and "cannot be written" in out


def test_nothing_inside_the_record_escapes_check(record, monkeypatch, capsys):
    def boom(*args):
        raise RuntimeError("disk on fire")

    for module, name in [
        (store, "read"),
        (store, "write"),
        (store, "now"),
        (verdicts, "is_attempt"),
        (store, "record_path"),
    ]:
        with monkeypatch.context() as m:
            m.setattr(module, name, boom)
            assert bool(check(ID, get(ID).right[0]))
    assert "disk on fire" not in capsys.readouterr().out


def test_a_busy_record_never_makes_check_wait_long(record, capsys):
    import fcntl

    check(ID, get(ID).wrong[0])
    # another notebook in the middle of a write
    with open(str(record) + ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        start = time.perf_counter()
        assert bool(check(ID, get(ID).right[0]))
        waited = time.perf_counter() - start
        assert bool(check(ID, get(ID).right[0]))
    assert waited < R.LOCK_TIMEOUT_S + 0.5
    assert flat(capsys.readouterr().out).count("was not recorded") == 1
    assert entries(record)[ID]["attempts"] == 1
    check(ID, get(ID).right[0])  # and the next verdict is recorded again
    assert entries(record)[ID]["solved"] is True


HAMMER = """
    import sys
    from attncheck.record import record
    ids = ["softmax.by_hand", "weighted_sum.z_row", "ch%s.only_mine" % sys.argv[1]]
    for n in range({n}):
        record(ids[n % 2], n % 5 == 0)
"""


def test_two_processes_checking_at_once_lose_no_verdict(tmp_path):
    path = tmp_path / "progress.json"
    n = 150
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTNLIB_PROGRESS": str(path)}
    code = textwrap.dedent(HAMMER.format(n=n))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(k)], env=env, cwd=ROOT) for k in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    saved = entries(path)
    assert saved["softmax.by_hand"]["attempts"] + saved["weighted_sum.z_row"]["attempts"] == 2 * n
    assert saved["softmax.by_hand"]["attempts"] == n  # each process: n/2 on each id
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []


def test_a_reader_never_sees_a_half_written_record(tmp_path):
    path = tmp_path / "progress.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTNLIB_PROGRESS": str(path)}
    writer = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(HAMMER.format(n=200)), "0"],
        env=env,
        cwd=ROOT,
    )
    reads = 0
    while writer.poll() is None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        json.loads(text)  # a partial file would raise here
        reads += 1
    assert writer.returncode == 0 and reads > 0


def test_unknown_ids_from_an_older_course_are_kept_and_shown_apart(record, capsys):
    old = {"attempts": 3, "solved": True, "first": "2025-01-01T00:00:00Z", "last": None}
    record.write_text(json.dumps({"format": 1, "exercises": {"ch09.retired": old}}))  # an old id, too
    check(ID, get(ID).right[0])
    assert entries(record)["softmax.retired"] == old  # kept, under the id it has now
    shown = attncheck.progress()
    assert [e.id for e in shown.unknown] == ["softmax.retired"]
    assert "softmax.retired" not in shown.exercises
    assert "Not in this version of the course" in repr(shown)
    assert "Not in this version of the course" in shown._repr_html_()
    assert [e.id for e in attncheck.progress(chapter=9).unknown] == ["softmax.retired"]
    assert [e.id for e in attncheck.progress(chapter=10).unknown] == []


# --- 5. never in the way of the book or the tests ----------------------------------------


def test_the_test_suite_runs_with_recording_off():
    assert os.environ.get("ATTNLIB_PROGRESS") == "off"


@pytest.mark.parametrize("target", ["test", "execute"])
def test_make_runs_tests_and_notebooks_with_recording_off(target):
    commands = make_commands(target)
    runs = [line for line in commands if "pytest" in line or "jupyter execute" in line]
    assert runs and all("ATTNLIB_PROGRESS=off" in line for line in runs), commands


def test_run_all_on_a_fresh_notebook_records_nothing_but_the_learners_own_attempt(
    tmp_path,
):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    path = tmp_path / "progress.json"
    cells = [
        "import attncheck\nfrom attncheck import get",
        f"answer = None  # replace None\nattncheck.check({ID!r}, answer)",
        f"# Solution\nattncheck.check({ID!r}, get({ID!r}).right[0])",
        f"attncheck.check({ID!r}, get({ID!r}).wrong[0])  # the learner's own try",
        f"print(attncheck.progress(chapter=9).exercises[{ID!r}].status)",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    env = {"PYTHONPATH": str(ROOT), "ATTNLIB_PROGRESS": str(path)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits this process's environment
    try:
        nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    assert entries(path) == {ID: {**entries(path)[ID], "attempts": 1, "solved": False}}
    assert nb.cells[-1].outputs[0]["text"].strip() == "tried"


# --- attnlib stays light ----------------------------------------------------------------


def test_attnlib_loads_no_record_and_progress_stays_a_function_after_check():
    code = (
        "import sys, attnlib; print(any(m.startswith('attncheck') for m in sys.modules));"
        "import attncheck; attncheck.check('softmax.by_hand', [1, 2, 3]);"
        "print(callable(attncheck.progress), attncheck.progress.__name__)"
    )
    out = run_python(code, "off")
    assert out.splitlines()[0] == "False"
    assert out.splitlines()[-1] == "True progress"
    assert "progress" in attncheck.__all__ and "progress" not in attnlib.__all__
