"""The first `check` of a session, in a fresh process: its time and the memory it adds.

    PYTHONPATH=. python -m benchmarks.first_check [--repeat 5] [--id vectors.dot]

Each round starts a new Python, imports attncheck, then times the first `check` of a numpy
answer (which loads every chapter's grader) and reads the process's peak resident memory
(Linux's VmHWM) before and after. It prints the median and range of each, and whether torch
was loaded. Goal (issue 40): at most 0.3 s and 40 MB added, and no torch. A measurement, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
def peak_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
import attncheck
from attncheck import get
before = peak_mb()
exercise_id = sys.argv[1]
import numpy as np
answer = np.array([float(x) for x in sys.argv[2].split(",")])
start = time.perf_counter()
attncheck.check(exercise_id, answer)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "before_mb": before, "added_mb": peak_mb() - before,
                  "torch": "torch" in sys.modules}))
"""


def one_round(exercise_id: str, answer: str) -> dict:
    env = dict(os.environ, ATTNLIB_PROGRESS="off")
    out = subprocess.run(
        [sys.executable, "-c", CHILD, exercise_id, answer], capture_output=True, text=True, check=True, env=env
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--id", default="softmax.by_hand")
    parser.add_argument("--answer", default="0.1142,0.8438,0.0420", help="numbers separated by commas")
    args = parser.parse_args()
    rounds = [one_round(args.id, args.answer) for _ in range(args.repeat)]
    for key, unit in (("seconds", "s"), ("added_mb", "MB"), ("before_mb", "MB")):
        values = [r[key] for r in rounds]
        print(
            f"{key:>10}: median {statistics.median(values):.3f} {unit} (min {min(values):.3f}, max {max(values):.3f})"
        )
    print(f"     torch: {'loaded' if any(r['torch'] for r in rounds) else 'not loaded'}")


if __name__ == "__main__":
    main()
