"""The two packages stand on their own: attnlib (the library) and attncheck (the checker and the
learner's record) read nothing of the book at run time, carry what they need of it as generated
data that is never stale, install from their wheels into a fresh environment and work there, and
a grader that fails to import takes nothing else down with it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from attncheck import check, exercise_ids, registry

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import course_data


def _run(code: str, python: str = sys.executable, cwd: Path = ROOT, **env: str) -> str:
    """Run `code` in a fresh interpreter; its stdout (stderr must be empty)."""
    proc = subprocess.run(
        [python, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "ATTNLIB_PROGRESS": "off", **env},
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


# --- what the packages know of the book is data inside them, generated and never stale ----------


def test_the_course_data_in_the_packages_is_what_the_book_says_today():
    stale = [str(path.relative_to(ROOT)) for path, text in course_data.generated().items() if path.read_text() != text]
    assert stale == [], f"stale: {stale}; run `make course-data` (python tools/course_data.py)"


def test_the_generator_follows_a_chapter_inserted_before_the_timing_chapters(tmp_path):
    """Re-runnable as the book grows: a new chapter at the end of Part IV moves the timing chapters one place on."""
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    before = course_data.chapters_in(toc)
    timing = next(n for n, subject, _ in before if subject == "counting_and_timing")
    lines = toc.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "_counting_and_timing" in line)
    new_stem = f"{timing:02d}_a_new_idea"
    lines.insert(at - 3, f"      - file: chapters/{new_stem}\n")  # the last chapter of Part IV, before its caption
    (tmp_path / "_toc.yml").write_text("".join(lines))
    (tmp_path / "chapters").mkdir()
    for notebook in (ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"):
        (tmp_path / "chapters" / notebook.name).symlink_to(notebook)
    cells = [
        {"cell_type": "markdown", "source": ["## Exercises\n", "\n", ":::{exercise}\n", "Guess.\n", ":::\n"]},
        {"cell_type": "code", "source": ['check("a_new_idea.guess", answer)']},
    ]
    (tmp_path / "chapters" / f"{new_stem}.ipynb").write_text(json.dumps({"cells": cells}))
    made = {path.name: text for path, text in course_data.generated(tmp_path).items()}
    after = course_data.chapters_in((tmp_path / "_toc.yml").read_text())
    assert after[timing - 1 :] == tuple(
        [(timing, "a_new_idea", new_stem)] + [(n + 1, subject, stem) for n, subject, stem in before[timing - 1 :]]
    )
    assert f'({timing}, "a_new_idea", "{new_stem}"),' in made["course_data.py"]
    assert '"a_new_idea": {\n        "a_new_idea.guess": 1,\n    },' in made["exercise_places.py"]


def test_every_registered_exercise_has_its_place_in_its_chapter():
    """So `progress()` can always say "chapter 9, exercise 2", and no place names an exercise that is gone."""
    from attncheck.exercise_places import PLACES

    registered = {(ex.subject, ex.id) for ex in registry.exercises()}
    placed = {(subject, exercise_id) for subject, ids in PLACES.items() for exercise_id in ids}
    assert registered - placed == set() and placed - registered == set()


def test_a_subject_the_table_lacks_says_how_to_refresh_it():
    from attnlib import course

    with pytest.raises(ValueError, match=r"no chapter on 'a_new_idea' .*`make course-data`"):
        course.number("a_new_idea")


def test_the_places_are_each_exercise_s_number_among_its_chapter_s_exercises():
    places = course_data.places_in(
        {
            "cells": [
                {"cell_type": "code", "source": ['check("x.before_any_exercise", 1)']},
                {"cell_type": "markdown", "source": [":::{exercise}\n:::\n"]},
                {"cell_type": "code", "source": ['check("x.one", a)\ncheck( "x.two", b)']},
                {"cell_type": "markdown", "source": ["::::{exercise}\n::::\n\n:::{exercise}\n:::"]},
                {"cell_type": "code", "source": ["check('x.three', c)\ncheck('x.one', a)"]},
            ]
        }
    )
    assert places == {"x.one": 1, "x.two": 1, "x.three": 3}


# --- neither package opens a file of the book, at import or at check -------------------------------

AUDIT = """
    import os, sys
    opened = []
    sys.addaudithook(lambda event, args: opened.append(args[0]) if event == "open" else None)
    import numpy as np
    import attnlib, attncheck
    from attncheck import registry, judge
    from attnlib import course, trained
    for ex in registry.exercises():
        for right in ex.right:
            assert judge(ex, right).ok, ex.id
    attncheck.check("weighted_sum.z_row", [0.9, 1.5])
    attncheck.check("weighted_sum.z_row", [0.9, 1.4])
    attncheck.progress()
    course.chapter_ref("softmax")
    with np.load(trained.REFERENCE) as data:
        trained.reference(str(data["sentences"][0]))
    print("OPENED", *sorted({os.fsdecode(p) for p in opened if isinstance(p, (str, bytes, os.PathLike))}), sep="\\n")
