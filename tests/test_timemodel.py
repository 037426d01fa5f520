"""attnlib.timemodel: the time model's arithmetic, on made-up constants (nothing is timed here)."""

import pytest
from test_phases import RATES as MEASURED

from attnlib import counting, timemodel

RATES = {  # the phase run's measured rates (tests/test_phases.py) and what the model adds to them
    **MEASURED,
    "fused exp": 2e9,
    "cache_bytes": 2**20,
    "kernel call": {"naive-numpy": 50e-6, "plain-numpy": 60e-6, "tiled-numpy": 80e-6, "sdpa-torch": 5e-6},
}


@pytest.mark.parametrize("n", [64, 512, 2048])
def test_every_cpu_kernel_does_the_flops_and_exponentials_chapter_17_counts(n):
    for kind in ("plain", "naive", "tiled", "fused"):
        ph = timemodel.step_phases(kind, n, d=64, heads=8)
        flops = sum(a for p in ph for t, a in p["terms"].items() if t.endswith("product"))
        exps = sum(a for p in ph for t, a in p["terms"].items() if timemodel.split_of(t) == "exponentials")
        assert flops == counting.attention_flops(n, 64, heads=8) and exps == 8 * n * n


def test_a_phase_s_terms_add_and_the_phases_add():
    ph = {"name": "x", "calls": 2, "terms": {"thin product": 50e9, "in place (memory)": 40e9}}  # 1 s and 1 s
    assert timemodel.step_terms(ph, RATES) == pytest.approx(
        {"call": 2e-6, "thin product": 1.0, "in place (memory)": 1.0}
    )
    assert timemodel.step_time(ph, RATES) == pytest.approx(2.0 + 2e-6)
    p = timemodel.predict("naive-numpy", 2048, RATES)
    phases = timemodel.step_phases("naive", 2048, cache_bytes=2**20)
    assert p["time_s"] == pytest.approx(sum(timemodel.step_time(q, RATES) for q in phases) + 50e-6)
    assert p["time_s"] == pytest.approx(sum(p["split"].values()))


def test_plain_pays_fresh_memory_at_every_step_naive_once_and_only_for_large_arrays():
    def fresh(kind, n):
        return [p["name"] for p in timemodel.step_phases(kind, n) if "fresh" in p["terms"]]

    assert fresh("plain", 2048) == ["QKᵀ", "scale", "shift", "exp", "divide"]
    assert fresh("naive", 2048) == ["QKᵀ"]
    assert fresh("plain", 512) == fresh("naive", 512) == []  # 8 MiB: glibc keeps it for the next call
    split = timemodel.predict("naive-numpy", 2048, RATES)["split"]
    assert split["fresh memory"] == pytest.approx(8 * 2048**2 * 4 / 5e9)  # only the first touch: the write is a pass


def test_an_array_in_the_cache_is_charged_the_cache_s_rate():
    small = {p["name"]: p["terms"] for p in timemodel.step_phases("naive", 128, cache_bytes=2**20)}
    large = {p["name"]: p["terms"] for p in timemodel.step_phases("naive", 2048, cache_bytes=2**20)}
    assert list(small["row max"]) == ["read (cache)"] and list(large["row max"]) == ["read (memory)"]


def test_the_regimes_appear_as_n_grows():
    assert timemodel.predict("naive-numpy", 16, RATES)["regime"] == "overhead"
    assert timemodel.predict("sdpa-torch", 4096, RATES)["regime"] == "products"
    slow = timemodel.predict("naive-numpy", 4096, {**RATES, "thin product": 1e12})
    assert slow["regime"] == "passes"


def test_a_split_shows_sdpa_s_fitted_exponentials_beside_its_products():
    p = timemodel.predict("sdpa-torch", 2048, RATES)
    assert p["split"]["products"] == pytest.approx(counting.attention_flops(2048, 64, heads=8) / 100e9)
    assert p["split"]["exponentials"] == pytest.approx(8 * 2048**2 / 2e9)


def test_predicted_against_measured_gives_the_ratio_of_every_measured_row():
    run = {
        "rates": {"numpy": {"rates": {k: v for k, v in RATES.items() if k not in ("cache_bytes", "kernel call")}}},
        "caches": {"L2": 2**20},
        "kernel_call_s": RATES["kernel call"],
    }
    rows = [
        {"impl": "naive-numpy", "n": 512, "d": 64, "heads": 8, "median_s": 0.02},
        {"impl": "naive-numpy", "n": 1024, "d": 64, "heads": 8, "median_s": None},
    ]
    [row] = timemodel.predicted_against_measured(rows, run)
    expected = timemodel.predict("naive-numpy", 512, RATES)["time_s"]
    assert row["ratio"] == pytest.approx(0.02 / expected)


def test_an_unknown_kind_is_named():
    with pytest.raises(ValueError, match="'plain', 'naive', 'tiled' or 'fused'"):
        timemodel.step_phases("flash", 64)


def test_on_a_gpu_sheet_a_phase_is_a_roof_and_tiled_runs_at_the_float32_peak():
    sheet = timemodel.H200_SHEET
    ph = timemodel.sheet_phases("naive", 1024, 64, 8, 2)
    assert sum(p["bytes"] for p in ph) == counting.attention_bytes(1024, 64, "naive", dtype_bytes=2, heads=8)
    naive = timemodel.predict("naive-torch", 8192, sheet, nbytes=2)
    assert naive["regime"] == "bandwidth"
    tiled = timemodel.predict("tiled-torch", 8192, sheet, nbytes=2)
    products = counting.attention_flops(8192, 64, heads=8) / sheet["float32_peak"]
    assert tiled["split"]["compute"] + tiled["split"]["bandwidth"] >= products
    fused = timemodel.predict("sdpa-torch", 8192, sheet, nbytes=2)
    turns = timemodel.predict("sdpa-torch", 8192, {**sheet, "units": "shared"}, nbytes=2)
    exps = 8 * 8192**2 / sheet["exp_rate"]
    assert turns["time_s"] == pytest.approx(fused["time_s"] + exps)  # products and exponentials take turns
    assert fused["time_s"] < tiled["time_s"] / 10
