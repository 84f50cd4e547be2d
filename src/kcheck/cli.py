"""The ``kcheck`` command line: ``kcheck check PATH [--json OUT]``."""

from __future__ import annotations

import argparse
import enum
import json
import os
import signal
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from ._check import check, matrix, prestart
from ._device import detect, enable_interpreter_if_no_gpu
from ._discover import IMPORT_TIMEOUT, discover
from ._errors import EnvironmentProblem, Interrupted, KcheckError, SpecError
from ._options import Options, add_arguments, surface_options
from ._results import Report, Verdict, to_jsonable
from ._spec import Spec
from .bench import add_cli as add_bench_cli
from .diagnose import debug, doctor, format_diagnosis
from .evaluation import add_cli as add_eval_cli
from .lint import format_finding, format_findings, lint_path
from .report import JsonReport, check_writable, print_report, print_sanitize, progress_display, write_atomic, write_html
from .sanitize import sanitize

if TYPE_CHECKING:
    from rich.console import Console



class ExitCode(enum.IntEnum):
    OK = 0  # every Spec that ran passed, and at least one ran (a Spec this machine cannot run is listed, not passed)
    FAILED = 1  # some case failed, errored, crashed or timed out, or a sanitizer tool found errors
    INTERNAL = 3  # kcheck itself broke (a bug: the message says so)
    USAGE = 4  # bad command line or bad Spec (the message names the argument and the fix)
    NO_SPECS = 5  # the path holds no Spec, or a file could not be imported
    UNKNOWN = 6  # could not be checked here: no Spec ran a case, a Spec ran none for a reason other than this
    #              machine, a sanitizer run untrusted or impossible, or an interpreter kcheck cannot patch
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT); SIGTERM exits 143 (128 + 15); the JSON report holds what finished


