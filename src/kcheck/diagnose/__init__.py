"""The debugger: from a failing Spec to a ranked list of causes, a minimal case and a standalone repro.

    diagnosis = kcheck.debug(spec)              # runs the matrix, then the experiments, within a budget
    print(kcheck.format_diagnosis(diagnosis))

Pipeline: the Spec's default matrix (or a given report) → experiments (``_sweep``: sizes per dimension with
bisection, magnitudes, repeats, zeroed outputs, one input at a time set to ones, transposed references, arange
decoding, code stages) → evidence, with the static checks of the Spec's file and, on a GPU, compute-sanitizer on
the minimal case → observations (``_observe``) → causes scored from the observations that support and contradict
them (``_rules``) → while the two best are close, the experiment that separates them (``_decide``) → the
Diagnosis, with the repro script written and run to confirm it fails on its own.
"""

from __future__ import annotations

import dataclasses
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .. import sanitize as sanitizer  # looked up at call time: tests stand in a fake one
from .._check import check
from .._device import DeviceInfo, detect, enable_interpreter_if_no_gpu
from .._discover import locate
from .._errors import SpecError
from .._options import Options
from .._results import CaseResult, Report, SpecReport, Status
from .._spec import Spec
from ..backends import backend_of
from ..cases import Case
from ..report import maps_for_case
from ..run import RunOptions, grad_label
from ._causes import BUG_CLASSES, OBSERVATIONS, Cause, Diagnosis, Experiment, Observation
from ._decide import decide
from ._doctor import Step, doctor
from ._import_lint import lint_spec
from ._journal import journal_experiment
from ._observe import Facts
from ._probe import Prober
from ._repro import run_repro, write_repro
from ._rules import diagnose, replay
from ._sweep import (
    Evidence,
    base_case,
    case_elements,
    decode_arange,
    finite_case,
    finite_failure,
    probe_case,
    probe_conditioning,
    probe_jitter,
    probe_layout,
    probe_magnitudes,
    probe_structure,
    smallest_failing,
    sweep_sizes,
    valued_case,
)

__all__ = ["BUG_CLASSES", "OBSERVATIONS", "Cause", "Diagnosis", "Experiment", "Observation", "Step", "debug",
           "doctor", "format_diagnosis", "replay"]

#: Share of the budget the experiments on the failing case may use; the rest is kept for the deciding ones.
DECIDING_SHARE = 0.15
#: At most this many deciding experiments per diagnosis.
MAX_DECISIONS = 3


#: Above this many elements the smallest failing case is not probed further, nor saved as a repro (a past-2**31
#: case would take GBs per copy; the GPU's memory was exhausted on the H200 by a zoo run doing so).
PROBE_MAX_ELEMENTS = 2**26


def default_budget(device: DeviceInfo) -> float:
    """Seconds the experiments may take after the matrix: 60 s on a GPU, 180 s on a CPU (interpreter)."""
    return 60.0 if device.is_gpu else 180.0


