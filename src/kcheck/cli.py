"""The ``kcheck`` command line: ``kcheck check PATH [--json OUT]``."""

from __future__ import annotations

import argparse
import enum
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ._device import enable_interpreter_if_no_gpu


class ExitCode(enum.IntEnum):
    OK = 0  # every Spec passed
    FAILED = 1  # some case failed or errored
    INTERNAL = 3  # kcheck itself broke
    USAGE = 4  # bad command line or bad Spec (the message names the argument and the fix)
    NO_SPECS = 5  # the path holds no Spec, or a file could not be imported


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kcheck", description="Check GPU kernels against a float64 reference.")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="run the Specs found in PATH on their case matrix")
    c.add_argument("paths", nargs="+", metavar="PATH", help="a .py file or a folder holding module-level Specs")
    c.add_argument("--json", metavar="OUT", help="write the full report as JSON to OUT")
    c.add_argument("--tier", choices=("quick", "default", "full"), default="default")
    c.add_argument("--spec", action="append", metavar="NAME", help="only the Spec(s) with this name")
    c.add_argument("--case", action="append", metavar="ID", help="only cases whose id matches (exact, glob, substring)")
    c.add_argument("--dtypes", help="comma-separated precisions replacing the Specs' own, e.g. fp32,bf16")
    c.add_argument("--seeds", type=int, help="number of seeds for the nominal case")
    c.add_argument("--no-large", action="store_true", help="leave out the past-2**31-element cases")
    c.add_argument("--no-isolate", action="store_true",
                   help="run cases in this process (faster start; a crash or hang then ends the whole run)")
    c.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds per case (default 60)")
    c.add_argument("--show", type=int, default=3, metavar="N", help="failure messages shown per Spec (default 3)")
    c.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return p


def _check(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ._check import check, matrix
    from ._discover import discover
    from ._results import Report
    from .report._terminal import print_report, progress_display

    console = Console()
    if not console.is_terminal:  # logs and CI: wide enough for the table and the messages
        console = Console(width=120)
    enable_interpreter_if_no_gpu()
    specs = []
    broken = False
    for path in args.paths:
        for found in discover(path):
            if found.error:
                console.print(f"[red]error[/] importing {found.path}: {found.error}", highlight=False)
                broken = True
            specs += [s for s in found.specs if not args.spec or s.name in args.spec]
    if not specs:
        console.print("no kcheck.Spec found" + (f" named {args.spec}" if args.spec else "") + f" in {args.paths}")
        return ExitCode.NO_SPECS
    kwargs = dict(tier=args.tier, dtypes=args.dtypes.split(",") if args.dtypes else None, seeds=args.seeds,
                  large=not args.no_large, cases=args.case)
    totals = {s.name: len(matrix(s, **kwargs)) for s in specs}
    with progress_display(console, totals if not args.quiet else {}) as callback:
        report: Report = check(specs, progress=None if args.quiet else callback,  # type: ignore[arg-type]
                               isolate=not args.no_isolate, timeout=args.timeout, **kwargs)
    source = args.paths[0] if len(args.paths) == 1 else None
    print_report(console, report, source, limit=args.show)
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=1))
        console.print(f"JSON report: {args.json}")
    if broken:
        return ExitCode.NO_SPECS
    return ExitCode.OK if report.passed else ExitCode.FAILED


def main(argv: Sequence[str] | None = None) -> int:
    from ._errors import KcheckError, SpecError

    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
    except SpecError as exc:
        print(f"kcheck: bad input: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except KcheckError as exc:
        print(f"kcheck: {exc}", file=sys.stderr)
        return ExitCode.INTERNAL
    return ExitCode.USAGE


if __name__ == "__main__":
    sys.exit(main())
