"""Run every candidate of examples/eval against its problem and check each verdict against expected.json.

    python scripts/gpu/eval_run.py OUT_DIR

Prints a table (candidate, expected reason, verdict, reasons found, time against the physical floor), writes each
evaluation's JSON and the table under OUT_DIR/eval/, and exits 1 when a cheat is not flagged with its reason or
an honest candidate fails. On a machine without a GPU it runs the candidates that can show on a CPU (with one
seed and one trial, in Triton's interpreter) and says so; the GPU-only cheats are listed as not run.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import torch  # noqa: E402

import kcheck  # noqa: E402
from kcheck.evaluation import CheckKind, Outcome, evaluate, format_evaluation  # noqa: E402

EVAL = ROOT / "examples" / "eval"


def _us(s: float | None) -> str:
    return "-" if s is None else f"{s * 1e6:.0f}us"


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", "eval-out")) / "eval"
    out.mkdir(parents=True, exist_ok=True)
    kcheck.enable_interpreter_if_no_gpu()
    gpu = torch.cuda.is_available()
    seeds, trials = (3, 2) if gpu else (1, 1)
    where = torch.cuda.get_device_name() if gpu else "no GPU: the CPU subset, Triton interpreted"
    print(f"== kcheck eval on {where}; torch {torch.__version__}; seeds={seeds} trials={trials}", flush=True)
    expected = json.loads((EVAL / "expected.json").read_text())
    rows, bad = [], 0
    log = (out / "evaluations.log").open("w")
    for ref, cands in expected.items():
        for cand, want in cands.items():
            exp = want["expect"]
            shown_exp = "PASS" if exp == "PASS" else ("|" if want.get("any") else "+").join(exp)
            if want.get("gpu_only") and not gpu:
                rows.append((cand, shown_exp, "not run", "needs a GPU", "-", "-", "-", "skip"))
                continue
            t0 = time.perf_counter()
            ev = evaluate(EVAL / cand, EVAL / ref, seeds=seeds, trials=trials, timeout=300)
            wall = time.perf_counter() - t0
            (out / f"{Path(cand).stem}.json").write_text(ev.to_json())
            log.write(format_evaluation(ev, evidence=3) + "\n\n")
            found = sorted(k.value for k in ev.failed_kinds)
            if exp == "PASS":
                ok = ev.passed
            elif want.get("any"):
                ok = not ev.passed and bool(set(exp) & set(found))
            else:
                ok = not ev.passed and set(exp) <= set(found)
            bad += not ok
            t = ev.timing
            rows.append((cand, shown_exp, ev.verdict, ",".join(found) or "-",
                         _us(t.candidate_device_s) if t else "-", _us(t.floor_s) if t else "-", f"{wall:.1f}s",
                         "ok" if ok else "WRONG"))
            print(f"  {cand}: {ev.verdict} {found} ({wall:.1f} s) {'ok' if ok else 'WRONG'}", flush=True)
    if gpu:  # the control: without poisoning the freed memory, the unhooked stale-memory cheat reads right values
        ev = evaluate(EVAL / "cheat_stale_unhooked.py", EVAL / "problem_matmul_bias_relu.py", seeds=1, trials=1,
                      timing=False, poison=False, timeout=300)
        c = ev.check(CheckKind.CORRECTNESS)
        control = c is not None and c.outcome is Outcome.PASS
        log.write("control, poison off:\n" + format_evaluation(ev) + "\n")
        print(f"  control: cheat_stale_unhooked.py with the memory poisoning off: correctness "
              f"{'passes (the cheat really reads the reference freed result)' if control else 'fails'}")
    log.close()
    header = ("candidate", "expected", "verdict", "reasons found", "time", "floor", "wall", "check")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    table = "\n".join("  ".join(str(v).ljust(w) for v, w in zip(r, widths, strict=True)) for r in [header, *rows])
    (out / "table.txt").write_text(table + "\n")
    print(table)
    print(f"== {len(rows)} candidates, {bad} not judged as expected; logs and JSON in {out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
