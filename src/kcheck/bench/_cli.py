"""The ``kcheck bench PATH`` command: ``add_cli(subparsers)`` adds it to kcheck's parser, ``run_cli(args)`` runs it
and returns the exit code (see ``ExitCode``); ``python -m kcheck.bench PATH`` runs it alone.

This module is the one place the bench package uses kcheck's discovery of Specs in files (``kcheck._discover``),
for the command and for the timing worker, which imports a Spec's file itself."""

from __future__ import annotations

import argparse
import enum
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from .._device import enable_interpreter_if_no_gpu
from .._discover import IMPORT_TIMEOUT, discover, load_module
from .._errors import EnvironmentProblem, KcheckError, SpecError
from .._spec import Spec
from ._bench import bench
from ._report import format_bench
from ._timing import TimingOptions
from ._worker import SpecSource

if TYPE_CHECKING:
    from .._spec import Spec
    from ._bench import BenchReport


class ExitCode(enum.IntEnum):
    OK = 0  # every case timed is within its baseline's margin, or recorded its first baseline
    REGRESSION = 1  # some case is significantly slower than its baseline by more than the margin, or its kernel
    #                 raised, crashed or hung while timed
    INTERNAL = 3  # kcheck itself broke
    USAGE = 4  # bad command line or bad Spec
    NO_SPECS = 5  # the path holds no Spec, or a file could not be imported
    NOT_RUN = 6  # nothing was timed here: no GPU (not a failure of the kernels), or no case could run
    INTERRUPTED = 130  # Ctrl-C


def load_spec(path: str, name: str) -> Spec:
    """The module-level Spec named ``name`` in the file ``path`` (imported by kcheck's discovery rule)."""

    module = load_module(Path(path), import_timeout=None)
    for value in vars(module).values():
        if isinstance(value, Spec) and value.name == name:
            return value
    raise LookupError(f"no Spec named {name!r} in {path}")


def _fraction(text: str) -> float:
    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a fraction such as 0.1 or 10%") from None
    if not 0 <= value < 10:
        raise argparse.ArgumentTypeError(f"{text!r}: give a fraction such as 0.1 or 10%")
    return value


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number > 0")
    return value


def add_arguments(b: argparse.ArgumentParser) -> None:
    b.add_argument("paths", nargs="+", metavar="PATH", help="a .py file or a folder holding module-level Specs")
    b.add_argument("--baseline", metavar="FILE", default=None,
                   help="the baseline file (default .kcheck-bench/baselines.json); peaks.json goes beside it")
    b.add_argument("--update-baseline", action="store_true",
                   help="record this run's timings as the baselines (accept a change)")
    b.add_argument("--clocks-locked", action="store_true",
                   help="the GPU's clocks are locked (nvidia-smi --lock-gpu-clocks): margin 5%% instead of 10%%")
    b.add_argument("--margin", type=_fraction, default=None, metavar="F",
                   help="slowdown past which a significant change is a regression (default 0.10; 0.05 locked)")
    b.add_argument("--alpha", type=float, default=0.01, help="significance level of the rank test (default 0.01)")
    b.add_argument("--spec", action="append", metavar="NAME", help="only the Spec(s) with this name")
    b.add_argument("--case", action="append", metavar="ID",
                   help="only the timing cases whose id matches (exact, glob, substring)")
    b.add_argument("--dtypes", help="comma-separated precisions replacing the Specs' own, e.g. fp32,bf16")
    b.add_argument("--graph", action="store_true",
                   help="time by CUDA graph replay (kernels of a few microseconds: no launch overhead)")
    b.add_argument("--rep-ms", type=_positive, default=300.0, metavar="MS",
                   help="milliseconds of timed runs per case (default 300; at least 50 runs)")
    b.add_argument("--timeout", type=_positive, default=300.0, metavar="S",
                   help="seconds a case may take (compilation included) before it counts as hung (default 300)")
    b.add_argument("--no-isolate", action="store_true",
                   help="time in this process (a crash or hang of a kernel then ends the whole run)")
    b.add_argument("--no-roofline", action="store_true", help="do not measure the GPU's peaks")
    b.add_argument("--json", metavar="OUT", help="write the report as JSON to OUT")
    b.add_argument("--import-timeout", type=float, default=None, metavar="S",
                   help="seconds each Spec file may take to import (default: kcheck's)")


