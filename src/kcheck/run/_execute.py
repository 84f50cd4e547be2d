"""Run one case: inputs, reference (once per input set), baseline, poisoned kernel call, integrity, determinism.

The order is chosen so that each failure is attributed to the right party: inputs and reference first (an error
there is the Spec's), then the kernel under poisoned outputs, then checks that the inputs are unchanged, then
repeat runs for determinism and the properties. An exception from the kernel is a reported ``error`` result.
"""

from __future__ import annotations

import contextlib
import math
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import torch

from .._device import (
    DeviceInfo,
    held_by_others,
    interpreter_active,
    is_out_of_memory,
    release_if_holding,
    release_memory,
)
from .._dtypes import PRECISIONS, ulp_spacing
from .._findings import Finding, deduplicate
from .._results import CaseResult, Determinism, PropertyOutcome, Reason, ReasonKind, Status, Timing, kind_of
from .._spec import Spec
from ..backends import Backend, backend_of, kernel_frame
from ..cases import (
    NEAR_CAPACITY,
    SNAPSHOT_MAX_ELEMENTS,
    Case,
    SkipKind,
    call_kernel,
    call_reference,
    index_range_problem,
    make_args,
    output_buffers,
    sized_to_memory,
    upcast,
)
from ..compare import (
    Comparison,
    Tolerance,
    compare,
    expected_in,
    mismatch_mask,
    noop_guard,
    reduction_length,
    rms,
    rms_of_inputs,
    tolerance_for,
)
from ..interpret import checked, gpu_semantics, scalar_index
from ..properties import PropertyContext
from ._grad import OUT_OF_MEMORY_WORDS, GradRules, check_gradients, typical_scales
from ._poison import AMBIGUOUS, PoisonAllocations, poison_, unwritten_mask
from ._tensors import as_tuple as _as_tuple

#: Precisions whose same-precision baseline is a requirement (FlashAttention's rule); for fp32 it only forgives
#: ill-conditioned cases. tf32 has none: implementations round its operands differently (Triton truncates,
#: cuBLAS rounds to nearest and ignores TF32 for matrix-vector shapes), so "the framework's tf32" is not defined.
_BASELINE_REQUIRED = {"bf16", "fp16", "fp8e4m3", "fp8e5m2"}
_BASELINE_ALLOWANCE = {"fp32"}
_T = TypeVar("_T")


def _short_traceback(exc: BaseException) -> str:
    """``Type: first line (at file:line)``, at the innermost frame of the user's code when there is one (else the
    innermost frame). Triton's interpreter wraps a kernel's error in an InterpreterError: the error itself is shown."""
    while type(exc).__name__ == "InterpreterError" and exc.__cause__ is not None:
        exc = exc.__cause__
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = kernel_frame(exc) or (f"{last[0].filename}:{last[0].lineno}" if last else None)
    where = f" (at {at})" if at else ""
    text = str(exc).strip().splitlines()
    head = text[0] if text else ""
    if len(text) > 1:
        head += " ..."
    return f"{type(exc).__name__}: {head}{where}"


@contextlib.contextmanager
def _quiet_interpreter() -> Iterator[None]:
    """Triton's interpreter runs kernels in numpy, which warns on every overflow a GPU performs silently; the
    results already show what matters. Warnings of a GPU run are left alone. The interpreter's maximum, minimum and
    clamp treat NaN as a GPU does (``interpret.gpu_semantics``), and a loop bound passed as an argument is an index
    whatever NumPy's version (``interpret.scalar_index``)."""
    if not interpreter_active():
        yield
        return

    with warnings.catch_warnings(), gpu_semantics(), scalar_index():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@dataclass(frozen=True)
class RunOptions:
    """How cases run. ``interpreter_checks``: in Triton's interpreter, check every load, store and atomic against
    the launch's tensors and find races between programs; ``order``: the order programs run in there
    ("sequential", "reversed", "random")."""

    interpreter_checks: bool = True
    order: str = "sequential"


