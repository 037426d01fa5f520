"""benchmarks/gpu_run.sh, dry-run on the CPU: the GPU run (15 minutes of device time in all) cannot fail on a typo.

The same script, the same steps, the same files; only the device, the sizes and the repeats are small.
Everything here is read from what the run did: its exit status, its files and its log.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from attnlib import results

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu_run.sh"
IMPLS = {"naive-torch", "tiled-torch", "sdpa-torch"}


def _run(out, **extra):
    env = {
        **os.environ,
        "OUT": str(out),
        "DEVICE": "cpu",
        "SIZES": "16,48",
        "REPEAT": "2",
        "WARMUP": "1",
        "CHECK_N": "64",
        "PARTS_N": "64",
        "PYTHON": sys.executable,
        **extra,
    }
    return subprocess.run(
        ["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory):
    if shutil.which("bash") is None or shutil.which("timeout") is None:
        pytest.skip("needs bash and coreutils' timeout")
    out = tmp_path_factory.mktemp("gpu_out")
    return _run(out), out


def test_the_dry_run_succeeds_and_writes_few_small_files(dry_run):
    run, out = dry_run
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "gpu_checks.json",
        "gpu_cpu-dryrun_bfloat16.json",
        "gpu_cpu-dryrun_float32.json",
        "gpu_parts.json",
        "gpu_run.log",
        "system.txt",
    ]
    assert len(names) <= 8 and all(p.stat().st_size < 16 * 2**20 for p in out.iterdir())
    system = (out / "system.txt").read_text()
    assert re.search(r"^torch \d", system, re.MULTILINE) and re.search(r"^numpy \d", system, re.MULTILINE)


def test_every_step_ran_under_a_timeout_that_fits_the_device_time(dry_run):
    _, out = dry_run
    log = (out / "gpu_run.log").read_text()
    # each step logs "== HH:MM:SS command (timeout N s)"; the copy of system.txt repeats the first one
    steps = dict.fromkeys(re.findall(r"^== (\d\d:\d\d:\d\d) .*?\(timeout (\d+) s\)", log, re.MULTILINE | re.DOTALL))
    limits = [int(limit) for _, limit in steps]
    assert len(limits) == 5, log[:2000]  # versions, checks, parts, and one sweep per dtype
    assert sum(limits) + 30 <= 9 * 60, "the steps' timeouts (and the 30 s name probe) must fit in 9 minutes"
    assert "timed out" not in log and "!! exit status" not in log


def test_the_sweeps_are_what_chapter_16_reads(dry_run):
    _, out = dry_run
    runs = results.load_results(out)
    assert [r["settings"]["dtype"] for r in runs] == ["bfloat16", "float32"]
    for run in runs:
        rows = run["results"]
        assert {r["impl"] for r in rows} == IMPLS and {r["n"] for r in rows} == {16, 48}
        assert all(r["status"] == "measured" for r in rows), [r["skipped"] for r in rows]
        assert all(len(r["samples_s"]) == 2 for r in rows)  # REPEAT rounds, each call once a round
        assert {(r["heads"], r["d"], r["batch"]) for r in rows} == {(8, 64, 1)}
        assert run["system"]["threads_reported"]["torch"] == 1
        assert "--device cpu" in results.command(run)


def test_the_checks_report_errors_clocks_and_both_ceilings(dry_run):
    _, out = dry_run
    checks = json.loads((out / "gpu_checks.json").read_text())
    errors = {(r["impl"], r["dtype"]): r for r in checks["errors"]}
    for impl in IMPLS:
        assert errors[(impl, "float32")]["relative_error"] < 1e-5
        assert errors[(impl, "bfloat16")]["relative_error"] < 2e-2
        assert errors[(impl, "float32")]["finite"] and errors[(impl, "bfloat16")]["finite"]
    assert len(checks["clocks"]) == 3
    assert set(checks["matmul_peak_flops"]) == {"float32", "bfloat16", "float16"}
    assert all(v > 0 for v in checks["matmul_peak_flops"].values()) and checks["copy_bytes_per_s"] > 0
    assert (
        checks["exp_rate"] > 0 and checks["launch_overhead_s"] > 0
    )  # the time model's two extra constants (their size is measured, not tested)


def test_the_parts_time_backward_causal_and_name_the_sdpa_kernel(dry_run):
    _, out = dry_run
    parts = json.loads((out / "gpu_parts.json").read_text())
    fb = parts["forward_backward"]["backward_over_forward"]
    assert set(fb) == {"plain-torch", "tiled-torch", "sdpa-torch"} and all(r["median"] > 0 for r in fb.values())
    causal = parts["causal"]["causal_over_full"]
    assert {"naive-torch", "tiled-torch", "sdpa-torch"} <= set(causal)
    assert parts["sdpa_backends"]["default_kernel"].startswith(("aten::", "math"))
    assert "MATH" in parts["sdpa_backends"]["times"]


def _as_gpu_run(run: dict, name: str, factor: dict[int, float]) -> dict:
    """The dry run's sweep file turned into a synthetic GPU file of the same format: the system names a
    GPU, and each time is multiplied by factor[n]."""
    run = json.loads(json.dumps(run))
    run["system"].update(gpu=name, device="cuda")
    for r in run["results"]:
        if r.get("median_s") is not None:
            for key in ("median_s", "min_s", "max_s"):
                r[key] *= factor[r["n"]]
    return run


def test_chapter_16_sets_a_stored_gpu_run_beside_the_cpu_run(dry_run, tmp_path):
    _, out = dry_run
    cpu = json.loads((out / "gpu_cpu-dryrun_float32.json").read_text())  # the real format, made on the CPU
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "cpu_results.json").write_text(json.dumps(cpu))
    assert results.side_by_side(cpu, [r for r in results.load_results(folder) if r["system"]["gpu"]]) == (
        "no GPU run stored"
    )
    gpu = _as_gpu_run(cpu, "NVIDIA H200", {16: 2.0, 48: 0.1})  # slower at n = 16, ten times faster at 48
    (folder / "gpu_nvidia-h200_float32.json").write_text(json.dumps(gpu))
    bf16 = json.loads((out / "gpu_cpu-dryrun_bfloat16.json").read_text())
    (folder / "gpu_nvidia-h200_bfloat16.json").write_text(json.dumps(_as_gpu_run(bf16, "NVIDIA H200", {16: 1, 48: 1})))
    gpu_runs = [r for r in results.load_results(folder) if r["system"]["gpu"]]
    text = results.side_by_side(cpu, gpu_runs)
    assert text.count("GPU faster from n = 48 on") == len(IMPLS), text
    assert "another workload (bfloat16)" in text
    cpu_ms = next(r for r in cpu["results"] if r["impl"] == "sdpa-torch" and r["n"] == 48)["median_s"] * 1e3
    assert f"{cpu_ms:9.2f}" in text and f"{cpu_ms * 0.1:9.3f}" in text
    assert max(len(line) for line in text.splitlines()) <= 40


def test_a_missing_out_folder_is_refused_before_anything_runs(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    run = subprocess.run(
        ["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode != 0 and "OUT" in run.stderr