"""


def test_neither_package_opens_a_file_outside_itself_at_import_or_at_check():
    """Every file opened is the packages' own, the interpreter's and its installed libraries', an installed
    distribution's metadata (an editable install keeps `attnlib.egg-info` beside the package), or the
    system's (/proc, /sys, /dev): nothing of the book beside them (no _toc.yml, no notebook, no chapters/data)."""
    opened = _run(AUDIT, cwd=ROOT / "tests", PYTHONPATH=str(ROOT)).partition("OPENED\n")[2].splitlines()
    ours = tuple(str(ROOT / package) + os.sep for package in ("attnlib", "attncheck"))
    theirs = (sys.prefix, sys.base_prefix, *sysconfig.get_paths().values(), "/proc/", "/sys/", "/dev/")
    assert any(p.startswith(ours[0]) for p in opened) and any(p.startswith(ours[1]) for p in opened)
    metadata = (".egg-info", ".dist-info")  # what importlib.metadata reads of an installed distribution
    outside = [
        p
        for p in opened
        if not (p.startswith(ours) or os.path.realpath(p).startswith(theirs))
        and not any(part.endswith(metadata) for part in Path(p).parts)
    ]
    assert outside == []


PATHS = """
    import importlib, pkgutil
    from pathlib import PurePath
    import attncheck, attnlib
    for package in (attnlib, attncheck):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if isinstance(value, PurePath):
                    print(f"{info.name}.{name}", value)
"""


def test_every_path_a_module_keeps_points_inside_its_package():
    """A file a module will read later (a reference output, say) is the package's own data, not the book's."""
    kept = [line.split(" ", 1) for line in _run(PATHS, PYTHONPATH=str(ROOT)).splitlines()]
    assert "attnlib.trained.REFERENCE" in dict(kept)
    outside = [
        f"{name}: {path}" for name, path in kept if not Path(path).resolve().is_relative_to(ROOT / name.split(".")[0])
    ]
    assert outside == []


# --- registration is atomic -------------------------------------------------------------------

BROKEN = """
from attncheck import exercise

CHAPTER = "a_broken_idea", "a chapter whose grader breaks half-way"


@exercise("a_broken_idea.first", right=[1], wrong=[2])
def _first(answer):
    pass


raise ImportError("a name the grader needs is gone")
"""


@pytest.fixture
def a_broken_grader(tmp_path, monkeypatch):
    """A grader module that registers one exercise, then fails to import, beside the real ones."""
    import attncheck as package

    registry._load_all()  # the real graders first, so the registry's state can be put back after
    (tmp_path / "a_broken_idea.py").write_text(BROKEN)
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "FAILED", {})
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr("attncheck.verdicts.FAILED", registry.FAILED)
    yield
    sys.modules.pop("attncheck.a_broken_idea", None)


def test_a_grader_that_fails_to_import_registers_nothing_and_the_others_work(a_broken_grader, capsys):
    ids = exercise_ids()  # no "registered twice", no error
    assert exercise_ids() == ids and "a_broken_idea.first" not in ids
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.count("attncheck.a_broken_idea failed to import") == 1, err
    assert "ImportError: a name the grader needs is gone" in err
    assert check("weighted_sum.z_row", [0.9, 1.5])  # another chapter's right answer
    assert capsys.readouterr().out.startswith("✓")
    assert not check("a_broken_idea.first", 1)
    said = " ".join(capsys.readouterr().out.split())
    assert "cannot check 'a_broken_idea.first'" in said and "attncheck.a_broken_idea failed to import" in said


