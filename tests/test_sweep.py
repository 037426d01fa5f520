"""attnlib.sweep and its command line, benchmarks/sweep.py (chapter 17): the sweep's rows and skips,
the interleaved rounds, the table, and the command line end to end.

No timing assertions here: how fast things are is measured in benchmarks/, not tested.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from attnlib import bench, counting, machine, sweep
from benchmarks import sweep as sweep_cli

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_sweep_rows_and_skips():
    rows = sweep.run_sweep(
        "cpu",
        "float32",
        [8, 16],
        d=4,
        batch=1,
        heads=2,
        repeat=1,
        warmup=0,
        peak_flops=1e9,
        budget_bytes=2 * 8 * 8 * 2 * 4,
        progress=None,
    )
    assert len(rows) == 2 * len(sweep.IMPLEMENTATIONS)
    skipped = {(r["n"], r["impl"]) for r in rows if r["skipped"]}
    assert skipped == {(16, "plain-numpy"), (16, "naive-numpy"), (16, "naive-torch")}  # over the tiny budget
    for r in rows:
        if not r["skipped"]:
            assert r["min_s"] <= r["median_s"] <= r["max_s"]
            assert r["gflops"] == pytest.approx(counting.attention_flops(r["n"], 4, heads=2) / r["median_s"] / 1e9)
    bf16 = sweep.run_sweep(
        "cpu",
        "bfloat16",
        [8],
        d=4,
        implementations=["naive-numpy", "tiled-torch"],
        repeat=1,
        warmup=0,
        peak_flops=1e9,
        progress=None,
    )
    assert "numpy" in bf16[0]["skipped"] and bf16[1]["skipped"] is None
    with pytest.raises(ValueError, match="unknown"):
        sweep.run_sweep("cpu", "float32", [8], implementations=["fast"], peak_flops=1e9)


def test_failed_rows_are_recorded_not_raised(monkeypatch):
    def out_of_memory(*args, **kwargs):
        raise RuntimeError("CUDA out of memory. Tried to allocate 8.00 GiB")

    monkeypatch.setattr(sweep, "_inputs", out_of_memory)
    rows = sweep.run_sweep(
        "cpu", "float32", [8], d=4, heads=1, implementations=["naive-numpy"], repeat=1, peak_flops=1e9, progress=None
    )
    assert rows[0]["status"] == "failed" and "out of memory" in rows[0]["skipped"]
    assert "failed" in sweep.format_table(rows)


def test_interleaved_rounds_shuffle_the_order_and_record_the_load():
    order = []
    calls = {name: (lambda name=name: order.append(name)) for name in "abcd"}
    samples = sweep.interleaved(calls, rounds=6, warmup=1)
    assert order[:4] == list("abcd")  # the warm-up, in order
    rounds = [order[4 + 4 * i : 8 + 4 * i] for i in range(6)]
    assert all(sorted(r) == list("abcd") for r in rounds)  # every call once per round
    assert len({tuple(r) for r in rounds}) > 1  # not the same order every round
    assert all(len(samples[name]) == 6 for name in "abcd") and len(samples["_load"]) == 6


def test_command_line_round_trips_through_the_parser():
    settings = {
        "device": "cpu",
        "dtype": "bfloat16",
        "d": 32,
        "batch": 2,
        "heads": 4,
        "repeat": 3,
        "warmup": 1,
        "threads": 2,
        "peak_size": 512,
        "sizes": [64, 4096],
        "implementations": ["tiled-torch", "sdpa-torch"],
    }
    line = sweep.command_line(settings, out="x.json")
    args = sweep_cli._parse(line.split("python -m benchmarks.sweep ")[1].split())
    for key, value in settings.items():
        assert getattr(args, {"sizes": "sizes", "implementations": "impls"}.get(key, key)) == value, key
    assert args.out == "x.json"


def test_cli_smoke(tmp_path):
    out_file = tmp_path / "results.json"
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.sweep",
        "--sizes",
        "16,32",
        "--repeat",
        "2",
        "--warmup",
        "1",
        "--d",
        "8",
        "--heads",
        "2",
        "--peak-size",
        "64",
        "--out",
        str(out_file),
    ]
    run = subprocess.run(
        cmd,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "GFLOP/s" in run.stdout and "sdpa-torch" in run.stdout
    report = json.loads(out_file.read_text())
    assert set(report) >= {"system", "peak_flops", "results"}
    assert report["peak_flops"] > 0 and report["system"]["date_utc"]
    results = report["results"]
    assert {(r["n"], r["impl"]) for r in results} == {(n, i) for n in (16, 32) for i in sweep.IMPLEMENTATIONS}
    for r in results:
        assert r["skipped"] is None
        assert set(r) >= {
            "impl",
            "n",
            "d",
            "batch",
            "heads",
            "dtype",
            "device",
            "median_s",
            "min_s",
            "max_s",
            "gflops",
            "pct_of_peak",
            "a_bytes",
        }
        assert r["min_s"] <= r["median_s"] <= r["max_s"] and r["gflops"] > 0 and r["pct_of_peak"] > 0
        assert r["a_bytes"] == r["n"] ** 2 * 2 * 4 and r["device"] == "cpu" and r["dtype"] == "float32"


def _cli(*args, env=None, timeout=120, module="benchmarks.sweep"):
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        check=False,
    )


@pytest.mark.parametrize(
    "args, named",
    [
        (["--sizes", "64,abc"], "'abc'"),
        (["--sizes", "0"], "0"),
        (["--sizes", "-8"], "-8"),
        (["--sizes", "64,,128"], "64,,128"),
        (["--sizes", ""], "''"),
        (["--impls", "no-such-impl"], "no-such-impl"),
        (["--impls", "naive-numpy,fast"], "fast"),
        (["--repeat", "0"], "0"),
        (["--repeat", "two"], "two"),
        (["--threads", "0"], "0"),
        (["--warmup", "-1"], "-1"),
        (["--heads", "0"], "0"),
        (["--d", "0"], "0"),
        (["--batch", "x"], "x"),
        (["--peak-size", "1"], "1"),
        (["--device", "tpu"], "tpu"),
        (["--device", "cuda:x"], "cuda:x"),
        (["--dtype", "float8"], "float8"),
    ],
)
def test_cli_refuses_bad_arguments_in_one_line(args, named):
    run = _cli(*args, "--out", "/nonexistent-folder/never.json", timeout=60)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr and run.stdout == ""  # nothing measured, nothing printed
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and lines[0].startswith("python -m benchmarks.sweep: error:")


def test_cli_refuses_a_device_that_is_not_there():
    missing = next(d for d in ("cuda", "mps", "cuda:7") if d.split(":")[0] not in bench.available_devices())
    run = _cli("--device", missing, "--sizes", "8")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"device {missing!r} is not available here" in run.stderr and run.stdout == ""
    with pytest.raises(SystemExit):
        sweep_cli.main(["--device", missing, "--sizes", "8"])


NO_TORCH = (
    "import sys, runpy; sys.modules['torch'] = None; sys.argv = ['benchmarks.sweep'] + sys.argv[1:]; "
    "runpy.run_module('benchmarks.sweep', run_name='__main__')"
)
ONE_THREAD = {v: "1" for v in machine.THREAD_VARIABLES}


def _run_without_torch(*args: str) -> subprocess.CompletedProcess:
    """The command line in a process where torch cannot be imported."""
    return subprocess.run(
        [sys.executable, "-c", NO_TORCH, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT), **ONE_THREAD},
        check=False,
    )


def test_cli_without_torch():
    for dtype in ("bfloat16", "float16"):
        run = _run_without_torch("--dtype", dtype)
        assert run.returncode == 2 and "Traceback" not in run.stderr
        assert f"--dtype {dtype} needs torch" in run.stderr
    run = _run_without_torch("--sizes", "8", "--d", "4", "--heads", "1", "--repeat", "1", "--peak-size", "32")
    assert run.returncode == 0, run.stderr
    assert "torch is not installed" in run.stdout and "naive-numpy" in run.stdout


def test_cli_imports_only_the_standard_library_numpy_and_torch():
    code = (
        "import sys, runpy; sys.argv = ['benchmarks.sweep', '--sizes', '8', '--d', '4', '--heads', '1', "
        "'--repeat', '1', '--peak-size', '32']\n"
        "try:\n    runpy.run_module('benchmarks.sweep', run_name='__main__')\nfinally:\n"
        "    print('MODULES', sorted({m.split('.')[0] for m in sys.modules}))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), **ONE_THREAD}
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env, check=False
    )
    assert run.returncode == 0, run.stderr
    used = set(eval(run.stdout.split("MODULES ")[1]))
    base = subprocess.run(
        [
            sys.executable,
            "-c",
            ("import sys, numpy, numpy.random, torch; print(sorted({m.split('.')[0] for m in sys.modules}))"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    allowed = set(eval(base.stdout)) | set(sys.stdlib_module_names) | {"attnlib", "benchmarks", "__main__"}
    assert used - allowed == set()
    assert "matplotlib" not in used


def test_cli_records_threads_one_peak_and_its_command(tmp_path):
    out_file = tmp_path / "r.json"
    run = _cli(
        "--sizes",
        "16,32",
        "--repeat",
        "2",
        "--warmup",
        "0",
        "--d",
        "8",
        "--heads",
        "2",
        "--impls",
        "naive-numpy,sdpa-torch",
        "--peak-size",
        "64",
        "--out",
        str(out_file),
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(out_file.read_text())
    assert report["settings"]["threads"] == 1 and report["system"]["torch_threads"] == 1
    assert report["system"]["thread_env"] == ONE_THREAD
    assert report["command"] == sweep.command_line(report["settings"], out=str(out_file))
    assert "--threads 1" in report["command"] and "--sizes 16,32" in report["command"]
    # one peak: the % printed while measuring is the % in the table and in the file
    for row in report["results"]:
        progress = next(line for line in run.stdout.splitlines() if line.split()[:2] == [f"n={row['n']}", row["impl"]])
        assert f"{row['pct_of_peak']:6.1f}% of peak" in progress
        assert row["pct_of_peak"] == pytest.approx(100 * row["gflops"] * 1e9 / report["peak_flops"])


@pytest.mark.parametrize("impl", ["tiled-numpy", "naive-torch"])
def test_cli_cpu_sweep_peak_memory_part_runs_sweep_s_kernel_in_a_fresh_process(impl):
    """benchmarks/cpu_sweep.py's children are parts of the module (no Python in strings): one call's
    peak extra memory, in bytes, as one line of JSON (its size is measured, not tested)."""
    run = _cli("--part", "peak-memory", "--impl", impl, "--n", "64", timeout=300, module="benchmarks.cpu_sweep")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["impl"] == impl and isinstance(report["peak_extra_bytes"], int) and report["peak_extra_bytes"] >= 0


def test_every_sample_records_its_page_faults_and_system_time():
    import mmap

    import numpy as np

    def fresh():  # a new anonymous mapping, every page written: new pages on any allocator, in any process
        pages = mmap.mmap(-1, 2**25)
        view = np.frombuffer(pages, dtype=np.uint8)
        view[:: mmap.PAGESIZE] = 1
        del view
        pages.close()

    calls = {"fresh": fresh, "kept": lambda: None}
    usage = {}
    samples = sweep.interleaved(calls, rounds=3, warmup=1, usage=usage)
    assert set(usage) == {"fresh", "kept"}
    for name in calls:
        assert len(usage[name]["page_faults"]) == len(usage[name]["system_s"]) == len(samples[name]) == 3
        assert all(f >= 0 for f in usage[name]["page_faults"])
    assert min(usage["fresh"]["page_faults"]) > max(usage["kept"]["page_faults"])  # 32 MiB of new pages each call
