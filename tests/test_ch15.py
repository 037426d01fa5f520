"""attnlib.results (chapter 15): loading stored runs, fitting slopes, crossovers and speed-ups. No timing is asserted."""
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import bench, plot, results
from attnlib.exercises import ch15
from helpers import said


def _row(impl, n, seconds, skipped=None, peak=1e11, d=64):
    flops = bench.attention_flops(n, d)
    return {"impl": impl, "n": n, "d": d, "batch": 1, "heads": 1, "dtype": "float32", "device": "cpu",
            "median_s": None if skipped else seconds, "min_s": None if skipped else seconds,
            "max_s": None if skipped else seconds,
            "gflops": None if skipped else flops / seconds / 1e9,
            "pct_of_peak": None if skipped else 100 * flops / seconds / peak,
            "a_bytes": bench.attention_matrix_bytes(n), "skipped": skipped}


def _run(rows, device="cpu", gpu=None):
    system = {"date_utc": "2026-01-01T00:00:00+00:00", "device": device, "os": "Linux x86_64",
              "cpu_model": "Test CPU", "cpu_count": 4, "torch_threads": 1, "thread_env": {},
              "python": "3.11.7", "numpy": "2.4.6", "numpy_blas": None, "torch": "2.13.0", "cuda": None,
              "gpu": gpu, "gpu_memory_bytes": None, "load_average_1m": 0.5}
    return {"system": system, "settings": {"device": device}, "peak_flops": 1e11, "results": rows}


# --- fit_slope -----------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(p=st.floats(-3, 3), c=st.floats(1e-6, 1e3),
       n=st.lists(st.integers(1, 100_000), min_size=2, max_size=8, unique=True))
def test_fit_slope_recovers_an_exact_power_law(p, c, n):
    t = [c * k**p for k in n]
    assert results.fit_slope(n, t) == pytest.approx(p, abs=1e-6)


def test_fit_slope_is_least_squares_on_logs():
    n = np.array([128, 256, 512, 1024])
    t = 1e-9 * n**2.0 * np.array([1.0, 1.3, 0.8, 1.1])  # noise on a slope-2 law
    expected = np.polyfit(np.log(n), np.log(t), 1)[0]
    assert results.fit_slope(n, t) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n, t, words", [([1, 2, 3], [1, 2], "same length"), ([1, 2], [1, 0], "positive"),
                                         ([4, 4], [1, 2], "two different n"), ([0, 2], [1, 2], "positive")])
def test_fit_slope_rejects_what_it_cannot_fit(n, t, words):
    with pytest.raises(ValueError, match=words):
        results.fit_slope(n, t)


# --- crossover ----------------------------------------------------------------------------

@pytest.mark.parametrize("old, new, expected", [
    ([1, 2, 3, 4], [2, 3, 1, 1], 30),       # the new one wins from the third size on
    ([1, 2, 3, 4], [0, 3, 1, 1], 30),       # winning at the first size but losing at the second does not count
    ([1, 2, 3, 4], [0, 0, 0, 0], 10),       # faster everywhere: from the smallest n
    ([1, 2, 3, 4], [0, 0, 0, 5], None),     # slower at the largest n: no crossover
    ([1, 2, 3, 4], [1, 2, 3, 4], None),     # a tie is not faster
])
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
    run = results.load_results()[0]
    line = results.command(run)
    args = bench._parse(line.split("python -m attnlib.bench ")[1].split())
    settings = run["settings"]
    assert args.sizes == settings["sizes"] and args.impls == settings["implementations"]
    for key in ("device", "dtype", "d", "batch", "heads", "repeat", "warmup", "threads"):
        assert getattr(args, key) == settings[key], key
    assert args.out == f"chapters/data/{run['file']}"
    assert "heads" in results.title(run) and settings["dtype"] in results.title(run)


def test_describe_and_summary_name_the_machine_and_every_implementation():
    rows = [_row(impl, n, 1e-9 * n**2) for n in (256, 512) for impl in ("naive-numpy", "sdpa-torch")]
    run = _run(rows)
    text = results.describe(run["system"])
    for word in ("Test CPU", "4 cores", "1 torch thread", "no GPU", "numpy 2.4.6", "torch 2.13.0",
                 "2026-01-01", "load"):
        assert word in text
    assert "None" not in text
    table = results.summary(rows)
    assert "naive-numpy" in table and "sdpa-torch" in table and "2.00" in table


def test_the_stored_runs_name_their_hardware_and_date():
    runs = results.load_results()
    assert any(r["file"] == "cpu_results.json" for r in runs)
    for run in runs:
        system = run["system"]
        assert system["date_utc"] and system["cpu_model"] and system["device"]
        if run["file"].startswith("gpu_"):
            assert system["gpu"], f"{run['file']} is a GPU run that does not name its GPU"
        assert results.describe(system)
        assert results.summary(run["results"])