def add_cli(subparsers: Any) -> None:
    """Add the ``bench`` sub-command to kcheck's sub-parsers; ``args.handler(args)`` runs it."""
    b = subparsers.add_parser("bench", help="time the Specs' nominal and real-dimension cases on the GPU and "
                              "compare them with their baselines (regressions past a margin, significant by a "
                              "rank test)")
    add_arguments(b)
    b.set_defaults(handler=run_cli)


def _load(paths: Sequence[str], names: Sequence[str] | None, import_timeout: float | None) -> tuple[
        list[Spec], dict[int, Any], bool]:

    enable_interpreter_if_no_gpu()
    specs: list[Spec] = []
    sources: dict[int, Any] = {}
    broken = False
    for path in paths:
        if not Path(path).exists():

            raise SpecError("PATH", path, "no such file or folder")
        for found in discover(path, import_timeout=IMPORT_TIMEOUT if import_timeout is None else import_timeout or
                              None):
            if not found.imported:
                continue
            if found.error:
                print(f"error in {found.path}: {found.error}", file=sys.stderr)
                broken = True
            for s in found.specs:
                if not names or s.name in names:
                    specs.append(s)
                    sources[id(s)] = SpecSource(str(Path(found.path).resolve()), s.name)
    return specs, sources, broken


def exit_code(report: BenchReport) -> ExitCode:
    if report.regressions or report.failures:
        return ExitCode.REGRESSION
    if report.timed == 0:
        return ExitCode.NOT_RUN
    return ExitCode.OK


def run_cli(args: argparse.Namespace) -> int:
    """Run ``kcheck bench`` for parsed ``args``; returns the exit code (``ExitCode``)."""

    if args.json:
        out = Path(args.json)
        if out.is_dir() or not out.parent.is_dir():

            raise SpecError("--json", args.json, "give a file path in an existing folder")
    specs, sources, broken = _load(args.paths, args.spec, args.import_timeout)
    if not specs:
        print("no kcheck.Spec found" + (f" named {args.spec}" if args.spec else "") + f" in {args.paths}")
        return ExitCode.NO_SPECS
    report = bench(specs, baseline=args.baseline, update_baseline=args.update_baseline,
                   clocks_locked=args.clocks_locked, margin=args.margin, alpha=args.alpha, cases=args.case,
                   dtypes=args.dtypes.split(",") if args.dtypes else None,
                   options=TimingOptions(rep_ms=args.rep_ms, graph=args.graph), isolate=not args.no_isolate,
                   timeout=args.timeout, roofline=not args.no_roofline, sources=sources,
                   progress=_progress)
    print(format_bench(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=1))
    code = exit_code(report)
    return ExitCode.NO_SPECS if broken and code == ExitCode.OK else code


def _progress(spec: str, case: str, result: object) -> None:
    if result is None:
        print(f"timing {case} ...", file=sys.stderr, flush=True)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m kcheck.bench PATH ...``: the bench command on its own."""

    p = _Parser(prog="kcheck bench", description="Time kernels against their baselines.")
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        return run_cli(args)
    except SpecError as exc:
        print(f"kcheck: bad input: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except EnvironmentProblem as exc:
        print(f"kcheck: {exc}", file=sys.stderr)
        return ExitCode.NOT_RUN
    except KcheckError as exc:
        print(f"kcheck: {exc}", file=sys.stderr)
        return ExitCode.INTERNAL
    except KeyboardInterrupt:
        print("kcheck: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
