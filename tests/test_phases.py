"""Phase by phase (chapter 17): sweep.timed_steps times each library call of a kernel, and
timemodel.step_phases models the same calls, one kind of traffic each.

No timing assertions: the stopwatch here is a fake one that ticks once per reading.
"""

import itertools
import json
import pathlib

import numpy as np
import pytest

from attnlib import attention, machine, sweep, timemodel

ROOT = pathlib.Path(__file__).resolve().parents[1]
RATES = {
    "thin product": 50e9,
    "square product": 100e9,
    "matrix-vector": 20e9,
    "in place (memory)": 40e9,
    "in place (cache)": 80e9,
    "by row (memory)": 20e9,
    "by row (cache)": 40e9,
    "read (memory)": 10e9,
    "read (cache)": 20e9,
    "exp (memory)": 1e9,
    "exp (cache)": 2e9,
    "copy below": 10e9,
    "copy above": 20e9,
    "fresh": 5e9,
    "call": 1e-6,
}


def inputs(library, n=70, heads=2, d=8):
    rng = np.random.default_rng(0)
    arrays = tuple(rng.standard_normal((1, heads, n, d)).astype(np.float32) for _ in range(3))
    if library == "torch":
        torch = pytest.importorskip("torch")
        arrays = tuple(torch.from_numpy(a) for a in arrays)
    return arrays


@pytest.mark.parametrize("kind", ["plain", "naive", "tiled"])
@pytest.mark.parametrize("library", ["numpy", "torch"])
def test_timed_steps_compute_the_kernel_s_z_and_time_every_phase_the_model_has(kind, library, monkeypatch):
    monkeypatch.setattr(sweep, "QUERY_BLOCK", 32)
    monkeypatch.setattr(sweep, "BLOCK", 32)  # several chunks and blocks at a small n
    Q, K, V = inputs(library)
    ticks = itertools.count()
    Z, seconds = sweep.timed_steps(kind, Q, K, V, clock=lambda: float(next(ticks)))
    expected = attention(*(np.asarray(x, dtype=np.float64) for x in (Q, K, V)))[0]
    assert np.allclose(np.asarray(Z), expected, atol=1e-5)
    model = [p["name"] for p in timemodel.step_phases(kind, 512, d=8, heads=2)]
    assert sorted(seconds) == sorted(model)
    assert all(s >= 1 for s in seconds.values())  # every phase read the (fake) clock around its calls


def test_timed_steps_refuses_an_unknown_kernel():
    with pytest.raises(ValueError, match="'plain', 'naive' or 'tiled'"):
        sweep.timed_steps("sdpa", *inputs("numpy"))


@pytest.mark.parametrize("n", [1024, 2048])
def test_the_naive_phases_count_chapter_17_s_flops_bytes_and_exponentials(n):
    ph = {p["name"]: p["terms"] for p in timemodel.step_phases("naive", n, d=64, heads=8, cache_bytes=2**20)}
    square = 8 * n * n * 4
    assert ph["QKᵀ"] == {"thin product": 2 * 8 * n * n * 64, "in place (memory)": 2 * square, "fresh": square}
    passes = sum(
        a for terms in ph.values() for t, a in terms.items() if t.split(" (")[0] in ("in place", "by row", "read")
    )
    assert passes == 10 * square  # counting.attention_bytes' ten n² reads and writes, less exp's two, plus S's write
    assert ph["exp"] == {"exp (memory)": 8 * n * n} and ph["shift"] == {"by row (memory)": 2 * square}


def test_plain_makes_a_new_array_at_every_step_and_copies_where_naive_works_in_place():
    plain = {p["name"]: p["terms"] for p in timemodel.step_phases("plain", 2048, cache_bytes=2**20)}
    square = 8 * 2048 * 2048 * 4
    assert plain["scale"] == {"copy below": 2 * square, "fresh": square}
    assert plain["divide"] == {"by row (memory)": 2 * square, "fresh": square}
    assert "fresh" not in plain["row max"] and "fresh" not in plain["AV"]


def test_the_tiled_phases_are_one_per_call_and_in_the_cache_when_a_whole_block_step_fits():
    ph = timemodel.step_phases("tiled", 2048, d=64, heads=8, cache_bytes=2 * 2**20)
    names = ["QKᵀ blocks", "row max", "shift", "exp", "row sum", "rescale Z", "PV blocks", "add PV", "updates"]
    assert [p["name"] for p in ph] == names
    blocks, chunks = 8 * 4 * 4, 8 * 4
    assert [p["calls"] for p in ph] == [blocks] * 8 + [5 * blocks + 5 * chunks]
    assert {p["name"]: p["terms"] for p in ph}["exp"] == {"exp (cache)": 8 * 2048 * 2048}
    rescale, add = ph[5]["terms"], ph[7]["terms"]  # Z (512 × 64) scaled by row, then PV added, in the cache
    assert rescale == {"by row (cache)": blocks * 2 * 512 * 64 * 4} and add == {
        "in place (cache)": blocks * 3 * 512 * 64 * 4
    }


