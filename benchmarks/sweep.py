"""The sweep's command line (the counting and timing chapter): check the arguments, use the threads asked for, measure
the matmul peak once, run `attnlib.sweep.run_sweep`, print a table and save JSON. From the
repository root::

    PYTHONPATH=. python -m benchmarks.sweep --device cpu --dtype float32 --sizes 128,256,512
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from attnlib.arrays import loaded_torch
from attnlib.bench import available_devices
from attnlib.machine import THREAD_VARIABLES, matmul_peak, system_info
from attnlib.sweep import DEFAULTS, IMPLEMENTATIONS, NUMPY_DTYPES, command_line, format_table, run_sweep
from benchmarks.store import write_json

PROG = "python -m benchmarks.sweep"
DESCRIPTION = (
    "Timing attention on CPU and GPU: honest stopwatches, FLOP and byte counts, the machine's two ceilings, "
    "a sweep (the counting and timing chapter)."
)
DTYPES = ("float32", "float64", "float16", "bfloat16")
SIXTEEN_BIT = {"float16", "bfloat16"}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit status 2, no usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def _whole(text: str, least: int, what: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text.strip()!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} is too small: {what} must be at least {least}")
    return value


def _at_least(least: int, what: str) -> Callable[[str], int]:
    return lambda text: _whole(text, least, what)


def _sizes(text: str) -> list[int]:
    items = text.split(",")
    if not text.strip() or any(not item.strip() for item in items):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of sizes like 128,256,512")
    return [_whole(item, 1, "every size n") for item in items]


def _impls(text: str) -> list[str]:
    names = [item.strip() for item in text.split(",")]
    for name in names:
        if name not in IMPLEMENTATIONS:
            raise argparse.ArgumentTypeError(
                f"unknown implementation {name!r}; choose from {', '.join(IMPLEMENTATIONS)}"
            )
    return names


def _device(text: str) -> str:
    kind, _, index = text.partition(":")
    if kind not in ("cpu", "cuda", "mps") or (index and (kind != "cuda" or not index.isdigit())):
        raise argparse.ArgumentTypeError(f"unknown device {text!r}; choose cpu, cuda, cuda:N or mps")
    return text


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = _Parser(prog=PROG, description=DESCRIPTION)
    p.add_argument("--device", type=_device, default=DEFAULTS["device"], help="cpu, cuda, cuda:N or mps (default cpu)")
    p.add_argument("--dtype", default=DEFAULTS["dtype"], choices=DTYPES)
    p.add_argument("--sizes", type=_sizes, default=DEFAULTS["sizes"], help="sequence lengths n, comma separated")
    p.add_argument("--d", type=_at_least(1, "d"), default=DEFAULTS["d"], help="d_k = d_v per head (default 64)")
    p.add_argument("--batch", type=_at_least(1, "the batch"), default=DEFAULTS["batch"])
    p.add_argument("--heads", type=_at_least(1, "the number of heads"), default=DEFAULTS["heads"])
    p.add_argument(
        "--repeat",
        type=_at_least(1, "the number of measured runs"),
        default=DEFAULTS["repeat"],
        help="measured runs per point (default 5)",
    )
    p.add_argument(
        "--warmup",
        type=_at_least(0, "the number of warm-up runs"),
        default=DEFAULTS["warmup"],
        help="unmeasured runs first (default 2)",
    )
    p.add_argument(
        "--threads",
        type=_at_least(1, "the number of threads"),
        default=DEFAULTS["threads"],
        help="CPU threads for torch and numpy's BLAS (default 1)",
    )
    p.add_argument("--impls", type=_impls, default=DEFAULTS["implementations"], help="implementations, comma separated")
    p.add_argument(
        "--peak-size",
        type=_at_least(16, "the side of the peak matmul"),
        default=None,
        help="side of the matmul that measures the peak (default: grows while it stays quick)",
    )
    p.add_argument("--out", default=None, help="write system info and results to this JSON file")
    return p.parse_args(argv)


def _refusal(args: argparse.Namespace) -> str | None:
    """Why these arguments cannot run here (checked before anything is measured), or None."""
    torch = loaded_torch()
    if args.dtype in SIXTEEN_BIT and torch is None:
        return f"--dtype {args.dtype} needs torch (numpy has no such format), and torch is not installed here"
    kind, _, index = args.device.partition(":")
    if kind != "cpu" and torch is None:
        return f"device {args.device!r} needs torch, and torch is not installed here"
    if kind not in available_devices():
        return f"device {args.device!r} is not available here: torch sees no such GPU; available: " + ", ".join(
            available_devices()
        )
    if index and int(index) >= torch.cuda.device_count():
        return f"device {args.device!r} is not available here: torch sees {torch.cuda.device_count()} CUDA GPU(s)"
    if kind != "cpu" and not any(i.endswith("torch") for i in args.impls):
        return f"device {args.device!r}: every implementation chosen runs on numpy, which runs on the CPU only"
    if args.out:
        folder = os.path.dirname(os.path.abspath(args.out))
        if os.path.exists(folder) and not os.path.isdir(folder):
            return f"--out {args.out}: {folder!r} is not a folder"
    return None


def _set_threads(threads: int, may_restart: bool) -> None:
    """Use `threads` CPU threads. numpy's BLAS reads its thread count only when it loads,
    so from the command line we start ourselves again with the variables set."""
    if may_restart and any(os.environ.get(v) != str(threads) for v in THREAD_VARIABLES):
        os.environ.update({v: str(threads) for v in THREAD_VARIABLES})
        os.execv(sys.executable, [sys.executable, "-m", "benchmarks.sweep", *sys.argv[1:]])
    torch = loaded_torch()
    if torch is not None:
        torch.set_num_threads(threads)


def _matmul_peaks(device: str, dtype: str, size: int | None) -> dict[str, float]:
    """The matmul peak of torch, and of numpy too on the CPU."""
    peaks = {}
    if loaded_torch() is not None:
        peaks["torch"] = matmul_peak(device, dtype, size)
    if device == "cpu" and dtype in NUMPY_DTYPES:
        peaks["numpy"] = matmul_peak("cpu", dtype, size, library="numpy")
    return peaks


def say(line: str) -> None:
    """Print one line at once, so progress shows while a long sweep runs."""
    print(line, flush=True)


def main(argv: list[str] | None = None) -> None:
    """Check the arguments, measure the matmul peak once, run the sweep, print a table, save JSON (the counting and timing chapter)."""
    args = _parse(argv)
    refusal = _refusal(args)
    if refusal:
        print(f"{PROG}: error: {refusal}", file=sys.stderr)
        sys.exit(2)
    _set_threads(args.threads, may_restart=argv is None)

    system = system_info(args.device)
    say(
        f"{system['cpu_model']} | {system['gpu'] or 'no GPU'} | torch {system['torch']} | numpy {system['numpy']}"
        f" | {args.threads} thread{'s' if args.threads != 1 else ''}"
    )
    peaks = _matmul_peaks(args.device, args.dtype, args.peak_size)
    peak = max(peaks.values())  # one peak for the whole run: progress lines and table use the same
    say(
        "matmul peak: "
        + ", ".join(f"{lib} {f / 1e9:.1f} GFLOP/s" for lib, f in peaks.items())
        + f"; % of peak below is of {peak / 1e9:.1f} GFLOP/s"
    )
    rows = run_sweep(
        args.device,
        args.dtype,
        args.sizes,
        d=args.d,
        batch=args.batch,
        heads=args.heads,
        implementations=args.impls,
        repeat=args.repeat,
        warmup=args.warmup,
        peak_flops=peak,
        progress=say,
    )
    say("")
    say(format_table(rows))
    say(
        f"(% peak: of the measured {args.dtype} matmul, {peak / 1e9:.1f} GFLOP/s; "
        f"A: one n×n weight matrix per head, batch {args.batch} × {args.heads} heads)"
    )
    if args.out:
        settings = {
            k: getattr(args, k)
            for k in ("device", "dtype", "d", "batch", "heads", "repeat", "warmup", "threads", "peak_size")
        }
        settings.update(sizes=args.sizes, implementations=args.impls)
        report = {
            "system": system,
            "settings": settings,
            "command": command_line(settings, out=args.out),
            "peak_flops": peak,
            "peak_flops_by_library": peaks,
            "results": rows,
        }
        write_json(args.out, report)
        say(f"wrote {args.out}")


if __name__ == "__main__":
    main()
