#!/usr/bin/env bash
# kcheck eval on a GPU: every candidate of examples/eval (honest kernels and known cheats) against its problem.
#   bash scripts/gpu/eval.sh [OUT_DIR]        (default: $OUT, else ./eval-out)
# Prints the table (candidate, expected reason, verdict, reasons found, time, physical floor) and exits non-zero
# when a cheat is not flagged with its reason or an honest candidate fails. Logs and JSON go to OUT_DIR/eval/.
# Uses this checkout's src/ and the machine's own torch and triton (nothing is installed). Without a GPU it runs
# the CPU subset and says so.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-${OUT:-eval-out}}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
py=${PYTHON:-python3}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no GPU (nvidia-smi)"
$py -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
start=$SECONDS
$py scripts/gpu/eval_run.py "$out" 2>&1 | tee "$out/eval.log"
rc=${PIPESTATUS[0]}
echo "eval: rc=$rc in $((SECONDS - start)) s"
exit "$rc"
