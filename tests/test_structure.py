"""The packages stay small and their parts keep to themselves: no module of attnlib or attncheck over
500 lines, no function of them over 60 lines of code, and no private name (`_x`) of one module used in
another module, in benchmarks/ or in tools/.

A helper two modules need is made public (or moved to the one module that uses it); tests may
still reach into a module's private names, since they test that module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("attnlib", "attncheck")  # the library and the course's checker beside it
MAX_LINES = 500
MAX_FUNCTION_LINES = 60  # lines of code: its docstring, comments and blank lines not counted
CALLERS = [*(ROOT / p for p in PACKAGES), ROOT / "benchmarks", ROOT / "tools"]  # code whose imports are checked


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def _python_files() -> list[Path]:
    return sorted(p for folder in CALLERS for p in folder.rglob("*.py"))


def _module_name(path: Path) -> str:
    """attnlib/plot/style.py -> "attnlib.plot.style"; a package's __init__.py -> the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _absolute(module: str | None, level: int, importer: Path) -> str:
    """The absolute name a `from X import ...` in `importer` reads from (relative imports resolved)."""
    if level == 0:
        return module or ""
    package = _module_name(importer).split(".")
    if importer.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def private_uses(path: Path, code: str | None = None) -> list[str]:
    """Every private name of another module of the packages that the code in `path` uses, as "line: module._name".

    Found from the imports (`from attnlib.bench import _torch`, `from .style import _figure`) and
    from attributes of an imported attnlib module (`bench._time_once`, `attnlib.plot.style._np`).
    A private submodule (`attnlib/pkg/_helpers.py`) may be used inside its own package.
    """
    here = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8") if code is None else code)
    found: list[str] = []
    modules: dict[str, str] = {}  # a local name bound to a module of the packages -> that module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in PACKAGES:
                    modules[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node.module, node.level, path)
            if source.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if _is_module(full):
                    modules[alias.asname or alias.name] = full
                    if _private(alias.name) and not here.startswith(source):
                        found.append(f"{node.lineno}: {full}")
                elif _private(alias.name) and source != here:
                    found.append(f"{node.lineno}: {full}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain, inner = [node.attr], node.value
            while isinstance(inner, ast.Attribute):
                chain.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id in modules:
                owner = ".".join([modules[inner.id], *reversed(chain[1:])])
                if _is_module(owner) and owner != here:
                    found.append(f"{node.lineno}: {owner}.{node.attr}")
    return found


def test_the_rule_finds_a_private_name_imported_or_reached_through_a_module():
    fake = ROOT / "attnlib" / "plot" / "made_up.py"
    code = (
        "from .style import _figure, word_colour\n"
        "from attnlib.bench import _torch\n"
        "from attnlib import bench\n"
        "import attnlib.plot.style as style\n"
        "import attnlib\n"
        "bench._time_once()\nstyle._np(1)\nattnlib.plot.style._tint()\nbench.__name__\n"
    )
    assert private_uses(fake, code) == [
        "1: attnlib.plot.style._figure",
        "2: attnlib.bench._torch",
        "6: attnlib.bench._time_once",
        "7: attnlib.plot.style._np",
        "8: attnlib.plot.style._tint",
    ]


def test_the_rule_allows_a_module_s_own_private_names_and_those_of_its_private_submodules(monkeypatch):
    inside = ROOT / "attncheck" / "registry.py"
    code = "from .registry import _REGISTRY\nfrom . import _shared\nfrom attncheck import registry\n"
    real = _is_module
    monkeypatch.setitem(globals(), "_is_module", lambda name: name.endswith("._shared") or real(name))
    assert private_uses(inside, code) == []
    outside = ROOT / "attnlib" / "core.py"
    assert private_uses(outside, "from attncheck import _shared\n") == ["1: attncheck._shared"]


def test_no_private_name_of_a_module_is_used_outside_it():
    used = [f"{p.relative_to(ROOT)}:{use}" for p in _python_files() for use in private_uses(p)]
    assert not used, "private names used outside their module (make them public, or move them):\n" + "\n".join(used)


@pytest.mark.parametrize("path", _modules(), ids=[str(p.relative_to(ROOT)) for p in _modules()])
def test_no_module_is_over_500_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (at most {MAX_LINES}): split it by idea"


def code_lines(function: ast.FunctionDef | ast.AsyncFunctionDef, source: list[str]) -> int:
    """The lines of a function that hold code: not its docstring, not a comment, not blank."""
    body = function.body
    first = body[0]
    doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    skip = set(range(first.lineno, first.end_lineno + 1)) if doc else set()
    lines = range(function.lineno, function.end_lineno + 1)
    return sum(
        1 for n in lines if n not in skip and source[n - 1].strip() and not source[n - 1].strip().startswith("#")
    )


def long_functions(path: Path, code: str | None = None) -> list[str]:
    """ "name (N lines)" for every function of a module with more than MAX_FUNCTION_LINES lines of code."""
    text = path.read_text(encoding="utf-8") if code is None else code
    source = text.splitlines()
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and code_lines(node, source) > MAX_FUNCTION_LINES:
            found.append(f"{node.name} ({code_lines(node, source)} lines)")
    return found


def test_the_function_rule_counts_code_not_its_docstring_or_comments():
    code = "def f():\n" + '    """Doc.\n\n    More doc.\n    """\n' + "    # a comment\n\n" + "    x = 1\n" * 59
    assert long_functions(Path("f.py"), code) == []
    assert long_functions(Path("f.py"), code + "    return x\n") == ["f (61 lines)"]


@pytest.mark.parametrize("path", _modules(), ids=[str(p.relative_to(ROOT)) for p in _modules()])
def test_no_function_is_over_60_lines_of_code(path):
    found = long_functions(path)
    assert not found, f"{path.relative_to(ROOT)}: split these into functions of one step each: {found}"
