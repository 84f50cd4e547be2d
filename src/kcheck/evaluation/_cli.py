"""``kcheck eval CANDIDATE --reference REF``: the command line of the evaluation.

Exit codes follow ``kcheck check``'s: 0 PASS, 1 FAIL, 4 a bad command line or problem file."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from .._device import enable_interpreter_if_no_gpu
from .._errors import SpecError
from ._isolate import evaluate
from ._model import format_evaluation

PASS, FAIL, USAGE = 0, 1, 4


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give an int >= 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds > 0 (inf: no limit)")
    return value


def add_cli(subparsers: Any) -> None:
    """Add the ``eval`` sub-command to an ``argparse`` sub-parsers object (its handler: ``run_cli``)."""
    e = subparsers.add_parser("eval", help="evaluate a generated kernel against a reference problem with checks known "
                              "cheats cannot pass (stale memory, side streams, threads, patched timers, ...)")
    e.add_argument("candidate", metavar="CANDIDATE", help="the candidate's .py file (ModelNew, Model or kernel)")
    e.add_argument("--reference", required=True, metavar="REF",
                   help="the problem's .py file: Model + get_inputs + get_init_inputs, or one kcheck.Spec")
    e.add_argument("--seeds", type=_positive, default=3, metavar="N", help="seeds of fresh inputs (default 3)")
    e.add_argument("--trials", type=_positive, default=2, metavar="N", help="input sets per seed (default 2)")
    e.add_argument("--precision", choices=("fp32", "tf32", "bf16", "fp16", "fp64"),
                   help="the problem's precision (default: the reference output's dtype; tf32 accepts TF32 matmuls)")
    e.add_argument("--reduce", type=_positive, metavar="N",
                   help="reduction length the tolerance widens for (default: the longest last input dimension)")
    e.add_argument("--no-timing", action="store_true", help="skip the timed runs (and the checks made on them)")
    e.add_argument("--timeout", type=_seconds, default=600.0, metavar="S",
                   help="seconds the whole evaluation may take before the candidate counts as hung (default 600)")
    e.add_argument("--json", metavar="OUT", help="write the evaluation as JSON to OUT")
    e.set_defaults(handler=run_cli)


def run_cli(args: argparse.Namespace) -> int:
    """Run ``kcheck eval``; returns the exit code (0 PASS, 1 FAIL, 4 usage)."""

    if args.json:
        out = Path(args.json)
        if out.is_dir() or not out.parent.exists():
            print(f"kcheck: --json={args.json!r}: give a file in an existing folder", file=sys.stderr)
            return USAGE
    enable_interpreter_if_no_gpu()
    try:
        ev = evaluate(args.candidate, args.reference, seeds=args.seeds, trials=args.trials,
                      timing=not args.no_timing, precision=args.precision, reduce=args.reduce,
                      timeout=args.timeout if not math.isinf(args.timeout) else math.inf)
    except SpecError as exc:
        print(f"kcheck: bad input: {exc}", file=sys.stderr)
        return USAGE
    print(format_evaluation(ev))
    if args.json:
        Path(args.json).write_text(ev.to_json())
        print(f"JSON report: {args.json}")
    return PASS if ev.passed else FAIL
