#!/usr/bin/env bash
# Validate gradient checks on a GPU: usage scripts/gpu/training.sh OUT_DIR (default $OUT).
#   1. scripts/gpu/training_validate.py: examples/train_rmsnorm.py passes the default tier as a Triton spec (case
#      counts, time, worst gradient error against its tolerance), the planted weight-gradient bug fails in that
#      gradient only, an unwritten gradient column is reported, repeats are bitwise identical;
#      summary in OUT_DIR/training_validation.md;
#   2. tests/test_training.py (CPU tier and its GPU tests) on this machine;
#   3. `kcheck check examples/train_rmsnorm.py` end to end (exit 0 wanted).
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

"$PY" -m pytest tests/test_training.py -q -p no:cacheprovider 2>&1 | tee "$OUT_DIR/pytest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("pytest tests/test_training.py")

"$PY" -m kcheck.cli check examples/train_rmsnorm.py 2>&1 | tee "$OUT_DIR/cli.log"
rc=${PIPESTATUS[0]}
echo "kcheck check examples/train_rmsnorm.py: exit $rc (want 0)"
[ "$rc" -eq 0 ] || failed+=("kcheck check examples/train_rmsnorm.py exited $rc")

echo
echo "training validation took $(( $(date +%s) - start )) s; logs in $OUT_DIR"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "all training expectations met"
