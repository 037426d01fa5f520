"""Chapter 16 (counting and timing): its set-up's threads, attnlib.results (stored runs, slopes, tables), the roofline figure, its graders.

No timing is asserted.
"""

import json
import math
import os
import pathlib
import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np
import pytest
from helpers import said
from hypothesis import given, settings
from hypothesis import strategies as st

from attncheck import counting_and_timing as graders
from attnlib import counting, machine, plot, results
from benchmarks import sweep as sweep_cli

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "17_counting_and_timing.ipynb"
DATA = ROOT / "chapters" / "data"


def _row(impl, n, seconds, skipped=None, peak=1e11, d=64):
    flops = counting.attention_flops(n, d)
    return {
        "impl": impl,
        "n": n,
        "d": d,
        "batch": 1,
        "heads": 1,
        "dtype": "float32",
        "device": "cpu",
        "median_s": None if skipped else seconds,
        "min_s": None if skipped else seconds,
        "max_s": None if skipped else seconds,
        "gflops": None if skipped else flops / seconds / 1e9,
        "pct_of_peak": None if skipped else 100 * flops / seconds / peak,
        "a_bytes": counting.attention_matrix_bytes(n),
        "skipped": skipped,
    }


def _run(rows, device="cpu", gpu=None):
    system = {
        "date_utc": "2026-01-01T00:00:00+00:00",
        "device": device,
        "os": "Linux x86_64",
        "cpu_model": "Test CPU",
        "cpu_count": 4,
        "torch_threads": 1,
        "thread_env": {},
        "python": "3.11.7",
        "numpy": "2.4.6",
        "numpy_blas": None,
        "torch": "2.13.0",
        "cuda": None,
        "gpu": gpu,
        "gpu_memory_bytes": None,
        "load_average_1m": 0.5,
    }
    return {"system": system, "settings": {"device": device}, "peak_flops": 1e11, "results": rows}


# --- fit_slope -----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    p=st.floats(-3, 3), c=st.floats(1e-6, 1e3), n=st.lists(st.integers(1, 100_000), min_size=2, max_size=8, unique=True)
)
def test_fit_slope_recovers_an_exact_power_law(p, c, n):
    t = [c * k**p for k in n]
    assert results.fit_slope(n, t) == pytest.approx(p, abs=1e-6)


def test_fit_slope_is_least_squares_on_logs():
    n = np.array([128, 256, 512, 1024])
    t = 1e-9 * n**2.0 * np.array([1.0, 1.3, 0.8, 1.1])  # noise on a slope-2 law
    expected = np.polyfit(np.log(n), np.log(t), 1)[0]
    assert results.fit_slope(n, t) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "n, t, words",
    [
        ([1, 2, 3], [1, 2], "same length"),
        ([1, 2], [1, 0], "positive"),
        ([4, 4], [1, 2], "two different n"),
        ([0, 2], [1, 2], "positive"),
    ],
)
def test_fit_slope_rejects_what_it_cannot_fit(n, t, words):
    with pytest.raises(ValueError, match=words):
        results.fit_slope(n, t)


# --- crossover ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ([1, 2, 3, 4], [2, 3, 1, 1], 30),  # the new one wins from the third size on
        ([1, 2, 3, 4], [0, 3, 1, 1], 30),  # winning at the first size but losing at the second does not count
        ([1, 2, 3, 4], [0, 0, 0, 0], 10),  # faster everywhere: from the smallest n
        ([1, 2, 3, 4], [0, 0, 0, 5], None),  # slower at the largest n: no crossover
        ([1, 2, 3, 4], [1, 2, 3, 4], None),  # a tie is not faster
    ],
)
def test_crossover_examples(old, new, expected):
    assert results.crossover([10, 20, 30, 40], old, new) == expected


def test_crossover_does_not_care_about_the_order_of_sizes():
    assert results.crossover([40, 10, 30, 20], [4, 1, 3, 2], [1, 2, 1, 3]) == 30


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.floats(0.1, 10), st.floats(0.1, 10)), min_size=1, max_size=8))
def test_crossover_property(pairs):
    n = [2**k for k in range(len(pairs))]
    old, new = [a for a, _ in pairs], [b for _, b in pairs]
    since = results.crossover(n, old, new)
    if since is None:
        assert not new[-1] < old[-1]
    else:
        i = n.index(since)
        assert all(new[j] < old[j] for j in range(i, len(n)))
        assert i == 0 or not new[i - 1] < old[i - 1]


def test_crossover_rejects_ragged_lists():
    with pytest.raises(ValueError, match="one entry per size"):
        results.crossover([1, 2], [1, 2], [1])


# --- reading runs -------------------------------------------------------------------------


