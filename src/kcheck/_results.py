"""Typed results: what a check found, per case, per Spec, per run. All serialize to JSON through ``to_dict``."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from dataclasses import dataclass, field
from typing import Any

from ._findings import Finding
from ._resources import Resources
from .cases import Case, SkipKind
from .compare import Comparison


class Status(str, enum.Enum):
    PASSED = "passed"  # every output within tolerance, integrity and properties hold
    FAILED = "failed"  # the kernel is wrong on this case (reasons say how)
    ERROR = "error"  # the kernel (or the reference) raised: reported, never a lost run
    SKIPPED = "skipped"  # cannot run on this machine; the reason says why
    UNTRUSTED = "untrusted"  # failed where the machine itself is known to compute wrongly (interpreter bf16)
    CRASHED = "crashed"  # the worker died (signal, sticky CUDA error); the other cases ran in a fresh one
    TIMEOUT = "timeout"  # did not finish within the time limit; the worker was killed


class ReasonKind(str, enum.Enum):
    """What a case's reason (why it failed, errored or was skipped) or warning is about. Code reads the kind; the
    words are for people and may change."""

    SKIP = "skip"  # why a case did not run
    INPUTS_RAISED = "inputs-raised"  # building the inputs raised (the Spec's fault)
    REFERENCE_RAISED = "reference-raised"  # the reference raised (the Spec's fault)
    KERNEL_RAISED = "kernel-raised"  # the kernel or its launcher raised
    OUTPUT_COUNT = "output-count"  # the kernel returned another number of outputs than the reference
    MISMATCH = "mismatch"  # an output outside its tolerance, unwritten, of the wrong dtype or shape, a no-op
    FINDING = "finding"  # an interpreter or sanitizer finding (out-of-bounds access, race)
    MUTATED_INPUT = "mutated-input"  # the kernel changed an input it must not change
    PROPERTY = "property"  # a declared property does not hold
    CRASHED = "crashed"  # the worker process died
    TIMEOUT = "timeout"  # the case did not finish in time
    WORKER = "worker"  # the worker could not run the case (kcheck's own error there, or out of memory)
    NO_WORKER = "no-worker"  # no worker process could start, twice: the case never ran (the machine, not the kernel)
    NOT_IMPORTABLE = "not-importable"  # the worker could not import the Spec: the case never ran (where the Spec is
    # defined, not the kernel)
    OUT_OF_MEMORY = "out-of-memory"  # beside an error's reason: the device ran out of memory (a pool reruns it alone)
    # warnings
    ILL_CONDITIONED = "ill-conditioned"  # the framework's own same-precision result fails too: mismatches forgiven
    NO_BASELINE = "no-baseline"  # no same-precision baseline could run
    NOT_DETERMINISTIC = "not-deterministic"  # repeat runs on the same inputs differ
    UNTRUSTED = "untrusted"  # a failure this machine computes wrongly itself: not blamed on the kernel
    NOTE = "note"  # anything else worth saying


class Reason(str):
    """A reason or a warning: its text (it is a ``str``, so it prints, joins and serializes as one) and its
    ``kind``, which code reads instead of the words."""

    kind: ReasonKind

    def __new__(cls, text: str, kind: ReasonKind = ReasonKind.NOTE) -> Reason:
        obj = super().__new__(cls, text)
        obj.kind = kind
        return obj

    def __reduce__(self) -> tuple[Any, ...]:  # through the worker's pipe with its kind
        return (Reason, (str(self), self.kind))


def kind_of(text: str) -> ReasonKind:
    """The kind of a reason or warning (``NOTE`` for a plain string)."""
    return text.kind if isinstance(text, Reason) else ReasonKind.NOTE


@dataclass
class Determinism:
    """Two runs of the kernel on the same inputs, compared bit for bit."""

    runs: int
    differing: int  # elements whose bits differ between runs
    max_abs: float
    max_ulp: float

    @property
    def identical(self) -> bool:
        return self.differing == 0


@dataclass
class PropertyOutcome:
    name: str
    passed: bool
    message: str | None = None


@dataclass
class Timing:
    """Seconds spent; ``harness`` is what kcheck itself added (inputs, poisoning, comparison, bookkeeping)."""

    total: float = 0.0
    kernel: float = 0.0
    reference: float = 0.0
    baseline: float = 0.0

    @property
    def harness(self) -> float:
        return max(0.0, self.total - self.kernel - self.reference - self.baseline)


@dataclass
class CaseResult:
    case: Case
    status: Status
    comparisons: list[Comparison] = field(default_factory=list)
    properties: list[PropertyOutcome] = field(default_factory=list)
    determinism: Determinism | None = None
    mutated_inputs: list[str] = field(default_factory=list)
    weak: list[str] = field(default_factory=list)  # no-op candidates that would pass this case
    noop: str | None = None  # the no-op the kernel's output is identical to
    # the floating inputs of a randn case that hold an exact 0: a CUDA generator's normal draw is exactly 0 at
    # about one element in 8 million (33 in 2**28 on an H100: its uniform rounds to 1.0 before the Box-Muller
    # logarithm), so a large randn case on a GPU can hold a zero denominator
    zero_inputs: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # why it failed / errored / was skipped
    warnings: list[str] = field(default_factory=list)
    untrusted: str | None = None
    skip_kind: SkipKind | None = None  # for a skipped case: the machine, an option, or the Spec
    findings: list[Finding] = field(default_factory=list)  # memory and race findings (interpreter checks)
    timing: Timing = field(default_factory=Timing)

    @property
    def id(self) -> str:
        return self.case.id

    @property
    def compared(self) -> bool:
        """Whether the case compared at least one output element (a case of empty tensors shows nothing)."""
        return any(c.numel for c in self.comparisons)

    @property
    def ok(self) -> bool:
        return self.status in (Status.PASSED, Status.SKIPPED, Status.UNTRUSTED)

    @property
    def never_ran(self) -> bool:
        """The kernel did not run for this case: no worker could start, or none could import the Spec. Such a case
        says nothing about the kernel."""
        return any(kind_of(r) in (ReasonKind.NO_WORKER, ReasonKind.NOT_IMPORTABLE) for r in self.reasons)

    def reasons_of(self, kind: ReasonKind) -> list[str]:
        """The reasons of this kind."""
        return [r for r in self.reasons if kind_of(r) is kind]

    def warnings_of(self, kind: ReasonKind) -> list[str]:
        """The warnings of this kind."""
        return [w for w in self.warnings if kind_of(w) is kind]


class Verdict(str, enum.Enum):
    """A Spec's verdict. A Spec that ran no case is never a pass."""

    PASSED = "passed"  # at least one case compared some output elements and passed, and none failed
    FAILED = "failed"  # some case failed, errored, crashed or timed out
    NOT_RUN = "not run"  # no case compared a value (every case skipped, untrusted or empty, or none at all)


