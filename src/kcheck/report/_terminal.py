"""Terminal output: a progress bar while cases run, a summary table after, then the failure messages."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from .._results import CaseResult, Report, Status, Verdict
from .._spec import Spec
from ..cases import Case
from ..sanitize import SanitizeReport
from ._message import format_case

_VERDICT = {Verdict.PASSED: "[green]PASSED[/]", Verdict.FAILED: "[red]FAILED[/]", Verdict.NOT_RUN: "[yellow]NOT RUN[/]"}
_STYLE = {Status.PASSED: "green", Status.FAILED: "red", Status.ERROR: "red", Status.SKIPPED: "yellow",
          Status.UNTRUSTED: "magenta", Status.CRASHED: "red", Status.TIMEOUT: "red"}


@contextmanager
def progress_display(console: Console, totals: dict[str, int], *, quiet: bool = False,
                     every: float = 10.0) -> Iterator[object]:
    """Progress while cases run; yields the callback ``check`` takes as ``progress``.

    On a terminal, a rich progress bar per Spec. In a log (no terminal: CI, ``| tee``, ``timeout``), one line per
    case that did not pass as it comes, and one line per Spec every ``every`` seconds and when it ends, so a long or
    stuck run shows in the log while it runs. ``quiet``: only the lines of the cases that did not pass."""
    if console.is_terminal and not quiet:
        with _bar(console, totals) as callback:
            yield callback
        return
    yield _LogLines(console, totals, quiet, every)


@contextmanager
def _bar(console: Console, totals: dict[str, int]) -> Iterator[object]:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[last]}"))
    with Progress(*columns, console=console, transient=False) as bar:
        tasks: dict[str, TaskID] = {}

        def callback(spec: Spec, case: Case, result: CaseResult | None) -> None:
            if spec.name not in tasks:
                tasks[spec.name] = bar.add_task(spec.name, total=totals.get(spec.name), last="")
            if result is not None:
                tag = result.status.value
                bar.update(tasks[spec.name], advance=1, last=f"[{_STYLE[result.status]}]{tag}[/] {case.id}")

        yield callback


class _LogLines:
    """The progress callback for logs (see ``progress_display``)."""

    def __init__(self, console: Console, totals: dict[str, int], quiet: bool, every: float) -> None:
        self.console, self.totals, self.quiet, self.every = console, totals, quiet, every
        self.done: dict[str, int] = {}
        self.bad: dict[str, int] = {}
        self.start: dict[str, float] = {}
        self.last = time.monotonic()

    def __call__(self, spec: Spec, case: Case, result: CaseResult | None) -> None:
        name = spec.name
        if result is None:
            self.start.setdefault(name, time.monotonic())
            return
        self.done[name] = self.done.get(name, 0) + 1
        if result.status not in (Status.PASSED, Status.SKIPPED):
            self.bad[name] = self.bad.get(name, 0) + (not result.ok)
            self.console.print(f"[{_STYLE[result.status]}]{result.status.value}[/] {case.id} "
                               f"({result.timing.total:.1f} s)", highlight=False, soft_wrap=True)
        now = time.monotonic()
        if not self.quiet and (now - self.last >= self.every or self.done[name] == self.totals.get(name)):
            self.last = now
            total = self.totals.get(name)
            self.console.print(f"{name}: {self.done[name]}/{total if total is not None else '?'} cases, "
                               f"{self.bad.get(name, 0)} not ok, {now - self.start.get(name, now):.0f} s",
                               highlight=False)


def summary_table(report: Report) -> Table:
    table = Table(title=f"kcheck on {report.device}", title_justify="left")
    for col in ("spec", "framework", "verdict", "pass", "fail", "error", "crash", "timeout", "untrusted", "skip", "s",
                "harness"):
        table.add_column(col, justify="right" if col not in ("spec", "framework", "verdict") else "left",
                         no_wrap=True)
    for s in report.specs:
        verdict = _VERDICT[s.verdict]
        ran = [c for c in s.cases if c.status is not Status.SKIPPED]
        total = sum(c.timing.total for c in ran)
        harness = sum(c.timing.harness for c in ran)
        share = f"{100 * harness / total:.0f}%" if total else "-"
        table.add_row(s.name, s.framework, verdict, *(str(s.count(st)) for st in (
            Status.PASSED, Status.FAILED, Status.ERROR, Status.CRASHED, Status.TIMEOUT, Status.UNTRUSTED,
            Status.SKIPPED)),
            f"{s.seconds:.1f}", share)
    return table


def resources_table(report: Report) -> Table | None:
    rows = [(s.name, r) for s in report.specs for r in s.resources]
    if not rows:
        return None
    table = Table(title="resources per kernel (compiled for the target shown; no GPU needed)", title_justify="left")
    for col in ("spec", "kernel", "target", "registers", "spill st/ld B", "shared B", "stack B", "from"):
        table.add_column(col, no_wrap=True)
    for name, r in rows:
        spill = f"{r.spill_stores}/{r.spill_loads}"
        table.add_row(name, r.kernel, r.arch, str(r.registers), f"[red]{spill}[/]" if r.spills else spill,
                      str(r.shared_bytes), str(r.stack_bytes), r.source)
    return table


def print_report(console: Console, report: Report, source: str | None = None, *, limit: int = 3) -> None:
    console.print(summary_table(report))
    resources = resources_table(report)
    if resources is not None:
        console.print(resources)
    for s in report.specs:
        for w in s.warnings:
            console.print(f"[yellow]warning[/] {s.name}: {w}", highlight=False)
        skipped = [c for c in s.cases if c.status is Status.SKIPPED]
        for c in skipped[:limit]:
            console.print(f"[yellow]skipped[/] {c.id}: {'; '.join(c.reasons)}", highlight=False)
        if len(skipped) > limit:
            console.print(f"[yellow]skipped[/] ... {len(skipped) - limit} more of {s.name}", highlight=False)
    for s in report.specs:
        fails = s.failures
        for c in fails[:limit]:
            console.print()
            console.print(format_case(c, source), highlight=False, markup=False, soft_wrap=True)
        if len(fails) > limit:
            console.print(f"\n... {len(fails) - limit} more failing cases of {s.name} (all in --json)", highlight=False)
    console.print()
    console.print(conclusion(report), highlight=False)


def conclusion(report: Report) -> str:
    """The last line of a run: what passed, what did not run and why, what was cut short."""
    lines = []
    if not report.complete:
        done = sum(len(s.cases) for s in report.specs)
        lines.append(f"[yellow]interrupted ({report.interrupted or 'stopped'})[/]: {done} case(s) finished; "
                     "the report holds those only")
    not_run = [s for s in report.specs if s.verdict is Verdict.NOT_RUN]
    for s in not_run:
        why = "this machine cannot run or judge its cases" if s.machine_only else "no case could run"
        first = next((r for c in s.cases for r in c.reasons), "the Spec has no case")
        lines.append(f"[yellow]not run[/] {s.name}: {why} ({first}); not a pass")
    failed = [s.name for s in report.specs if s.verdict is Verdict.FAILED]
    if failed:
        lines.append(f"[red]some specs failed[/]: {', '.join(failed)}")
    elif report.passed:
        lines.append("[green]all specs passed[/]")
    elif any(s.passed for s in report.specs):
        lines.append("[green]every Spec that ran passed[/]")
    return "\n".join(lines)


def print_sanitize(console: Console, reports: list[SanitizeReport]) -> None:
    """One table row per Spec and tool, then each finding with the cases that caused it."""
    table = Table(title="compute-sanitizer", title_justify="left")
    for col in ("spec", "tool", "status", "findings", "cases", "processes", "s"):
        table.add_column(col, no_wrap=True)
    style = {"clean": "green", "errors": "red", "unknown": "yellow"}
    for rep in reports:
        if rep.unavailable:
            table.add_row(rep.spec, "-", "[yellow]not run[/]", "-", "-", "-", "-")
            continue
        for t in rep.tools:
            table.add_row(rep.spec, t.tool, f"[{style[t.status]}]{t.status}[/]", str(len(t.findings)),
                          str(len(t.cases)), str(t.processes), f"{t.seconds:.1f}")
    console.print(table)
    for rep in reports:
        if rep.unavailable:
            console.print(f"[yellow]not run[/] {rep.spec}: {rep.unavailable}", highlight=False)
        for t in rep.tools:
            for f in t.findings:
                shown = ", ".join(f.cases[:3]) + (f" and {len(f.cases) - 3} more" if len(f.cases) > 3 else "")
                console.print(f"[red]{t.tool}[/] {f.describe()}\n    in {shown}", highlight=False, soft_wrap=True)
            for p in t.problems:
                console.print(f"[yellow]{t.tool}[/] {rep.spec}: {p}", highlight=False, soft_wrap=True)
            if t.outside:
                console.print(f"[yellow]{t.tool}[/] {rep.spec}: {len(t.outside)} record(s) outside the kernel calls "
                              f"(input generation or torch itself), not counted: "
                              + "; ".join(f.describe() for f in t.outside[:2]), highlight=False, soft_wrap=True)
