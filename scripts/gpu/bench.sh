#!/usr/bin/env bash
# Validate `kcheck bench` on a GPU: usage scripts/gpu/bench.sh OUT_DIR (default $OUT).
#   1. scripts/gpu/bench_validate.py: the same kernel against its own baseline 100 times (0 regressions wanted), a
#      planted 15% slowdown 30 times (flagged every time), the CV of the reported median over 30 runs beside
#      triton.testing.do_bench for a >= 50 us and a ~5 us kernel; summary table in OUT_DIR/bench_validation.md;
#   2. the GPU tests of tests/test_bench.py (real timing in a worker, a crashing kernel, CUDA graph replay);
#   3. the command end to end, twice: `python -m kcheck.bench scripts/gpu/bench_kernels.py` records, then compares.
# About 3 minutes on an H200. Exits non-zero when an expectation fails. Without a GPU: says so, checks what a CPU
# can (synthetic timings, the not-run exit code 6) and exits 0.
set -uo pipefail
PY=${PYTHON:-python3}
OUT_DIR="${1:-${OUT:-bench-validation}}"
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
cd "$(dirname "$0")/../.."
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
failed=()
start=$(date +%s)

"$PY" scripts/gpu/bench_validate.py "$OUT_DIR" 2>&1 | tee "$OUT_DIR/validate.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("bench_validate.py")

"$PY" -m pytest tests/test_bench.py -m gpu -q -p no:cacheprovider 2>&1 | tee "$OUT_DIR/pytest_gpu.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("pytest -m gpu tests/test_bench.py")

gpu=$("$PY" -c "import torch; print(int(torch.cuda.is_available()))")
want=0; [ "$gpu" = 1 ] || want=6   # 6: nothing timed here (no GPU)
for run in record compare; do
  "$PY" -m kcheck.bench scripts/gpu/bench_kernels.py --baseline "$OUT_DIR/cli/baselines.json" \
      --json "$OUT_DIR/cli_$run.json" 2>"$OUT_DIR/cli_$run.stderr" | tee "$OUT_DIR/cli_$run.log"
  rc=${PIPESTATUS[0]}
  echo "kcheck bench ($run): exit $rc (want $want)"
  [ "$rc" -eq "$want" ] || failed+=("kcheck bench ($run) exited $rc, want $want")
done

echo
echo "bench validation took $(( $(date +%s) - start )) s; logs in $OUT_DIR"
[ -f "$OUT_DIR/bench_validation.md" ] && cat "$OUT_DIR/bench_validation.md"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "all bench expectations met"
