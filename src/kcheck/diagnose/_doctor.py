"""``kcheck doctor``: a ten-step debugging checklist, run in order on one Spec.

Each step runs what it can on this machine and says what it saw; a step that cannot run here says why (no GPU for
compute-sanitizer, no declared stages for the load-only step). The steps reuse the engine: one quick run of the
matrix gives the interpreter's bounds and race checks on a CPU, and probes (``_probe``) vary sizes and data.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .. import sanitize as sanitizer  # looked up at call time: tests stand in a fake one
from .._check import check
from .._device import DeviceInfo, detect, enable_interpreter_if_no_gpu
from .._errors import SpecError
from .._results import ReasonKind, Status
from .._spec import Spec
from ._import_lint import lint_spec
from ._observe import Facts
from ._probe import Prober
from ._sweep import Evidence, _with, base_case, decode_arange


@dataclass
class Step:
    number: int
    title: str
    outcome: str  # ok | problem | not run | info
    detail: str

    def describe(self) -> str:
        mark = {"ok": "ok     ", "problem": "PROBLEM", "not run": "not run", "info": "info   "}[self.outcome]
        return f"[{mark}] {self.number:>2}. {self.title}: {self.detail}"


TITLES = [
    "compute-sanitizer memcheck: out-of-bounds accesses?",
    "compute-sanitizer racecheck: shared-memory races?",
    "n = 1, then 32, 33, 64, 65: edge guard?",
    "one block only: an inter-block problem?",
    "arange input: an indexing error?",
    "computation neutralised, the load alone checked",
    "types (int vs size_t) and overflows",
    "the test's own tolerances",
    "-G against -O3: a missing volatile?",
    "a device-side journal, as a last resort",
]


def doctor(spec: Spec, *, device: DeviceInfo | None = None, budget: float = 120.0) -> list[Step]:


    if not isinstance(spec, Spec):
        raise SpecError("spec", spec, "pass a kcheck.Spec")
    if not budget > 0:
        raise SpecError("budget", budget, "give a positive number of seconds for the checklist's probes")
    enable_interpreter_if_no_gpu()
    dev = device or detect()

    with Prober(spec, dev, budget) as prober:
        return _steps(spec, dev, prober, budget)


def _steps(spec: Spec, dev: DeviceInfo, prober: Prober, budget: float) -> list[Step]:

    report = check(spec, tier="quick", large=False, isolate=True).specs[0]
    failing = [r for r in report.cases if not r.ok and not r.never_ran]  # a case that never ran shows nothing
    ev = Evidence(spec, report, failing, interpreted=prober.backend.interpreted(dev))
    ev.base = base_case(spec, report)
    steps: list[Step] = []

    def add(outcome: str, detail: str) -> None:
        steps.append(Step(len(steps) + 1, TITLES[len(steps)], outcome, detail))

    # 1-2: sanitizers on a GPU; the interpreter's checks stand in on a CPU (Triton only)
    found = [f for r in report.cases for f in r.findings]
    if dev.is_gpu:
        t0 = time.perf_counter()
        rep = sanitizer.sanitize(spec, tools=("memcheck", "racecheck"), device=dev, timeout=300)
        for tool in ("memcheck", "racecheck"):
            run = next((t for t in rep.tools if t.tool == tool), None)
            if rep.unavailable or run is None:
                add("not run", rep.unavailable or "no result")
            elif run.findings:
                add("problem", f"{len(run.findings)} finding(s): {run.findings[0].describe()[:160]}")
            else:
                add("ok" if run.status == "clean" else "info",
                    f"{run.status} over {len(run.cases)} edge cases ({time.perf_counter() - t0:.0f} s for both)")
    else:
        interp = prober.backend.interpreted(dev)
        for kinds, what in ((("out-of-bounds",), "bounds"), (("race-WW", "race-RW"), "race")):
            hits = [f for f in found if f.kind in kinds]
            if not interp:
                add("not run", "compute-sanitizer needs a GPU; the interpreter's checks cover Triton kernels only")
            elif hits:
                add("problem", f"no GPU here; the interpreter's {what} check found {len(hits)}: "
                    f"{hits[0].message[:140]} at {hits[0].file}:{hits[0].line}")
            else:
                add("ok", f"no GPU here; the interpreter's {what} check found nothing over {len(report.cases)} "
                    "quick-tier cases (compute-sanitizer runs on a GPU)")
    # 3: edge sizes, every dimension
    if ev.base is None:
        add("not run", "the Spec has no nominal randn case to vary")
        add("not run", "as step 3")
    else:
        for d in spec.dim_names():
            if d not in ev.base.sizes:
                continue
            rows = []
            for v in (1, 32, 33, 64, 65):
                r = prober.run(_with(ev.base, {d: v}, spec), "size", f"{d}={v}")
                if r is not None:
                    rows.append((v, r.ok, r))
            ev.sizes[d] = rows
        edge = Facts(ev).edge
        bad = {d: [v for v, ok, _ in rows if not ok] for d, rows in ev.sizes.items()}
        if not any(ev.sizes.values()):
            add("not run", "no size could run here (skipped on this device, or the budget ran out)")
        elif edge:
            add("problem", "; ".join(f"{d} fails at {b} but passes at the multiples of {blk}" for d, blk, b in edge))
        elif any(bad.values()):
            add("problem", "; ".join(f"{d} fails at {v}" for d, v in bad.items() if v))
        else:
            add("ok", "every dimension passes at 1, 32, 33, 64 and 65")
        # 4: one block: all dims at 1..32 pass while larger fail?
        small = _with(ev.base, {d: min(16, v) for d, v in ev.base.sizes.items()}, spec)
        r_small = prober.run(small, "size", "all dims <= 16 (one block)")
        blocks = Facts(ev).blocks
        if r_small is not None and r_small.ok and (failing or blocks):
            add("problem", f"passes with every dim <= 16 ({small.id}) and fails larger: " + (
                "; ".join(f"{d} passes up to {t}, fails from {f}" for d, t, f in blocks) or
                f"{len(failing)} quick-tier cases fail"))
        elif r_small is not None and not r_small.ok:
            add("info", f"fails even with every dim <= 16 ({small.id}): not an inter-block problem")
        elif r_small is None:
            add("not run", "the small case could not run here")
        else:
            add("ok", "passes with one block and with many")
    # 5: arange
    if ev.base is not None:
        r = decode_arange(ev, ev.base, prober)
        if r is None:
            add("not run", "the arange case could not run here")
        elif not r.ok:
            add("problem", f"{r.status.value} on arange: " + ("; ".join(a.text for a in ev.arange[:2])
                                                               or "(no value decoded)"))
        else:
            add("ok", "right on arange inputs (each value its index)")
    else:
        add("not run", "no nominal case")
    # 6: stages
    if spec.stages and ev.base is not None:
        outcome, details = "ok", []
        for name in spec.stages:
            r = prober.run(ev.base, "stage", name, ("stage", name))
            if r is None:
                outcome = "not run" if outcome == "ok" else outcome
                details.append(f"{name}: not run")
                continue
            details.append(f"{name}: {'passes' if r.ok else 'FAILS'}")
            if not r.ok:
                outcome = "problem"
                break
        add(outcome, ", ".join(details))
    else:
        add("not run", "the Spec declares no stages; add stages={'load_only': (kernel, reference)} to check the "
            "load alone")
    # 7: types and overflows

    lint = [f for f in lint_spec(spec) if "int32" in f.kind]
    large = [r for r in report.cases if r.case.axis == "large"]
    if lint:
        add("problem", f"{len(lint)} static finding(s): {lint[0].file}:{lint[0].line}: {lint[0].message[:120]}")
    else:
        ran_large = [r for r in large if r.status is not Status.SKIPPED]
        add("ok", "no 32-bit index arithmetic that can pass 2**31 found by the static checks" + (
            f"; the past-2**31 case {'passes' if all(r.ok for r in ran_large) else 'FAILS'}" if ran_large else
            "; the past-2**31 case runs on a GPU with the memory (kcheck check)"))
    # 8: tolerances
    forgiven = [w for r in report.cases for w in r.warnings_of(ReasonKind.ILL_CONDITIONED)]
    base_fail = [c for r in failing for c in r.comparisons if c.baseline is not None and not c.baseline.passed]
    tol = next((c.tolerance for r in report.cases for c in r.comparisons), None)
    text = f"tolerance in use: {tol.source}" if tol is not None else "no comparison ran"
    if tol is None:
        add("not run", "no case compared an output here (all skipped?)")
    elif forgiven:
        add("info", f"{text}; the framework's own result fails it on {len(forgiven)} ill-conditioned case(s), "
            "forgiven within 2x")
    elif base_fail:
        add("problem", f"{text}; the kernel is worse than the framework's same-precision result by more than the "
            "baseline rule allows")
    else:
        add("ok", f"{text}; the framework's own same-precision result passes it")
    # 9: -G vs -O3
    add("not run", "no -G build is made: kcheck compiles CUDA C with nvcc -O3 defaults and Triton has no -G; "
        "rebuild with CudaKernel(..., options=('-G',)) and compare by hand")
    # 10: journal
    add("not run", "the device-side journal is not part of kcheck yet")
    return steps
