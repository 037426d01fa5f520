"""Shared fixtures: the book, built once per pytest session.

`built_book` runs `jupyter-book build -W --keep-going --all .` into the repository's `_build/`
(the same build as `make book`, plus `--all` so every page is read again and a warning from an
unchanged page is not hidden by Sphinx's cache). A failed build fails the tests that need it,
with the build's warnings in the message; it never skips them.

Tests that need the built book or a real browser are marked `book`, and the few that run a whole
program end to end are marked `end_to_end`: the fast tier, `make check`, leaves both out. Notebooks
run under nbval only from chapters/, which `make check` does not name. A test opens Chromium through
the one `browser` fixture below, which marks it `book`; a test without that marker that launches
Chromium any other way fails, saying so (`pytest_runtest_setup` and `pytest_runtest_call` below),
so "no browser in `make check`" is enforced by the marker, not by a list of names.

The build happens once per session however many test files use it. Under pytest-xdist every
worker is its own process: the first to take a lock builds, and the others read its result
(keyed by the run's id), so `-n` works too. With ATTNLIB_BOOK_HTML set to a folder of built
HTML, nothing is built and that folder is tested (used to watch the browser test fail on an
older build).
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

# One thread per numerical library in every test process and every notebook kernel it starts, set before
# numpy or torch loads: `make test` runs one worker per core, and libraries that each start a thread per
# core in every worker oversubscribe the machine, where OpenMP's waiting threads spin. Measured on a 2-core
# machine, chapters 15 and 16 under nbval side by side: 23 s and 106 s with the libraries' defaults, 9 s and
# 29 s with one thread each. A test that needs other counts sets them itself (tests/test_machine.py).
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import pytest
import yaml
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))  # the tools the tests share: headless_chromium
from headless_chromium import MISSING, find_chromium

# No per-example deadline: on a busy 2-core CI machine a first torch call can take longer than
# hypothesis's default 200 ms, which would fail a test for timing rather than for behaviour.
settings.register_profile("course", deadline=None)
settings.load_profile("course")

# The learner's exercise record stays off in the tests and in the notebooks nbval runs (its
# kernels inherit this), so no result depends on anyone's history and nothing is written.
os.environ["ATTNLIB_PROGRESS"] = "off"

BUILD_DIR = ROOT / "_build"
HTML_DIR = BUILD_DIR / "html"
BUILD_TIMEOUT_S = 1800

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PROBLEM = re.compile(r"\b(WARNING|ERROR|CRITICAL|SEVERE)\b[:(]")


def toc_files() -> list[str]:
    """Every document in _toc.yml (root first), as written there: 'intro', 'chapters/01_vectors', ..."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    found = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)

    walk(toc)
    return [re.sub(r"\.(md|ipynb)$", "", f) for f in found]


@dataclass
class BookBuild:
    """What `jupyter-book build` did: exit status, its whole output and the warning lines."""

    returncode: int
    output: str
    seconds: float
    warnings: list[str] = field(default_factory=list)
    html: str = str(HTML_DIR)

    @property
    def html_dir(self) -> Path:
        return Path(self.html)

    def report(self, limit: int = 60) -> str:
        lines = self.warnings or self.output.strip().splitlines()[-40:]
        shown = "\n".join(lines[:limit])
        more = f"\n... and {len(lines) - limit} more" if len(lines) > limit else ""
        return f"{shown}{more}"


def build_command() -> list[str]:
    """`jupyter-book build` with the interpreter running the tests (so the same venv)."""
    script = Path(sys.executable).with_name("jupyter-book")
    launcher = (
        [str(script)]
        if script.is_file()
        else [sys.executable, "-c", "import sys; from jupyter_book.cli.main import main; sys.exit(main())"]
    )
    return launcher + ["build", "-W", "--keep-going", "--all", "."]


def run_build() -> BookBuild:
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            build_command(),
            check=False,  # a failed build is reported with its warnings, not raised
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
            env={**os.environ, "NO_COLOR": "1"},
        )
        returncode, output = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        returncode = -1
        output = f"{exc.stdout or ''}{exc.stderr or ''}\nbuild timed out after {BUILD_TIMEOUT_S} s"
    except OSError as exc:
        returncode, output = -1, f"could not run {build_command()}: {exc}"
    output = _ANSI.sub("", output if isinstance(output, str) else output.decode(errors="replace"))
    warnings = [line.strip() for line in output.splitlines() if _PROBLEM.search(line)]
    return BookBuild(returncode, output, time.perf_counter() - start, warnings)


