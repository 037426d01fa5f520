"""Write the weights the two real models' live figures show on their default texts, for the chapters.

    PYTHONPATH=. .venv/bin/python tools/figure_weights.py   # writes attnlib/figure_weights.npz (package data)

`attnlib.interactive.trained.trained_heads()` and `causal_heads()` embed every head's weights A in
hundredths. A float32 forward pass adds in another order on another processor or thread count, and a
few of some 10^5 rounded values then land one hundredth apart: the chapters' stored outputs would
change with the machine. So this tool runs the models through the figure's own `hundredths` on its
default texts (SENTENCES, TEXTS) and stores each text's tokens and A as uint8 (the causal model's only
on and left of the diagonal), and the figures read them from here. It prints the file's sha256: put
that into attnlib/interactive/trained.py's STORED_SHA256. tests/test_trained.py and
tests/test_causal_lm.py recompute the weights and check that the file still holds them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from reference_outputs import command, write_npz  # tools/, beside this file

from attnlib import causal_lm, trained
from attnlib.interactive.trained import SENTENCES, TEXTS, hundredths

ROOT = Path(__file__).resolve().parents[1]


def arrays() -> dict[str, np.ndarray]:
    """The file's arrays: for each figure its texts, then text k's tokens_k and A_k, uint8."""
    out = {}
    for name, model, texts in (("trained", trained, SENTENCES), ("causal", causal_lm, TEXTS)):
        out[f"{name}_texts"] = np.array(texts)
        for k, (tokens, A) in enumerate(hundredths(model, texts)):
            if model is causal_lm:
                A = A[(..., *np.tril_indices(len(tokens)))]  # the causal mask makes the others 0
            out[f"{name}_tokens_{k}"], out[f"{name}_A_{k}"] = np.array(tokens), A
    return out


def main(argv: list[str] | None = None) -> int:
    return command(lambda out: write_npz(out, arrays()), ROOT / "attnlib" / "figure_weights.npz", __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
