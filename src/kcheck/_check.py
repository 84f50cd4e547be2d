"""``kcheck.check``: the pipeline cases -> run -> compare -> report for one or more Specs."""

from __future__ import annotations

import contextlib
import fnmatch
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import torch

from . import _forkserver, interpret
from ._device import DeviceInfo, detect
from ._discover import SpecRef, locate
from ._errors import EnvironmentProblem, Interrupted, SpecError
from ._options import Options
from ._resources import Resources
from ._results import CaseResult, Reason, ReasonKind, Report, SpecReport, Status
from ._spec import Spec
from .backends import Backend, backend_of
from .cases import Case, build_matrix, case_bytes
from .run import (
    INTERPRETER_ENV,
    Deadlines,
    Isolated,
    Pool,
    RunOptions,
    cross_cases,
    current_gpu,
    discard_prestarted,
    judge_cross,
    large_case_turn,
    pinning,
    run_case,
    spec_resources,
    visible_gpus,
    warm_up,
    worker_count,
)

Progress = Callable[[Spec, Case, CaseResult | None], None]
Live = Callable[[Report], None]


def _versions() -> dict[str, str]:
    out: dict[str, str] = {"torch": str(torch.__version__)}
    for pkg in ("kcheck", "triton"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    return out


def select(cases: Iterable[Case], pattern: str | Sequence[str] | None) -> list[Case]:
    """Cases whose id matches any of ``pattern`` (an exact id, a glob, or a substring)."""
    cases = list(cases)
    if pattern is None:
        return cases
    pats = [pattern] if isinstance(pattern, str) else list(pattern) if isinstance(pattern, Sequence) else [None]
    if not pats or not all(isinstance(p, str) for p in pats):
        raise SpecError("cases", pattern, "give a case id, a glob or a substring (or a list of them)")
    return [c for c in cases if any(p == c.id or fnmatch.fnmatchcase(c.id, p) or p in c.id for p in pats)]


def matrix(spec: Spec, *, tier: str = "default", dtypes: Sequence[str] | None = None,
           patterns: Sequence[str] | None = None, seeds: int | None = None, large: bool = True,
           cases: str | Sequence[str] | None = None, device: DeviceInfo | None = None) -> list[Case]:
    """The cases ``check`` would run for ``spec`` (same narrowing arguments)."""
    if not isinstance(spec, Spec):
        raise SpecError("spec", spec, "pass a kcheck.Spec (or a list of them)")
    problem = backend_of(spec.kernel).spec_problem(spec.kernel)
    if problem:
        raise SpecError("kernel", spec.kernel, problem)
    dtypes = [dtypes] if isinstance(dtypes, str) else dtypes
    patterns = [patterns] if isinstance(patterns, str) else patterns
    for name, value in (("dtypes", dtypes), ("patterns", patterns)):
        if value is not None and (isinstance(value, bytes) or not isinstance(value, Sequence)):
            raise SpecError(name, value, "give a list such as ['fp32', 'bf16'], or None for the Spec's own")
    if not isinstance(large, bool):
        raise SpecError("large", large, "give True or False")
    dev = device or detect()
    return select(build_matrix(spec, dev, tier=tier, large=large, precisions=dtypes, patterns=patterns, seeds=seeds),
                  cases)


def _spec_warnings(spec: Spec, backend: Backend, dev: DeviceInfo, results: list[CaseResult],
                   options: RunOptions) -> list[str]:
    out = []
    ran = [r for r in results if r.status in (Status.PASSED, Status.FAILED)]
    if ran:
        weak_all = set.intersection(*(set(w.split(": ", 1)[1] for w in r.weak) for r in ran)) if all(
            r.weak for r in ran) else set()
        for cand in sorted(weak_all):
            out.append(f"weak check: a kernel returning {cand} would pass every case that ran; tighten rtol/atol "
                       "or add patterns whose answer differs from it")
    if backend.interpreted(dev):
        if options.interpreter_checks:
            out.append(f"Triton kernels ran in Triton's interpreter (no GPU), every memory access checked and races "
                       f"between programs looked for (program order: {options.order}); GPU-only compiler failures "
                       "do not show here")
        else:
            out.append("Triton kernels ran in Triton's interpreter (no GPU) without kcheck's memory and race checks: "
                       "out-of-bounds accesses and races between programs do not show here")
    nondet = [r for r in results if r.determinism is not None and not r.determinism.identical]
    if nondet:
        out.append(f"{len(nondet)} case(s) not deterministic run to run")
    return out


def _require_interpreter_internals(specs: Sequence[Spec], options: RunOptions, dev: DeviceInfo) -> None:
    """Refuse at once, with the fix, when the interpreter checks are asked for on a Triton whose interpreter
    internals kcheck cannot patch (rather than failing every case with the same error)."""
    if not (options.interpreter_checks and any(backend_of(s.kernel).interpreted(dev) for s in specs)):
        return

    try:
        interpret.internals()  # looked up at call time: tests stand in a broken interpreter
    except interpret.InterpreterMismatch as exc:
        raise EnvironmentProblem(f"{exc}. Fix: install triton 3.6 or 3.7, or pass interpreter_checks=False "
                                 "(CLI: --no-interpreter-checks) to run without the memory and race checks") from exc


def _specs(spec: Spec | Sequence[Spec]) -> list[Spec]:
    if isinstance(spec, Spec):
        return [spec]
    if isinstance(spec, (str, bytes)) or not isinstance(spec, Sequence):
        raise SpecError("spec", spec, "pass a kcheck.Spec or a list of them")
    specs = list(spec)
    for i, sp in enumerate(specs):
        if not isinstance(sp, Spec):
            raise SpecError(f"spec[{i}]", sp, "pass kcheck.Spec objects")
    seen: dict[str, Spec] = {}
    for sp in specs:
        if sp.name in seen and seen[sp.name] is not sp:
            raise SpecError("name", sp.name, "two different Specs have this name; give each a unique name (cases, "
                            "reports and --spec address Specs by name)")
        seen[sp.name] = sp
    return list(seen.values())


def _timeout(timeout: object) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or math.isnan(timeout) or timeout <= 0:
        raise SpecError("timeout", timeout, "give a positive number of seconds (math.inf: no limit)")
    return float(timeout)


class _Run:
    """One call of ``check``: the cases of each Spec in order, the report as it grows."""

    def __init__(self, dev: DeviceInfo, options: RunOptions, worker: Isolated | None, timeout: float,
                 progress: Progress | None, live: Live | None) -> None:
        self.dev, self.options, self.worker, self.timeout = dev, options, worker, timeout
        self.progress, self.live = progress, live
        self.report = Report([], dev.describe(), _versions(), complete=False)
        # the cases run in Triton's interpreter beside a GPU (``Case.interpreted``): one worker, one case at a time
        self._cross: Isolated | None = None
        self._cross_lock = threading.Lock()
        self._cross_deadlines: dict[str, Deadlines] = {}

    def close(self) -> None:
        if self._cross is not None:
            self._cross.close()

    def spec(self, sp: Spec, todo: list[Case], resources: bool) -> None:
        t0 = time.perf_counter()
        backend = backend_of(sp.kernel)
        ref = locate(sp) if self.worker is not None else None
        notes = []
        if self.worker is not None and ref is None:
            notes.append("not isolated: the Spec is not defined at module level, so no worker can import it")
        current = SpecReport(sp.name, backend.name, self.dev.describe(), [], notes)
        self.report.specs.append(current)
        deadlines = Deadlines(self.timeout)
        for case in todo:
            if self.progress:
                self.progress(sp, case, None)
            res = self._case(sp, case, ref, deadlines)
            current.cases.append(res)
            current.seconds = time.perf_counter() - t0
            if self.progress:
                self.progress(sp, case, res)
            if self.live:
                self.live(self.report)
        self._finish(sp, current, ref, resources, t0)

    def _finish(self, sp: Spec, current: SpecReport, ref: SpecRef | None, resources: bool, t0: float,
                found: tuple[list[Resources], list[str]] | None = None) -> None:
        """A Spec's cases are all in: its resources (when asked; ``found``: learned already, with their notes),
        warnings and time."""
        notes = current.warnings
        if resources:
            kernels, more = found if found is not None else (self._resources(sp, ref, notes), [])
            notes += more
            current.resources = kernels
            notes += [w for r in kernels if (w := r.warning())]
        current.warnings = notes + _spec_warnings(sp, backend_of(sp.kernel), self.dev, current.cases, self.options)
        current.seconds = time.perf_counter() - t0

    def parallel(self, plans: list[tuple[Spec, list[Case]]], resources: bool, pool: Pool[Any]) -> None:
        """The cases of every Spec on the pool's workers at once; results go into the report in the original order
        (a Spec's cases, Spec after Spec) as soon as every case before them is in, so ``progress`` and ``live``
        see the report grow as it would with one worker. A Spec's resource report is one more task of the Spec,
        after its cases, run by a worker that has loaded its kernels. A Spec no worker can import runs in this
        process when its turn comes."""
        refs = [locate(sp) for sp, _ in plans]
        deadlines = [Deadlines(self.timeout) for _ in plans]
        extra = 1 if resources else 0  # task j == len(todo): the Spec's resource report
        tasks = [(k, j) for k, (sp, todo) in enumerate(plans) if refs[k] is not None
                 for j in range(len(todo) + extra)]
        done: dict[tuple[int, int], Any] = {}
        started: dict[int, float] = {}
        cursor = [0, 0]  # the next (Spec, case) to go into the report
        current: list[SpecReport | None] = [None]

        def run(worker: Isolated, task: tuple[int, int]) -> Any:
            k, j = task
            sp, todo = plans[k]
            if j == len(todo):
                notes: list[str] = []
                return self._resources(sp, refs[k], notes, worker), notes
            return self._case(sp, todo[j], refs[k], deadlines[k], worker)

        def flush() -> None:
            while cursor[0] < len(plans):
                k, j = cursor
                sp, todo = plans[k]
                if refs[k] is None:  # not importable by a worker: in this process, as with one worker
                    self.spec(sp, todo, resources)
                    cursor[:] = [k + 1, 0]
                    continue
                spec_report = current[0]
                if spec_report is None:
                    spec_report = current[0] = SpecReport(sp.name, backend_of(sp.kernel).name, self.dev.describe(),
                                                          [], [])
                    self.report.specs.append(spec_report)
                    started.setdefault(k, time.perf_counter())
                if (k, j) not in done and (j < len(todo) or resources):
                    return
                if j < len(todo):
                    res = done.pop((k, j))
                    spec_report.cases.append(res)
                    spec_report.seconds = time.perf_counter() - started[k]
                    if self.progress:
                        self.progress(sp, todo[j], res)
                    if self.live:
                        self.live(self.report)
                    cursor[1] = j + 1
                    continue
                found = done.pop((k, j)) if resources else None
                self._finish(sp, spec_report, refs[k], resources, started[k], found)
                current[0] = None
                cursor[:] = [k + 1, 0]

        def case_of(t: tuple[int, int]) -> Case | None:
            todo = plans[t[0]][1]
            return todo[t[1]] if t[1] < len(todo) else None

        def need(t: tuple[int, int]) -> int | None:
            case = case_of(t)
            try:
                return case_bytes(plans[t[0]][0], case) if case is not None else None
            except Exception:  # a reference the shapes cannot be learned from: unknown, run alone
                return None

        flush()
        for kind, i, res in pool.run(tasks, run, is_large=lambda t: (c := case_of(t)) is not None and _large(c),
                                     key=lambda t: (t[0], c.compile_key if (c := case_of(t)) else "resources"),
                                     out_of_memory=lambda r: isinstance(r, CaseResult) and bool(
                                         r.reasons_of(ReasonKind.OUT_OF_MEMORY)),
                                     group=lambda t: t[0], need=need):
            k, j = tasks[i]
            if kind == "start":
                started.setdefault(k, time.perf_counter())
                if self.progress and (case := case_of(tasks[i])) is not None:
                    self.progress(plans[k][0], case, None)
                continue
            done[(k, j)] = res
            flush()
        flush()

    def _case(self, sp: Spec, case: Case, ref: SpecRef | None, deadlines: Deadlines,
              worker: Isolated | None = None) -> CaseResult:
        worker = worker or self.worker
        if case.interpreted:
            return self._interpreted(sp, case, ref)
        if not (self.dev.is_gpu and _large(case)):
            return self._run_case(sp, case, ref, deadlines, worker)
        # another kcheck process's past-2**31 cases on this GPU would leave no room for this one: take turns
        gpu = current_gpu({**os.environ, **(worker.env if worker is not None else {})})
        with large_case_turn(gpu) as waited:
            res = self._run_case(sp, case, ref, deadlines, worker)
        if waited[0] >= 1.0:
            res.warnings.append(f"waited {waited[0]:.0f} s for another kcheck process's past-2**31 cases on GPU {gpu} "
                                "to end (one process at a time runs them on a GPU)")
        return res

    def _interpreted(self, sp: Spec, case: Case, ref: SpecRef | None) -> CaseResult:
        """A case in Triton's interpreter beside the GPU, in the worker that sees no GPU, judged by ``judge_cross``;
        its time limits learn from the Spec's other interpreter cases, not from its GPU cases."""
        with self._cross_lock:
            if self._cross is None:
                self._cross = Isolated(self.timeout, env=INTERPRETER_ENV, fresh=True)
            deadlines = self._cross_deadlines.setdefault(sp.name, Deadlines(self.timeout))
            res = self._run_case(sp, case, ref, deadlines, self._cross)
        return judge_cross(res)

    def _run_case(self, sp: Spec, case: Case, ref: SpecRef | None, deadlines: Deadlines,
                  worker: Isolated | None) -> CaseResult:
        if worker is None or ref is None:
            return _in_process(sp, case, self.dev, self.options)
        limit = deadlines.limit(case)
        res = worker.run(ref, case, self.options, timeout=limit)
        if res.status is Status.TIMEOUT and (longer := deadlines.retry_limit(limit)) is not None:
            res = worker.run(ref, case, self.options, timeout=longer)
            if res.status is Status.TIMEOUT:
                deadlines.hung = True
                res.reasons = [Reason(f"did not finish within {limit:.3g} s, nor within {longer:.3g} s on a retry: it "
                                      "hangs, or is far slower than the Spec's finished cases predict (raise --timeout "
                                      "if slow)", ReasonKind.TIMEOUT)]
            else:
                res.warnings.append(f"slow, not hung: passed its first limit of {limit:.3g} s and finished in "
                                    f"{res.timing.total:.3g} s on a retry with {longer:.3g} s")
        if res.status is not Status.TIMEOUT:
            deadlines.record(case, res.timing.total)
        return res

    def _resources(self, sp: Spec, ref: SpecRef | None, notes: list[str],
                   worker: Isolated | None = None) -> list[Resources]:
        worker = worker or self.worker
        try:
            if worker is not None and ref is not None:
                return worker.resources(ref, self.timeout)
            return spec_resources(sp)
        except Exception as exc:  # a kernel the compiler rejects is a finding, not a lost run
            notes.append(f"compiling for sm_90 failed: {type(exc).__name__}: {exc}")
            return []


def _large(case: Case) -> bool:
    """A past-2**31 case that will run (tens of GiB: side by side on a GPU only as their estimates fit)."""
    return case.axis == "large" and case.skip is None


def _in_process(sp: Spec, case: Case, dev: DeviceInfo, options: RunOptions) -> CaseResult:
    """A case run in this process (no isolation): a kernel that calls sys.exit() errs its case, not the run."""
    t0 = time.perf_counter()
    try:
        return run_case(sp, case, dev, options)
    except SystemExit as exc:
        res = CaseResult(case, Status.ERROR, reasons=[Reason(f"the kernel called sys.exit({exc.code!r})",
                                                              ReasonKind.KERNEL_RAISED)])
        res.timing.total = time.perf_counter() - t0
        return res


def prestart(options: Options) -> None:
    """Start the workers a check with ``options`` will ask for, in the background, before the matrices are built:
    the forkserver's imports and each worker's CUDA start overlap this process's work. With several workers, as
    many as ``workers`` may give (the case count is not known yet: the surplus is stopped when the check ends)."""
    if not (options.isolate or options.workers != 1):
        return
    if options.workers == 1:
        warm_up([{}])
        return
    gpus = visible_gpus()
    warm_up(pinning(worker_count(options.workers, 2**31, gpus), gpus))


def check(spec: Spec | Sequence[Spec], options: Options | None = None, *, progress: Progress | None = None,
          live: Live | None = None, **overrides: Any) -> Report:
    """Check one Spec (or several) on every case of its matrix and return a Report.

    The settings come from ``options`` (a :class:`kcheck.Options`; default ``Options()``) with the keyword
    ``overrides`` on top (``check(spec, tier="quick")``; an unknown name is a SpecError with the close matches).
    ``tier`` is "quick", "default" or "full"; ``dtypes``, ``patterns`` and ``seeds`` replace the Spec's own;
    ``large=False`` leaves out the past-2**31 case; ``cases`` keeps only the cases whose id matches (exact id, glob
    or substring). ``progress(spec, case, result)`` is called before (result None) and after each case;
    ``live(report)`` after each case with the report so far (``complete`` False), to write results as they come.
    ``isolate=True`` runs the cases in a worker process: a crash or a hang costs that case only, reported
    ``crashed`` or ``timeout``, and a fresh worker runs the rest (the Spec must be module-level). ``workers=N`` (or
    "auto") runs the cases in N such workers at once, pinned one group per GPU where there are GPUs, and merges the
    results in the original order (it implies ``isolate``; see docs/parallel.md). ``timeout`` is the
    limit of a case as costly as the nominal one, scaled for costlier cases and a loaded machine, with one retry
    before a case is called hung (see ``run/_budget.py``); ``math.inf`` waits forever.
    In Triton's interpreter, ``interpreter_checks`` checks every memory access against the launch's tensors and
    finds races between programs (findings fail the case); ``order`` runs programs "sequential", "reversed" or
    "random" (seeded by the case's seed), so a kernel that depends on program order fails as on a GPU.
    ``resources=True`` compiles each kernel for sm_90 (no GPU needed: Triton kernels learned from one interpreted
    launch, in the worker when isolated, CUDA C through nvcc) and reports registers, spills, shared memory and
    stack, warning on spills.

    Ctrl-C or a signal raises :class:`kcheck.Interrupted` whose ``report`` holds the cases that finished.
    """
    # a worker importing the caller's main script again runs its top-level kcheck call: end that worker, not check
    _forkserver.refuse_while_importing_main()
    opts = Options.resolve(options, overrides)  # validated once: a wrong value is a SpecError
    tier, dtypes, patterns, seeds, large, cases = (opts.tier, opts.dtypes, opts.patterns, opts.seeds, opts.large,
                                                   opts.cases)
    isolate, timeout, resources = opts.isolate, opts.timeout, opts.resources
    for name, fn in (("progress", progress), ("live", live)):
        if fn is not None and not callable(fn):
            raise SpecError(name, fn, "give a callable or None")
    run_options = RunOptions(opts.interpreter_checks, opts.order)
    limit = _timeout(timeout)
    specs = _specs(spec)
    prestart(opts)  # the workers start (torch, CUDA) while this process builds the matrices
    dev = detect()
    _require_interpreter_internals(specs, run_options, dev)
    plans = [(sp, matrix(sp, tier=tier, dtypes=dtypes, patterns=patterns, seeds=seeds, large=large, cases=cases,
                         device=dev)) for sp in specs]
    if cases is not None and not any(todo for _, todo in plans):
        raise SpecError("cases", cases, "no case id matches; list the ids with kcheck.matrix(spec)")
    gpus = visible_gpus() if dev.is_gpu else []
    n = worker_count(opts.workers, sum(len(todo) for _, todo in plans), gpus)
    if opts.cross_interpret and cases is None and (isolate or n > 1):
        # a Triton Spec's small cases once more in the interpreter, whose checks see what a GPU hides; a worker
        # must import the Spec (module level)
        plans = [(sp, todo + (cross_cases(sp, dev) if locate(sp) is not None else [])) for sp, todo in plans]
    with contextlib.ExitStack() as stack:
        stack.callback(discard_prestarted)
        worker = stack.enter_context(Isolated(limit)) if isolate or n > 1 else None
        run = _Run(dev, run_options, worker, limit, progress, live)
        stack.callback(run.close)
        try:
            if n > 1:
                run.parallel(plans, resources, stack.enter_context(Pool(n, limit, gpus)))
            else:
                for sp, todo in plans:
                    run.spec(sp, todo, resources)
        except KeyboardInterrupt as exc:
            run.report.interrupted = exc.reason if isinstance(exc, Interrupted) else "SIGINT"
            raise Interrupted(run.report.interrupted, run.report) from None
    run.report.complete = True
    return run.report
