"""attnlib.timemodel: the time model's arithmetic, on made-up constants (nothing is timed here)."""

import math

import pytest

from attnlib import counting, timemodel

CONSTANTS = {
    "peak": 100e9,
    "bandwidth": {"L2": [2**20, 100e9], "L3": [32 * 2**20, 50e9], "memory": [None, 20e9]},
    "exp_rate": 1e9,
    "fresh_rate": 4e9,
    "op_overhead": 1e-6,
    "call_cost": {"naive-numpy": 50e-6, "plain-numpy": 60e-6, "tiled-numpy": 80e-6, "sdpa-torch": 5e-6},
}


@pytest.mark.parametrize("n", [64, 512, 2048])
def test_the_phases_move_the_bytes_and_flops_chapter_15_counts(n):
    for kind, count in (("naive", "naive"), ("fused", "fused")):
        ph = timemodel.phases(kind, n, d=64, heads=8)
        assert sum(p["bytes"] for p in ph) == counting.attention_bytes(n, 64, count, heads=8)
        assert sum(p["flops"] for p in ph) == counting.attention_flops(n, 64, heads=8)
    tiled = timemodel.phases("tiled", n, d=64, heads=8)
    assert sum(p["flops"] for p in tiled) == counting.attention_flops(n, 64, heads=8)
    assert sum(p["exps"] for p in tiled) == 8 * n * n


def test_a_phase_takes_the_larger_of_compute_and_memory_and_phases_add():
    ph = timemodel.phase("x", flops=100e9, nbytes=10e9, array_bytes=2**30)  # 1 s of products, 0.5 s of bytes
    assert timemodel.phase_times(ph, CONSTANTS)["time"] == pytest.approx(1.0)
    slow = timemodel.phase("y", flops=1e9, nbytes=40e9, array_bytes=2**30)
    assert timemodel.phase_times(slow, CONSTANTS)["time"] == pytest.approx(2.0)
    both = timemodel.phase("z", flops=100e9, exps=1e9, array_bytes=0)
    assert timemodel.phase_times(both, CONSTANTS)["time"] == pytest.approx(2.0)  # a CPU: shared units, sum
    assert timemodel.phase_times(both, CONSTANTS, units="separate")["time"] == pytest.approx(1.0)  # a GPU: max


def test_the_bandwidth_is_that_of_the_smallest_level_that_holds_the_array():
    levels = CONSTANTS["bandwidth"]
    assert timemodel.bandwidth_for(2**19, levels) == 100e9
    assert timemodel.bandwidth_for(8 * 2**20, levels) == 50e9
    assert timemodel.bandwidth_for(2**30, levels) == 20e9


def test_the_three_regimes_appear_as_n_grows():
    assert timemodel.predict("naive-numpy", 16, CONSTANTS)["regime"] == "overhead"
    big = timemodel.predict("naive-numpy", 4096, {**CONSTANTS, "peak": 1e12})
    assert big["regime"] == "bandwidth"  # 10 passes over 512 MiB at 20 GB/s outweigh 34 GFLOP at 1 TFLOP/s
    assert timemodel.predict("sdpa-torch", 4096, CONSTANTS)["regime"] == "compute"
    assert big["time_s"] == pytest.approx(sum(big["split"].values()))


def test_plain_pays_five_fresh_arrays_naive_one_and_only_when_large():
    small = timemodel.predict("plain-numpy", 256, CONSTANTS)["split"]["fresh memory"]
    assert small == 0.0
    plain = timemodel.predict("plain-numpy", 2048, CONSTANTS)["split"]["fresh memory"]
    naive = timemodel.predict("naive-numpy", 2048, CONSTANTS)["split"]["fresh memory"]
    assert plain == pytest.approx(5 * naive) and naive == pytest.approx(8 * 2048**2 * 4 / 4e9)


def test_tiled_on_a_gpu_runs_its_products_at_the_float32_peak():
    sheet = timemodel.H200_SHEET
    tiled = timemodel.predict("tiled-torch", 8192, sheet, nbytes=2)
    products = counting.attention_flops(8192, 64, heads=8) / sheet["float32_peak"]
    assert tiled["split"]["compute"] + tiled["split"]["bandwidth"] >= products
    assert timemodel.predict("sdpa-torch", 8192, sheet, nbytes=2)["time_s"] < tiled["time_s"] / 10


def test_predicted_against_measured_gives_the_ratio_of_every_measured_row():
    ceilings = {
        "peak_flops": {"numpy": 100e9},
        "bandwidth_bytes_per_s": {"numpy": 20e9},
        "cache_bandwidth": {"numpy": {"L2": {"bytes": 2**20, "bytes_per_s": 100e9}}},
        "exp_rate": {"numpy": 1e9},
        "fresh_memory_bytes_per_s": {"numpy": 4e9},
        "op_overhead_s": {"numpy": 1e-6},
        "call_cost_s": {"naive-numpy": 50e-6},
    }
    rows = [
        {"impl": "naive-numpy", "n": 512, "d": 64, "heads": 8, "median_s": 0.02},
        {"impl": "naive-numpy", "n": 1024, "d": 64, "heads": 8, "median_s": None},
    ]
    [row] = timemodel.predicted_against_measured(rows, ceilings)
    expected = timemodel.predict("naive-numpy", 512, timemodel.constants_of(ceilings, "numpy"))["time_s"]
    assert row["ratio"] == pytest.approx(0.02 / expected) and math.isfinite(row["ratio"])


def test_an_unknown_kind_is_named():
    with pytest.raises(ValueError, match="'plain', 'naive', 'tiled' or 'fused'"):
        timemodel.phases("flash", 64)


def test_tiled_walks_one_block_for_all_heads_when_they_fit_and_per_head_otherwise():
    assert timemodel.tiled_steps(128, heads=8) == 1  # 8 × 128² scores fit one 512 × 512 block
    assert timemodel.tiled_steps(2048, heads=8) == 8 * 4 * 4
    assert timemodel.tiled_steps(8192, heads=8, gpu=True) == 16
    ph = timemodel.phases("tiled", 128, d=64, heads=8)
    assert ph[1]["array_bytes"] == 8 * 128 * 128 * 4


def test_a_split_shows_the_exponentials_of_a_compute_bound_phase_beside_its_products():
    p = timemodel.predict("sdpa-torch", 2048, CONSTANTS)
    products = counting.attention_flops(2048, 64, heads=8) / CONSTANTS["peak"]
    assert p["split"]["compute"] == pytest.approx(products)
    assert p["split"]["exponentials"] == pytest.approx(8 * 2048**2 / CONSTANTS["exp_rate"])
    assert p["time_s"] == pytest.approx(sum(p["split"].values()))


def test_the_tiled_block_passes_are_one_phase_per_library_call_and_they_add():
    ph = timemodel.phases("tiled", 2048, d=64, heads=8)
    assert [p["name"] for p in ph] == ["QKᵀ blocks", "row max", "shift", "exp", "row sum", "PV blocks"]
    tile = 512 * 512 * 4
    blocks = 8 * 4 * 4
    assert [p["bytes"] for p in ph[1:5]] == [blocks * tile, 2 * blocks * tile, 2 * blocks * tile, blocks * tile]
    assert [p["exps"] for p in ph[1:5]] == [0, 0, 8 * 2048**2, 0]  # only exp computes exponentials
