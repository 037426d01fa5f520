"""The documents a newcomer reads first name only files that exist, and the reference page has a
section for every public module."""

from __future__ import annotations

import pkgutil
import re
import subprocess
from pathlib import Path

import pytest

import attncheck
import attnlib

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "reference.md", "benchmarks/README.md"]

# A repository path: folders and a file name with one of these endings, or a folder ending in "/".
_FILE = r"[\w.-]+(?:/[\w.-]+)*\.(?:py|ipynb|md|json|ya?ml|sh|txt|lock|svg|css|js|toml|cfg|html)"
_PATH = re.compile(rf"(?<![\w/.$:<>-])({_FILE}|[\w.-]+(?:/[\w.-]+)*/)(?![\w/<])", re.ASCII)
# Not repository files: what the build makes, examples of a reader's own paths, and placeholders
# (chNN.py is "ch01.py, ch02.py, ...").
_NOT_IN_THE_REPOSITORY = ("_build/", ".venv", "some/", "path/to/", "NN")
# What benchmarks/gpu_run.sh writes into the folder it is given (benchmarks/README.md lists them).
GPU_RUN_OUTPUTS = {"system.txt", "gpu_checks.json", "gpu_parts.json"}


def _tracked() -> set[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    files = set(listed.split())
    return files | {str(Path(f).parent) + "/" for f in files} | {str(p) + "/" for f in files for p in Path(f).parents}


def named_paths(text: str) -> list[str]:
    """Every repository path a Markdown text names (in code or in prose), links and URLs left out."""
    text = re.sub(r"https?://\S+", " ", text)
    return [p for p in _PATH.findall(text) if not any(skip in p for skip in _NOT_IN_THE_REPOSITORY)]


def test_named_paths_finds_what_a_reader_would_look_for():
    text = (
        "Run `benchmarks/tiled_vs_naive.py`, see tools/lab_solutions.py and `chapters/data/`; open "
        "_build/html/index.html; `gpu_<gpu>_float32.json`, `softmax(Q@Kᵀ/√d)`, https://example.org/a.py"
    )
    assert named_paths(text) == ["benchmarks/tiled_vs_naive.py", "tools/lab_solutions.py", "chapters/data/"]


@pytest.mark.parametrize("doc", DOCS)
def test_every_file_a_document_names_exists(doc):
    tracked = _tracked()
    names = {name for name in tracked if "/" not in name.rstrip("/")} | {Path(f).name for f in tracked}
    missing = []
    for path in named_paths((ROOT / doc).read_text(encoding="utf-8")):
        beside = str(Path(doc).parent / path).replace("\\", "/")
        if path in tracked or beside in tracked or beside + "/" in tracked or ("/" not in path and path in names):
            continue
        if (ROOT / path).exists() or (ROOT / beside).exists() or path in GPU_RUN_OUTPUTS:
            continue
        missing.append(path)
    assert not missing, f"{doc} names files that do not exist: {missing}"


def is_one_chapters_graders(module: str) -> bool:
    """A module of attncheck that registers one chapter's graders: it names its `CHAPTER`."""
    if not module.startswith("attncheck."):
        return False
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    return path.is_file() and re.search(r"^CHAPTER = ", path.read_text(encoding="utf-8"), re.MULTILINE) is not None


def public_modules() -> list[str]:
    """attnlib, attncheck and every module of them that is not private and not one chapter's graders."""
    found = []
    for package in (attnlib, attncheck):
        found.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            last = info.name.rsplit(".", 1)[-1]
            if not last.startswith("_") and not is_one_chapters_graders(info.name):
                found.append(info.name)
    return found


def test_the_graders_are_told_apart_from_the_framework():
    assert is_one_chapters_graders("attncheck.softmax") and not is_one_chapters_graders("attncheck.registry")
    assert "attncheck.registry" in public_modules() and "attncheck.softmax" not in public_modules()


def test_reference_has_a_section_for_every_public_module_with_its_chapter():
    headings = [
        line for line in (ROOT / "reference.md").read_text(encoding="utf-8").splitlines() if line.startswith("#")
    ]
    missing = [m for m in public_modules() if not any(f"`{m}`" in h for h in headings)]
    assert not missing, f"reference.md has no section for {missing}"
    no_chapter = [
        h
        for h in headings[1:]
        if ("`attnlib" in h or "`attncheck" in h) and not re.search(r"\((\[?chapter|every|Part|the intro)", h)
    ]
    assert not no_chapter, f"reference.md sections that do not say their chapter: {no_chapter}"
