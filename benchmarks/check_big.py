"""How long `check` takes on answers of 10**7 numbers, for every exercise: the slowest, and where.

    PYTHONPATH=. python -m benchmarks.check_big

Each exercise gets a numpy array, a 2-D array, a Python list, a torch tensor, a list of rows and a
function that returns 10**7 numbers; every verdict must be a refusal. Goal (issue 43): every check
under 0.2 s. A measurement, never a test (tests/test_hints.py proves the refusals).
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("ATTNLIB_PROGRESS", "off")

import numpy as np
import torch

from attncheck import exercise_ids, judge

BIG = {
    "numpy array": np.zeros(10**7),
    "2-D array": np.zeros((1000, 10**4)),
    "Python list": list(range(10**7)),
    "torch tensor": torch.zeros(10**7),
    "list of rows": [[0.5] * 1000] * 10**4,
    "function returning 10**7": lambda *args: np.zeros(10**7),
}


def main() -> None:
    times = []
    for exercise_id in exercise_ids():
        for name, answer in BIG.items():
            start = time.perf_counter()
            verdict = judge(exercise_id, answer)
            times.append((time.perf_counter() - start, exercise_id, name))
            assert not verdict.ok, (exercise_id, name)
    times.sort(reverse=True)
    print(f"{len(times)} checks; median {times[len(times) // 2][0] * 1e3:.2f} ms")
    for seconds, exercise_id, name in times[:5]:
        print(f"  {seconds * 1e3:7.2f} ms  {exercise_id}  ({name})")


if __name__ == "__main__":
    main()
