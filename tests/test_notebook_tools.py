"""tools/prepare_notebooks.py, tried on copies of the chapter notebooks (never on the originals).

The integrator runs it over every notebook after merging; here we check that it is idempotent,
changes no stored output, and that the guard it adds does what it promises: one line on how to
get the course when attnlib is missing, nothing at all when it is there.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import make_commands

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(ROOT.glob("chapters/[0-9][0-9]_*.ipynb"))


def _load_tool():
    spec = importlib.util.spec_from_file_location("prepare_notebooks", ROOT / "tools" / "prepare_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = _load_tool()


@pytest.fixture
def copies(tmp_path) -> list[Path]:
    paths = []
    for nb in CHAPTERS:
        shutil.copy(nb, tmp_path / nb.name)
        paths.append(tmp_path / nb.name)
    return paths


def _outputs(path: Path) -> list:
    """(execution count, outputs) of every code cell but the solutions (which prepare unfolds)."""
    return [
        (c.get("execution_count"), c.get("outputs"))
        for c in nbformat.read(path, as_version=4).cells
        if c.cell_type == "code" and not tool.lab_solutions.is_solution_code(c)
    ]


def test_prepare_is_idempotent_and_keeps_every_output(copies):
    assert copies, "no chapter notebooks found"
    before = {p: _outputs(p) for p in copies}
    for path in copies:
        tool.process(path)
    for path in copies:
        assert not tool.process(path), f"{path.name}: a second run still changes it"
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata.kernelspec == tool.KERNELSPEC
        guards = [c for c in nb.cells if c.cell_type == "code" and tool.MARKER in c.source]
        assert len(guards) == 1, f"{path.name}: {len(guards)} guard cells"
        guard = guards[0]
        first_import = next(c for c in nb.cells if c.cell_type == "code" and tool.imports_attnlib(c.source))
        assert first_import is guard, f"{path.name}: the guard is not the first cell that imports attnlib"
        assert guard.source == tool.GUARD and guard.outputs == []
        assert tool.TAG in guard.metadata["tags"] and guard.metadata["jupyter"]["source_hidden"] is True
        assert not any(tool.lab_solutions.is_folded(c) for c in nb.cells), f"{path.name}: a solution left folded"
        # every stored output is unchanged; the counts after the guard moved up by one behind its own
        outputs = _outputs(path)
        assert outputs == before[path], f"{path.name}: an output changed"
        code = [c for c in nb.cells if c.cell_type == "code" and not tool.lab_solutions.is_solution_code(c)]
        counts = [c.execution_count for c in code if c.source.strip()]
        assert None not in counts and counts == sorted(set(counts)), f"{path.name}: counts do not go up one run"


def test_check_mode_reports_and_changes_nothing(copies, capsys):
    original = copies[0].read_text(encoding="utf-8")
    nb = json.loads(original)
    nb["metadata"]["kernelspec"]["display_name"] = "Python 3"
    copies[0].write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    stale = copies[0].read_text(encoding="utf-8")
    assert tool.main(["--check", str(copies[0])]) == 1
    assert copies[0].read_text(encoding="utf-8") == stale
    assert "would change" in capsys.readouterr().out


def _notebook(*sources, counts=None):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    for cell, n in zip(nb.cells, counts or []):
        cell.execution_count = n
    return nb


def test_guard_cell_goes_before_the_first_import_and_the_import_line_goes():
    nb = _notebook("x = 1", "import textwrap\n\nimport attnlib\nfrom attnlib import check, plot", "y = 2")
    tool.add_guard(nb)
    assert [c.source for c in nb.cells] == [
        "x = 1",
        tool.GUARD,
        "import textwrap\n\nfrom attnlib import check, plot",
        "y = 2",
    ]
    assert nb.cells[1].execution_count is None  # the others never ran: no count is made up
    tool.add_guard(nb)
    assert len(nb.cells) == 4


def test_a_cell_that_only_imported_attnlib_becomes_the_guard():
    nb = _notebook("import attnlib", "print(attnlib.__name__)", counts=[1, 2])
    tool.add_guard(nb)
    assert [c.source for c in nb.cells] == [tool.GUARD, "print(attnlib.__name__)"]
    assert [c.execution_count for c in nb.cells] == [1, 2]


def test_the_guard_is_short_where_a_learner_sees_it():
    """In JupyterLab the collapsed cell shows its first line only; in the book it is left out."""
    assert len(tool.LABEL) <= 90 and tool.LABEL.startswith("# ")
    assert "attnlib" in tool.LABEL and "\n" not in tool.LABEL


RUN_IN_IPYTHON = """
import sys
{hide}
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
shell = InteractiveShell.instance()
with capture_output() as out:
    result = shell.run_cell({code!r})
print(repr((out.stdout, out.stderr, result.success)))
"""


def _run_guard(hide_attnlib: bool):
    code = tool.GUARD + "\nprint('after the guard')"  # the guard cell, then what follows it
    script = RUN_IN_IPYTHON.format(hide="sys.modules['attnlib'] = None" if hide_attnlib else "", code=code)
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return eval(proc.stdout.strip().splitlines()[-1])


def test_guard_says_in_one_line_how_to_get_the_course():
    stdout, stderr, success = _run_guard(hide_attnlib=True)
    assert not success, "a notebook without attnlib must stop at the guard"
    assert stdout == tool.MESSAGE + "\n", f"expected one line, got {stdout!r}"
    assert "Traceback" not in stdout + stderr and "after the guard" not in stdout
    assert "make lab" in tool.MESSAGE


def test_guard_is_silent_inside_the_course():
    stdout, stderr, success = _run_guard(hide_attnlib=False)
    assert success and stdout == "after the guard\n" and not stderr


def test_stored_kernelspec_is_ipykernels_own():
    """JupyterLab replaces the stored kernelspec with the kernel's: store exactly that."""
    from ipykernel.kernelspec import get_kernel_dict

    spec = get_kernel_dict()
    assert tool.KERNELSPEC["display_name"] == spec["display_name"]
    assert tool.KERNELSPEC["language"] == spec["language"]


def test_lab_overrides_turn_the_news_off():
    overrides = json.loads((ROOT / "tools" / "jupyterlab-overrides.json").read_text(encoding="utf-8"))
    setting = overrides["@jupyterlab/apputils-extension:notification"]
    schema_file = Path(sys.prefix) / "share/jupyter/lab/schemas/@jupyterlab/apputils-extension/notification.json"
    if schema_file.is_file():
        schema = json.loads(schema_file.read_text(encoding="utf-8"))["properties"]
        assert setting["fetchNews"] in [c["const"] for c in schema["fetchNews"]["oneOf"]]
        assert set(setting) <= set(schema)
    assert setting["fetchNews"] == "false" and setting["checkForUpdates"] is False
    commands = make_commands("lab")
    assert any(c.startswith("cp tools/jupyterlab-overrides.json ") for c in commands), (
        "make lab must install the overrides"
    )
    cells = overrides["@jupyterlab/notebook-extension:tracker"]["codeCellConfig"]
    assert cells["lineWrap"] is True, "long code lines wrap in the editor"
    tracker = Path(sys.prefix) / "share/jupyter/lab/schemas/@jupyterlab/notebook-extension/tracker.json"
    if tracker.is_file():  # an override replaces the whole default: keep every key of it
        default = json.loads(tracker.read_text(encoding="utf-8"))["properties"]["codeCellConfig"]["default"]
        assert set(default) <= set(cells)
    trust = next(i for i, c in enumerate(commands) if "jupyter trust chapters/" in c)
    assert trust < next(i for i, c in enumerate(commands) if "jupyter lab chapters" in c)
