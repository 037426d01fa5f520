"""attnlib.bench (chapter 11): stopwatch, FLOP and memory counts, system info, sweep and CLI.

No timing assertions here: how fast things are is measured in benchmarks/, not tested.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from attnlib import bench

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_time_fn_stats_are_consistent():
    calls = []
    stats = bench.time_fn(lambda x: calls.append(x) or sum(range(x)), 1000, warmup=3, repeat=5)
    assert len(calls) == 3 + 5
    assert len(stats["samples_s"]) == 5
    assert stats["min_s"] <= stats["median_s"] <= stats["max_s"]
    assert stats["min_s"] == min(stats["samples_s"]) and stats["max_s"] == max(stats["samples_s"])
    assert all(s >= 0 for s in stats["samples_s"])


def test_time_fn_rejects_zero_repeats():
    with pytest.raises(ValueError, match="repeat"):
        bench.time_fn(lambda: None, repeat=0)


def test_attention_flops_exact():
    assert bench.attention_flops(1, 1) == 4
    assert bench.attention_flops(128, 64) == 4 * 128**2 * 64
    assert bench.attention_flops(2048, 64, batch=2, heads=4) == 8 * 4 * 2048**2 * 64
    assert bench.attention_flops(10, 8, d_v=3, m=20) == 2 * 10 * 20 * 8 + 2 * 10 * 20 * 3
    assert isinstance(bench.attention_flops(4096, 128, batch=16, heads=32), int)


def test_attention_matrix_bytes():
    assert bench.attention_matrix_bytes(1024) == 1024 * 1024 * 4
    assert bench.attention_matrix_bytes(10, m=20, batch=2, heads=3, dtype_bytes=2) == 10 * 20 * 2 * 3 * 2


def test_available_devices_and_system_info():
    devices = bench.available_devices()
    assert devices[0] == "cpu" and set(devices) <= {"cpu", "cuda", "mps"}
    info = bench.system_info("cpu")
    for key in ("date_utc", "cpu_model", "cpu_count", "torch_threads", "python", "numpy", "torch",
                "cuda", "gpu", "device"):
        assert key in info
    assert info["date_utc"].endswith("+00:00")
    assert os.uname().nodename not in json.dumps(info)  # no host name


def test_matmul_peak_is_positive():
    assert bench.matmul_peak("cpu", "float32", size=64, repeat=2) > 0
    assert bench.matmul_peak("cpu", "float64", size=64, repeat=2, library="numpy") > 0


def test_sweep_rows_and_skips():
    rows = bench.run_sweep("cpu", "float32", [8, 16], d=4, batch=1, heads=2, repeat=1, warmup=0,
                           peak_flops=1e9, budget_bytes=5 * 8 * 8 * 2 * 4, progress=None)
    assert len(rows) == 2 * len(bench.IMPLEMENTATIONS)
    skipped = {(r["n"], r["impl"]) for r in rows if r["skipped"]}
    assert skipped == {(16, "naive-numpy"), (16, "naive-torch")}  # over the tiny memory budget
    for r in rows:
        if not r["skipped"]:
            assert r["min_s"] <= r["median_s"] <= r["max_s"]
            assert r["gflops"] == pytest.approx(bench.attention_flops(r["n"], 4, heads=2) / r["median_s"] / 1e9)
    bf16 = bench.run_sweep("cpu", "bfloat16", [8], d=4, implementations=["naive-numpy", "tiled-torch"],
                           repeat=1, warmup=0, peak_flops=1e9, progress=None)
    assert "numpy" in bf16[0]["skipped"] and bf16[1]["skipped"] is None
    with pytest.raises(ValueError, match="unknown"):
        bench.run_sweep("cpu", "float32", [8], implementations=["fast"], peak_flops=1e9)


def test_import_loads_neither_torch_nor_matplotlib():
    code = "import sys, attnlib.bench; print('torch' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.split() == ["False", "False"]


def test_cli_smoke(tmp_path):
    out_file = tmp_path / "results.json"
    cmd = [sys.executable, "-m", "attnlib.bench", "--sizes", "16,32", "--repeat", "2", "--warmup", "1",
           "--d", "8", "--heads", "2", "--peak-size", "64", "--out", str(out_file)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    assert "GFLOP/s" in run.stdout and "sdpa-torch" in run.stdout
    report = json.loads(out_file.read_text())
    assert set(report) >= {"system", "peak_flops", "results"}
    assert report["peak_flops"] > 0 and report["system"]["date_utc"]
    results = report["results"]
    assert {(r["n"], r["impl"]) for r in results} == {(n, i) for n in (16, 32) for i in bench.IMPLEMENTATIONS}
    for r in results:
        assert r["skipped"] is None
        assert set(r) >= {"impl", "n", "d", "batch", "heads", "dtype", "device", "median_s", "min_s",
                          "max_s", "gflops", "pct_of_peak", "a_bytes"}
        assert r["min_s"] <= r["median_s"] <= r["max_s"] and r["gflops"] > 0 and r["pct_of_peak"] > 0
        assert r["a_bytes"] == r["n"] ** 2 * 2 * 4 and r["device"] == "cpu" and r["dtype"] == "float32"


def test_cli_refuses_missing_device(capsys):
    if "cuda" in bench.available_devices():
        pytest.skip("this machine has CUDA")
    with pytest.raises(SystemExit, match="not available"):
        bench.main(["--device", "cuda", "--sizes", "8"])