class _Parser(argparse.ArgumentParser):
    """argparse with kcheck's exit code for a bad command line (argparse's own is 2, which kcheck does not use)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message}\n")


def _seconds(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds >= 0")
    return value


def _import_timeout(p: argparse.ArgumentParser) -> None:

    p.add_argument("--import-timeout", type=_seconds, default=IMPORT_TIMEOUT, metavar="S",
                   help=f"seconds each Spec file may take to import (default {IMPORT_TIMEOUT:g}; 0: no limit)")


#: Seconds one compute-sanitizer process may take (``kcheck sanitize --timeout``; ``check --sanitize`` too).
SANITIZE_TIMEOUT = 600.0


def _options(args: argparse.Namespace) -> Options:
    """The settings of this command: its defaults < [tool.kcheck] in the pyproject.toml nearest the paths < the
    flags given."""
    paths = [os.path.abspath(p) for p in args.paths]
    return surface_options(f"cli {args.command}", lambda name: getattr(args, name, None),
                           near=os.path.commonpath(paths) if paths else None)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kcheck", description="Check GPU kernels against a float64 reference.")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="run the Specs found in PATH on their case matrix")
    c.add_argument("paths", nargs="+", metavar="PATH", help="a .py file or a folder holding module-level Specs")
    c.add_argument("--json", metavar="OUT", help="write the full report as JSON to OUT")
    c.add_argument("--spec", action="append", metavar="NAME", help="only the Spec(s) with this name")
    add_arguments(c.add_argument, "cli check")  # kcheck.Options' settings: one declaration for every surface
    c.add_argument("--show", type=int, default=3, metavar="N", help="failure messages shown per Spec (default 3)")
    c.add_argument("--sanitize", action="store_true",
                   help="also run compute-sanitizer's four tools on each Spec's edge cases (GPU only)")
    c.add_argument("--html", metavar="OUT", help="write an HTML report with error maps of the failing cases to OUT")
    c.add_argument("--debug", action="store_true",
                   help="on a failing Spec, run the debugger (bisection, diagnosis, minimal repro) after the check")
    _import_timeout(c)
    c.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar or progress lines: only a line per case that did not pass, as it comes")
    z = sub.add_parser("sanitize", help="run compute-sanitizer's tools over the Specs' small edge cases (GPU only)")
    z.add_argument("paths", nargs="+", metavar="PATH")
    z.add_argument("--tool", action="append", choices=("memcheck", "racecheck", "synccheck", "initcheck"),
                   help="tool(s) to run (default: all four)")
    z.add_argument("--spec", action="append", metavar="NAME", help="only the Spec(s) with this name")
    add_arguments(z.add_argument, "cli sanitize")  # --case: these cases instead of the edge cases
    z.add_argument("--timeout", type=float, default=SANITIZE_TIMEOUT, metavar="S", dest="process_timeout",
                   help=f"seconds per sanitized process (default {SANITIZE_TIMEOUT:g})")
    z.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="sanitized processes at once (default: every tool at the same time; 1: one after another)")
    z.add_argument("--json", metavar="OUT", help="write the findings as JSON to OUT")
    _import_timeout(z)
    d = sub.add_parser("debug", help="on failing Specs: bisection over sizes, data, magnitudes and code stages, a "
                       "ranked diagnosis, the smallest failing case and a standalone repro script")
    d.add_argument("paths", nargs="+", metavar="PATH")
    d.add_argument("--spec", action="append", metavar="NAME", help="only the Spec(s) with this name")
    d.add_argument("--budget", type=float, default=None, metavar="S",
                   help="seconds for the experiments per Spec (default 60 on a GPU, 180 on a CPU)")
    d.add_argument("--out", default="kcheck-debug", metavar="DIR", help="where the repro scripts go")
    d.add_argument("--html", metavar="OUT", help="also write an HTML report with error maps to OUT")
    d.add_argument("--json", metavar="OUT", help="write the diagnoses as JSON to OUT")
    add_arguments(d.add_argument, "cli debug")
    _import_timeout(d)
    doc = sub.add_parser("doctor", help="run the ten-step debugging checklist on each Spec, in order")
    doc.add_argument("paths", nargs="+", metavar="PATH")
    doc.add_argument("--spec", action="append", metavar="NAME", help="only the Spec(s) with this name")
    _import_timeout(doc)
    lint = sub.add_parser("lint", help="static checks of CUDA C and Triton sources: int32 index overflow, unmasked "
                          "accesses, divergent barriers (no GPU, nothing imported)")
    lint.add_argument("paths", nargs="+", metavar="PATH", help="a .py/.cu/.cuh/.cpp/.h file or a folder (recursive)")
    lint.add_argument("--json", metavar="OUT", help="write the findings as JSON to OUT")
    lint.add_argument("--errors-only", action="store_true", help="exit 0 when every finding is a warning")
    add_bench_cli(sub)  # kcheck bench: timing against baselines (kcheck.bench)
    add_eval_cli(sub)  # kcheck eval: generated kernels against a reference problem (kcheck.evaluation)
    return p


def _lint(args: argparse.Namespace) -> int:

    json_out = check_writable("--json", args.json) if args.json else None
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        print(f"kcheck: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return ExitCode.USAGE
    findings = [f for p in args.paths for f in lint_path(p)]
    print(format_findings(findings))
    if json_out is not None:
        write_atomic(json_out, json.dumps([to_jsonable(f) for f in findings], indent=1))
    failing = [f for f in findings if f.severity == "error" or not args.errors_only]
    return ExitCode.FAILED if failing else ExitCode.OK


def _print_lint(console: Console, paths: Sequence[str]) -> None:
    """``check`` shows the static checks' findings on the same files (they do not change its exit code)."""

    findings = [f for p in paths for f in lint_path(p)]
    if findings:
        console.print(f"[yellow]static checks[/]: {len(findings)} finding(s) (kcheck lint for the exit code)")
        for f in findings:
            console.print("  " + format_finding(f), markup=False, highlight=False, soft_wrap=True)


def _console() -> Console:
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=120)  # logs and CI: wide enough for the tables


def _load(console: Console, args: argparse.Namespace) -> tuple[list[Spec], bool]:
    """The Specs of the paths (the discovery rule: ``kcheck._discover``), saying which files were imported."""


    enable_interpreter_if_no_gpu()
    specs: list[Spec] = []
    broken = False
    imported: list[str] = []
    skipped: Counter[str] = Counter()
    limit = getattr(args, "import_timeout", None)
    for path in args.paths:
        for found in discover(path, import_timeout=limit or None):
            if not found.imported:
                skipped[found.skipped or ""] += 1
                continue
            imported.append(str(found.path))
            if found.error:
                console.print(f"[red]error[/] in {found.path}: {found.error}", highlight=False)
                broken = True
            specs += [s for s in found.specs if not args.spec or s.name in args.spec]
    shown = ", ".join(imported[:8]) + (f" and {len(imported) - 8} more" if len(imported) > 8 else "")
    console.print(f"imported {len(imported)} file(s): {shown or '-'}", highlight=False, soft_wrap=True)
    if not specs:
        console.print("no kcheck.Spec found" + (f" named {args.spec}" if args.spec else "") + f" in {args.paths}")
        if skipped:
            why = "; ".join(f"{reason}: {n}" for reason, n in skipped.most_common())
            console.print(f"skipped {sum(skipped.values())} .py file(s) that cannot hold a Spec ({why}); name a file "
                          "to import it anyway", highlight=False, soft_wrap=True)
    return specs, broken