def test_load_results_reads_runs_sorted_and_skips_other_json(tmp_path):
    rows = [_row("naive-numpy", 128, 1e-3)]
    (tmp_path / "gpu_b.json").write_text(json.dumps(_run(rows, "cuda", gpu="Some GPU")))
    (tmp_path / "cpu_a.json").write_text(json.dumps(_run(rows)))
    (tmp_path / "vocab.json").write_text(json.dumps({"cat": [1, 2]}))
    (tmp_path / "notes.txt").write_text("not json")
    runs = results.load_results(tmp_path)
    assert [r["file"] for r in runs] == ["cpu_a.json", "gpu_b.json"]
    assert runs[1]["system"]["gpu"] == "Some GPU"


def test_load_results_names_a_missing_folder(tmp_path):
    with pytest.raises(ValueError, match="no folder"):
        results.load_results(tmp_path / "nowhere")


def test_measured_skips_skipped_rows_and_sorts_by_n():
    rows = [_row("a", 512, 4.0), _row("b", 128, 9.0), _row("a", 128, 1.0), _row("a", 256, None, skipped="too big")]
    n, t = results.measured(rows, "a")
    assert n.tolist() == [128, 512] and t.tolist() == [1.0, 4.0]
    assert list(results.curves(rows)) == ["a", "b"]
    assert results.implementations(rows) == ["a", "b"]


def test_slopes_per_implementation_and_nan_when_too_few_sizes():
    rows = [_row("sq", n, 1e-9 * n**2) for n in (64, 128, 256, 512, 1024)]
    rows += [_row("one", 1024, 1.0), _row("one", 128, 2.0)]
    fitted = results.slopes(rows, fit_from=256)
    assert fitted["sq"] == pytest.approx(2.0)
    assert math.isnan(fitted["one"])  # only one size n >= 256


def test_speedups_and_their_table():
    cpu = [_row("sdpa-torch", n, s) for n, s in [(64, 1e-4), (256, 1e-3), (1024, 1e-1)]]
    gpu = [_row("sdpa-torch", n, s) for n, s in [(64, 2e-4), (256, 5e-4), (1024, 1e-3), (4096, 1e-2)]]
    table = results.speedups(cpu, gpu)
    assert [r["n"] for r in table["rows"]] == [64, 256, 1024] and table["refused"] == []
    assert [r["speedup"] for r in table["rows"]] == pytest.approx([0.5, 2.0, 100.0])
    text = results.format_speedups(table)
    assert "sdpa-torch: the GPU is faster from n = 256 on" in text
    assert "float32, batch 1 × 1 heads, d = 64" in text
    slower = results.format_speedups(results.speedups(gpu, cpu))
    assert "is not faster at the largest n" in slower


@pytest.mark.parametrize("key, value", [("dtype", "bfloat16"), ("heads", 8), ("batch", 4), ("d", 128)])
def test_speedups_refuse_rows_of_another_workload(key, value):
    cpu = [_row("sdpa-torch", n, 1e-3) for n in (256, 1024)]
    gpu = [{**_row("sdpa-torch", n, 1e-4), key: value} for n in (256, 1024)]
    table = results.speedups(cpu, gpu)
    assert table["rows"] == []
    assert len(table["refused"]) == 1 and "n = 256, 1024" in table["refused"][0] and key in table["refused"][0]
    text = results.format_speedups(table)
    assert "not compared" in text and "no (implementation, n) measured in both" in text
    mixed = results.speedups(cpu, gpu + [_row("sdpa-torch", 256, 5e-4)])  # one alike row among unlike ones
    assert [(r["n"], r["speedup"]) for r in mixed["rows"]] == [(256, pytest.approx(2.0))]


def test_format_speedups_shows_the_spread():
    cpu = [{**_row("sdpa-torch", 256, 2e-3), "min_s": 1.5e-3, "max_s": 3e-3}]
    gpu = [{**_row("sdpa-torch", 256, 1e-3), "min_s": 0.9e-3, "max_s": 1.2e-3}]
    text = results.format_speedups(results.speedups(cpu, gpu))
    assert "1.500–3.000" in text and "0.900–1.200" in text


def test_command_is_rebuilt_from_the_stored_settings():
    settings = {
        "device": "cpu",
        "dtype": "float32",
        "sizes": [64, 128],
        "d": 64,
        "batch": 1,
        "heads": 8,
        "repeat": 3,
        "warmup": 1,
        "threads": 1,
        "implementations": ["naive-numpy", "sdpa-torch"],
    }
    run = {**_run([_row("naive-numpy", 64, 1e-3)]), "settings": settings, "file": "x.json"}
    line = results.command(run, "chapters/data")
    args = sweep_cli._parse(line.split("python -m benchmarks.sweep ")[1].split())
    assert args.sizes == settings["sizes"] and args.impls == settings["implementations"]
    for key in ("device", "dtype", "d", "batch", "heads", "repeat", "warmup", "threads"):
        assert getattr(args, key) == settings[key], key
    assert args.out == "chapters/data/x.json"
    assert "heads" in results.title(run) and settings["dtype"] in results.title(run)


