"""``kcheck.check``: the pipeline cases -> run -> compare -> report for one or more Specs."""

from __future__ import annotations

import contextlib
import fnmatch
import time
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import PackageNotFoundError, version

import torch

from ._device import DeviceInfo, detect
from ._errors import EnvironmentProblem, SpecError
from ._resources import Resources, spec_resources
from ._results import CaseResult, Report, SpecReport, Status
from ._spec import Spec
from .backends import framework, raw_kernel_problem
from .cases import Case, build_matrix
from .run import run_case
from .run._execute import RunOptions
from .run._isolate import Isolated, locate

Progress = Callable[[Spec, Case, CaseResult | None], None]


def _versions() -> dict[str, str]:
    out = {"torch": torch.__version__}
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
    pats = [pattern] if isinstance(pattern, str) else list(pattern)
    return [c for c in cases if any(p == c.id or fnmatch.fnmatchcase(c.id, p) or p in c.id for p in pats)]


def matrix(spec: Spec, *, tier: str = "default", dtypes: Sequence[str] | None = None,
           patterns: Sequence[str] | None = None, seeds: int | None = None, large: bool = True,
           cases: str | Sequence[str] | None = None, device: DeviceInfo | None = None) -> list[Case]:
    """The cases ``check`` would run for ``spec`` (same narrowing arguments)."""
    if not isinstance(spec, Spec):
        raise SpecError("spec", spec, "pass a kcheck.Spec (or a list of them)")
    problem = raw_kernel_problem(spec.kernel)
    if problem:
        raise SpecError("kernel", spec.kernel, problem)
    dev = device or detect()
    return select(build_matrix(spec, dev, tier=tier, large=large, precisions=dtypes, patterns=patterns, seeds=seeds),
                  cases)


def _spec_warnings(spec: Spec, kind: str, dev: DeviceInfo, results: list[CaseResult],
                   options: RunOptions) -> list[str]:
    out = []
    ran = [r for r in results if r.status in (Status.PASSED, Status.FAILED)]
    if ran:
        weak_all = set.intersection(*(set(w.split(": ", 1)[1] for w in r.weak) for r in ran)) if all(
            r.weak for r in ran) else set()
        for cand in sorted(weak_all):
            out.append(f"weak check: a kernel returning {cand} would pass every case that ran; tighten rtol/atol "
                       "or add patterns whose answer differs from it")
    if kind == "triton" and dev.interpreter:
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


def _require_interpreter_internals(specs: Sequence[Spec], options: RunOptions) -> None:
    """Refuse at once, with the fix, when the interpreter checks are asked for on a Triton whose interpreter
    internals kcheck cannot patch (rather than failing every case with the same error)."""
    from ._device import interpreter_active

    if not (options.interpreter_checks and interpreter_active() and any(framework(s.kernel) == "triton"
                                                                         for s in specs)):
        return
    from .interpret import InterpreterMismatch, internals

    try:
        internals()
    except InterpreterMismatch as exc:
        raise EnvironmentProblem(f"{exc}. Fix: install triton 3.6 or 3.7, or pass interpreter_checks=False "
                                 "(CLI: --no-interpreter-checks) to run without the memory and race checks") from exc


def check(spec: Spec | Sequence[Spec], *, tier: str = "default", dtypes: Sequence[str] | None = None,
          patterns: Sequence[str] | None = None, seeds: int | None = None, large: bool = True,
          cases: str | Sequence[str] | None = None, progress: Progress | None = None, isolate: bool = False,
          timeout: float = 60.0, interpreter_checks: bool = True, order: str = "sequential",
          resources: bool = False) -> Report:
    """Check one Spec (or several) on every case of its matrix and return a Report.

    ``tier`` is "quick", "default" or "full"; ``dtypes``, ``patterns`` and ``seeds`` replace the Spec's own;
    ``large=False`` leaves out the past-2**31 case; ``cases`` keeps only the cases whose id matches (exact id, glob
    or substring). ``progress(spec, case, result)`` is called before (result None) and after each case.
    ``isolate=True`` runs the cases in a worker process: a crash or a hang (``timeout`` seconds) costs that case
    only, reported ``crashed`` or ``timeout``, and a fresh worker runs the rest (the Spec must be module-level).
    In Triton's interpreter, ``interpreter_checks`` checks every memory access against the launch's tensors and
    finds races between programs (findings fail the case); ``order`` runs programs "sequential", "reversed" or
    "random" (seeded by the case's seed), so a kernel that depends on program order fails as on a GPU.
    ``resources=True`` compiles each kernel for sm_90 (no GPU needed: Triton kernels learned from one interpreted
    launch, CUDA C through nvcc) and reports registers, spills, shared memory and stack, warning on spills.
    """
    if order not in ("sequential", "reversed", "random"):
        raise SpecError("order", order, "use 'sequential', 'reversed' or 'random'")
    options = RunOptions(interpreter_checks, order)
    if not (isinstance(timeout, (int, float)) and timeout > 0):
        raise SpecError("timeout", timeout, "give a positive number of seconds")
    specs = [spec] if isinstance(spec, Spec) else list(spec)
    _require_interpreter_internals(specs, options)
    dev = detect()
    plans = [(sp, matrix(sp, tier=tier, dtypes=dtypes, patterns=patterns, seeds=seeds, large=large, cases=cases,
                         device=dev)) for sp in specs]
    if cases is not None and not any(todo for _, todo in plans):
        raise SpecError("cases", cases, "no case id matches; list the ids with kcheck.matrix(spec)")
    reports = []
    with contextlib.ExitStack() as stack:
        worker = stack.enter_context(Isolated(timeout)) if isolate else None
        for sp, todo in plans:
            t0 = time.perf_counter()
            kind = framework(sp.kernel)
            ref = locate(sp) if worker is not None else None
            notes = []
            if worker is not None and ref is None:
                notes.append("not isolated: the Spec is not defined at module level, so no worker can import it")
            results = []
            for case in todo:
                if progress:
                    progress(sp, case, None)
                res = worker.run(ref, case, options) if (worker is not None and ref is not None) else run_case(
                    sp, case, dev, kind, options)
                results.append(res)
                if progress:
                    progress(sp, case, res)
            found: list[Resources] = []
            if resources:
                try:
                    found = spec_resources(sp)
                except Exception as exc:  # a kernel the compiler rejects is a finding, not a lost run
                    notes.append(f"compiling for sm_90 failed: {type(exc).__name__}: {exc}")
                notes += [w for r in found if (w := r.warning())]
            reports.append(SpecReport(sp.name, kind, dev.describe(), results,
                                      notes + _spec_warnings(sp, kind, dev, results, options),
                                      time.perf_counter() - t0, found))
    return Report(reports, dev.describe(), _versions())