class _Kernel:
    """Calls the Spec's kernel with poisoned outputs, under the interpreter's checks when they apply, and accounts
    its time and findings."""

    def __init__(self, spec: Spec, case: Case, device: str, checks: RunOptions | None = None,
                 backend: Backend | None = None, *, poison: bool = True,
                 wrap: Callable[[Callable[[], Any]], Callable[[], Any]] | None = None) -> None:
        self.spec, self.case, self.device = spec, case, device
        self.backend = backend or backend_of(spec.kernel)
        self.poison, self.wrap = poison, wrap
        self.seconds = 0.0
        self.checks = checks  # None: no interpreter checks (a GPU, a torch kernel, or turned off)
        self.findings: list[Finding] = []

    @contextlib.contextmanager
    def _call(self) -> Iterator[None]:
        with _quiet_interpreter():
            if self.checks is None:
                yield
                return

            with checked(order=self.checks.order, seed=self.case.seed, benign=self.spec.benign) as report:
                yield
            self.findings += report.findings

    def _timed(self, call: Callable[[], Any]) -> Any:
        """Run the kernel call (under the interpreter's checks when they apply), wait for it, account its time."""
        t0 = time.perf_counter()
        if self.wrap is not None:
            call = self.wrap(call)
        with self._call():
            ret = call()
        self.backend.synchronize(self.device)
        self.seconds += time.perf_counter() - t0
        return ret

    def outputs(self, args: Sequence[Any]) -> tuple[list[torch.Tensor], list[torch.Tensor | None]]:
        """Run once; return the outputs and, per output, where it still holds poison (None if unknown)."""
        spec, case = self.spec, self.case
        if spec.outputs is not None:
            outs = [buf.zero_() if t.pattern == "zeros" else poison_(buf) if self.poison else buf
                    for t, buf in zip(spec.outputs, output_buffers(spec, case, self.device), strict=True)]
            # what the launcher allocates itself (a buffer it adds into, then copies out) comes poisoned too
            with PoisonAllocations() if self.poison else contextlib.nullcontext():
                self._timed(lambda: call_kernel(spec.kernel, spec, case, [*args, *outs]))
            masks = [None if (t.pattern == "zeros" or not self.poison) else unwritten_mask(o)
                     for t, o in zip(spec.outputs, outs, strict=True)]
        else:
            with PoisonAllocations() if self.poison else contextlib.nullcontext():
                outs = list(_as_tuple(self._timed(lambda: call_kernel(spec.kernel, spec, case, args)), "the kernel"))
            masks = [unwritten_mask(o) if self.poison else None for o in outs]
        masks = [None if (m is None or o.dtype in AMBIGUOUS) else m for m, o in zip(masks, outs, strict=True)]
        return outs, masks

    def run(self, *args: Any) -> tuple[torch.Tensor, ...]:
        return tuple(self.outputs(args)[0])