def test_a_grader_import_stopped_by_the_learner_leaves_nothing_behind(a_broken_grader, tmp_path):
    """The stop button (KeyboardInterrupt) during the first check's loading: the next check loads cleanly."""
    (tmp_path / "a_broken_idea.py").write_text(BROKEN.replace("raise ImportError(", "raise KeyboardInterrupt(", 1))
    with pytest.raises(KeyboardInterrupt):
        exercise_ids()
    (tmp_path / "a_broken_idea.py").write_text(BROKEN.rpartition("raise")[0])  # the next try imports
    sys.modules.pop("attncheck.a_broken_idea", None)
    assert "a_broken_idea.first" in exercise_ids()


# --- both packages from their wheels, in a fresh environment away from the book ------------------

WHEEL_RUN = """
    import sys
    import attncheck, attnlib
    from attncheck import judge, registry
    from attnlib import trained
    assert "site-packages" in attnlib.__file__ and "site-packages" in attncheck.__file__, attnlib.__file__
    refused = [(ex.id, n) for ex in registry.exercises() for n, right in enumerate(ex.right) if not judge(ex, right)]
    attncheck.check("weighted_sum.z_row", [0.9, 1.4])
    attncheck.check("weighted_sum.z_row", [0.9, 1.5])
    shown = attncheck.progress()
    print(len(attncheck.exercise_ids()), refused, registry.FAILED)
    print(shown.exercises["weighted_sum.z_row"])
    print(shown.next_where)
    from attnlib.interactive.trained import STORED  # the live figures' weights

    print(trained.REFERENCE.is_file() and STORED.is_file())
"""


@pytest.mark.end_to_end
def test_both_wheels_installed_in_a_fresh_environment_check_every_exercise(tmp_path):
    """Built from a copy of each package (so no build folder lands in the repository), installed with
    --no-index --no-deps; numpy and matplotlib come from this environment through a .pth file."""
    sources = tmp_path / "attnlib_source"
    sources.mkdir()
    (sources / "pyproject.toml").write_bytes((ROOT / "pyproject.toml").read_bytes())
    caches = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    shutil.copytree(ROOT / "attnlib", sources / "attnlib", ignore=caches)
    shutil.copytree(ROOT / "attncheck", tmp_path / "attncheck_source", ignore=caches)
    pip = [sys.executable, "-m", "pip"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(tmp_path / "dist")]
    subprocess.run([*build, str(sources), str(tmp_path / "attncheck_source")], check=True, timeout=300)
    wheels = sorted(str(w) for w in (tmp_path / "dist").glob("*.whl"))
    assert [Path(w).name.split("-")[0] for w in wheels] == ["attncheck", "attnlib"]

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    site = _run("import sysconfig; print(sysconfig.get_paths()['purelib'])", python=python).strip()
    shared = dict.fromkeys(sysconfig.get_paths()[kind] for kind in ("purelib", "platlib"))  # numpy, matplotlib
    Path(site, "shared_environment.pth").write_text("".join(f"{path}\n" for path in shared))
    install = [*pip, "--python", python, "install", "--no-deps", "--no-index", "-q", *wheels]
    subprocess.run(install, check=True, timeout=300)

    empty = tmp_path / "empty"
    empty.mkdir()
    env = {"PYTHONPATH": "", "ATTNLIB_PROGRESS": str(tmp_path / "record.json")}
    count, status, where, reference = _run(WHEEL_RUN, python=python, cwd=empty, **env).splitlines()[-4:]
    assert count == f"{len(exercise_ids())} [] {{}}"  # every exercise registered, each right answer accepted
    assert "id='weighted_sum.z_row', status='solved', attempts=2" in status
    assert where.startswith("chapter 10, exercise ")  # the next one, placed without the notebooks
    assert reference == "True"


# --- both ways of installing the course install both packages ----------------------------------


def test_make_install_and_the_readme_install_both_packages():
    planned = subprocess.run(["make", "-Bn", "install"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "pip install --quiet --no-compile --no-deps --no-build-isolation -e . -e attncheck" in planned
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    without_make = readme.split("## Without make", 1)[1].split("```", 2)[1]
    assert ".venv/bin/python -m pip install --no-deps --no-build-isolation -e . -e attncheck" in without_make
