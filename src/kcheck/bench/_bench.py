"""``kcheck.bench.bench``: time a Spec's cases on the GPU, compare them with their baselines, record new ones."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._discover import locate
from .._dtypes import PRECISIONS
from .._errors import SpecError
from .._spec import Spec
from ..cases import Case
from ._env import Environment, current
from ._plan import Cost, CostContext, plan_of, select_cases
from ._stats import Change, Comparison, Summary, compare
from ._store import Entry, Store
from ._timing import EVENTS, Timed, TimingOptions
from ._worker import InProcess, SpecSource, Worker, WorkerFailure

#: The margin past which a significant slowdown is a regression: 10%, or 5% when the clocks are locked
#: (``nvidia-smi --lock-gpu-clocks``), where run-to-run spread is smaller.
MARGIN = 0.10
MARGIN_LOCKED = 0.05
ALPHA = 0.01

NO_GPU = ("no CUDA GPU on this machine: nothing was timed (a kernel's time in Triton's interpreter or on a CPU says "
          "nothing about its speed on a GPU); run kcheck bench where the kernels run")


NO_GPU_CASE = "no CUDA GPU here"


class BenchStatus(str, enum.Enum):
    RECORDED = "recorded"  # no baseline for this case in this environment: this timing is now the baseline
    UNCHANGED = "unchanged"  # compared: within the margin, or a change the rank test does not find significant
    REGRESSION = "regression"  # compared: slower by more than the margin, significantly
    SPEEDUP = "speedup"  # compared: faster by more than the margin, significantly (update the baseline?)
    ERROR = "error"  # the kernel raised
    CRASHED = "crashed"  # the worker died (signal, sticky CUDA error)
    TIMEOUT = "timeout"  # did not finish within the time limit
    NOT_RUN = "not-run"  # not timed on this machine (no GPU, or the case cannot run here): the reason says why


@dataclass
class Roofline:
    """What a case achieved against this GPU's measured peaks. ``bytes_estimated``: the bytes are kcheck's
    estimate (every input and output read or written once), not the Spec's statement."""

    bytes: float | None = None
    flops: float | None = None
    bytes_estimated: bool = False
    bandwidth: float | None = None  # bytes per second
    bandwidth_fraction: float | None = None
    flop_rate: float | None = None  # FLOP per second
    flop_fraction: float | None = None


@dataclass
class CaseBench:
    """One case's timing, its verdict against the baseline, and its roofline context."""

    case: str
    status: BenchStatus
    method: str = EVENTS
    summary: Summary | None = None
    comparison: Comparison | None = None
    baseline_median_ms: float | None = None
    baseline_recorded_at: str | None = None
    baseline_written: bool = False
    other_environments: list[str] = field(default_factory=list)
    roofline: Roofline | None = None
    notes: list[str] = field(default_factory=list)
    reason: str | None = None


@dataclass
class SpecBench:
    spec: str
    cases: list[CaseBench] = field(default_factory=list)


@dataclass
class BenchReport:
    """A bench run: where it ran, the margin and significance used, the peaks, and every case's result."""

    environment: Environment | None
    margin: float
    alpha: float
    clocks_locked: bool
    baseline_path: str
    reason: str | None = None  # why nothing was timed, when nothing was
    peaks: dict[str, float] | None = None
    specs: list[SpecBench] = field(default_factory=list)

    def cases(self) -> list[CaseBench]:
        return [c for s in self.specs for c in s.cases]

    @property
    def timed(self) -> int:
        return sum(c.summary is not None for c in self.cases())

    @property
    def regressions(self) -> list[CaseBench]:
        return [c for c in self.cases() if c.status is BenchStatus.REGRESSION]

    @property
    def failures(self) -> list[CaseBench]:
        """Cases whose kernel raised, crashed or hung while being timed."""
        bad = (BenchStatus.ERROR, BenchStatus.CRASHED, BenchStatus.TIMEOUT)
        return [c for c in self.cases() if c.status in bad]

    @property
    def passed(self) -> bool:
        """No regression and no failure among the cases timed (a run that timed nothing has not passed)."""
        return self.timed > 0 and not self.regressions and not self.failures

    def to_dict(self) -> dict[str, Any]:
        out = _jsonable(self)
        out["environment"] = None if self.environment is None else self.environment.to_dict()
        out["passed"] = self.passed
        return out  # type: ignore[no-any-return]

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)