def debug(spec: Spec, options: Options | None = None, *, report: SpecReport | None = None,
          budget: float | None = None, out_dir: str | Path | None = None, device: DeviceInfo | None = None,
          repro: bool = True, sanitize: bool = True, large: bool | None = None, findings: list | None = None,
          maps: bool = True, **overrides: Any) -> Diagnosis:
    """Diagnose ``spec``: run its matrix (unless ``report`` is given), then the experiments within
    ``budget`` seconds, and return the ranked causes, the experiments, the smallest failing case and the path of a
    standalone repro script (written into ``out_dir``, default ``kcheck-debug/``, and run once to confirm it fails).
    ``findings`` adds compute-sanitizer findings already at hand (``kcheck sanitize``) to the evidence: a kernel whose
    values are right but whose accesses are not is diagnosed from them. Without ``findings``, on a GPU, a Spec whose
    cases all pass is sanitized over its edge cases here (``sanitize=False`` turns that off); an empty list means
    "sanitized, nothing found". ``maps`` draws the error maps of the smallest failing case into ``out_dir``
    (``Diagnosis.error_maps``). The matrix runs with ``options`` (a :class:`kcheck.Options`) and the keyword
    ``overrides`` of the settings the debugger shares with ``check`` (tier, dtypes, patterns, seeds, timeout,
    interpreter_checks, order), always in a worker process, every case kept; ``large`` (default: the past-2**31
    cases where the device can run them, as ``options.large`` allows) wins over ``options``.
    """

    if not isinstance(spec, Spec):
        raise SpecError("spec", spec, "pass a kcheck.Spec")
    opts = Options.resolve(options, overrides, surface="debug")
    if large is not None and not isinstance(large, bool):
        raise SpecError("large", large, "give True or False, or None for the past-2**31 cases where they can run")
    if budget is not None and not budget > 0:
        raise SpecError("budget", budget, "give a positive number of seconds for the experiments")
    if isinstance(report, Report):  # what kcheck.check returns: take this Spec's part
        report = next((r for r in report.specs if r.name == spec.name), None) or _no_report(spec, report)
    if report is not None and not (isinstance(report, SpecReport) and report.name == spec.name):
        raise SpecError("report", report, f"pass kcheck.check(spec).specs[0] for the Spec {spec.name!r}, or None")
    enable_interpreter_if_no_gpu()
    dev = device or detect()
    t0 = time.perf_counter()
    if report is None:  # in workers: a crash or a hang costs one case, not the debugger
        report = check(spec, opts, large=opts.large and dev.is_gpu if large is None else large, isolate=True,
                       cases=None, resources=False).specs[0]
    # a case no worker could run (one that did not start, or could not import the Spec) says nothing about the kernel
    failing = [r for r in report.cases if not r.ok and not r.never_ran]
    ev = Evidence(spec, report, failing, interpreted=backend_of(spec.kernel).interpreted(dev)
                  and opts.interpreter_checks)
    ev.lint = lint_spec(spec)
    ev.sanitizer = list(findings or [])
    sanitized_note = None
    if not failing and findings is None and sanitize and dev.is_gpu:  # right values; the accesses may be wrong
        ev.sanitizer, sanitized_note = _sanitize_passing(spec, dev, budget or default_budget(dev))
    diag = Diagnosis(spec.name, failed=bool(failing or ev.sanitizer), budget_seconds=budget or default_budget(dev))
    if not failing and not any(r.status is Status.PASSED for r in report.cases):
        # nothing ran: cases skipped here, untrusted, or no worker could start (an unguarded main script)
        unran = [r for r in report.cases if r.reasons]
        diag.not_run = (f"{unran[0].status.value}: {unran[0].reasons[0]}" if unran
                        else "the Spec has no case to run")
    if sanitized_note:
        diag.notes.append(sanitized_note)
    t_experiments = time.perf_counter()
    if failing:
        dangerous = any(r.status in (Status.CRASHED, Status.TIMEOUT) for r in failing)
        with Prober(spec, dev, diag.budget_seconds,
                    options=RunOptions(interpreter_checks=opts.interpreter_checks)) as prober:
            if prober.worker is None:
                diag.notes.append(("the kernel crashed or hung and " if dangerous else "")
                                  + "the Spec is not at module level: the probes run in this process")
            ev.base = base_case(spec, report)
            if ev.base is None:
                diag.notes.append("no nominal randn case in the report: no size sweep or magnitude probe")
            else:
                dims = [d for d in spec.dim_names() if d in ev.base.sizes]
                sweep_sizes(prober, ev, dims)
                probe_magnitudes(prober, ev)
            case = probe_case(ev, PROBE_MAX_ELEMENTS)
            if case is not None and case.interpreted:  # failed in the interpreter beside the GPU: probed on the GPU
                case = dataclasses.replace(case, interpreted=False)
            if case is not None and case_elements(spec, case) > PROBE_MAX_ELEMENTS:
                why = " (the past-2**31 case is what fails)" if case.axis == "large" else ""
                diag.notes.append(f"the smallest failing case holds a tensor of {case_elements(spec, case):,} elements "
                                  f"(past {PROBE_MAX_ELEMENTS:,}): its repeats, variants, arange decoding, repro and "
                                  f"maps were skipped{why}")
                case = None
            if case is not None:
                prober.limit = 1.0 - DECIDING_SHARE
                # where NaN or an outlier first appears: one run, and the most direct evidence there is, taken before
                # the structural probes can spend the budget
                if spec.journaled is not None and prober.left() > 0:
                    journal_experiment(spec, case, dev, prober, diag, isolate=dangerous)
                probe_structure(prober, ev, case)
                probe_conditioning(prober, ev)
                probe_jitter(prober, ev)
                # a probe like the others (isolated on a GPU): a case that crashed may be decoded too
                if prober.left() > 0 and ev.minimal is not None and ev.minimal.status is not Status.PASSED:
                    decoded = decode_arange(ev, case, prober)
                    # a crash or an exception gives no value to decode: the smallest case with wrong values may
                    if decoded is not None and decoded.status in (Status.CRASHED, Status.ERROR, Status.TIMEOUT):
                        valued = valued_case(ev, PROBE_MAX_ELEMENTS)
                        if valued is not None and valued != case and prober.left() > 0:
                            decode_arange(ev, valued, prober)
                # the probes of layout likewise: a crash or NaN gives no value to compare with a transposed reference
                if ev.minimal is not None and not finite_failure(ev.minimal):
                    finite = finite_case(ev, PROBE_MAX_ELEMENTS)
                    if finite is not None and finite != case and prober.left() > 0:
                        probe_layout(prober, ev, finite)
                if sanitize and dev.is_gpu and not ev.sanitizer and prober.left() > 15:
                    _sanitize_case(spec, ev, case, dev, prober.left())
            prober.limit = 1.0
            for _ in range(MAX_DECISIONS):
                facts = Facts(ev)
                if decide(prober, ev, facts, diagnose(ev, facts)) is None:
                    break
        diag.experiments = prober.experiments
        if prober.cut:
            stretched = f", stretched x{prober.scale:.1f} for the machine's load" if prober.scale > 1 else ""
            diag.notes.append(f"the budget of {diag.budget_seconds:g} s{stretched} ran out: some experiments were "
                              "not run")
        if prober.skipped:
            diag.notes.append(f"{prober.skipped} probe(s) cannot run on this device (e.g. a precision it lacks)")
    facts = Facts(ev)
    diag.causes = diagnose(ev, facts)
    diag.observations = list(facts.observations)
    if ev.minimal is not None and case_elements(spec, ev.minimal.case) <= PROBE_MAX_ELEMENTS:
        diag.minimal_case = ev.minimal.case.id
        if repro:
            _write_and_run_repro(spec, ev, diag, Path(out_dir or "kcheck-debug"), dev, t_experiments)
        if maps and ev.minimal.status is Status.FAILED:

            try:
                paths = maps_for_case(spec, ev.minimal.case, Path(out_dir or "kcheck-debug"), result=ev.minimal)
                diag.error_maps = [str(p) for p in paths]
            except Exception as exc:  # a map is a picture of the evidence: never lose the diagnosis for it
                diag.notes.append(f"no error map: {type(exc).__name__}: {exc}")
    diag.seconds = time.perf_counter() - t0
    return diag


