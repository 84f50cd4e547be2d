#!/usr/bin/env bash
# Validate the GPU journal on a CUDA machine (about 2 minutes on an H200):
#   bash scripts/gpu/journal.sh [OUT_DIR]        (default: $OUT, else ./journal-out)
# 1. tests/test_journal.py, GPU tests included;
# 2. the Triton and CUDA C examples: a planted NaN named by step and block (and warp), blocks that exit early shown
#    by the steps they miss, an overflowing journal that says how many entries it dropped;
# 3. the overflowing journals under compute-sanitizer memcheck, with PyTorch's caching allocator off
#    (PYTORCH_NO_CUDA_MEMORY_CACHING=1: each tensor its own allocation, so a write past the journal is an error);
# 4. the cost: kernel time with and without journaling (scripts/gpu/journal_bench.py, triton.testing.do_bench).
# Prints a summary last; exits 1 if a step did not give what it must. Without a GPU it runs the CPU subset (the
# Triton examples in the interpreter, the CUDA C example compiled for sm_90, the cost script's code path) and
# says so.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-${OUT:-journal-out}}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
summary=()
bad=0
step() {  # step NAME COMMAND...: run, log to $out/NAME.log, record whether it exited 0
  local name=$1; shift
  local t0=$SECONDS
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  local verdict="ok"
  if [ "$rc" != 0 ]; then verdict="FAILED (rc=$rc)"; bad=1; fi
  summary+=("$(printf '%-26s %4ss  %s' "$name" $((SECONDS - t0)) "$verdict")")
  echo "=== $name (rc=$rc)"; tail -n 40 "$out/$name.log"
}
memcheck_clean() {  # memcheck_clean NAME COMMAND...: under memcheck, exit 0 and "ERROR SUMMARY: 0 errors"
  local name=$1; shift
  local t0=$SECONDS
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$sanitizer" --tool memcheck --error-exitcode 97 "$@" >"$out/$name.log" 2>&1
  local rc=$?
  local verdict="ok: $(grep -o 'ERROR SUMMARY: [0-9]* errors*' "$out/$name.log" | tail -1)"
  if [ "$rc" != 0 ] || ! grep -q 'ERROR SUMMARY: 0 errors' "$out/$name.log"; then
    verdict="FAILED (rc=$rc, $(grep -o 'ERROR SUMMARY: [0-9]* errors*' "$out/$name.log" | tail -1))"; bad=1
  fi
  summary+=("$(printf '%-26s %4ss  %s' "$name" $((SECONDS - t0)) "$verdict")")
  echo "=== $name (rc=$rc)"; tail -n 30 "$out/$name.log"
}

if ! $py -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  echo "no GPU: running the CPU subset only (Triton's interpreter; the CUDA C example is compiled for sm_90)"
  step triton_examples $py examples/journal/triton_journal.py
  step cuda_example_compile $py examples/journal/cuda_journal.py
  step cost_code_path $py scripts/gpu/journal_bench.py "$out"
  printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
  exit $bad
fi

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  $py -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.version.cuda)"
} | tee "$out/machine.txt"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

step pytest_journal $py -m pytest tests/test_journal.py -q -m "gpu or not gpu" -p no:cacheprovider
step triton_examples $py examples/journal/triton_journal.py
step cuda_examples $py examples/journal/cuda_journal.py
if [ -x "$sanitizer" ]; then
  memcheck_clean memcheck_cuda_overflow $py examples/journal/cuda_journal.py overflow
  memcheck_clean memcheck_triton_overflow $py examples/journal/triton_journal.py overflow
else
  summary+=("memcheck                   compute-sanitizer not found: FAILED"); bad=1
fi
step cost $py scripts/gpu/journal_bench.py "$out"

echo "== the figures"
grep -h -E "^(  first|  step|  [0-9]+ entries dropped|journal:)" "$out"/triton_examples.log "$out"/cuda_examples.log \
  | sed 's/^/  /' | tee "$out/figures.txt"
grep -h -A8 "^journal cost" "$out/cost.log" | tee -a "$out/figures.txt"
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
exit $bad
