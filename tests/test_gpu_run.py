"""benchmarks/gpu_run.sh, dry-run on the CPU: the GPU run (15 minutes of device time in all) cannot fail on a typo.

The same script, the same steps, the same files; only the device, the sizes and the repeats are small.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from attnlib import results

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu_run.sh"
IMPLS = {"naive-torch", "tiled-torch", "sdpa-torch"}


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory):
    if shutil.which("bash") is None or shutil.which("timeout") is None:
        pytest.skip("needs bash and coreutils' timeout")
    out = tmp_path_factory.mktemp("gpu_out")
    env = {**os.environ, "OUT": str(out), "DEVICE": "cpu", "SIZES": "16,48", "REPEAT": "2", "WARMUP": "1",
           "CHECK_N": "64", "PYTHON": sys.executable}
    run = subprocess.run(["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=420)
    return run, out


def test_the_dry_run_succeeds_and_writes_few_files(dry_run):
    run, out = dry_run
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    names = sorted(p.name for p in out.iterdir())
    assert names == ["gpu_checks.json", "gpu_cpu-dryrun_bfloat16.json", "gpu_cpu-dryrun_float32.json",
                     "gpu_run.log", "system.txt"]
    assert len(names) <= 8 and all(p.stat().st_size < 16 * 2**20 for p in out.iterdir())
    system = (out / "system.txt").read_text()
    assert "torch" in system and "numpy" in system and "nvidia-smi" in system
    assert "timed out" not in (out / "gpu_run.log").read_text()


def test_the_sweeps_are_what_chapter_11_reads(dry_run):
    _, out = dry_run
    runs = results.load_results(out)
    assert [r["settings"]["dtype"] for r in runs] == ["bfloat16", "float32"]
    for run in runs:
        rows = run["results"]
        assert {r["impl"] for r in rows} == IMPLS and {r["n"] for r in rows} == {16, 48}
        assert all(r["status"] == "measured" for r in rows), [r["skipped"] for r in rows]
        assert {(r["heads"], r["d"], r["batch"]) for r in rows} == {(8, 64, 1)}
        settings = run["settings"]
        assert settings["repeat"] == 2 and settings["threads"] == 1
        assert results.describe(run["system"]) and results.summary(rows)
        assert "--device cpu" in results.command(run)


def test_the_checks_report_errors_clocks_and_peaks(dry_run):
    _, out = dry_run
    checks = json.loads((out / "gpu_checks.json").read_text())
    errors = {(r["impl"], r["dtype"]): r for r in checks["errors"]}
    for impl in IMPLS:
        assert errors[(impl, "float32")]["relative_error"] < 1e-5
        assert errors[(impl, "bfloat16")]["relative_error"] < 2e-2
        assert errors[(impl, "float32")]["finite"] and errors[(impl, "bfloat16")]["finite"]
    # tiled keeps float32 statistics: its bf16 error is the rounding of the result, no worse than SDPA's
    assert errors[("tiled-torch", "bfloat16")]["relative_error"] <= errors[("sdpa-torch", "bfloat16")]["relative_error"]
    assert len(checks["clocks"]) == 3
    for row in checks["clocks"]:
        assert row["events_median_s"] > 0 and row["perf_counter_median_s"] > 0 and "agree" in row
    assert set(checks["matmul_peak_flops"]) == {"float32", "bfloat16", "float16"}
    assert all(v > 0 for v in checks["matmul_peak_flops"].values()) and checks["copy_bytes_per_s"] > 0


def test_the_script_is_one_command_with_timeouts():
    text = SCRIPT.read_text()
    assert text.count("step ") >= 4 and "timeout" in text
    limits = [int(line.split()[1]) for line in text.splitlines() if line.strip().startswith("step ")]
    assert limits == [20, 100, 150], limits  # versions, checks, and the sweep, run once per dtype
    assert "NAME=$(timeout 30 " in text and "for DTYPE in float32 bfloat16; do" in text
    assert 20 + 30 + 100 + 2 * 150 <= 8 * 60, "the steps' timeouts must fit in 8 minutes"
    assert "128,256,512,1024,2048,4096,8192,16384" in text and "REPEAT:-10" in text
    readme = (ROOT / "benchmarks" / "README.md").read_text()
    assert "bash benchmarks/gpu_run.sh" in readme