def test_describe_and_summary_name_the_machine_and_every_implementation():
    rows = [_row(impl, n, 1e-9 * n**2) for n in (256, 512) for impl in ("naive-numpy", "sdpa-torch")]
    run = _run(rows)
    text = results.describe(run["system"])
    for word in (
        "Test CPU",
        "4 cores",
        "1 torch thread",
        "no GPU",
        "numpy 2.4.6",
        "torch 2.13.0",
        "2026-01-01",
        "load",
    ):
        assert word in text
    assert "None" not in text
    table = results.summary(rows)
    assert "naive-numpy" in table and "sdpa-torch" in table and "2.00" in table
    assert max(len(line) for line in table.splitlines()) <= 40  # a phone's column
    short = results.short_table(rows + [_row("tiled-torch", 512, None, skipped="no torch")])
    assert max(len(line) for line in short.splitlines()) <= 40 and "skipped" in short


def test_the_stored_runs_name_their_hardware_date_threads_and_load():
    runs = results.load_results(DATA)
    assert any(r["file"] == "cpu_results.json" for r in runs)
    for run in runs:
        system = run["system"]
        assert system["date_utc"] and system["cpu_model"] and system["device"]
        if run["file"].startswith("gpu_"):
            assert system["gpu"], f"{run['file']} is a GPU run that does not name its GPU"
        assert results.describe(system)
        assert results.summary(run["results"])
        if run["file"] == "cpu_results.json":
            assert system["threads_reported"] == {"numpy_blas": 1, "torch": 1}
            assert run["load"]["quiet"] == (run["load"]["others"] < 1)
            assert run["load"]["others"] >= max(run["load"]["start"], run["load"]["max"] - 1)  # less our one thread
            assert all(len(r["samples_s"]) == run["rounds"] for r in run["results"] if r["median_s"])


def test_timings_figure_has_a_panel_per_run_and_slopes_in_the_labels():
    rows = [_row(impl, n, c * 1e-9 * n**2) for n in (128, 256, 512, 1024) for impl, c in (("a", 1), ("b", 3))]
    fig = plot.timings({"run one": results.curves(rows), "run two": results.curves(rows[:4])})
    axes = [ax for ax in fig.axes if ax.has_data()]
    assert len(axes) == 2
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert "a: slope 2.00" in labels and "b: slope 2.00" in labels
    plt.close(fig)


# --- the roofline -------------------------------------------------------------------------------


def test_roofline_limit_is_the_lower_of_the_two_ceilings():
    peak, bandwidth = 100.0, 10.0  # the ridge at 10 FLOPs per byte
    np.testing.assert_allclose(plot.roofline_limit([1, 10, 1000], peak, bandwidth), [10, 100, 100])


def test_roofline_figure_draws_each_roof_and_each_point():
    points = {"naive": (2.0, 5e9), "fused": (300.0, 40e9)}
    fig = plot.roofline(points, {"cpu": (50e9, 10e9), "sheet": (989e12, 4.8e12)})
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["cpu", "sheet", "naive", "fused"]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert max(ax.get_lines()[0].get_ydata()) == pytest.approx(50e9)
    plt.close(fig)


# --- the chapters' set-up -------------------------------------------------------------------


def _set_up_cells(path):
    """The code cells up to and including the one that prints the threads: the chapter's set-up
    (the thread settings, the set-up cell that checks attnlib is there, the imports)."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    end = next(i for i, c in enumerate(cells) if "thread_counts()" in "".join(c["source"]))
    return "\n".join("".join(c["source"]) for c in cells[: end + 1])


@pytest.mark.parametrize("chapter", ["17_counting_and_timing.ipynb", "18_cpu_vs_gpu.ipynb"])
def test_the_set_up_leaves_numpy_and_torch_on_one_thread(chapter):
    """Run the chapter's set-up in a fresh Python, then ask the libraries themselves."""
    code = _set_up_cells(ROOT / "chapters" / chapter)
    code += "\nimport json\nprint('REPORT', json.dumps(machine.thread_counts()))"
    env = {k: v for k, v in os.environ.items() if k not in machine.THREAD_VARIABLES}
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT / "chapters",
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout.split("REPORT ")[1]) == {"numpy_blas": 1, "torch": 1}


