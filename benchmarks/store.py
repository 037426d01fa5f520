"""Writing a results file, the one way every script in benchmarks/ does it."""

from __future__ import annotations

import json
import os


def write_json(path: str, data: dict) -> None:
    """Write `data` to `path` as indented JSON with a final newline, making its folder if needed."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
