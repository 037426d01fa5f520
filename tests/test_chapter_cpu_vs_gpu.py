"""Chapter 17 (CPU versus GPU): the online-softmax grader, the memory count, and what the chapter reads from the stored files."""

import json
import math
import pathlib

import numpy as np
import pytest

from attncheck import cpu_vs_gpu as graders
from attnlib import counting

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "18_cpu_vs_gpu.ipynb"


def _hint(capsys, answer, exercise_id="cpu_vs_gpu.online_step"):
    from attncheck import check

    ok = check(exercise_id, answer)
    return ok, capsys.readouterr().out


def test_memory_constant_agrees_with_attnlib_bench():
    assert graders.A_BYTES == counting.attention_matrix_bytes(graders.N_MEM, heads=graders.HEADS_MEM, dtype_bytes=2)


# --- the online-softmax exercise ------------------------------------------------------------


@pytest.mark.parametrize("answer", [graders._right_numpy, graders._right_math, graders._right_torch])
def test_online_step_accepts_every_right_form(answer, capsys):
    ok, out = _hint(capsys, answer)
    assert ok and out.startswith("✓")


@pytest.mark.parametrize(
    "answer, words",
    [
        (graders._wrong_no_rescale_of_z, "as the old ℓ was"),
        (graders._wrong_upside_down, "Which way does the rescale go"),
        (graders._wrong_forgets_old_max, "cover the old max and the new block"),
        (graders._wrong_not_shifted, "raw scores"),
        (graders._wrong_returns_old_max, "not the old one"),
        (lambda mu, l, z, s, v: (mu, l), "Return three things"),
        (lambda mu, l, z, s, v: z.copy() and None, "return"),  # reads its input, returns nothing: no stub
        (lambda mu, l, z, s, v: None, "No answer yet"),  # the untouched stub
        (lambda mu, l, z, s, v: (None, None, None), "still None"),
        (lambda mu, l, z, s, v: (max(mu, max(s)), 1.0, [0.0]), "one entry per column"),
    ],
)
def test_online_step_rejects_each_slip_with_its_hint(answer, words, capsys):
    ok, out = _hint(capsys, answer)
    assert not ok and words in out.replace("\n  ", " "), out
    if words == "No answer yet":  # an untouched stub hears one verdict
        assert out.startswith("✗ No answer yet"), out
    else:
        assert "✗ Not yet. " in out and out.split("Not yet. ")[1][0].isupper()


def test_online_step_expected_answers_come_from_private_constants(capsys):
    """A function that changes its inputs cannot change what the checker expects."""

    def sabotage(mu, l, z, s, v):
        s[:] = [0.0] * len(s)
        return graders._right_math(mu, l, z, s, v)

    assert not _hint(capsys, sabotage)[0]
    assert _hint(capsys, graders._right_math)[0]  # the expected values were not touched


def test_online_step_reference_is_the_online_softmax():
    """Run the update block by block over a row; z / ℓ must equal softmax(s) · V computed at once."""
    rng = np.random.default_rng(3)
    s, V = rng.normal(0, 3, 11), rng.standard_normal((11, 2))
    mu, l, z = -math.inf, 0.0, [0.0, 0.0]
    for start in range(0, 11, 4):
        mu, l, z = graders._reference(mu, l, z, s[start : start + 4].tolist(), V[start : start + 4].tolist())
    weights = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    np.testing.assert_allclose(np.array(z) / l, weights @ V, rtol=1e-12)
    assert mu == s.max()


def test_no_hint_states_the_computation(capsys):
    from attncheck import get

    for exercise_id in ("cpu_vs_gpu.memory_of_a", "cpu_vs_gpu.online_step"):
        ex = get(exercise_id)
        assert ex.catches and ex.solution and len(ex.right) >= 3 and len(ex.wrong) >= 4
        for answer in ex.wrong:
            ok, out = _hint(capsys, answer, exercise_id)
            assert not ok and ex.solution not in out
            assert f"{graders.A_BYTES}" not in out.replace(",", "") and "16384" not in out.replace(",", "")
            assert out.split("Not yet. ")[1][0].isupper(), out