def test_the_stored_output_shows_one_thread_each():
    cells = [c for c in json.loads(CHAPTER.read_text())["cells"] if c["cell_type"] == "code"]
    end = next(i for i, c in enumerate(cells) if "thread_counts()" in "".join(c["source"]))
    text = "".join("".join(o.get("text", "")) for c in cells[: end + 1] for o in c["outputs"])
    assert "numpy's BLAS threads: 1" in text and "torch threads:        1" in text


# --- the checkers agree with the library and the stored file -------------------------------


def test_exercise_constants_agree_with_attnlib_bench():
    assert graders.FLOPS == counting.attention_flops(graders.N, graders.D, heads=graders.HEADS)
    assert graders.INTENSITY == 2 * graders.SIDE**3 / counting.matmul_bytes(graders.SIDE, graders.BYTES)


def _hint(capsys, answer, exercise_id):
    from attncheck import check

    ok = check(exercise_id, answer)
    return ok, said(capsys)


@pytest.mark.parametrize(
    "exercise_id, answer, words",
    [
        ("counting_and_timing.intensity", 2 * 1536**3 / (2 * 1536**2 * 4), "the one written"),
        ("counting_and_timing.intensity", 1 / graders.INTENSITY, "upside down"),
        ("counting_and_timing.flops", graders.FLOPS // 8, "one head"),
        ("counting_and_timing.time_at_2n", 0.12, "seconds"),
    ],
)
def test_each_slip_gets_its_own_hint(exercise_id, answer, words, capsys):
    ok, out = _hint(capsys, answer, exercise_id)
    assert not ok and words in out.replace("\n  ", " "), out


def test_no_hint_states_the_computation(capsys):
    """No hint holds the expected value, the solution line, or the statement's numbers filled in."""
    from attncheck import get

    expected = {
        "counting_and_timing.flops": graders.FLOPS,
        "counting_and_timing.time_at_2n": 120,
        "counting_and_timing.intensity": graders.INTENSITY,
    }
    for exercise_id, value in expected.items():
        ex = get(exercise_id)
        for answer in [*ex.wrong, 1, 12345.0]:
            ok, out = _hint(capsys, answer, exercise_id)
            assert not ok and ex.solution not in out
            text = out.replace(",", "")
            for number in (f"{value:g}", str(int(value)), "4096", "1536", "2000", "64"):
                assert number not in text, (exercise_id, answer, out)


def _printed(marker):
    nb = json.loads(CHAPTER.read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and marker in "".join(c["source"]))
    return "".join("".join(o.get("text", [])) for o in cell["outputs"])


def test_the_per_phase_table_prints_every_phase_s_ratio_from_the_stored_run():
    from attnlib import timemodel

    run = json.loads((ROOT / "chapters/data/cpu_phases.json").read_text())
    lines = _printed("def phase_ratios").splitlines()
    for kind in ("plain", "naive", "tiled"):
        rows = [r for r in run["kernels"] if r["kind"] == kind]
        tables = [
            timemodel.steps_against_measured(
                kind,
                r["n"],
                {k: v["median_s"] for k, v in r["steps_s"].items()},
                run["rates"][r["library"]]["rates"],
                cache_bytes=run["caches"]["L2"],
            )
            for r in rows
        ]
        for i, phase in enumerate(tables[0]):
            expected = f"{phase['name']:<11}" + "".join(f"{t[i]['ratio']:6.2f}" for t in tables)
            assert expected in lines, expected


def test_the_model_against_the_sweep_prints_only_when_both_runs_are_from_one_machine():
    from attnlib import timemodel

    run = json.loads((DATA / "cpu_results.json").read_text())
    phase_run = json.loads((DATA / "cpu_phases.json").read_text())
    printed = _printed("same_machine = ")
    if run["system"]["cpu_model"] != phase_run["system"]["cpu_model"]:
        assert "same machine: False" in printed and "ratio" not in printed.split("no ratio")[1]
        return
    for p in timemodel.predicted_against_measured(run["results"], phase_run):
        if p["n"] == 2048:
            assert f"{p['impl']:<11} {p['time_s'] * 1e3:7.2f} {p['measured_s'] * 1e3:6.1f} {p['ratio']:4.2f}" in printed


def test_the_generation_table_is_the_stored_run_s_and_the_crossover_its_formula():
    from attnlib import timemodel

    gen = json.loads((ROOT / "chapters/data/cpu_phases.json").read_text())["generation"]
    printed = _printed("gen = phase_run")
    for t in gen["contexts"]:
        cached = gen["times"][f"cached {t}"]["median_s"] * 1e3
        assert f"{t:>4}" in printed and f"{cached:7.1f}" in printed
    cross = timemodel.cache_crossover(gen["weight_bytes"], gen["layers"], gen["kv_heads"], gen["d_k"])
    assert f"t = {cross:,.0f} tokens" in printed
    assert cross == pytest.approx(gen["weight_bytes"] / (2 * 30 * 3 * 64 * 4))