def test_a_phase_takes_each_amount_at_its_own_rate_and_the_phases_add():
    ph = timemodel.step_phases("naive", 1024, d=64, heads=8, cache_bytes=2**20)
    square = 8 * 1024 * 1024 * 4
    expected = 1e-6 + 2 * 8 * 1024**2 * 64 / 50e9 + 2 * square / 40e9 + square / 5e9
    assert timemodel.step_time(ph[0], RATES) == pytest.approx(expected)
    updates = timemodel.step_phases("tiled", 1024)[-1]
    assert timemodel.step_time(updates, RATES) == pytest.approx(updates["calls"] * 1e-6)
    measured = {p["name"]: 2 * timemodel.step_time(p, RATES) for p in ph}
    rows = timemodel.steps_against_measured("naive", 1024, measured, RATES, cache_bytes=2**20)
    assert [r["ratio"] for r in rows] == pytest.approx([2.0] * len(rows))
    assert rows[-1]["name"] == "total" and rows[-1]["model_s"] == pytest.approx(sum(r["model_s"] for r in rows[:-1]))


def test_the_rates_are_counts_over_the_stopwatch_s_seconds(monkeypatch):
    monkeypatch.setattr(machine, "non_temporal_threshold", lambda: 4 * 2**20)  # small copies for the test

    def fake_median(call, repeat, clock, setup=None):  # each workload runs once; the tiny call takes 0.5 s,
        if setup:  # a new array 2 s, all else 1 s
            setup()
        call()
        return 0.5 if repeat == 50 else 2.0 if getattr(call, "func", None) is np.ones else 1.0

    monkeypatch.setattr(machine, "median_seconds", fake_median)
    found = machine.traffic_rates("numpy", repeat=1)
    assert set(found["rates"]) == set(RATES) == set(found["measured_on"])
    assert found["rates"]["call"] == 0.5
    assert found["rates"]["copy below"] == 2 * 2 * 2**20  # 0.7 × 4 MiB, whole MiB: read and written
    assert found["rates"]["copy above"] == 2 * 5 * 2**20
    assert found["rates"]["exp (cache)"] == 256 * 2**10 // 4 / 0.5  # less the cost of the call
    assert found["rates"]["exp (memory)"] == 64 * 2**20 // 4
    assert found["rates"]["fresh"] == 64 * 2**20 / (2.0 - 1.0)  # a new array less a kept one's fill
    assert found["rates"]["square product"] == 2 * 2048**3
    assert found["rates"]["matrix-vector"] == 64 * 2**20  # each byte of the matrix read once
    assert found["non_temporal_threshold"] == 4 * 2**20


def test_the_non_temporal_threshold_is_read_from_the_loader(monkeypatch):
    class Done:
        stdout = "x86.cpu_features.non_temporal_threshold=0xb580000\nother=1\n"

    monkeypatch.setattr(machine.subprocess, "run", lambda *a, **k: Done())
    assert machine.non_temporal_threshold() == 0xB580000  # 181.5 MiB, the review's machine
    monkeypatch.setattr(machine.subprocess, "run", lambda *a, **k: (_ for _ in ()).throw(OSError("no loader")))
    assert machine.non_temporal_threshold() is None


def test_the_stored_phase_run_has_every_kernel_its_machine_and_its_load():
    run = json.loads((ROOT / "chapters/data/cpu_phases.json").read_text())
    assert run["system"]["cpu_model"] and run["clock"].startswith("time.thread_time")
    assert {"start", "max", "others", "quiet"} <= set(run["load"])
    assert run["load"]["quiet"] == (run["load"]["others"] < 1)
    kernels = {(r["kind"], r["library"], r["n"]) for r in run["kernels"]}
    kinds = ("plain", "naive", "tiled")
    assert kernels == {(k, lib, n) for k in kinds for lib in ("numpy", "torch") for n in (1024, 2048)}
    for r in run["kernels"]:
        names = [p["name"] for p in timemodel.step_phases(r["kind"], r["n"])]
        assert sorted(r["steps_s"]) == sorted(names)
        assert len(r["page_faults"]) == len(r["system_s"]) == run["rounds"]
    assert set(run["rates"]["numpy"]["rates"]) == set(RATES)
    assert set(run["rates"]["torch"]["rates"]) == set(RATES) | {"fused exp"}  # fitted on SDPA itself
    assert set(run["kernel_call_s"]) == set(sweep.IMPLEMENTATIONS)


def test_one_token_reads_every_weight_and_the_whole_cache_and_the_crossover_is_where_they_meet():
    found = timemodel.token_bytes(100, weight_bytes=10**6, layers=2, kv_heads=3, d_k=4)
    assert found == {"weights": 10**6, "cache": 2 * 2 * 3 * 100 * 4 * 4}  # K and V, every layer, float32
    t = timemodel.cache_crossover(10**6, layers=2, kv_heads=3, d_k=4)
    assert timemodel.token_bytes(t, 10**6, 2, 3, 4)["cache"] == pytest.approx(10**6)


def test_the_stored_generation_run_times_both_ways_at_every_context():
    gen = json.loads((ROOT / "chapters/data/cpu_phases.json").read_text())["generation"]
    assert gen["contexts"] and max(gen["contexts"]) + 1 <= 512
    assert set(gen["times"]) == {f"{kind} {t}" for kind in ("cached", "uncached") for t in gen["contexts"]}
    assert gen["weight_bytes"] > 0 and gen["dtype"] == "float32"
