#!/usr/bin/env bash
# Validate kcheck's GPU-facing features on a CUDA machine, in one call:
#   bash scripts/gpu_validate.sh [OUT_DIR]            (STEPS="examples zoo" to run only some steps)
# Installs kcheck from this checkout without dependencies (the machine's own torch/triton/rich/pytest are used).
# Writes logs and JSON reports to OUT_DIR (default: $OUT, else ./gpu-validation-out) and prints a summary last.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-gpu-validation-out}}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
# NO_INSTALL=1: use kcheck from PYTHONPATH as it is (a second run beside one that installed, or frozen rules).
if [ -z "${NO_INSTALL:-}" ]; then
  $py -m pip install -q --no-deps --no-build-isolation -e . >"$out/steps.log" 2>&1 || { cat "$out/steps.log"; exit 2; }
fi
summary=()
steps=${STEPS:-"examples seeds interactions zoo sanitize race isolation trust pytest bench timing eval journal numba training parallel cross largelock budget auto speed"}
want() { [[ " $steps " == *" $1 "* ]]; }
step() {  # step NAME EXPECTED_RC COMMAND...: run, log to $out/NAME.log, record the outcome
  local name=$1 want=$2; shift 2
  local t0=$SECONDS
  echo "=== $name: $*" >>"$out/steps.log"
  "$@" >"$out/step.tmp" 2>&1
  local rc=$?
  cat "$out/step.tmp" >>"$out/steps.log"
  local verdict="ok"
  [ "$rc" = "$want" ] || verdict="UNEXPECTED (wanted rc=$want)"
  summary+=("$(printf '%-28s rc=%-3s %4ss  %s' "$name" "$rc" $((SECONDS - t0)) "$verdict")")
  tail -n 25 "$out/step.tmp"
  rm -f "$out/step.tmp"
}

gpu_list() {  # the GPUs to use, as CUDA numbers them: the caller's CUDA_VISIBLE_DEVICES, else every one on the machine
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then echo "${CUDA_VISIBLE_DEVICES//,/ }"; return; fi
  local n
  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || n=1
  [ "$n" -ge 1 ] || n=1
  seq -s ' ' 0 $((n - 1))
}

echo "== machine"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  $py -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.version.cuda)"
} | tee -a "$out/summary.txt"

if want examples; then
  echo "== examples, default matrix with the large (past 2**31 elements) cases"
  step examples 0 $py -m kcheck check examples/ -q --json "$out/examples.json" --show 5
fi
if want seeds; then
  echo "== examples over 20 seeds (no false positive)"
  step examples_20_seeds 0 $py -m kcheck check examples/ -q --tier quick --seeds 20 --no-large --json "$out/seeds20.json"
fi
if want interactions; then
  echo "== bugs that need two factors at once, and the int32 row start: each fails the default matrix here"
  for f in tests/zoo_interactions/[a-z]*.py; do
    step "interactions_$(basename "$f" .py)" 1 $py -m kcheck check "$f" -q --show 1 --json "$out/zi_$(basename "$f" .py).json"
  done
  $py - "$out" <<'PY'
import glob, json, sys
from collections import Counter
for path in sorted(glob.glob(sys.argv[1] + "/zi_*.json")):
    d = json.load(open(path))
    bad = Counter((c["case"]["axis"], c["case"]["precision"], c["status"]) for s in d["specs"] for c in s["cases"]
                  if c["status"] not in ("passed", "skipped"))
    print(path.rsplit("/", 1)[1], dict(bad))
PY
  echo "== the examples over 20 seeds, default matrix (pairwise, long and big cases included): no false positive"
  step examples_default_20_seeds 0 $py -m kcheck check examples/ -q --seeds 20 --no-large --json "$out/seeds20_default.json"
