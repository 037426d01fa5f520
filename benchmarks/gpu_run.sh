#!/usr/bin/env bash
# The GPU run of the counting-and-timing and CPU-versus-GPU chapters (16 and 17): one command, every step under its own timeout, everything to $OUT.
#
# On an NVIDIA GPU machine with Python 3.12, torch, numpy and matplotlib (no package registry needed),
# from the repository root:
#
#     OUT=/path/to/empty/folder bash benchmarks/gpu_run.sh
#
# It writes 6 files to $OUT (the device machine returns at most 8):
#     system.txt                  versions, nvidia-smi, the commit
#     gpu_checks.json             fp32/bf16 errors against float64, CUDA events vs perf_counter,
#                                 matmul peaks and copy bandwidth (the two ceilings of the roofline)
#     gpu_parts.json              forward+backward, causal, and each SDPA backend pinned in turn
#     gpu_<gpu>_float32.json      the sweep in float32   } copy these four into chapters/data/:
#     gpu_<gpu>_bfloat16.json     the sweep in bfloat16  } the CPU-versus-GPU chapter reads them as they are
#     gpu_run.log                 everything printed
# The timeouts add up to 8 min 50 s (60 + 30 + 100 + 120 + 2 × 110 s); on an H200 the run should take
# 3 to 4 minutes. After copying the four files, re-execute the CPU-versus-GPU chapter (see benchmarks/README.md).
#
# CPU dry run (tests/test_gpu_run.py runs it, so a typo cannot cost GPU time):
#     DEVICE=cpu SIZES=16,32 REPEAT=2 WARMUP=1 CHECK_N=64 PARTS_N=64 OUT=$(mktemp -d) bash benchmarks/gpu_run.sh
set -u -o pipefail

: "${OUT:?set OUT to the folder that receives the results}"
DEVICE=${DEVICE:-cuda}
SIZES=${SIZES:-128,256,512,1024,2048,4096,8192,16384}
REPEAT=${REPEAT:-10}
WARMUP=${WARMUP:-3}
HEADS=${HEADS:-8}
D=${D:-64}
CHECK_N=${CHECK_N:-4096}
PARTS_N=${PARTS_N:-4096}
PY=${PYTHON:-python3}
IMPLS=naive-torch,tiled-torch,sdpa-torch

cd "$(dirname "$0")/.." || exit 1
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$OUT"
LOG="$OUT/gpu_run.log"
: > "$LOG"
failed=0

step() {  # step SECONDS COMMAND...: run it under a timeout, log it, remember a failure and go on
  local limit=$1; shift
  echo "== $(date -u +%H:%M:%S) $* (timeout ${limit} s)" | tee -a "$LOG"
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$LOG"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    echo "!! exit status $rc$( [ "$rc" -eq 124 ] && echo ': timed out')" | tee -a "$LOG"
    failed=1
  fi
}

versions() {
  echo "date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo 'unknown (no .git)')"
  "$PY" -c 'import platform, numpy, torch; print("python", platform.python_version()); print("numpy", numpy.__version__); print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version()); print("gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)'
  "$PY" -c 'import matplotlib; print("matplotlib", matplotlib.__version__)' || echo "matplotlib: not importable"
  if command -v nvidia-smi >/dev/null; then nvidia-smi; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit --format=csv; else echo "nvidia-smi: not on this machine"; fi
  grep -m1 "model name" /proc/cpuinfo 2>/dev/null; nproc
}

step 60 bash -c "$(declare -f versions); PY='$PY' versions" > "$OUT/system.txt"
cat "$OUT/system.txt" >> "$LOG"

# The file name says which GPU it is: "NVIDIA H200" -> gpu_nvidia-h200_float32.json
NAME=$(timeout 30 "$PY" -c 'import re, sys, torch
d = sys.argv[1]
name = torch.cuda.get_device_name(0) if d.startswith("cuda") else d + "-dryrun"
print(re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"))' "$DEVICE") || NAME="unknown"
echo "results name: $NAME" | tee -a "$LOG"

step 100 "$PY" benchmarks/gpu_checks.py --device "$DEVICE" --n "$CHECK_N" --heads "$HEADS" --d "$D" \
  --out "$OUT/gpu_checks.json"
step 120 "$PY" -m benchmarks.parts --device "$DEVICE" --dtype bfloat16 --n "$PARTS_N" --heads "$HEADS" \
  --d "$D" --rounds "$REPEAT" --out "$OUT/gpu_parts.json"
for DTYPE in float32 bfloat16; do
  step 110 "$PY" -m benchmarks.sweep --device "$DEVICE" --dtype "$DTYPE" --sizes "$SIZES" --heads "$HEADS" \
    --d "$D" --batch 1 --impls "$IMPLS" --repeat "$REPEAT" --warmup "$WARMUP" --threads 1 \
    --out "$OUT/gpu_${NAME}_${DTYPE}.json"
done

echo "== $(date -u +%H:%M:%S) done; files in OUT: $(ls "$OUT" | tr '\n' ' ')" | tee -a "$LOG"
exit $failed
