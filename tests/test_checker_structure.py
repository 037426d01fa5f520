"""The checker's place beside the library: attncheck imports attnlib and never the other way, at any
depth; no import cycle in either package; the record imports nothing of the checker; one guard
against what learner code raises; small modules.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = [ROOT / "attnlib", ROOT / "attncheck"]
CHECKER = [ROOT / "attncheck", ROOT / "attncheck" / "record"]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of `modules` that `path` imports, at its top or inside a function (a cycle is a cycle either way)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            stem = ".".join(p for p in (base, node.module or "") if p)
            targets = [stem] + [f"{stem}.{a.name}" for a in node.names]
        else:
            continue
        found |= {t for t in targets if t in modules and t != name}
    return found


def import_graph() -> dict[str, set[str]]:
    """Every module of attnlib and attncheck and the modules of the two that it imports."""
    paths = sorted(p for package in PACKAGES for p in package.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    return {_module_name(p): _imports(p, modules) for p in paths}


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of the graph, as the modules round it; [] when there is none.

    A package's own `__init__` importing its submodules is not a cycle with them (Python runs
    a submodule's `from . import x` after the package is in sys.modules), so those edges are left out.
    """
    edges = {m: {t for t in ts if not (t.startswith(m + ".") or m.startswith(t + "."))} for m, ts in graph.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> list[str]:
        state[m] = 1
        path.append(m)
        for t in sorted(edges[m]):
            if state.get(t) == 1:
                return path[path.index(t) :] + [t]
            if t not in state and (found := visit(t)):
                return found
        state[m] = 2
        path.pop()
        return []

    for m in sorted(edges):
        if m not in state and (found := visit(m)):
            return found
    return []


def test_neither_package_has_an_import_cycle():
    assert cycle(import_graph()) == []


def test_the_cycle_test_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "p": {"p.x"}, "p.x": {"p"}}
    assert cycle(graph) == ["a", "b", "c", "a"]
    assert cycle({k: v for k, v in graph.items() if k != "c"} | {"c": set()}) == []


def test_the_record_imports_nothing_of_the_checker():
    graph = import_graph()
    record = [m for m in graph if m.startswith("attncheck.record")]
    assert record and all(t.startswith(("attncheck.record", "attnlib")) for m in record for t in graph[m])


def attncheck_imports(path: Path, code: str | None = None) -> list[str]:
    """Every place the code in `path` imports attncheck, as "line: what": a plain or relative import,
    at the top or inside a function, or a module named in a string to `importlib.import_module` or `__import__`."""
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8") if code is None else code)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            targets = [".".join(p for p in (base, node.module or "") if p)]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
            "import_module",
            "__import__",
        ):
            targets = [a.value for a in node.args[:1] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        else:
            continue
        found += [f"{node.lineno}: {t}" for t in targets if t.split(".")[0] == "attncheck"]
    return found


def test_the_static_rule_finds_an_import_of_the_checker_however_it_is_written():
    code = (
        "import attncheck\n"
        "def f():\n    from attncheck.record import store\n"
        "import importlib\nimportlib.import_module('attncheck.learner')\n"
        "from attnlib import core\n"
    )
    assert attncheck_imports(ROOT / "attnlib" / "made_up.py", code) == [
        "1: attncheck",
        "3: attncheck.record",
        "5: attncheck.learner",
    ]


def test_attnlib_never_imports_attncheck_in_its_code():
    found = [f"{p.relative_to(ROOT)}:{use}" for p in sorted(PACKAGES[0].rglob("*.py")) for use in attncheck_imports(p)]
    assert found == []


def _fresh(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTNLIB_PROGRESS": "off"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


LOADED = "import sys; print(sorted(m for m in sys.modules if m.startswith('attncheck')))"


def test_importing_every_module_of_attnlib_loads_no_module_of_attncheck():
    """At any depth: every module of attnlib imported, its lazy names reached, and the old import tried."""
    everything = (
        "import importlib, pkgutil, attnlib\n"
        "for m in pkgutil.walk_packages(attnlib.__path__, 'attnlib.'): importlib.import_module(m.name)\n"
        "for name in attnlib.__all__: getattr(attnlib, name)\n"
        "try:\n    from attnlib import check\nexcept ImportError as e:\n    print(e)\n"
    )
    told, loaded = _fresh(everything + LOADED).splitlines()
    assert told == "check lives in the course's checker package now: write `from attncheck import check`"
    assert loaded == "[]"


def test_the_checker_loads_only_when_the_learner_first_uses_it():
    assert _fresh(f"import attnlib; {LOADED}") == "[]"
    for first_use in ("import attncheck; attncheck.exercise_ids()", "from attncheck import progress"):
        loaded = _fresh(f"import attnlib; {first_use}; {LOADED}")
        assert "'attncheck.learner'" in loaded, first_use
    assert "'attncheck.vectors'" not in _fresh(f"import attncheck; {LOADED}")  # the graders wait for the first use


def test_one_guard_against_what_learner_code_raises():
    """`hints.contained` is the only `except BaseException` of the two packages: every other layer lets it do its job."""
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for package in PACKAGES
        for p in sorted(package.rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "except BaseException" in line
    ]
    assert len(found) == 1 and found[0].startswith("attncheck/hints.py"), found


def test_no_module_of_the_checker_is_over_500_lines():
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for d in CHECKER for p in d.glob("*.py")}
    assert {p: n for p, n in sizes.items() if n > 500} == {}


def test_no_chapter_number_is_typed_into_the_checker():
    """A hint names a chapter with course.chapter_ref(subject), so its number follows `_toc.yml`."""
    typed = re.compile(r"\b[Cc]hapters? \d")
    found = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for d in CHECKER
        for p in sorted(d.glob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if typed.search(line)
    ]
    assert found == []


def test_judge_is_pure_and_check_is_judge_print_record(capsys):
    from attncheck import get, judge

    ex = get("softmax.by_hand")
    verdict = judge(ex, ex.wrong[0])
    assert capsys.readouterr().out == ""  # judging prints nothing
    assert (verdict.ok, verdict.attempt, verdict.exercise_id) == (False, True, "softmax.by_hand")
    assert judge("softmax.by_hand", None).attempt is False and judge("no.such", 1).exercise_id is None
    assert bool(judge(ex, ex.right[0])) and judge(ex, ex.right[0]).message.startswith("✓")