@dataclass
class SpecReport:
    name: str
    framework: str
    device: str
    cases: list[CaseResult]
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    resources: list[Resources] = field(default_factory=list)  # per kernel, compiled for sm_90

    @property
    def verdict(self) -> Verdict:
        if not all(c.ok for c in self.cases):
            return Verdict.FAILED
        return Verdict.PASSED if any(c.status is Status.PASSED and c.compared for c in self.cases) else Verdict.NOT_RUN

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASSED

    @property
    def machine_only(self) -> bool:
        """Not run only because this machine cannot run or judge its cases (no GPU, too little memory, Triton's
        interpreter untrusted), the cases the caller turned off (``large=False``) aside: the Spec is fine, the
        machine is not the one to check it on."""
        machine = [c for c in self.cases if c.status is Status.UNTRUSTED or (
            c.status is Status.SKIPPED and c.skip_kind is SkipKind.DEVICE)]
        turned_off = [c for c in self.cases if c.status is Status.SKIPPED and c.skip_kind is SkipKind.OPTION]
        return (self.verdict is Verdict.NOT_RUN and bool(machine)
                and len(machine) + len(turned_off) == len(self.cases))

    def count(self, status: Status) -> int:
        return sum(c.status == status for c in self.cases)

    @property
    def failures(self) -> list[CaseResult]:
        return [c for c in self.cases if not c.ok]


@dataclass
class Report:
    """What ``kcheck.check`` returns. ``passed`` is True when no case failed or errored."""

    specs: list[SpecReport]
    device: str
    versions: dict[str, str] = field(default_factory=dict)
    complete: bool = True  # False: the run was interrupted (or is still going) and some cases did not run
    interrupted: str | None = None  # what stopped it (SIGINT, SIGTERM, ...)

    @property
    def passed(self) -> bool:
        """Every Spec passed: at least one of its cases ran, none failed, and the run was complete."""
        return self.complete and bool(self.specs) and all(s.passed for s in self.specs)

    @property
    def cases(self) -> list[CaseResult]:
        return [c for s in self.specs for c in s.cases]

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, **to_jsonable(self)}

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)


def to_jsonable(obj: Any) -> Any:
    """Dataclasses, enums, tuples and non-finite floats to plain JSON values (inf/nan as strings)."""
    if isinstance(obj, Case):
        return obj.to_dict()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
        if isinstance(obj, CaseResult):  # the kinds beside the words, for programs that read the JSON
            out["reason_kinds"] = [kind_of(r).value for r in obj.reasons]
            out["warning_kinds"] = [kind_of(w).value for w in obj.warnings]
        for name in ("passed", "verdict", "harness", "identical", "mismatch_fraction", "allowed", "id"):
            attr = getattr(type(obj), name, None)
            if isinstance(attr, property):
                out[name] = to_jsonable(getattr(obj, name))
        return out
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if obj is None or isinstance(obj, (int, float, str, bool)):
        return obj
    return repr(obj)
