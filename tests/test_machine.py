"""attnlib.machine (chapter 16): the CPU's description, the threads the libraries report, the two ceilings.

No timing assertions here: how fast things are is measured in benchmarks/, not tested.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from attnlib import machine

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_system_info():
    info = machine.system_info("cpu")
    for key in (
        "date_utc",
        "cpu_model",
        "cpu_count",
        "torch_threads",
        "python",
        "numpy",
        "torch",
        "cuda",
        "gpu",
        "device",
    ):
        assert key in info
    assert info["date_utc"].endswith("+00:00")
    assert os.uname().nodename not in json.dumps(info)  # no host name
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            text = f.read()
        cpu = info["cpu"]
        assert cpu["model_name"] and cpu["model_name"] in text
        if "cpu family" in text:
            assert f"family {cpu['family']}, model {cpu['model']}" in info["cpu_model"]
        if " avx2" in text:
            assert cpu["flags"]["avx2"] is True and "AVX2" in info["cpu_model"]
        assert cpu["flags"]["avx512f"] == (" avx512f" in text)
        assert ("no AVX-512" in info["cpu_model"]) == (" avx512f" not in text)


def test_matmul_peak_is_positive():
    assert machine.matmul_peak("cpu", "float32", size=64, repeat=2) > 0
    assert machine.matmul_peak("cpu", "float64", size=64, repeat=2, library="numpy") > 0


def test_matmul_peak_of_a_slow_format_is_bounded():
    """bfloat16 matmul is slow on many CPUs: without a size, the peak still takes seconds, not minutes."""
    import time

    start = time.perf_counter()
    assert machine.matmul_peak("cpu", "bfloat16", repeat=5, max_seconds=1.0) > 0
    assert time.perf_counter() - start < 15


def test_memory_bandwidth_counts_read_and_write(monkeypatch):
    seen = {}

    def fake_time_fn(fn, dst, src, **kwargs):
        fn(dst, src)
        seen["bytes"] = dst.nbytes + src.nbytes
        return {"median_s": 0.5}

    monkeypatch.setattr(machine, "time_fn", fake_time_fn)
    assert machine.memory_bandwidth("cpu", mebibytes=2) == seen["bytes"] / 0.5 == 2 * 2 * 2**20 / 0.5


THREAD_REPORT = "from attnlib import machine; import json; print(json.dumps(machine.thread_counts()))"


@pytest.mark.parametrize("first", [True, False])
def test_thread_counts_are_what_the_libraries_report(first):
    """Set before numpy loads, OpenBLAS runs one thread; set after, it keeps its own count."""
    setting = "import os; os.environ.update(OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1'); "
    code = (setting + "import numpy; " if first else "import numpy; " + setting) + THREAD_REPORT
    env = {k: v for k, v in os.environ.items() if k not in machine.THREAD_VARIABLES}
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    report = json.loads(run.stdout)
    if first:
        assert report == {"numpy_blas": 1, "torch": 1}
    elif (os.cpu_count() or 1) > 1:
        assert report["numpy_blas"] > 1  # too late: the request after import changed nothing


def test_sixteen_bit_units_are_read_from_the_flags():
    assert machine.sixteen_bit_units({"amx_tile": True, "amx_bf16": True, "avx512_bf16": True}) == (
        "AMX bfloat16, AVX-512 BF16"
    )
    assert machine.sixteen_bit_units({"avx512_bf16": True}) == "AVX-512 BF16 (no AMX)"
    assert machine.sixteen_bit_units({"avx2": True}).startswith("none")
    info = machine.system_info("cpu")
    assert info["sixteen_bit_units"] == machine.sixteen_bit_units(info["cpu"]["flags"])


def test_cache_sizes_are_bytes_by_level():
    sizes = machine.cache_sizes()
    assert all(level.startswith("L") and size > 0 for level, size in sizes.items())
    if "L2" in sizes and "L1" in sizes:
        assert sizes["L1"] < sizes["L2"]


@pytest.mark.parametrize("library", ["numpy", "torch"])
def test_the_model_constants_are_positive_and_plausible(library):
    assert 1e6 < machine.exp_rate(library, count=2**10, repeat=1) < 1e12
    assert 0 < machine.call_overhead(library, repeat=1) < 1e-3
    assert 1e6 < machine.cache_bandwidth(library, kibibytes=16, repeat=1) < 1e13
    assert 1e6 < machine.fresh_memory_rate(library, mebibytes=4, repeat=1) < 1e13


def test_per_call_divides_by_the_calls(monkeypatch):
    monkeypatch.setattr(machine, "time_fn", lambda fn, **kw: {"median_s": 2.0})
    assert machine.per_call(lambda: None, 100) == pytest.approx(0.02)