def _bits_equal(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.dtype.is_floating_point:
        return (a == b) | (torch.isnan(a) & torch.isnan(b))
    return a == b


def _fingerprint(t: torch.Tensor, width: int = 1 << 12, chunk: int = 1 << 14) -> tuple[int, int]:
    """Order-sensitive checksum of a tensor's bits, for inputs too large to copy: the sum of the elements' bits and
    the sum weighted by position (element i weighs i + 1), in int64 arithmetic that wraps. Seen as rows of
    ``width``, element (r, c) weighs r * width + c + 1, so the weighted sum is width * sum_r r * rowsum_r +
    sum_c (c + 1) * colsum_c (the same value, exactly, as the element-by-element sum); a short tail past the last
    full row is weighed element by element. The row and column sums run ``chunk`` rows at a time: torch sums into
    int64 by making an int64 copy of what it sums (16 GiB for a 2**31-element input, which ran a GPU out of memory
    beside other cases), so the copies stay at ``chunk * width`` elements (512 MiB). One transfer at the end."""
    bits = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    flat = t.reshape(-1).view(bits)
    rows = flat.numel() // width
    body = flat[:rows * width].view(rows, width)
    tail = flat[rows * width:].to(torch.int64)
    row_parts = []
    col = torch.zeros(width, dtype=torch.int64, device=t.device)
    for r0 in range(0, rows, chunk):
        part = body[r0:r0 + chunk]
        row_parts.append(part.sum(dim=1, dtype=torch.int64))
        col += part.sum(dim=0, dtype=torch.int64)
    row = torch.cat(row_parts) if row_parts else torch.zeros(0, dtype=torch.int64, device=t.device)
    def weights(start: int, end: int) -> torch.Tensor:
        return torch.arange(start, end, dtype=torch.int64, device=t.device)

    s1 = row.sum() + tail.sum()
    s2 = (width * (weights(0, rows) * row).sum() + (weights(1, width + 1) * col).sum()
          + (weights(rows * width + 1, flat.numel() + 1) * tail).sum())
    return int(s1), int(s2)


def _snapshot(t: torch.Tensor) -> torch.Tensor | tuple[int, int]:
    return t.clone() if t.numel() <= SNAPSHOT_MAX_ELEMENTS else _fingerprint(t)


def _changed(before: torch.Tensor | tuple[int, int], after: torch.Tensor) -> str | None:
    """None if ``after`` still holds what the snapshot saw, else a description of the change."""
    if isinstance(before, tuple):
        return None if _fingerprint(after) == before else "contents changed (checksum)"
    if before.shape != after.shape:
        return f"shape changed from {list(before.shape)} to {list(after.shape)}"
    changed = int((~_bits_equal(before, after)).sum())
    return f"{changed} elements changed" if changed else None


def _names(spec: Spec) -> list[str]:
    return [getattr(inp, "name", None) or f"input {i}" for i, inp in enumerate(spec.inputs)]


@dataclass
class Execution:
    """One run of a case: the inputs, the float64 reference, the kernel's outputs under poison, and what the
    interpreter's checks found. ``failure`` says which stage raised (the inputs, the reference, the kernel) and
    ``exception`` is what it raised; the later fields are empty then. ``judge`` turns it into a CaseResult."""

    spec: Spec
    case: Case
    device: DeviceInfo
    backend: Backend
    args: list[Any] = field(default_factory=list)  # as the kernel left them (an in-place kernel writes here)
    inputs_before: list[Any] = field(default_factory=list)  # the inputs before any call
    pristine: dict[int, torch.Tensor] = field(default_factory=dict)  # copies of the inputs the kernel mutates
    expected: list[torch.Tensor] = field(default_factory=list)  # float64
    ref_floating: list[bool] = field(default_factory=list)
    baselines: list[torch.Tensor] | None = None  # the reference in the case's own precision
    outputs: list[torch.Tensor] = field(default_factory=list)
    masks: list[torch.Tensor | None] = field(default_factory=list)  # per output: where poison is left (None: unknown)
    snapshot: dict[int, Any] = field(default_factory=dict)  # the inputs that must not change, before the call
    findings: list[Finding] = field(default_factory=list)
    failure: ReasonKind | None = None
    exception: BaseException | None = None
    launch_problem: str | None = None  # a launch past the device's limits, when the kernel raised
    warnings: list[str] = field(default_factory=list)
    timing: Timing = field(default_factory=Timing)
    kernel: _Kernel | None = None  # calls the kernel again (repeats, properties)


def interpreter_checks(options: RunOptions, backend: Backend, device: DeviceInfo) -> RunOptions | None:
    """The one rule for the interpreter's checks: asked for, and the kernel runs in Triton's interpreter here."""
    return options if options.interpreter_checks and backend.interpreted(device) else None


def cannot_run(spec: Spec, case: Case, device: DeviceInfo,
               backend: Backend | None = None) -> tuple[str, SkipKind] | None:
    """Why ``case`` cannot run here and what kind of skip it is, or None."""
    if case.skip:
        return case.skip, case.skip_kind or SkipKind.DEVICE
    if problem := index_range_problem(spec, case):
        return problem, SkipKind.SPEC
    if why := (backend or backend_of(spec.kernel)).cannot_run(device):
        return why, SkipKind.DEVICE
    return None


def execute(spec: Spec, case: Case, device: DeviceInfo, options: RunOptions | None = None, *,
            reference: bool = True, baseline: bool = True, poison: bool = True,
            wrap: Callable[[Callable[[], Any]], Callable[[], Any]] | None = None) -> Execution:
    """Build ``case``'s inputs, run the reference on their float64 upcast (``reference``) and in the case's own
    precision (``baseline``, where the Spec has one), then the kernel with poisoned outputs (``poison=False``:
    plain ``torch.empty``, for initcheck), under the interpreter's checks where they apply; ``wrap`` wraps the
    kernel call (the sanitizer names each case's frame). Never raises for the Spec's or the kernel's faults: they
    are in ``failure``/``exception``. The caller checks ``cannot_run`` first."""
    backend = backend_of(spec.kernel)
    ex = Execution(spec, case, device, backend)
    dev = device.device
    try:
        ex.args = make_args(spec, case, dev)
    except Exception as exc:
        ex.failure, ex.exception = ReasonKind.INPUTS_RAISED, exc
        return ex
    if reference:
        t0 = time.perf_counter()
        try:
            with torch.no_grad():
                raw = _as_tuple(call_reference(spec.reference, spec, case, upcast(ex.args), dev), "the reference")
                ex.ref_floating = [e.is_floating_point() for e in raw]
                ex.expected = [e.to(torch.float64) for e in raw]
                del raw
        except Exception as exc:
            ex.failure, ex.exception = ReasonKind.REFERENCE_RAISED, exc
            return ex
        ex.timing.reference = time.perf_counter() - t0
    ex.pristine = {i: a.clone() for i, a in enumerate(ex.args) if getattr(spec.inputs[i], "mutated", False)
                   and isinstance(a, torch.Tensor)}
    ex.inputs_before = [ex.pristine.get(i, a) for i, a in enumerate(ex.args)]
    if baseline and spec.baseline is not False and case.precision in _BASELINE_REQUIRED | _BASELINE_ALLOWANCE:
        fn = spec.reference if spec.baseline is True else spec.baseline
        t0 = time.perf_counter()
        try:
            with torch.no_grad():
                b_args = [a.clone() if i in ex.pristine else a for i, a in enumerate(ex.inputs_before)]
                ex.baselines = list(_as_tuple(call_reference(fn, spec, case, b_args, dev),  # type: ignore[arg-type]
                                              "the baseline"))
        except Exception as exc:  # e.g. an op with no kernel for this dtype on this device
            ex.warnings.append(Reason(f"no same-precision baseline ({_short_traceback(exc)}); table tolerance only",
                                      ReasonKind.NO_BASELINE))
        ex.timing.baseline = time.perf_counter() - t0
    ex.snapshot = {i: _snapshot(a) for i, a in enumerate(ex.args) if isinstance(a, torch.Tensor)
                   and not getattr(spec.inputs[i], "mutated", False)}
    ex.kernel = _Kernel(spec, case, dev, interpreter_checks(options or RunOptions(), backend, device), backend,
                        poison=poison, wrap=wrap)
    with backend.launches(device) as launches:
        try:
            ex.outputs, ex.masks = ex.kernel.outputs(ex.args)
        except Exception as exc:
            ex.failure, ex.exception = ReasonKind.KERNEL_RAISED, exc
            ex.launch_problem = launches.past_grid_limit()  # why a launch error is the launcher's, where it is
    ex.timing.kernel = ex.kernel.seconds
    ex.findings = deduplicate(ex.kernel.findings)
    return ex


def run_case(spec: Spec, case: Case, device: DeviceInfo, options: RunOptions | None = None) -> CaseResult:
    """Run ``case`` of ``spec`` on ``device`` and judge it: the one route every caller takes. Never raises for the
    kernel's faults."""
    t_start = time.perf_counter()
    skip = cannot_run(spec, case, device)
    if skip is not None:
        return CaseResult(case, Status.SKIPPED, reasons=[Reason(skip[0], ReasonKind.SKIP)], skip_kind=skip[1])
    large = case.axis == "large"
    if large:  # tens of GiB: what earlier cases left must not count against this one; a process keeping at most
        release_if_holding()  # 1 GiB (every case ends so) has nothing worth a full collection (0.15 s on the H200)
    ex: Execution | None = None
    timing = Timing()
    try:
        ex = execute(spec, case, device, options)
        timing = ex.timing
        return judge(ex)
    except Exception as exc:  # the kernel's faults are caught where they happen; memory is the device's
        if not is_out_of_memory(exc):
            raise
        # out of memory between the stages execute guards (the inputs' snapshots and pristine copies) or while judging
        return _out_of_memory(spec, case, device, exc, timing,
                                      "judging the outputs" if ex is not None else "preparing the case")
    finally:
        timing.total = time.perf_counter() - t_start
        del ex
        if large:
            release_memory()
        else:
            release_if_holding()


def _not_the_kernels(spec: Spec, case: Case, device: DeviceInfo) -> str | None:
    """Why running out of device memory on ``case`` says nothing of the kernel, in words, or None: the case was
    sized to the device's memory (``cases.sized_to_memory``), or other processes held a quarter of the device or
    more when it ran out (a busy GPU's, not the kernel's)."""
    if sized_to_memory(spec, case, device.total_bytes):
        return "the device ran out of memory at this size"
    others = held_by_others()
    if others >= NEAR_CAPACITY * device.total_bytes:
        return (f"the device ran out of memory while other processes held {others / 2**30:.1f} GiB of its "
                f"{device.total_bytes / 2**30:.0f} GiB")
    return None


def _not_run_for_memory(case: Case, why: str, what: str) -> Reason:
    """The reason of a case not run for this device's memory: ``why`` (``_not_the_kernels``), ``what`` ran out."""
    need = "the past-2**31 check needs" if case.axis == "large" else "this case needs"
    return Reason(f"not run: {why} ({what}); {need} a GPU with more free memory", ReasonKind.SKIP)


def _out_of_memory(spec: Spec, case: Case, device: DeviceInfo, exc: BaseException,
                           timing: Timing, stage: str = "judging the outputs") -> CaseResult:
    """The device ran out of memory outside the stages ``execute`` guards: at ``stage``, while the inputs' copies
    were made (the snapshots that see an input change) or while the outputs were judged (the comparison's chunks,
    repeat runs, the gradients). A case sized to the device's memory (``cases.sized_to_memory``: past-2**31, the
    longest reduction, the largest size, or any case near the device's capacity) is not run for this device, as when
    a stage before ran out (its size was chosen from the memory free when the matrix was built); another case errs
    with the out-of-memory kind, which a pool runs again alone. Never a verdict on the kernel, and never an exception
    out of ``run_case``."""
    text = f"{stage} ran out of device memory ({_short_traceback(exc)})"
    why = _not_the_kernels(spec, case, device)
    if why is not None:
        res = CaseResult(case, Status.SKIPPED, timing=timing, skip_kind=SkipKind.DEVICE,
                         reasons=[_not_run_for_memory(case, why, text)])
    else:
        res = CaseResult(case, Status.ERROR, timing=timing, reasons=[Reason(text, ReasonKind.WORKER)])
    res.reasons.append(Reason(OUT_OF_MEMORY_WORDS, ReasonKind.OUT_OF_MEMORY))
    return res

_STAGE = {ReasonKind.INPUTS_RAISED: "building the inputs raised", ReasonKind.REFERENCE_RAISED: "the reference raised",
          ReasonKind.KERNEL_RAISED: "the kernel raised"}


def judge(ex: Execution) -> CaseResult:
    """The verdict of an execution: each output compared under its tolerance (and baseline), the no-op guard, the
    inputs checked for changes, then repeat runs for determinism and the properties."""
    spec, case, device, backend = ex.spec, ex.case, ex.device, ex.backend
    result = CaseResult(case, Status.PASSED, timing=ex.timing, findings=ex.findings)
    result.warnings += ex.warnings
    if ex.failure is not None:
        assert ex.exception is not None
        result.status = Status.ERROR
        problem = f"; {ex.launch_problem}" if ex.launch_problem else ""
        result.reasons = [Reason(f"{_STAGE[ex.failure]} {_short_traceback(ex.exception)}{problem}", ex.failure)]
        empty = [d for d, v in case.sizes.items() if v == 0]
        if ex.failure is ReasonKind.REFERENCE_RAISED and empty:
            # many torch operations refuse empty tensors; the Spec's dimension admits them, and kcheck checks them
            result.reasons.append(Reason(
                f"the reference cannot take an empty {empty[0]}: if empty inputs are outside the kernel's contract, "
                f"declare kcheck.Dim(min=1) for {empty[0]}; otherwise make the reference return the empty result",
                ReasonKind.REFERENCE_RAISED))
        if is_out_of_memory(ex.exception):
            why = _not_the_kernels(spec, case, device)
            if why is not None:
                # kcheck sized this case to the memory free when the matrix was built, or other processes held the
                # memory: what took it (another process on the GPU, a reference that needs more than the estimate)
                # says nothing of the kernel
                result.status, result.skip_kind = Status.SKIPPED, SkipKind.DEVICE
                result.reasons = [_not_run_for_memory(
                    case, why, f"{_STAGE[ex.failure]} {_short_traceback(ex.exception)}")]
            result.reasons.append(Reason(OUT_OF_MEMORY_WORDS, ReasonKind.OUT_OF_MEMORY))
        if ex.failure is ReasonKind.KERNEL_RAISED:
            # only a known limitation of the machine excuses an error; a bf16 case that raised is an error
            _maybe_untrust(result, backend.untrusted_error(ex.exception, device))
        return result
    assert ex.kernel is not None
    outs, masks, expected, args = ex.outputs, ex.masks, ex.expected, ex.args
    n = reduction_length(tuple(spec.reduce), case.sizes)
    names = [f"output {i}" for i in range(len(outs))]
    if len(outs) != len(expected):
        result.status = Status.FAILED
        result.reasons.append(Reason(f"the kernel returned {len(outs)} outputs, the reference {len(expected)}",
                                     ReasonKind.OUTPUT_COUNT))
    inputs_before = ex.inputs_before
    if case.pattern == "randn":
        result.zero_inputs = [_names(spec)[i] for i, a in enumerate(inputs_before) if isinstance(a, torch.Tensor)
                              and a.is_floating_point() and a.numel() and not bool(a.all())]
    changed = {i: what for i, before in ex.snapshot.items() if (what := _changed(before, args[i]))}
    # the no-op guard sees an input the kernel changed as it was before the call (its copy, where kcheck kept one):
    # the live tensor holds what the kernel wrote, and an output that is that tensor would read as "the input
    # unchanged"
    guard_inputs = [(b if isinstance(b := ex.snapshot[i], torch.Tensor) else None) if i in changed else a
                    for i, a in enumerate(inputs_before)]
    input_scale = _Lazy(lambda: rms_of_inputs(inputs_before))
    typical = _Lazy(lambda: typical_scales(spec, case, device.device))
    for i, (out, exp) in enumerate(zip(outs, expected, strict=False)):
        exp = exp.to(out.device)
        scale = rms(exp)
        tol = tolerance_for(case.precision, out.dtype, n, scale, rtol=spec.rtol, atol=spec.atol,
                            input_scale=input_scale)
        base = ex.baselines[i] if ex.baselines is not None and i < len(ex.baselines) else None
        if base is not None and base.shape != out.shape:
            base = None
        def compared(tol: Tolerance, zero_scale: float) -> Comparison:
            return compare(names[i], out, exp, tol, unwritten=masks[i], baseline=base,  # noqa: B023
                           baseline_factor=spec.baseline_factor,
                           baseline_required=case.precision in _BASELINE_REQUIRED,
                           accumulate=math.sqrt(n) * PRECISIONS[case.precision].accumulate_eps,
                           input_scale=zero_scale, inputs=inputs_before)

        cmp = compared(tol, input_scale() if scale == 0 else 0.0)
        if scale == 0 and not cmp.passed and spec.atol is None and out.is_floating_point():
            # zero because of this data alone? its scale on typical data, asked only of an output that fails
            on_randn = typical()
            if i < len(on_randn) and on_randn[i] > input_scale():
                tol = tolerance_for(case.precision, out.dtype, n, scale, rtol=spec.rtol, atol=spec.atol,
                                    input_scale=input_scale, typical=on_randn[i])
                cmp = compared(tol, on_randn[i])
        result.comparisons.append(cmp)
        wrong_dtype = _dtype_problem(spec, case, i, out, ex.ref_floating[i])
        if wrong_dtype:
            cmp.passed = False
            cmp.reasons.insert(0, wrong_dtype)
        if cmp.baseline is not None and cmp.baseline.forgave:
            b = cmp.baseline
            result.warnings.append(Reason(
                f"{names[i]}: ill-conditioned case: the framework's own {case.precision} result fails this "
                f"tolerance too ({b.baseline_mismatches} elements, max error {b.baseline_max_abs:.3g}); the "
                f"kernel's {b.kernel_max_abs:.3g} is within {b.factor:g}x of it, so its mismatches are forgiven",
                ReasonKind.ILL_CONDITIONED))
        verdict = noop_guard(out, exp, tol, guard_inputs)
        result.weak += [f"{names[i]}: {w}" for w in verdict.weak]
        if verdict.caught and result.noop is None:
            result.noop = f"{names[i]} is exactly {verdict.caught}"
            cmp.passed = False
            cmp.reasons.append(f"no-op: the output is exactly {verdict.caught}, which this tolerance cannot tell "
                               "from the reference; the kernel did not compute it")
        elif verdict.identical and not cmp.passed and result.noop is None:
            result.noop = f"{names[i]} is exactly {verdict.identical}"
            cmp.reasons.append(f"the output is exactly {verdict.identical}: the kernel did not compute it")
    for i, what in changed.items():
        result.mutated_inputs.append(f"{_names(spec)[i]} ({what})")
    if ex.pristine:  # in-place kernels: repeats and properties start from the same inputs
        outs = [o.clone() for o in outs]  # an output may be the mutated input itself
        for i, copy in ex.pristine.items():
            args[i].copy_(copy)
    if case.repeats:
        _determinism(ex.kernel, args, outs, expected, result, case.repeats, ex.pristine)
    if case.properties and spec.properties:
        _properties(spec, case, ex.kernel, args, n, result)
    raised = None  # what the kernel raised with grad, if it did
    if spec.grad:  # the backward, against float64 autograd of the reference (run/_grad.py)
        raised = check_gradients(ex, result, GradRules(_short_traceback, _bits_equal, _BASELINE_REQUIRED,
                                                       _BASELINE_ALLOWANCE))
    ex.timing.kernel = ex.kernel.seconds
    result.findings = deduplicate(ex.kernel.findings)
    errored = result.status is Status.ERROR  # the backward raised: its reason says which stage
    _judge(result)
    if errored and result.reasons_of(ReasonKind.OUT_OF_MEMORY) and (why := _not_the_kernels(spec, case, device)):
        # the backward ran out of memory on a case sized to the device, or while other processes held it: as the
        # forward's, not a verdict on the kernel
        said = [r for r in result.reasons if kind_of(r) in (ReasonKind.REFERENCE_RAISED, ReasonKind.KERNEL_RAISED)]
        result.status, result.skip_kind = Status.SKIPPED, SkipKind.DEVICE
        result.reasons = [_not_run_for_memory(case, why, said[-1] if said else "the backward"),
                          Reason(OUT_OF_MEMORY_WORDS, ReasonKind.OUT_OF_MEMORY)]
        return result
    if errored:
        result.status = Status.ERROR
        if raised is not None:
            _maybe_untrust(result, backend.untrusted_error(raised, device))
        return result
    if result.status is Status.FAILED:
        _maybe_untrust(result, backend.untrusted_precision(case.precision, device))
    return result


def _determinism(kernel: _Kernel, args: Sequence[Any], outs: list[torch.Tensor], expected: list[torch.Tensor],
                 result: CaseResult, repeats: int, pristine: dict[int, torch.Tensor]) -> None:
    differing, max_abs, max_ulp = 0, 0.0, 0.0
    for _ in range(repeats):
        again, _masks = kernel.outputs(args)
        if pristine:  # an output may be the mutated input itself: keep it before the inputs are restored
            again = [o.clone() for o in again]
        for i, copy in pristine.items():
            args[i].copy_(copy)
        for first, second in zip(outs, again, strict=False):
            if first.shape != second.shape:
                differing += first.numel()
                continue
            same = _bits_equal(first, second)
            d = int((~same).sum())
            if d:
                differing += d
                f, s = first.double(), second.double()
                diff = torch.where(torch.isfinite(f) & torch.isfinite(s), (f - s).abs(), torch.zeros_like(f))
                max_abs = max(max_abs, float(diff.max()))
                if first.dtype.is_floating_point:
                    max_ulp = max(max_ulp, float((diff / ulp_spacing(f, first.dtype)).max()))
    result.determinism = Determinism(repeats + 1, differing, max_abs, max_ulp)
    if differing:
        result.warnings.append(Reason(f"not deterministic: {differing} elements differ between runs on the same "
                                      f"inputs (max {max_abs:.3g}, {max_ulp:.3g} ulp)", ReasonKind.NOT_DETERMINISTIC))
        # a repeat that is wrong is a failure of the kernel like the first run's
        for i, (second, exp) in enumerate(zip(again, expected, strict=False)):
            cmp = result.comparisons[i] if i < len(result.comparisons) else None
            if cmp is None or second.shape != exp.shape:
                continue
            tol = cmp.tolerance
            e = exp.to(second.device)
            bad = int(mismatch_mask(second.double(), e, tol, expected_in(e, second.dtype)).sum())
            if bad and cmp.passed:
                cmp.passed = False
                cmp.reasons.append(f"a repeat run on the same inputs has {bad} elements outside the tolerance "
                                   "(the first run passed): the result varies run to run")


def _properties(spec: Spec, case: Case, kernel: _Kernel, args: list[Any], n: int, result: CaseResult) -> None:
    gen = torch.Generator(device=kernel.device)
    gen.manual_seed(case.seed + 7919)
    ctx = PropertyContext(list(args), kernel.run, case.precision, n, gen)
    for prop in spec.properties:
        try:
            why = prop.check(ctx)
        except Exception as exc:
            why = f"raised {_short_traceback(exc)}"
        result.properties.append(PropertyOutcome(prop.name, why is None, why))


def _judge(result: CaseResult) -> None:
    reasons = [Reason(f.describe(), ReasonKind.FINDING) for f in result.findings]
    for cmp in result.comparisons:
        reasons += [Reason(f"{cmp.output}: {r}", ReasonKind.MISMATCH) for r in cmp.reasons]
    if result.mutated_inputs:
        reasons.append(Reason("the kernel changed its inputs: " + ", ".join(result.mutated_inputs),
                              ReasonKind.MUTATED_INPUT))
    for p in result.properties:
        if not p.passed:
            reasons.append(Reason(f"property '{p.name}' does not hold: {p.message}", ReasonKind.PROPERTY))
    result.reasons += reasons
    if result.reasons:
        result.status = Status.FAILED


def _maybe_untrust(result: CaseResult, why: str | None) -> None:
    """Mark ``result`` untrusted for ``why`` (a limit of this machine, from the backend), if there is one."""
    if why:
        result.untrusted = why
        result.status = Status.UNTRUSTED
        result.warnings.append(Reason(f"not blamed on the kernel: {why}; check this case on a GPU",
                                      ReasonKind.UNTRUSTED))


class _Lazy(Generic[_T]):
    """A value computed on first use, then remembered."""

    def __init__(self, fn: Callable[[], _T]) -> None:
        self.fn = fn
        self.value: _T | None = None

    def __call__(self) -> _T:
        if self.value is None:
            self.value = self.fn()
        return self.value


def _dtype_problem(spec: Spec, case: Case, i: int, out: torch.Tensor, ref_floating: bool) -> str | None:
    """Why output ``i``'s dtype breaks the contract, or None. A returned floating output is stored in the case's
    storage dtype unless ``output_dtypes`` says otherwise; outputs kcheck allocates have their declared dtype
    already, and an output whose reference is not floating has no dtype to keep."""
    if spec.outputs is not None or not ref_floating:
        return None
    declared = spec.output_dtypes[i] if spec.output_dtypes is not None and i < len(spec.output_dtypes) else None
    want = declared or PRECISIONS[case.precision].storage
    if out.dtype == want:
        return None
    got, wanted = str(out.dtype).removeprefix("torch."), str(want).removeprefix("torch.")
    if declared is not None:
        return f"dtype {got}, expected {wanted} (declared in output_dtypes[{i}])"
    listed = [str(d) if d is not None else "None" for d in spec.output_dtypes or ()]
    listed += ["None"] * (i + 1 - len(listed))
    listed[i] = f"torch.{got}"
    return (f"dtype {got}, expected {wanted} (the case's precision {case.precision}); declare "
            f"output_dtypes=[{', '.join(listed)}] if that is intended")