def _sanitize_specs(console: Console, specs: list[Spec], *, tools: Sequence[str] | None = None,
                    cases: Sequence[str] | None = None, timeout: float = SANITIZE_TIMEOUT, jobs: int | None = None,
                    json_out: str | None = None) -> int:

    tools = tools or ("memcheck", "racecheck", "synccheck", "initcheck")
    reports = []
    for spec in specs:
        chosen = matrix(spec, cases=cases) if cases else None
        reports.append(sanitize(spec, tools=tools, cases=chosen, timeout=timeout, jobs=jobs))
    print_sanitize(console, reports)
    if json_out:

        Path(json_out).write_text(json.dumps([to_jsonable(r) for r in reports], indent=1))
    if any(r.unavailable or any(t.status == "unknown" for t in r.tools) for r in reports):
        if any(t.status == "errors" for r in reports for t in r.tools):
            return ExitCode.FAILED
        return ExitCode.UNKNOWN
    return ExitCode.OK if all(r.clean for r in reports) else ExitCode.FAILED


def _sanitize(args: argparse.Namespace) -> int:

    if args.json:
        check_writable("--json", args.json)
    options = _options(args)
    console = _console()
    specs, broken = _load(console, args)
    if not specs:
        return ExitCode.NO_SPECS
    code = _sanitize_specs(console, specs, tools=args.tool, cases=options.cases, timeout=args.process_timeout,
                           jobs=args.jobs, json_out=args.json)
    return ExitCode.NO_SPECS if broken and code == ExitCode.OK else code


def _verdict_code(report: Report) -> ExitCode:
    """The exit code of a finished check (see ExitCode)."""
    verdicts = [s.verdict for s in report.specs]
    if Verdict.FAILED in verdicts:
        return ExitCode.FAILED
    if not any(v is Verdict.PASSED for v in verdicts):
        return ExitCode.UNKNOWN
    if any(s.verdict is Verdict.NOT_RUN and not s.machine_only for s in report.specs):
        return ExitCode.UNKNOWN
    return ExitCode.OK


def _check(args: argparse.Namespace) -> int:

    json_out = check_writable("--json", args.json) if args.json else None
    html_out = check_writable("--html", args.html) if args.html else None
    options = _options(args)
    console = _console()
    enable_interpreter_if_no_gpu()  # before the workers start: they take this process's environment
    prestart(options)  # the workers start (torch, CUDA) while this process imports the Specs and builds the matrices
    specs, broken = _load(console, args)
    if not specs:
        return ExitCode.NO_SPECS
    totals = {s.name: len(matrix(s, tier=options.tier, dtypes=options.dtypes, patterns=options.patterns,
                                 seeds=options.seeds, large=options.large, cases=options.cases)) for s in specs}
    writer = JsonReport(json_out) if json_out else None
    source = args.paths[0] if len(args.paths) == 1 else None
    try:
        with progress_display(console, totals, quiet=args.quiet) as callback:
            report: Report = check(specs, options, progress=callback, live=writer)  # type: ignore[arg-type]
    except Interrupted as exc:
        partial = exc.report if isinstance(exc.report, Report) else None
        if partial is not None:
            print_report(console, partial, source, limit=args.show)
            if writer is not None:
                writer(partial, final=True)
                console.print(f"JSON report (partial): {json_out}", highlight=False)
        return 128 + _SIGNALS.get(exc.reason, signal.SIGINT)
    print_report(console, report, source, limit=args.show)
    _print_lint(console, args.paths)
    if writer is not None:
        writer(report, final=True)
        console.print(f"JSON report: {json_out}", highlight=False)
    code = _verdict_code(report)
    diagnoses = {}
    if args.debug:

        for spec, spec_report in zip(specs, report.specs, strict=True):
            if spec_report.verdict is Verdict.FAILED:
                diagnoses[spec.name] = debug(spec, options, report=spec_report)
                console.print(format_diagnosis(diagnoses[spec.name]), highlight=False, markup=False, soft_wrap=True)
    if html_out is not None:

        path = write_html(report, html_out, specs={s.name: s for s in specs}, diagnoses=diagnoses or None,
                          source=source)
        console.print(f"HTML report: {path}", highlight=False)
    if args.sanitize:
        sanitized = _sanitize_specs(console, specs)
        code = code if code == ExitCode.FAILED else ExitCode(sanitized)
    if broken:
        return ExitCode.NO_SPECS
    return code