fi
if want zoo; then
  echo "== the bug zoo: kcheck, its diagnosis and two baselines on every planted bug and correct example"
  # ZOO_PARTS processes side by side (Triton's compiles are CPU-bound), spread over the machine's GPUs, each cut at
  # ZOO_TIMEOUT seconds (a part writes its rows as it goes); then one table. ZOO_SEEDS: seeds per correct example;
  # ZOO_DIR: another folder of planted bugs (tests/zoo_heldout: the held-out zoo) instead of tests/zoo_kernels.
  # ZOO_SKIP: zoo.json files of an earlier, cut run: their Specs are not scored again, and their rows join the table.
  zoo_parts() {
    local parts=${ZOO_PARTS:-8} pids=() k rc=0 gpus
    read -ra gpus <<<"$(gpu_list)"
    rm -f "$out"/zoo_[0-9]*.json "$out"/zoo_[0-9]*.log  # a killed earlier run's parts must not join this table
    # timeout puts each part in its own process group (its workers and sanitizers die with it at the limit); a
    # kill aimed at this script reaches the parts through the trap
    trap 'kill -TERM "${pids[@]}" 2>/dev/null' EXIT INT TERM
    for ((k = 0; k < parts; k++)); do
      CUDA_VISIBLE_DEVICES=${gpus[k % ${#gpus[@]}]} timeout -k 30 "${ZOO_TIMEOUT:-420}" $py benchmarks/zoo.py \
        ${ZOO_DIR:+--zoo "$ZOO_DIR" --no-examples} ${ZOO_SKIP:+--skip-rows $ZOO_SKIP} --seeds "${ZOO_SEEDS:-3}" --budget 40 --part $k/$parts --json "$out/zoo_$k.json" >"$out/zoo_$k.log" 2>&1 &
      pids+=($!)
    done
    for k in "${pids[@]}"; do wait "$k" || rc=1; done
    trap - EXIT INT TERM
    cat "$out"/zoo_*.log
    $py benchmarks/zoo.py ${ZOO_DIR:+--zoo "$ZOO_DIR" --no-examples} --merge ${ZOO_SKIP:-} "$out"/zoo_[0-9]*.json --markdown "$out/zoo.md" --json "$out/zoo.json" || rc=1
    rm -f "$out"/zoo_[0-9]*.log "$out"/zoo_[0-9]*.json  # the device tool brings back few files
    return $rc
  }
  step zoo_table 0 zoo_parts
fi
if want debug; then  # not in the default steps: DEBUG_FILES="a.py b.py" STEPS=debug (the debugger on chosen Specs)
  echo "== kcheck debug on each of DEBUG_FILES, side by side; the top three causes of each"
  debug_all() {
    local f pids=() rc=0
    for f in ${DEBUG_FILES:-}; do
      $py -m kcheck debug "$f" --budget "${DEBUG_BUDGET:-60}" --json "$out/debug_$(basename "$f" .py).json" \
        >"$out/debug_$(basename "$f" .py).log" 2>&1 &
      pids+=($!)
    done
    for f in "${pids[@]}"; do wait "$f" || rc=1; done
    $py - "$out" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/debug_*.json")):
    for name, d in json.load(open(path)).items():
        print(name, [(c["key"], c["score"]) for c in d["causes"][:3]])
PY
    return $rc
  }
  step debug 1 debug_all  # each Spec debugged fails its check (exit 1)
fi
if want sanitize; then
  echo "== compute-sanitizer: a correct kernel is clean; each planted bug is found with its case and line"
  step sanitize_softmax_clean 0 $py -m kcheck sanitize examples/softmax.py --json "$out/sanitize_softmax.json"
  step sanitize_triton_oob_load 1 $py -m kcheck sanitize tests/sanitize_kernels/triton_oob_load.py --tool memcheck
  step sanitize_triton_uninit 1 $py -m kcheck sanitize tests/sanitize_kernels/triton_uninit.py --tool initcheck
  step sanitize_cuda_missing_sync 1 $py -m kcheck sanitize tests/sanitize_kernels/cuda_missing_sync.py --tool racecheck
  step sanitize_cuda_divergent 1 $py -m kcheck sanitize tests/sanitize_kernels/cuda_divergent_barrier.py --tool synccheck
  step sanitize_cost 0 $py benchmarks/sanitize_cost.py examples/softmax.py --sample 2
  step isolation_cost 0 $py benchmarks/isolation_cost.py examples --tier quick
fi
if want race; then
  echo "== racecheck: a missing __syncthreads() found with its line and tied to every case that raced"
  step sanitize_cuda_missing_sync 1 $py -m kcheck sanitize tests/sanitize_kernels/cuda_missing_sync.py --tool racecheck
fi
if want isolation; then
  echo "== isolation: an illegal address in one case (sticky CUDA error) is reported crashed; the rest pass"
  step isolation_illegal_address 1 $py -m kcheck check tests/isolation/gpu_illegal_address.py -q \
    --no-large --case '*N=33,*' --case '*N=129,*' --case '*N=1024,*' --show 3
fi
if want trust; then
  echo "== trust: verdicts, limits, interrupts, discovery, malformed Specs and command lines, on the GPU"
  step trust_tests 0 $py -m pytest -q -m "gpu or not gpu" -p no:cacheprovider --durations 8 tests/test_trust_run.py \
    tests/test_trust_verdicts.py tests/test_isolation.py tests/test_discover.py tests/test_repro_security.py \
    tests/test_fuzz.py tests/test_resources.py tests/test_examples.py
  echo "== a correct CUDA C great-circle distance: all-zero outputs on coinciding points are judged at the km scale"
  step trust_zero_output_scale 0 $py -m kcheck check tests/zoo_heldout25/hx25_cuda_great_circle_ok.py -q \
    --no-large --json "$out/great_circle.json"
  echo "== a planted hang on the GPU machine is still a hang (4 timeouts, one retried), its even sizes pass"
  hang_spec=$(mktemp -d)/stuck_spec.py
  $py - "$hang_spec" <<'PY'
import sys, textwrap
sys.path.insert(0, "tests")
from test_loaded_machine import HANG
open(sys.argv[1], "w").write(textwrap.dedent(HANG))
PY
  step trust_planted_hang 1 $py -m kcheck check "$hang_spec" -q --no-large --timeout 5
fi
if want pytest; then
  echo "== the test suite on the GPU, GPU-marked tests included"
  # the debugger's tests (about 7 minutes on a GPU: probes in isolated workers, compute-sanitizer) beside the rest
  # (about 3.5 minutes), on the second GPU where there is one
  pytest_split() {
    local rc=0 gpus pytest=($py -m pytest -q -m "gpu or not gpu" -p no:cacheprovider --durations 10)
    read -ra gpus <<<"$(gpu_list)"
    CUDA_VISIBLE_DEVICES=${gpus[1]:-${gpus[0]}} "${pytest[@]}" tests/test_debug.py >"$out/pytest_debug.log" 2>&1 &
    local pid=$!
    CUDA_VISIBLE_DEVICES=${gpus[0]} "${pytest[@]}" tests --ignore tests/test_debug.py >"$out/pytest_rest.log" 2>&1 \
      || rc=1
    wait $pid || rc=1
    cat "$out/pytest_rest.log" "$out/pytest_debug.log"
    echo "tests (all but test_debug.py): $(tail -n 1 "$out/pytest_rest.log")"
    echo "tests/test_debug.py:           $(tail -n 1 "$out/pytest_debug.log")"
    return $rc
  }
  step pytest 0 pytest_split
fi
if want bench; then
  echo "== harness overhead"
  step harness_overhead 0 $py benchmarks/harness_overhead.py examples --tier quick
fi
if want timing; then
  echo "== kcheck bench: the same kernel against its baseline, a planted slowdown, the spread beside do_bench"
  step bench_validation 0 env PYTHON=$py bash scripts/gpu/bench.sh "$out/bench"
fi
if want spread; then  # not in the default steps: the experiments behind the read flush (about 3 minutes)
  echo "== where a timing's run-to-run spread comes from: raw samples of four methods, then five flush loops"
  step bench_spread 0 $py scripts/gpu/bench_spread.py "$out/spread"
  step bench_flush 0 $py scripts/gpu/bench_flush.py "$out/spread"
fi
if want eval; then
  echo "== kcheck eval: every cheat of examples/eval flagged with its reason, honest candidates pass"
  step eval_validation 0 env PYTHON=$py bash scripts/gpu/eval.sh "$out/eval"
fi
if want journal; then
  echo "== the GPU journal: planted NaN named, early exits, overflow counted under memcheck, the cost"
  step journal_validation 0 env PYTHON=$py bash scripts/gpu/journal.sh "$out/journal"
fi
if want numba; then
  echo "== the Numba backend: numba-cuda on this GPU (or the reason), the simulator leg"
  step numba_validation 0 env PYTHON=$py bash scripts/gpu/numba.sh "$out/numba"
fi
if want training; then
  echo "== training kernels: forward and backward of the examples, planted backward bugs failing in their gradient"
  step training_validation 0 env PYTHON=$py bash scripts/gpu/training.sh "$out/training"
fi
if want parallel; then
  echo "== parallel workers: crash cost, -n 1 / 2 / auto on examples/ with cold caches, one GPU against all"
  step parallel_cost 0 $py benchmarks/parallel_cost.py "$out/parallel"
fi

if want budget; then
  echo "== the default matrix's cost: the eight examples that existed before the pairwise cases, one worker, cold caches"
  cold=$(mktemp -d)
  step budget_examples_cold 0 env TRITON_CACHE_DIR="$cold/triton" KCHECK_CACHE_DIR="$cold/k" $py -m kcheck check \
    examples/{gemm,layernorm,softmax,sum_reduction,vector_add,cuda_gemm,cuda_transpose,cuda_block_reduce}.py -q \
    --json "$out/budget_cold.json"
  $py benchmarks/case_time.py "$out/budget_cold.json" | head -n 14
fi
if want cross; then
  echo "== Triton's interpreter beside the GPU: a race the GPU's schedule hides fails an interpreter case; the"
  echo "   examples' own interpreter cases pass"
  step cross_pytest 0 $py -m pytest -q -s -m gpu tests/test_gpu.py -k race_the_gpus_schedule_hides
  echo "== the interpreter's bounds and race checks under this machine's Triton (each pointer checked against its tensor)"
  step cross_interpret_checks 0 env TRITON_INTERPRET=1 $py -m pytest -q -p no:cacheprovider tests/test_interpret.py
  step cross_examples 0 $py -m kcheck check examples/ -q --tier quick --no-large --json "$out/cross_examples.json"
  $py - "$out/cross_examples.json" <<'PY'
import json, sys
from collections import Counter
rows = [(s["name"], c["status"]) for s in json.load(open(sys.argv[1]))["specs"] for c in s["cases"]
        if c.get("interpreted") or ",interpreter," in c["id"]]
print(len(rows), "interpreter cases:", sorted({st for _, st in rows}), sorted({n for n, _ in rows}))
print("per Spec:", dict(Counter(rows)))
PY
  echo "== a script that calls kcheck at its top level, unguarded: every case says to add the __main__ guard"
  step cross_unguarded_script 0 $py -m pytest -q -p no:cacheprovider tests/test_isolation.py -k top_level
fi
if want largelock; then
  echo "== two processes' past-2**31 cases on one GPU at once: they take turns (a lock file per GPU), both run"
  large_lock() {  # LOCK_PYTHONPATH: another kcheck's src, to run the same step without the lock
    local pids=() n
    for n in a b; do
      PYTHONPATH=${LOCK_PYTHONPATH:-${PYTHONPATH:-}} $py -m kcheck check examples/vector_add.py --case N=2147483649 \
        -q --json "$out/lock_$n.json" >"$out/lock_$n.log" 2>&1 &
      pids+=($!)
    done
    wait "${pids[@]}"
    $py - "$out" <<'PY'
import json, sys
ok = True
for n in ("a", "b"):
    for s in json.load(open(f"{sys.argv[1]}/lock_{n}.json"))["specs"]:
        for c in s["cases"]:
            waited = [w for w in c["warnings"] if "waited" in w]
            print(n, c["id"], c["status"], f"{c['timing']['total']:.1f} s", waited[:1], (c["reasons"] or [""])[0][:160])
            ok &= c["status"] == "passed"
sys.exit(0 if ok else 1)
PY
  }
  step large_lock 0 large_lock
fi
if want speed; then
  echo "== where -n auto's wall time goes (cold caches): phases, busy workers, the tail; a past-2**31 case's profile"
  cold=$(mktemp -d)
  step speed_timeline 0 env TRITON_CACHE_DIR="$cold/triton" KCHECK_CACHE_DIR="$cold/k" $py \
    benchmarks/parallel_timeline.py examples/ -n auto --json "$out/timeline.json"
  step speed_large_case 0 $py scripts/gpu/case_profile.py "$out/profile" examples/vector_add.py examples/softmax.py
  step speed_compare 0 $py benchmarks/compare_cost.py --device cuda --n 2147483649
fi
if want auto; then
  echo "== every example, -n auto, cold caches: wall time and verdicts"
  cold=$(mktemp -d)
  t0=$SECONDS
  step auto_examples_cold 0 env TRITON_CACHE_DIR="$cold/triton" KCHECK_CACHE_DIR="$cold/k" $py -m kcheck check \
    examples/ -q -n auto --json "$out/auto_cold.json"
  echo "wall: $((SECONDS - t0)) s (the Numba examples cannot run on this image: listed as not run)"
  $py - "$out/auto_cold.json" <<'PY'
import json, sys
from collections import Counter
d = json.load(open(sys.argv[1]))
print({s["name"]: dict(Counter(c["status"] for c in s["cases"])) for s in d["specs"]})
PY
  echo "== the same again, warm caches (the compiles of the run above kept)"
  t0=$SECONDS
  step auto_examples_warm 0 env TRITON_CACHE_DIR="$cold/triton" KCHECK_CACHE_DIR="$cold/k" $py -m kcheck check \
    examples/ -q -n auto --json "$out/auto_warm.json"
  echo "wall: $((SECONDS - t0)) s"
fi

echo
echo "== summary ($(date -u +%F))"
printf '%s\n' "${summary[@]}" | tee -a "$out/summary.txt"
