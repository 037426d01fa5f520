"""The published GPU measurements chapter 17 sets beside its model: sourced, and the workload they state."""

import json
from pathlib import Path

from attnlib import timemodel

PUBLISHED = Path(__file__).resolve().parent.parent / "chapters" / "data" / "published_gpu.json"


def _published() -> dict:
    return json.loads(PUBLISHED.read_text())


def test_the_file_says_where_every_number_comes_from():
    data = _published()
    assert data["note"].startswith("Published, not measured here")
    source = data["source"]
    for key in ("paper", "figure", "image", "setup", "gpu", "dtype", "pass"):
        assert source[key], key
    assert "arXiv:2407.08608" in source["paper"]


def test_every_row_is_the_benchmark_s_workload_and_below_the_sheet_s_peak():
    """16,384 tokens in all, 2,048 numbers a token split into heads; no published speed above the peak."""
    rows = _published()["rows"]
    assert {r["kernel"] for r in rows} == {"FlashAttention-2", "FlashAttention-3"}
    for r in rows:
        assert r["batch"] * r["seqlen"] == 16384, r
        assert r["heads"] * r["head_dim"] == 2048, r
        assert 0 < r["tflops"] < timemodel.H100_SHEET["peak"] / 1e12, r
    keys = [(r["kernel"], r["head_dim"], r["seqlen"]) for r in rows]
    assert len(keys) == len(set(keys))


def test_the_h100_sheet_is_the_h200_s_chip_with_slower_memory():
    h100, h200 = timemodel.H100_SHEET, timemodel.H200_SHEET
    assert {k for k in h100 if h100[k] != h200[k]} == {"bandwidth"}
    assert h100["bandwidth"] < h200["bandwidth"]