Progress = Callable[[str, str, CaseBench | None], None]


def _jsonable(obj: Any) -> Any:
    """Dataclasses, enums and non-finite floats to plain JSON values (inf and nan as strings)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


def _margin(margin: float | None, clocks_locked: bool) -> float:
    if margin is None:
        return MARGIN_LOCKED if clocks_locked else MARGIN
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin < 10:
        raise SpecError("margin", margin, "give a fraction such as 0.10 (10%)")
    return float(margin)


def _roofline(spec: Spec, case: Case, timed: Timed, summary: Summary, peaks: dict[str, float] | None,
              cost: Cost | None) -> Roofline:
    ctx = CostContext(case.sizes, case.precision, PRECISIONS[case.precision].storage.itemsize, case.config_dict)
    nbytes, flops = cost.evaluate(ctx) if cost is not None else (None, None)
    out = Roofline(nbytes, flops, False)
    if out.bytes is None and timed.bytes_estimate is not None:
        out.bytes, out.bytes_estimated = timed.bytes_estimate, True
    seconds = summary.median_ms / 1000
    if out.bytes is not None and seconds > 0:
        out.bandwidth = out.bytes / seconds
        if peaks and peaks.get("copy_bytes_per_s"):
            out.bandwidth_fraction = out.bandwidth / peaks["copy_bytes_per_s"]
    if out.flops is not None and seconds > 0:
        out.flop_rate = out.flops / seconds
        if peaks and peaks.get("bf16_flops_per_s"):
            out.flop_fraction = out.flop_rate / peaks["bf16_flops_per_s"]
    return out


def judge(spec_name: str, case_id: str, samples_ms: Sequence[float], env: Environment, method: str, store: Store, *,
          margin: float, alpha: float, clocks_locked: bool, update_baseline: bool) -> CaseBench:
    """Compare one case's timings with its baseline in ``store`` (same environment and method only), record the
    timings when there was none (or when ``update_baseline``), and say what happened."""
    summary = Summary.of(samples_ms)
    res = CaseBench(case_id, BenchStatus.RECORDED, method, summary)
    mine, others = store.lookup(spec_name, case_id, env, method)
    for o in others:
        diff = "; ".join(env.differences(o.environment)) or f"method {o.method} -> {method}"
        res.other_environments.append(f"{o.median_ms:.4g} ms recorded {o.recorded_at} ({diff}): not compared")
    if mine is not None:
        res.comparison = compare(mine.samples_ms, samples_ms, margin=margin, alpha=alpha)
        res.status = {Change.UNCHANGED: BenchStatus.UNCHANGED, Change.REGRESSION: BenchStatus.REGRESSION,
                      Change.SPEEDUP: BenchStatus.SPEEDUP}[res.comparison.change]
        res.baseline_median_ms, res.baseline_recorded_at = mine.median_ms, mine.recorded_at
        if mine.clocks_locked != clocks_locked:
            res.notes.append(f"the baseline was recorded with clocks {'locked' if mine.clocks_locked else 'free'}, "
                             f"this run says {'locked' if clocks_locked else 'free'}")
        if res.status is BenchStatus.SPEEDUP and not update_baseline:
            res.notes.append("faster than its baseline: accept it with --update-baseline")
    if mine is None or update_baseline:
        store.update([Entry.of(spec_name, case_id, env, method, samples_ms, summary.median_ms, summary.cv,
                               clocks_locked)])
        res.baseline_written = True
    return res


def _runner(spec: Spec, isolate: bool | None, timeout: float) -> Worker | InProcess:
    source = locate(spec) if isolate is not False else None
    if source is None and isolate:
        raise SpecError("isolate", True, f"the Spec {spec.name!r} is not a module-level variable of an importable "
                                         "file, so a worker cannot import it: define it at module level, or pass "
                                         "isolate=False")
    return Worker(source, timeout) if source is not None else InProcess(spec)


def bench(spec: Spec | Sequence[Spec], *, baseline: str | os.PathLike[str] | None = None,
          update_baseline: bool = False, clocks_locked: bool = False, margin: float | None = None,
          alpha: float = ALPHA, cases: str | Sequence[str] | None = None, dtypes: Sequence[str] | None = None,
          options: TimingOptions | None = None, graph: bool | None = None, isolate: bool | None = None,
          timeout: float = 300.0, roofline: bool = True, progress: Progress | None = None,
          sources: dict[int, SpecSource] | None = None) -> BenchReport:
    """Time each Spec's nominal and real-dimension cases (or ``cases``), compare each with its baseline in
    ``baseline`` (default ``.kcheck-bench/baselines.json``) and record those that have none.

    ``clocks_locked``: the GPU's clocks are locked, so the margin is 5% instead of 10% (``margin`` overrides both).
    ``isolate`` (default: when the Spec can be re-imported) times in a worker process, so a crash or a hang of the
    kernel is reported, not suffered; ``sources`` maps ``id(spec)`` to the file a worker imports it from, when the
    caller knows it (else it is looked up among the imported modules). On a machine without a GPU nothing is timed
    and ``reason`` says so."""
    specs = [spec] if isinstance(spec, Spec) else list(spec) if isinstance(spec, Sequence) else [spec]
    for s in specs:
        if not isinstance(s, Spec):
            raise SpecError("spec", s, "pass a kcheck.Spec or a list of them")
    if not isinstance(alpha, (int, float)) or not 0 < alpha < 0.5:
        raise SpecError("alpha", alpha, "give a significance level such as 0.01")
    opts = options or TimingOptions()
    if graph is not None:
        opts = TimingOptions(opts.warmup_ms, opts.rep_ms, opts.min_samples, opts.max_seconds, bool(graph))
    store = Store(baseline)
    env = current()
    report = BenchReport(env, _margin(margin, clocks_locked), float(alpha), clocks_locked, str(store.path))
    if env is None:
        report.reason = NO_GPU
    for sp in specs:
        chosen, unrunnable = select_cases(sp, cases=cases, dtypes=dtypes)
        sb = SpecBench(sp.name, [CaseBench(c.id, BenchStatus.NOT_RUN, reason=c.skip) for c in unrunnable])
        report.specs.append(sb)
        if env is None:
            sb.cases += [CaseBench(c.id, BenchStatus.NOT_RUN, reason=NO_GPU_CASE) for c in chosen]
            continue
        source = (sources or {}).get(id(sp))  # where the caller imported it from (the command line knows)
        runner = Worker(source, timeout) if source is not None and isolate is not False else _runner(sp, isolate,
                                                                                                      timeout)
        try:
            if roofline and report.peaks is None:
                report.peaks = store.peaks(env)
                if report.peaks is None:
                    try:
                        report.peaks = runner.peaks()
                        store.save_peaks(env, report.peaks)
                    except Exception as exc:  # the roofline is context: without peaks it shows rates only
                        report.reason = f"the GPU's peaks were not measured: {exc}"
            for case in chosen:
                if progress:
                    progress(sp.name, case.id, None)
                res = _time_one(sp, case, runner, opts, env, store, report, update_baseline)
                sb.cases.append(res)
                if progress:
                    progress(sp.name, case.id, res)
        finally:
            runner.close()
    return report


def _time_one(spec: Spec, case: Case, runner: Worker | InProcess, opts: TimingOptions, env: Environment,
              store: Store, report: BenchReport, update_baseline: bool) -> CaseBench:
    try:
        timed = runner.time(case, opts)
    except WorkerFailure as exc:
        status = BenchStatus.TIMEOUT if exc.status == "timeout" else BenchStatus.CRASHED
        return CaseBench(case.id, status, opts.method, reason=str(exc))
    if timed.error is not None:
        status = BenchStatus.CRASHED if timed.error.startswith("crashed:") else BenchStatus.ERROR
        return CaseBench(case.id, status, timed.method, reason=timed.error, notes=list(timed.notes))
    res = judge(spec.name, case.id, timed.samples_ms, env, timed.method, store, margin=report.margin,
                alpha=report.alpha, clocks_locked=report.clocks_locked, update_baseline=update_baseline)
    res.notes = list(timed.notes) + res.notes
    assert res.summary is not None
    res.roofline = _roofline(spec, case, timed, res.summary, report.peaks, plan_of(spec).cost)
    return res