def _no_report(spec: Spec, report: Report) -> SpecReport:

    raise SpecError("report", [r.name for r in report.specs], f"the Report holds no Spec named {spec.name!r}")


def _sanitize_passing(spec: Spec, dev: DeviceInfo, timeout: float) -> tuple[list, str]:
    """compute-sanitizer's four tools over the edge cases of a Spec whose cases all pass: the findings, and a note."""

    rep = sanitizer.sanitize(spec, device=dev, timeout=timeout)
    ran = ", ".join(f"{t.tool} {'found ' + str(len(t.findings)) if t.findings else t.status}" for t in rep.tools)
    return ([f for t in rep.tools for f in t.findings],
            f"every case passed; compute-sanitizer over the edge cases: {ran or rep.unavailable}")


#: compute-sanitizer's tools that check each block's use of shared memory and barriers on its own: any block shows
#: a missing or divergent barrier, so they run on the failing case of fewest elements (few blocks, each instrumented
#: access costs), not on the most severe one, which may launch a block per row of a long tensor.
_BLOCK_TOOLS = ("racecheck", "synccheck")


def _sanitize_case(spec: Spec, ev: Evidence, case: Case, dev: DeviceInfo, left: float) -> None:
    """compute-sanitizer's tools on the case the probes ran on: their findings join the evidence, and a memcheck
    that ran to its end with none says that every access of that failing case stayed in bounds. For a kernel that
    shares memory, racecheck and synccheck run on the smallest failing case instead, beside the others."""
    timeout = max(15.0, left)
    small = smallest_failing(ev)
    try:
        shares = backend_of(spec.kernel).shares_memory(spec.kernel)
    except Exception:  # a kernel whose sources cannot be read: every tool on the one case
        shares = False
    if shares and small is not None and case_elements(spec, small) < case_elements(spec, case):
        others = tuple(t for t in sanitizer.TOOLS if t not in _BLOCK_TOOLS)
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = [pool.submit(sanitizer.sanitize, spec, tools=tools, cases=[c], device=dev, timeout=timeout)
                    for tools, c in ((others, case), (_BLOCK_TOOLS, small))]
            tools = [t for r in runs for t in r.result().tools]
    else:
        tools = list(sanitizer.sanitize(spec, cases=[case], device=dev, timeout=timeout).tools)
    ev.sanitizer = [f for t in tools for f in t.findings]
    ev.sanitized = case
    memcheck = next((t for t in tools if t.tool == "memcheck"), None)
    if memcheck is not None and memcheck.status == "clean":  # ``case`` is the smallest failing one's
        ev.memcheck_clean = ev.minimal


