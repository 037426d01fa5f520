#!/usr/bin/env bash
# The stored CPU run and the two timing chapters that read it, regenerated in one command, from the
# repository root (about 6 minutes on a quiet 2-core machine, 12 to 15 on a loaded one):
#
#     bash benchmarks/cpu_run.sh
#
# 1. benchmarks/cpu_sweep.py measures everything into chapters/data/cpu_results.json (the file says
#    whether the machine was quiet; pass QUIET=1 to refuse to store a run that was not), then its
#    `--part phases` the phase-by-phase run and generation into chapters/data/cpu_phases.json;
# 2. the counting-and-timing and the CPU-versus-GPU chapters are re-executed from a fresh kernel, as
#    `make execute` does for every chapter (prepare, execute, collapse the solutions).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
JUPYTER=${JUPYTER:-.venv/bin/jupyter}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # absolute: the notebooks run in chapters/
start=$(date +%s)
"$PY" -m benchmarks.cpu_sweep ${QUIET:+--require-quiet} --out chapters/data/cpu_results.json
"$PY" -m benchmarks.cpu_sweep --part phases ${QUIET:+--require-quiet} --out chapters/data/cpu_phases.json
chapters=(chapters/*_counting_and_timing.ipynb chapters/*_cpu_vs_gpu.ipynb)
"$PY" tools/prepare_notebooks.py "${chapters[@]}"
for nb in "${chapters[@]}"; do
  ATTNLIB_PROGRESS=off "$JUPYTER" execute --inplace "$nb"
done
"$PY" tools/lab_solutions.py "${chapters[@]}"
echo "cpu_run: done in $(( $(date +%s) - start )) s"
