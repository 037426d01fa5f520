"""Every chapter grader goes through the framework: it reads answers only with the framework's
helpers, calls learner code only through `call`, and imports nothing from another chapter or
anything private from the framework. Read from each grader's source, so a new grader is held too.
"""

from __future__ import annotations

import ast
import pathlib
import tempfile

import pytest

import attncheck as framework

# a grader module is any module of the package that names its chapter, whatever its file is called
GRADERS = sorted(p for p in pathlib.Path(framework.__file__).parent.glob("*.py") if "\nCHAPTER = " in p.read_text())
# What a grader may not do to a learner's value (its answer, or what its function returned).
RAW_ATTRIBUTES = {
    "tolist",
    "detach",
    "numpy",
    "cpu",
    "float",
    "double",
    "item",
    "astype",
    "reshape",
    "shape",
    "dtype",
    "ndim",
    "size",
    "T",
    "flatten",
    "is_complex",
    "__array__",
}
NUMBER_TYPES = {"int", "float", "bool", "complex"}
LEARNER_SOURCES = {"call", "expect_pair"}  # framework helpers that hand back the learner's own objects


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return ""


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_checker(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Call) and _name(d.func) == "exercise" for d in fn.decorator_list)


PASS_THROUGH = {"zip", "enumerate", "reversed", "sorted", "list", "tuple", "iter", "next", "set", "dict", "frozenset"}


def _learner(node: ast.AST, tainted: set[str]) -> bool:
    """Whether the expression's value may be the learner's own object (not yet read by the framework)."""
    if isinstance(node, ast.Name):
        return node.id in tainted
    if isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        return _learner(node.value, tainted)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_learner(e, tainted) for e in node.elts)
    if isinstance(node, ast.IfExp):
        return _learner(node.body, tainted) or _learner(node.orelse, tainted)
    if isinstance(node, ast.BoolOp):
        return any(_learner(v, tainted) for v in node.values)
    if isinstance(node, ast.Call):
        callee = _name(node.func)
        if callee in LEARNER_SOURCES:
            return True
        if callee in PASS_THROUGH:
            return any(_learner(a, tainted) for a in node.args)
        if isinstance(node.func, ast.Attribute):  # answer.items(), answer.strip()
            return _learner(node.func.value, tainted)
    return False


def _statements(body: list, tainted: set[str], on_statement) -> None:
    """Visit statements in order, updating which names hold learner values as they are assigned."""
    for stmt in body:
        on_statement(stmt, tainted)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = set().union(*(_names_in(t) for t in targets))
            if stmt.value is not None and _learner(stmt.value, tainted):
                tainted |= names
            elif not isinstance(stmt, ast.AugAssign):
                tainted -= names
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            if _learner(stmt.iter, tainted):
                tainted |= _names_in(stmt.target)
            _statements(stmt.body + stmt.orelse, tainted, on_statement)
        elif isinstance(stmt, (ast.If, ast.While)):
            _statements(stmt.body + stmt.orelse, tainted, on_statement)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            _statements(stmt.body, tainted, on_statement)
        elif isinstance(stmt, ast.Try):
            _statements(
                stmt.body + [s for h in stmt.handlers for s in h.body] + stmt.orelse + stmt.finalbody,
                tainted,
                on_statement,
            )


def _own_expressions(stmt: ast.stmt):
    """The expressions of one statement, not those of the statements nested in it."""
    nested = ("body", "orelse", "handlers", "finalbody")
    for field, value in ast.iter_fields(stmt):
        if field in nested:
            continue
        for node in value if isinstance(value, list) else [value]:
            if isinstance(node, ast.AST):
                yield from ast.walk(node)


def _violations_in(fn: ast.FunctionDef, tainted: set[str], functions: dict, queue: list) -> list[str]:
    """Walk fn's body in order, tracking which names hold learner values; list what reads them by hand."""
    found = []

    def on_statement(stmt: ast.stmt, tainted: set[str]) -> None:
        comprehension_targets = set()
        for node in _own_expressions(stmt):
            if isinstance(node, ast.comprehension) and _learner(node.iter, tainted | comprehension_targets):
                comprehension_targets |= _names_in(node.target)
        live = tainted | comprehension_targets
        for node in _own_expressions(stmt):
            if isinstance(node, ast.Attribute) and node.attr in RAW_ATTRIBUTES and _learner(node.value, live):
                found.append(f"{fn.name}: .{node.attr} on a learner's value")
            if not isinstance(node, ast.Call):
                continue
            callee = _name(node.func)
            raw = [a for a in list(node.args) + [k.value for k in node.keywords] if _learner(a, live)]
            if isinstance(node.func, ast.Name) and node.func.id in live:
                found.append(f"{fn.name}: calls the learner's function {callee} without `call`")
            if callee.split(".")[0] in ("np", "numpy", "torch", "copy") and raw:
                found.append(f"{fn.name}: {callee}(...) on a learner's value")
            if callee in ("is_torch", "type") and raw:
                found.append(f"{fn.name}: {callee}(...) on a learner's value")
            if callee == "isinstance" and len(node.args) == 2 and _learner(node.args[0], live):
                kinds = {_name(n) for n in ast.walk(node.args[1]) if isinstance(n, (ast.Name, ast.Attribute))}
                bad = {k for k in kinds if k in NUMBER_TYPES or k.startswith(("np.", "torch."))}
                if bad:
                    found.append(f"{fn.name}: isinstance(..., {', '.join(sorted(bad))}) on a learner's value")
            if isinstance(node.func, ast.Name) and node.func.id in functions:
                positions = {i for i, a in enumerate(node.args) if _learner(a, live)}
                if positions:
                    queue.append((node.func.id, positions))

    _statements(fn.body, set(tainted), on_statement)
    return found