def _build_once_per_run() -> BookBuild:
    """Build now, or, under xdist, reuse the build another worker made for this same run."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run_id:
        return run_build()
    import fcntl  # xdist workers only; POSIX file lock

    BUILD_DIR.mkdir(exist_ok=True)
    result_file = BUILD_DIR / ".pytest-book-build.json"
    with open(BUILD_DIR / ".pytest-book-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            saved = json.loads(result_file.read_text())
            if saved.pop("run_id") == run_id:
                return BookBuild(**saved)
        except (OSError, ValueError, KeyError, TypeError):
            pass
        build = run_build()
        result_file.write_text(json.dumps({"run_id": run_id, **asdict(build)}))
        return build


def run_python(code: str, env: dict | None = None, timeout: float = 120) -> str:
    """What `python -c code` prints in a fresh process of this interpreter, with this checkout's
    attnlib first on the path (env: the whole environment, default this one's); fails if it fails."""
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
        env={**(os.environ if env is None else env), "PYTHONPATH": str(ROOT)},
    )
    return run.stdout


@functools.cache
def make_commands(target: str) -> tuple[str, ...]:
    """The commands `make <target>` runs, as `make -n -B` prints them (every step, the install too, as on
    a fresh clone; nothing is run): one command per item, a line continued with a backslash joined."""
    run = subprocess.run(
        ["make", "--no-print-directory", "-n", "-B", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return tuple(line.strip() for line in run.stdout.replace("\\\n", " ").splitlines() if line.strip())


#: Tests that run a whole program end to end (the GPU script's dry run, the benchmark's command
#: line, pytest collecting a chapter): seconds to a minute on a 2-core machine, so `make check` leaves
#: them to `make test`.
END_TO_END = [
    "tests/test_gpu_run.py::*",
    "tests/test_sweep.py::test_cli*",
    "tests/test_solutions_run.py::test_a_chapter_run_whole_runs_each_solution_after_its_last_cell",
]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run each chapter's solutions after it (`with_solutions`); mark `book` every test that uses the built
    book or a headless browser, `end_to_end` those above; then put the slowest files first (`start_order`)."""
    items[:] = with_solutions(items)
    for item in items:
        if {"built_book", "browser"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.book)
        if any(fnmatch.fnmatch(item.nodeid, pattern) for pattern in END_TO_END):
            item.add_marker(pytest.mark.end_to_end)
    items[:] = start_order(items)


def with_solutions(items: list[pytest.Item]) -> list[pytest.Item]:
    """After the last cell of a chapter that nbval runs whole, one more nbval cell for each of its solutions.

    A solution is stored as markdown, folded (tools/lab_solutions.py), so a learner's Run All, and nbval's,
    never runs it. Here each one's code runs in that chapter's kernel once the whole chapter has run, as a
    learner who copies a solution into a cell of their own after Run All, and nbval compares what it prints
    with what its folded block says it prints (an error, or anything on stderr, fails it too). A chapter
    run only in part (one cell named on the command line) gets none."""
    try:
        from nbval.plugin import IPyNbCell, IPyNbFile
    except ImportError:  # nbval is not installed: no notebook runs
        return items
    import copy
    from collections import defaultdict

    import lab_solutions

    chapters = ROOT / "chapters"
    result = []
    for index, item in enumerate(items):
        result.append(item)
        chapter = item.parent
        if not isinstance(chapter, IPyNbFile) or chapter.path.parent != chapters:
            continue
        if index + 1 < len(items) and items[index + 1].parent is chapter:
            continue  # not the chapter's last cell
        cells = [i for i in items if i.parent is chapter]
        if len(cells) != sum(cell.cell_type == "code" for cell in chapter.nb.cells):
            continue
        unfolded = copy.deepcopy(chapter.nb)
        lab_solutions.unfold(unfolded)
        solutions = [cell for cell in unfolded.cells if lab_solutions.is_solution_code(cell)]
        for n, cell in enumerate(solutions, 1):
            cell.execution_count = len(cells) + n  # nbval refuses a stored output of a cell never run
        result += [
            IPyNbCell.from_parent(
                chapter,
                name=f"Solution {n}",
                cell_num=len(cells) - 1 + n,
                cell=cell,
                options=defaultdict(bool, check=True),
            )
            for n, cell in enumerate(solutions, 1)
        ]
    return result


#: The first files handed out, in this order. xdist gives each worker one file, and the next file in line
#: once at most two of its tests are left: worker 0 builds the book (every book test waits for that build,
#: two to three minutes) and sweeps the desktop views; meanwhile worker 1 runs the JupyterLab test, which
#: needs no book, and then the phone sweep, by when the book is built. Handed out together, as before,
#: both sweeps waited on one build and a core sat idle for its whole length.
FIRST = ("tests/test_browser.py", "tests/test_jupyterlab.py", "tests/test_browser_phone.py")


def start_order(items: list[pytest.Item]) -> list[pytest.Item]:
    """FIRST's files first, then the files that open a browser, then those that build the book or run a
    whole program, then the notebooks, then the rest; within each group, and within each file, the order
    stays.

    `make test` hands out whole files to its workers in this order (pytest-xdist's --dist loadfile
    with --no-loadscope-reorder). Started last, the minutes-long browser sweeps (tests/test_browser.py
    and tests/test_browser_phone.py, one per core) would run while the other core sat idle; started
    first, they run beside everything else."""

    def group(item: pytest.Item) -> int:
        names = set(getattr(item, "fixturenames", ()))
        if "browser" in names:
            return 0
        if item.get_closest_marker("book") or item.get_closest_marker("end_to_end"):
            return 1
        return 2 if item.nodeid.endswith(".ipynb") or ".ipynb::" in item.nodeid else 3

    files: dict[str, tuple[int, int]] = {}
    for item in items:
        path = item.nodeid.split("::")[0]
        first = FIRST.index(path) - len(FIRST) if path in FIRST else 0
        files[path] = min(files.get(path, (0, 3)), (first, group(item)))
    position = {path: i for i, path in enumerate(files)}
    return sorted(items, key=lambda item: (*files[item.nodeid.split("::")[0]], position[item.nodeid.split("::")[0]]))


# ----------------------------------------------------------------------------- the browser

#: Chromium's flags for a test module that sets no CHROMIUM_FLAGS of its own
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="module")
def browser(request):
    """Headless Chromium (the system one, driven by Playwright), one per test module; the module's
    CHROMIUM_FLAGS, if it has them, are its command line. Skipped, saying why, without Chromium or
    Playwright. Every test that asks for it is marked `book` (see pytest_collection_modifyitems)."""
    chromium = find_chromium()
    if chromium is None:
        pytest.skip(MISSING)
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    flags = getattr(request.module, "CHROMIUM_FLAGS", CHROMIUM_FLAGS)
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, headless=True, args=flags)
        yield launched
        launched.close()


def _refuse_to_launch(*args, **kwargs):
    pytest.fail(
        "this test launches Chromium but is not marked `book`, so `make check` would open a browser: "
        "ask for the `browser` fixture (tests/conftest.py), which marks it",
        pytrace=False,
    )


@contextlib.contextmanager
def _no_browser_unless_book(item: pytest.Item):
    """While an unmarked test is set up and run, Playwright's launchers refuse to start a browser."""
    try:
        from playwright.sync_api import BrowserType
    except ImportError:  # no Playwright: no browser can start
        BrowserType = None
    if BrowserType is None or item.get_closest_marker("book"):
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        for launcher in ("launch", "launch_persistent_context", "connect_over_cdp"):
            patch.setattr(BrowserType, launcher, _refuse_to_launch)
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    with _no_browser_unless_book(item):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    with _no_browser_unless_book(item):
        yield


#: set to a folder of built HTML (e.g. a copy of another branch's _build/html) to test that
#: instead of building: `ATTNLIB_BOOK_HTML=/tmp/main_html pytest tests/test_browser.py`
PREBUILT_ENV = "ATTNLIB_BOOK_HTML"


@pytest.fixture(scope="session")
def built_book() -> BookBuild:
    """The book built into _build/html; fails (never skips) when the build does."""
    prebuilt = os.environ.get(PREBUILT_ENV)
    if prebuilt:
        if not (Path(prebuilt) / "index.html").is_file():
            pytest.fail(f"{PREBUILT_ENV}={prebuilt}: no index.html there", pytrace=False)
        return BookBuild(0, f"(not built: {PREBUILT_ENV}={prebuilt})", 0.0, [], str(Path(prebuilt).resolve()))
    build = _build_once_per_run()
    if build.returncode != 0:
        pytest.fail(
            f"`{' '.join(build_command())}` failed (exit {build.returncode}); "
            f"{len(build.warnings)} warning(s)/error(s):\n{build.report()}",
            pytrace=False,
        )
    return build


def pytest_terminal_summary(terminalreporter) -> None:
    """Show what the browser test measured (widest equation, worst table, axe count, page weights),
    which a passing test's captured output would otherwise hide; works under pytest-xdist too."""
    lines = []
    for report in terminalreporter.stats.get("passed", []):
        if report.when == "call" and report.nodeid.startswith(
            ("tests/test_browser.py::", "tests/test_browser_phone.py::", "tests/test_jupyterlab.py::")
        ):
            lines += [text.rstrip() for name, text in report.sections if "stdout" in name and text.strip()]
    if lines:
        terminalreporter.write_sep("-", "what the browser test measured")
        for text in lines:
            terminalreporter.write_line(text)
