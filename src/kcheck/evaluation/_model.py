"""The records of an evaluation: one check per kind, each with its outcome and evidence, and one verdict."""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass, field
from typing import Any


class CheckKind(str, enum.Enum):
    """What a check looks at. The value is the name reports and ``--json`` use."""

    LOAD = "load"  # the candidate's module imports and its model builds
    RUNS = "runs"  # the candidate returns (no exception, crash or hang)
    CORRECTNESS = "correctness"  # outputs against a float64 reference, on fresh inputs, several seeds
    SHAPES = "shapes"  # the same on shapes other than the benchmark's own
    NOOP = "no-op"  # the output is exactly zeros, an input or a constant
    STALE_MEMORY = "stale-memory"  # the output holds memory the candidate never wrote (poisoned before the call)
    INPUT_MUTATION = "input-mutation"  # an input changed during the call
    ALIASING = "aliasing"  # the output shares memory with an input, a parameter or an earlier call's output
    LAZY_OUTPUT = "lazy-output"  # the output is not a plain torch.Tensor (a subclass can compute when read)
    ASYNC_WORK = "async-work"  # the output changed after the call returned (work left on a stream or a thread)
    THREADS = "threads"  # a thread the call started was still working when it returned
    STREAMS = "streams"  # device time beyond what the current stream's events see (work on other streams)
    TIMER = "timer"  # a clock or synchronization function was replaced
    DTYPE = "dtype"  # output dtype and device against the reference's
    PRECISION = "precision"  # an error at the level of a lower precision (bf16 for an fp32 problem)
    AFTER_TIMING = "after-timing"  # outputs checked again after the timed runs
    SPEED = "speed"  # time against the physical floor (bytes over bandwidth, FLOPs over peak)


class Outcome(str, enum.Enum):
    PASS = "pass"
    FAIL = "fail"
    WARN = "warn"  # seen, reported, not a failure
    SKIP = "skip"  # could not be checked here (the reason says why)


@dataclass
class Check:
    """One kind of check over the whole evaluation: its outcome, a sentence, and the evidence behind it."""

    kind: CheckKind
    outcome: Outcome
    summary: str
    evidence: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "outcome": self.outcome.value, "summary": self.summary,
                "evidence": [_jsonable(e) for e in self.evidence]}


@dataclass
class Timing:
    """Medians over the timed runs, in seconds. ``device_s``: whole-device synchronization around each call (all
    streams); ``events_s``: CUDA events on the current stream (what most benchmarks report)."""

    candidate_device_s: float
    reference_device_s: float
    candidate_events_s: float | None = None
    floor_s: float | None = None  # the physical floor: max(bytes / bandwidth, FLOPs / peak)
    bytes: int = 0
    flops: int = 0
    runs: int = 0

    @property
    def speedup(self) -> float:
        return self.reference_device_s / self.candidate_device_s if self.candidate_device_s > 0 else math.inf


@dataclass
class Evaluation:
    """The evaluation of one candidate against one reference problem."""

    candidate: str
    reference: str
    device: str
    checks: list[Check] = field(default_factory=list)
    timing: Timing | None = None
    trials: int = 0  # input sets the candidate was checked on
    seconds: float = 0.0

    def check(self, kind: CheckKind) -> Check | None:
        return next((c for c in self.checks if c.kind is kind), None)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.outcome is Outcome.FAIL]

    @property
    def failed_kinds(self) -> set[CheckKind]:
        return {c.kind for c in self.failed}

    @property
    def passed(self) -> bool:
        """PASS: no check failed and the outputs were compared at least once."""
        correct = self.check(CheckKind.CORRECTNESS)
        return not self.failed and correct is not None and correct.outcome is Outcome.PASS

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "FAIL"

    @property
    def reasons(self) -> list[str]:
        if self.passed:
            return []
        found = [f"{c.kind.value}: {c.summary}" for c in self.failed]
        return found or ["correctness: the outputs were never compared"]

    def to_dict(self) -> dict[str, Any]:
        timing = None
        if self.timing is not None:
            t = self.timing
            timing = {"candidate_device_s": t.candidate_device_s, "reference_device_s": t.reference_device_s,
                      "candidate_events_s": t.candidate_events_s, "floor_s": t.floor_s, "bytes": t.bytes,
                      "flops": t.flops, "runs": t.runs, "speedup": _num(t.speedup)}
        return {"candidate": self.candidate, "reference": self.reference, "device": self.device,
                "verdict": self.verdict, "reasons": self.reasons, "trials": self.trials,
                "seconds": self.seconds, "timing": timing, "checks": [c.to_dict() for c in self.checks]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)


def _num(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return _num(value)
    if isinstance(value, (int, str, bool)) or value is None:
        return value
    return str(value)


def _seconds(s: float | None) -> str:
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.3g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} us"


_MARK = {Outcome.PASS: "ok  ", Outcome.FAIL: "FAIL", Outcome.WARN: "warn", Outcome.SKIP: "skip"}


def format_evaluation(ev: Evaluation, evidence: int = 2) -> str:
    """The evaluation as terminal text: the verdict, each check with its outcome, and the first pieces of evidence
    of the checks that did not pass."""
    lines = [f"{ev.candidate} against {ev.reference} on {ev.device}: {ev.verdict}"
             f" ({ev.trials} input sets, {ev.seconds:.1f} s)"]
    for c in ev.checks:
        lines.append(f"  [{_MARK[c.outcome]}] {c.kind.value:<15} {c.summary}")
        if c.outcome in (Outcome.FAIL, Outcome.WARN):
            for e in c.evidence[:evidence]:
                shown = ", ".join(f"{k}={_short(v)}" for k, v in e.items())
                lines.append(f"         {shown}")
    if ev.timing is not None:
        t = ev.timing
        lines.append(f"  time: candidate {_seconds(t.candidate_device_s)}, reference {_seconds(t.reference_device_s)}"
                     f" (whole-device sync, median of {t.runs}); speedup {t.speedup:.3g}x; current-stream events "
                     f"{_seconds(t.candidate_events_s)}; physical floor {_seconds(t.floor_s)}")
    if not ev.passed:
        lines.append("verdict: FAIL")
        lines += [f"  - {r}" for r in ev.reasons]
    else:
        lines.append("verdict: PASS")
    return "\n".join(lines)


def _short(v: Any) -> str:
    text = repr(v) if not isinstance(v, str) else v
    return text if len(text) <= 160 else text[:157] + "..."