def _is_samples_module(path: pathlib.Path) -> bool:
    """A grader's private module of sample answers (`_matmul_samples.py` beside it), which it may import:
    a private module that imports nothing of attnlib or of the checker, so it holds no grading."""
    if not (path.stem.startswith("_") and path.is_file()):
        return False
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").split(".")[0] in ("attnlib", "attncheck")
        ):
            return False
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in ("attnlib", "attncheck") for a in node.names):
            return False
    return True


def _violations(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names = [a.name for a in node.names]
            if node.level == 1 and node.module and node.module.startswith("ch"):
                found.append(f"imports from the chapter module {module}")
            if node.level == 1 and node.module:
                found.append(f"imports from the framework's inner module {module}; use attncheck")
            if node.level == 1 and not node.module:
                found += [
                    f"imports {n}, which the framework does not export"
                    for n in names
                    if n not in framework.__all__ and not _is_samples_module(path.parent / f"{n}.py")
                ]
            if node.level == 2 and "is_torch" in names:
                found.append("imports is_torch to read answers by hand")
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    queue = [(f.name, {0}) for f in functions.values() if _is_checker(f)]
    seen = set()
    while queue:
        name, positions = queue.pop()
        if (name, frozenset(positions)) in seen:
            continue
        seen.add((name, frozenset(positions)))
        fn = functions[name]
        params = [a.arg for a in fn.args.args]
        tainted = {params[i] for i in positions if i < len(params)}
        found += _violations_in(fn, tainted, functions, queue)
    return sorted(set(found))


@pytest.mark.parametrize("path", GRADERS, ids=[p.stem for p in GRADERS])
def test_a_grader_uses_only_the_frameworks_public_helpers(path):
    assert _violations(path) == []


def _source_violations(source: str, beside: dict[str, str] | None = None) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        for name, text in (beside or {}).items():  # other modules of the probe's package
            (pathlib.Path(folder) / name).write_text(text)
        probe = pathlib.Path(folder) / "probe.py"
        probe.write_text(source)
        return _violations(probe)


@pytest.mark.parametrize(
    "source, words",
    [
        (
            "from . import exercise\nimport numpy as np\n@exercise('x', [], [])\ndef c(answer):\n    got = np.asarray(answer)\n",
            "np.asarray(...) on a learner's value",
        ),
        (
            "from . import exercise, call\n@exercise('x', [], [])\ndef c(fn):\n    out = call(fn, 1)\n    out.tolist()\n",
            ".tolist on a learner's value",
        ),
        ("from . import exercise\n@exercise('x', [], [])\ndef c(fn):\n    fn(1)\n", "without `call`"),
        (
            (
                "from . import exercise\n@exercise('x', [], [])\ndef c(answer):\n    _h(answer)\n"
                "def _h(x):\n    if isinstance(x, (int, float)):\n        pass\n"
            ),
            "isinstance(..., float, int)",
        ),
        ("from .ch04 import numbers\n", "chapter module .ch04"),
        ("from . import _show\n", "does not export"),
        ("from .answers import _diagnose\n", "inner module"),
    ],
)
def test_the_rule_catches_each_way_round_the_framework(source, words):
    assert any(words in v for v in _source_violations(source)), _source_violations(source)


def test_a_grader_may_import_its_private_samples_module_and_only_one_that_grades_nothing():
    source = "from . import _samples as samples\n"
    plain = "import numpy as np\n\ndef wrong(M, N):\n    return np.asarray(M) @ np.asarray(N)\n"
    assert _source_violations(source, {"_samples.py": plain}) == []
    for inner in ("from . import Wrong\n", "from .answers import to_numpy\n", "import attnlib\n"):
        assert _source_violations(source, {"_samples.py": plain + inner}) == [
            "imports _samples, which the framework does not export"
        ]


def test_the_framework_exports_what_graders_use_and_nothing_private():
    assert all(not name.startswith("_") and hasattr(framework, name) for name in framework.__all__)