def test_timings_figure_has_a_panel_per_run_and_slopes_in_the_labels():
    rows = [_row(impl, n, c * 1e-9 * n**2) for n in (128, 256, 512, 1024) for impl, c in (("a", 1), ("b", 3))]
    fig = plot.timings({"run one": results.curves(rows), "run two": results.curves(rows[:4])})
    axes = [ax for ax in fig.axes if ax.has_data()]
    assert len(axes) == 2
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert "a: slope 2.00" in labels and "b: slope 2.00" in labels
    plot.plt.close(fig)


# --- the checkers agree with the library and the stored file -------------------------------

def test_exercise_constants_agree_with_attnlib_bench():
    assert ch15.FLOPS == bench.attention_flops(ch15.N, ch15.D, heads=ch15.HEADS)
    assert ch15.A_BYTES == bench.attention_matrix_bytes(ch15.N_MEM, heads=ch15.HEADS_MEM, dtype_bytes=2)


def test_the_crossover_answer_is_read_from_the_committed_file():
    with open(results.DATA_DIR / ch15.STORED_FILE) as f:
        rows = json.load(f)["results"]
    old = {r["n"]: r["median_s"] for r in rows if r["impl"] == ch15.OLD and r["median_s"]}
    new = {r["n"]: r["median_s"] for r in rows if r["impl"] == ch15.NEW and r["median_s"]}
    sizes = sorted(old)
    since = None
    for n in reversed(sizes):
        if new[n] >= old[n]:
            break
        since = n
    assert ch15.stored_crossover() == ("none" if since is None else since)


# --- the online-softmax exercise ------------------------------------------------------------

def _hint(capsys, answer, exercise_id="ch15.online_step"):
    from attnlib import check
    ok = check(exercise_id, answer)
    return ok, said(capsys)


@pytest.mark.parametrize("answer", ch15._online_step.__wrapped__.right if hasattr(ch15._online_step, "__wrapped__")
                         else [ch15._right_numpy, ch15._right_math, ch15._right_torch])
def test_online_step_accepts_every_right_form(answer, capsys):
    ok, out = _hint(capsys, answer)
    assert ok and out.startswith("✓")


@pytest.mark.parametrize("answer, words", [
    (ch15._wrong_no_rescale_of_z, "same rescale as ℓ"),
    (ch15._wrong_upside_down, "Which way does the rescale go"),
    (ch15._wrong_forgets_old_max, "larger of the old max"),
    (ch15._wrong_not_shifted, "shifted by the new max"),
    (ch15._wrong_returns_old_max, "not the old one"),
    (ch15._wrong_changes_z_in_place, "changed its input"),
    (lambda m, l, z, s, v: (m, l), "Return three things"),
    (lambda m, l, z, s, v: None, "return"),
    (lambda m, l, z, s, v: (None, None, None), "still None"),
    (lambda m, l, z, s, v: (max(m, max(s)), 1.0, [0.0]), "one entry per column"),
])
def test_online_step_rejects_each_slip_with_its_hint(answer, words, capsys):
    ok, out = _hint(capsys, answer)
    assert not ok and words in out.replace("\n  ", " "), out
    assert "✗ Not yet. " in out and out.split("Not yet. ")[1][0].isupper()


def test_online_step_expected_answers_come_from_private_constants(capsys):
    """A function that changes its inputs cannot change what the checker expects."""
    def sabotage(m, l, z, s, v):
        s[:] = [0.0] * len(s)
        return ch15._right_math(m, l, z, s, v)
    assert not _hint(capsys, sabotage)[0]
    assert _hint(capsys, ch15._right_math)[0]  # the expected values were not touched


def test_online_step_reference_is_the_online_softmax():
    """Run the update block by block over a row; z / ℓ must equal softmax(s) · V computed at once."""
    import numpy as np
    rng = np.random.default_rng(3)
    s, V = rng.normal(0, 3, 11), rng.standard_normal((11, 2))
    m, l, z = -math.inf, 0.0, [0.0, 0.0]
    for start in range(0, 11, 4):
        m, l, z = ch15._online_step_reference(m, l, z, s[start:start + 4].tolist(), V[start:start + 4].tolist())
    weights = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    np.testing.assert_allclose(np.array(z) / l, weights @ V, rtol=1e-12)
    assert m == s.max()


def test_no_hint_of_chapter_11_contains_its_solution(capsys):
    from attnlib.exercises import get
    for exercise_id in ("ch15.flops", "ch15.time_at_2n", "ch15.memory_of_a", "ch15.crossover", "ch15.online_step"):
        ex = get(exercise_id)
        assert ex.catches and ex.solution and len(ex.right) >= 3 and len(ex.wrong) >= 4
        for answer in ex.wrong:
            ok, out = _hint(capsys, answer, exercise_id)
            assert not ok and ex.solution not in out
            assert out.split("Not yet. ")[1][0].isupper(), out
