"""attnlib.machine (chapter 17): the CPU's description, the threads the libraries report, the two ceilings.

No timing assertions here: how fast things are is measured in benchmarks/, not tested.
"""

import json
import os
import pathlib

import numpy as np
import pytest
from conftest import run_python

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


def test_matmul_peak_stops_before_a_side_would_overrun_its_seconds(monkeypatch):
    """Without a size the side doubles while the next one still fits in max_seconds: a stopwatch
    that says each call of side s takes (s / 256)³ ms stops the walk where the budget says, whatever
    the machine's load (a slow format such as bfloat16 then takes seconds, not minutes)."""
    sides, clock = [], [0.0]

    def fake_time_once(fn, args, device, events=True):
        return (args[0].shape[0] / 256) ** 3 / 1000

    def fake_time_fn(fn, a, b, warmup, repeat, device):
        sides.append(a.shape[0])
        clock[0] += repeat * fake_time_once(fn, (a, b), device)
        return {"median_s": fake_time_once(fn, (a, b), device)}

    # a side × 1 matrix stands for a side × side one: the stopwatch reads only the side
    monkeypatch.setattr(
        machine, "_square_pair", lambda library, device, dtype, side: (np.ones((side, 1)), np.ones((1, 1)))
    )
    monkeypatch.setattr(machine, "time_once", fake_time_once)
    monkeypatch.setattr(machine, "time_fn", fake_time_fn)
    monkeypatch.setattr(machine.time, "perf_counter", lambda: clock[0])
    peak = machine.matmul_peak("cpu", "float32", library="numpy", repeat=5, max_seconds=1.0)
    assert sides == [256, 512, 1024]  # 0.24 s spent by 1024 (64 ms a call); 2048 would cost 8 times as much
    assert peak == pytest.approx(2 * 256**3 / 1e-3)  # FLOP/s: 2·s³ FLOPs over seconds, the same for every side


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
    report = json.loads(run_python(code, env=env))
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
def test_the_model_constants_are_counts_over_the_stopwatch_s_seconds(library, monkeypatch):
    """Each constant runs its workload and divides what it did (exponentials, bytes, calls) by the
    stopwatch's seconds. The stopwatch is fixed at 0.5 s a run, so the units are checked exactly and
    no measured speed decides the result (how fast this machine is belongs to benchmarks/)."""
    ran = []

    def fake_time_fn(fn, *args, **kwargs):
        fn(*args)  # the workload runs, with the arrays the function made
        ran.append(fn)
        return {"median_s": 0.5}

    monkeypatch.setattr(machine, "time_fn", fake_time_fn)
    assert machine.exp_rate(library, count=2**10, repeat=1) == pytest.approx(2**10 / (0.5 / 50))  # per second
    assert machine.call_overhead(library, repeat=1) == pytest.approx(0.5 / 1000)  # seconds per call
    assert len(ran) == 2


def test_per_call_divides_by_the_calls(monkeypatch):
    monkeypatch.setattr(machine, "time_fn", lambda fn, **kw: {"median_s": 2.0})
    assert machine.per_call(lambda: None, 100) == pytest.approx(0.02)


@pytest.mark.parametrize(("load", "quiet"), [(0.3, True), (1.9, True), (2.0, False), (13.2, False)])
def test_a_live_timing_judges_its_own_load_as_the_stored_run_does(load, quiet, monkeypatch):
    monkeypatch.setattr(machine.os, "getloadavg", lambda: (load, 0.0, 0.0))
    monkeypatch.setattr(machine.os, "cpu_count", lambda: 2)
    verdict = machine.load_verdict(threads=1)
    assert verdict.startswith(f"load {load:.1f} on 2 cores: ")
    assert ("quiet" in verdict) == quiet and ("busy" in verdict) == (not quiet)
