"""attnlib.bench (chapter 17): the stopwatch and the FLOP and byte counts.

No timing assertions here: how fast things are is measured in benchmarks/, not tested.
"""

import pathlib

import pytest
from conftest import run_python

from attnlib import bench, counting

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
    assert counting.attention_flops(1, 1) == 4
    assert counting.attention_flops(128, 64) == 4 * 128**2 * 64
    assert counting.attention_flops(2048, 64, batch=2, heads=4) == 8 * 4 * 2048**2 * 64
    assert counting.attention_flops(10, 8, d_v=3, m=20) == 2 * 10 * 20 * 8 + 2 * 10 * 20 * 3
    assert isinstance(counting.attention_flops(4096, 128, batch=16, heads=32), int)


def test_attention_matrix_bytes():
    assert counting.attention_matrix_bytes(1024) == 1024 * 1024 * 4
    assert counting.attention_matrix_bytes(10, m=20, batch=2, heads=3, dtype_bytes=2) == 10 * 20 * 2 * 3 * 2


def test_attention_bytes_counts_each_pass():
    n, d = 1024, 64
    assert counting.attention_bytes(n, d, "naive") == (12 * n * n + 4 * n * d) * 4
    assert counting.attention_bytes(n, d, "fused", dtype_bytes=2, heads=8) == 8 * 4 * n * d * 2
    # tiled reads K and V once per chunk of queries: 8 chunks of 128
    assert counting.attention_bytes(n, d, "tiled", query_block=128) == (2 + 2 * 8) * n * d * 4
    assert counting.attention_bytes(n, d, "tiled", query_block=None) == counting.attention_bytes(n, d, "fused")
    assert counting.matmul_bytes(100) == 3 * 100 * 100 * 4
    with pytest.raises(ValueError, match="kind"):
        counting.attention_bytes(n, d, "flash")


def test_available_devices():
    devices = bench.available_devices()
    assert devices[0] == "cpu" and set(devices) <= {"cpu", "cuda", "mps"}


@pytest.mark.parametrize("module", ["attnlib.bench", "attnlib.machine", "attnlib.sweep"])
def test_import_loads_neither_torch_nor_matplotlib(module):
    code = f"import sys, {module}; print('torch' in sys.modules, 'matplotlib' in sys.modules)"
    assert run_python(code).split() == ["False", "False"]
