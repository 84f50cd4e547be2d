#!/usr/bin/env bash
# Validate gradient checks on a GPU: usage scripts/gpu/training.sh OUT_DIR (default $OUT).
#   1. scripts/gpu/training_validate.py: examples/train_{rmsnorm,cross_entropy,rope}.py pass the default tier as
#      Triton specs (case counts, time, worst gradient error against its tolerance), each planted backward bug in
#      tests/zoo_training/ fails in the gradient it breaks only, an unwritten gradient column is reported, repeats
#      are bitwise identical;
#      summary in OUT_DIR/training_validation.md;
#   2. tests/test_training.py (CPU tier and its GPU tests) on this machine;
#   3. `kcheck check examples/train_*.py` end to end (exit 0 wanted for each).
# A few minutes on an H200. Exits non-zero when an expectation fails. Without a GPU: says so, runs the CPU subset.
set -uo pipefail
PY=${PYTHON:-python3}
OUT_DIR="${1:-${OUT:-training-validation}}"
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
cd "$(dirname "$0")/../.."
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
failed=()
start=$(date +%s)

"$PY" scripts/gpu/training_validate.py "$OUT_DIR" 2>&1 | tee "$OUT_DIR/validate.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("training_validate.py")

"$PY" -m pytest tests/test_training.py tests/test_params.py tests/test_inputs.py -q -p no:cacheprovider 2>&1 | tee "$OUT_DIR/pytest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("pytest tests/test_training.py")

for ex in examples/train_rmsnorm.py examples/train_cross_entropy.py examples/train_rope.py; do
  "$PY" -m kcheck check "$ex" 2>&1 | tee "$OUT_DIR/cli_$(basename "$ex" .py).log"
  rc=${PIPESTATUS[0]}
  echo "kcheck check $ex: exit $rc (want 0)"
  [ "$rc" -eq 0 ] || failed+=("kcheck check $ex exited $rc")
done

echo
echo "training validation took $(( $(date +%s) - start )) s; logs in $OUT_DIR"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "all training expectations met"