def _debug(args: argparse.Namespace) -> int:

    json_out = check_writable("--json", args.json) if args.json else None
    html_out = check_writable("--html", args.html) if args.html else None
    options = _options(args)
    console = _console()
    specs, broken = _load(console, args)
    if not specs:
        return ExitCode.NO_SPECS

    diagnoses, reports = {}, []
    for spec in specs:
        console.print(f"debugging {spec.name} ...", highlight=False)
        # as debug() runs it: in a worker, every case, the past-2**31 cases where the device can run them
        spec_report = check(spec, options, large=options.large and detect().is_gpu, isolate=True, cases=None,
                            resources=False).specs[0]
        reports.append(spec_report)
        diag = debug(spec, options, report=spec_report, budget=args.budget, out_dir=args.out)
        diagnoses[spec.name] = diag
        console.print(format_diagnosis(diag), highlight=False, markup=False, soft_wrap=True)
    if json_out is not None:
        write_atomic(json_out, json.dumps({k: to_jsonable(v) for k, v in diagnoses.items()}, indent=1))
    if html_out is not None:

        report = Report(reports, device=reports[0].device if reports else "")
        path = write_html(report, html_out, diagnoses=diagnoses, specs={s.name: s for s in specs},
                          source=args.paths[0] if len(args.paths) == 1 else None)
        console.print(f"HTML report: {path}", highlight=False)
    if broken:
        return ExitCode.NO_SPECS
    if any(d.failed for d in diagnoses.values()):
        return ExitCode.FAILED
    # a Spec none of whose cases ran was not debugged: that is no pass
    return ExitCode.UNKNOWN if any(d.not_run for d in diagnoses.values()) else ExitCode.OK


def _doctor(args: argparse.Namespace) -> int:

    console = _console()
    specs, broken = _load(console, args)
    if not specs:
        return ExitCode.NO_SPECS
    problems = False
    for spec in specs:
        console.print(f"{spec.name}: the debugging checklist", highlight=False)
        for step in doctor(spec):
            console.print("  " + step.describe(), highlight=False, markup=False, soft_wrap=True)
            problems |= step.outcome == "problem"
    if broken:
        return ExitCode.NO_SPECS
    return ExitCode.FAILED if problems else ExitCode.OK


_SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}


def _on_sigterm(signum: int, frame: object) -> None:
    raise Interrupted("SIGTERM")


def main(argv: Sequence[str] | None = None) -> int:

    args = _parser().parse_args(argv)
    previous = signal.signal(signal.SIGTERM, _on_sigterm)  # `timeout`, a CI cancel: stop like Ctrl-C does
    try:
        return _dispatch(args)
    except SpecError as exc:
        print(f"kcheck: bad input: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except EnvironmentProblem as exc:  # the machine cannot do what was asked: say so and how to get round it
        print(f"kcheck: {exc}", file=sys.stderr)
        return ExitCode.UNKNOWN
    except KcheckError as exc:
        print(f"kcheck: {exc}", file=sys.stderr)
        return ExitCode.INTERNAL
    except KeyboardInterrupt as exc:  # before or after the cases (while importing, debugging, ...)
        reason = exc.reason if isinstance(exc, Interrupted) else "SIGINT"
        print(f"kcheck: interrupted ({reason})", file=sys.stderr)
        return 128 + _SIGNALS.get(reason, signal.SIGINT)
    except Exception:
        import traceback

        traceback.print_exc()
        print("kcheck: internal error: the traceback above is a bug in kcheck, not in your kernel; please report it",
              file=sys.stderr)
        return ExitCode.INTERNAL
    finally:
        signal.signal(signal.SIGTERM, previous)


def _dispatch(args: argparse.Namespace) -> int:
    commands = {"check": _check, "sanitize": _sanitize, "lint": _lint, "debug": _debug, "doctor": _doctor}
    if args.command in commands:
        return commands[args.command](args)
    return int(args.handler(args))  # a sub-command that a package adds with its own handler (bench, eval)


if __name__ == "__main__":
    sys.exit(main())