# --- what the chapter reads ----------------------------------------------------------------


def _outputs(path):
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    return ["".join("".join(o.get("text", "")) for o in c.get("outputs", [])) for c in cells]


def test_the_chapter_says_plainly_when_no_gpu_file_is_stored():
    stored_gpu = list((ROOT / "chapters" / "data").glob("gpu_*.json"))
    text = "\n".join(_outputs(CHAPTER))
    assert ("no GPU run stored" in text) == (not stored_gpu)
    assert "H200 model, bfloat16 (ms):" in text  # the written predictions stand next to it
    assert "SDPA ran its kernel\nflash_attention_for_cpu" in text  # the kernel the stored CPU run recorded


def test_every_printed_table_fits_a_phone():
    for path in (CHAPTER, ROOT / "chapters" / "17_counting_and_timing.ipynb"):
        cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
        for c in cells:
            if "check(" in "".join(c["source"]):  # the checker's verdicts are prose, wrapped by check
                continue
            for out in c.get("outputs", []):
                for line in "".join(out.get("text", "")).splitlines():
                    assert len(line) <= 40, (path.name, line)


def test_the_memory_figure_s_alt_text_names_the_block_size_its_cell_prints():
    import re

    nb = json.loads((pathlib.Path(__file__).resolve().parents[1] / "chapters/18_cpu_vs_gpu.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c.get("id") == "22e1758e")
    alt = cell["metadata"]["mystnb"]["image"]["alt"]
    printed = "".join("".join(o.get("text", [])) for o in cell["outputs"])
    tiled = float(re.search(r"tiled ([\d.]+) MiB", printed).group(1))
    said = re.search(r"one block of (\d+(?:\.\d+)?) MiB", alt)
    assert said and float(said.group(1)) == tiled, alt


def test_the_block_size_derivation_uses_the_chapter_s_own_count_and_taught_notation():
    nb = json.loads((pathlib.Path(__file__).resolve().parents[1] / "chapters/18_cpu_vs_gpu.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "\\Theta" not in text  # the course teaches big O only
    assert "4n^2d/\\sqrt{M}" in text
    # the chapter's count, (2 + 2n/q)·n·d with q = √(M/4), is (2 + 4n/√M)·n·d: about 4n²d/√M for long sequences
    n, d, M = 2**20, 64, 2 * 2**20
    q = math.sqrt(M / 4)
    assert (2 + 2 * n / q) * n * d == pytest.approx((2 + 4 * n / math.sqrt(M)) * n * d)
    assert (2 + 2 * n / q) * n * d == pytest.approx(4 * n * n * d / math.sqrt(M), rel=0.001)


def test_the_sixteen_bit_test_of_the_model_prints_the_stored_run_s_times_beside_the_model_s():
    from attnlib import timemodel

    root = pathlib.Path(__file__).resolve().parents[1]
    run = json.loads((root / "chapters/data/cpu_results.json").read_text())
    nb = json.loads((root / "chapters/18_cpu_vs_gpu.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and "amdahl" in "".join(c["source"]))
    printed = "".join("".join(o.get("text", [])) for o in cell["outputs"])
    phase_run = json.loads((root / "chapters/data/cpu_phases.json").read_text())
    if run["system"]["cpu_model"] != phase_run["system"]["cpu_model"]:  # constants of another machine: no test
        assert "machine's: no test of it here" in printed and "Amdahl" not in printed
        return
    sb, k = run["sixteen_bit"], timemodel.cpu_constants(phase_run, "torch")
    for dt in ("float32", "bfloat16", "float16"):
        p = timemodel.predict("sdpa-torch", 2048, {**k, "square product": sb["matmul_peak_flops"][dt]})
        meas = sb["sdpa"]["times"][dt]["median_s"]
        assert (
            f"{dt:<8}" in printed and f"{p['time_s'] * 1e3:6.1f}{meas * 1e3:6.1f}{meas / p['time_s']:6.2f}" in printed
        )
        assert p["split"]["exponentials"] == pytest.approx(8 * 2048**2 / k["fused exp"])