def _write_and_run_repro(spec: Spec, ev: Evidence, diag: Diagnosis, out_dir: Path, dev: DeviceInfo,
                         t_experiments: float = 0.0) -> None:

    ref = locate(spec)
    if ref is None or ev.minimal is None:
        diag.notes.append("no repro script: the Spec is not defined at module level")
        return
    top = diag.causes[0].title if diag.causes else ""
    try:
        script = write_repro(spec, ref.path, ev.minimal, out_dir, dev.device, top)
    except Exception as exc:  # e.g. a Custom input that cannot be saved
        diag.notes.append(f"no repro script: {type(exc).__name__}: {exc}")
        return
    diag.repro = str(script)
    left = diag.budget_seconds - (time.perf_counter() - t_experiments) if t_experiments else diag.budget_seconds
    rc, seconds, tail = run_repro(script, timeout=max(30.0, left))  # inside the budget, with room to start torch
    diag.repro_output = tail
    if rc == 1:
        diag.notes.append(f"the repro script fails on its own (exit 1, {seconds:.1f} s)")
    elif rc == 0 and (grads := _only_gradients(spec, ev.minimal)):
        diag.notes.append(f"the repro script passed when run on its own ({seconds:.1f} s): it checks the forward "
                          f"outputs, and what failed is the backward ({', '.join(grads)}); rerun the case with "
                          f"kcheck check {ref.path} --case '{ev.minimal.case.id}'")
    elif rc == 0:
        diag.notes.append(f"the repro script passed when run on its own ({seconds:.1f} s): the failure needs "
                          "kcheck's context (another case before it, a race that does not fail every run)")
    elif ev.minimal is not None and ev.minimal.status in (Status.CRASHED, Status.TIMEOUT):
        diag.notes.append(f"the repro script {'did not finish' if rc is None else f'ended with exit {rc}'} "
                          f"({seconds:.1f} s), as the case did under kcheck ({ev.minimal.status.value}): "
                          f"{tail[-160:]}")
    else:
        diag.notes.append(f"could not confirm the repro: the script itself broke (exit {rc}, {seconds:.1f} s): "
                          f"{tail[-200:]}")


def _only_gradients(spec: Spec, result: CaseResult) -> list[str]:
    """The failed comparisons of ``result`` when every one is a gradient's (the repro script checks only the forward
    outputs), else []."""
    labels = {grad_label(spec, i) for i in range(len(spec.inputs))}
    failed = [c.output for c in result.comparisons if not c.passed]
    return failed if failed and all(o in labels for o in failed) else []


def format_diagnosis(diag: Diagnosis) -> str:
    if not diag.failed and diag.not_run:
        lines = [f"{diag.spec}: no case ran here, so nothing was debugged ({diag.not_run})"]
        lines += [f"  static: {c.describe()}" for c in diag.causes]
        return "\n".join(lines)
    if not diag.failed:
        lines = [f"{diag.spec}: every case passed; nothing to debug"]
        lines += [f"  static: {c.describe()}" for c in diag.causes]
        return "\n".join(lines)
    lines = [f"{diag.spec}: diagnosis ({len(diag.experiments)} experiments, {diag.seconds:.1f} s; budget "
             f"{diag.budget_seconds:g} s for the experiments)"]
    if not diag.causes:
        lines.append("  no cause proposed; the experiments below are what was seen")
    for i, c in enumerate(diag.causes[:5], 1):
        mark = "" if c.key == "unknown" else ("  hallmark seen" if c.hallmark_seen else "  hallmark not seen")
        lines.append(f"{i}. {c.title}  [score {c.score:.2f}{mark}]")
        if c.key == "unknown":
            lines += [f"     - {e}" for e in c.evidence]
        else:
            lines += [f"     + {o.text}" for o in c.supports]
            lines += [f"     - against: {o.text}" for o in c.contradicts]
            if not c.hallmark_seen:
                lines.append(f"     (its hallmark, not seen: {c.hallmark})")
        if c.next_check:
            lines.append(f"     next: {c.next_check}")
    if diag.minimal_case:
        lines.append(f"smallest failing case: {diag.minimal_case}")
    if diag.repro:
        lines.append(f"standalone repro: python {diag.repro}")
    if diag.experiments:
        lines.append("experiments:")
        for e in diag.experiments:
            lines.append(f"  {'pass' if e.passed else 'FAIL'}  {e.axis:<9} {e.label:<34} {e.detail[:110]}")
            if e.decided:
                lines.append(f"        decided: {e.decided}")
    lines += [f"note: {n}" for n in diag.notes]
    return "\n".join(lines)
