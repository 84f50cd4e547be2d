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
from dataclasses import dataclass
from typing import Any

import torch

from .._device import DeviceInfo, interpreter_active
from .._dtypes import PRECISIONS, ulp_spacing
from .._findings import Finding, deduplicate
from .._results import CaseResult, Determinism, PropertyOutcome, Status, Timing
from .._spec import Spec, Tensor
from ..backends import kernel_frame, synchronize, untrusted_error, untrusted_reason
from ..cases import Case, SkipKind, index_range_problem, make_args, upcast
from ..cases._inputs import shape_of
from ..cases._matrix import SNAPSHOT_MAX_ELEMENTS
from ..compare import (
    compare,
    expected_in,
    mismatch_mask,
    noop_guard,
    reduction_length,
    rms,
    rms_of_inputs,
    tolerance_for,
)
from ..properties import PropertyContext
from ._poison import AMBIGUOUS, PoisonAllocations, poison_, unwritten_mask

#: Precisions whose same-precision baseline is a requirement (FlashAttention's rule); for fp32 it only forgives
#: ill-conditioned cases. tf32 has none: implementations round its operands differently (Triton truncates,
#: cuBLAS rounds to nearest and ignores TF32 for matrix-vector shapes), so "the framework's tf32" is not defined.
_BASELINE_REQUIRED = {"bf16", "fp16", "fp8e4m3", "fp8e5m2"}
_BASELINE_ALLOWANCE = {"fp32"}


def _as_tuple(value: Any, what: str) -> tuple[torch.Tensor, ...]:
    if isinstance(value, torch.Tensor):
        return (value,)
    if isinstance(value, (tuple, list)) and all(isinstance(v, torch.Tensor) for v in value):
        return tuple(value)
    raise TypeError(f"{what} returned {type(value).__name__}; it must return a tensor or a tuple of tensors")


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
    clamp treat NaN as a GPU does (``interpret.gpu_semantics``)."""
    if not interpreter_active():
        yield
        return
    from ..interpret import gpu_semantics

    with warnings.catch_warnings(), gpu_semantics():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@dataclass(frozen=True)
class RunOptions:
    """How cases run. ``interpreter_checks``: in Triton's interpreter, check every load, store and atomic against
    the launch's tensors and find races between programs (M7); ``order``: the order programs run in there
    ("sequential", "reversed", "random")."""

    interpreter_checks: bool = True
    order: str = "sequential"


class _Kernel:
    """Calls the Spec's kernel with poisoned outputs, under the interpreter's checks when they apply, and accounts
    its time and findings."""

    def __init__(self, spec: Spec, case: Case, device: str, checks: RunOptions | None = None) -> None:
        self.spec, self.case, self.device = spec, case, device
        self.seconds = 0.0
        self.checks = checks  # None: no interpreter checks (a GPU, a torch kernel, or turned off)
        self.findings: list[Finding] = []

    @contextlib.contextmanager
    def _call(self) -> Iterator[None]:
        with _quiet_interpreter():
            if self.checks is None:
                yield
                return
            from ..interpret import checked

            with checked(order=self.checks.order, seed=self.case.seed, benign=self.spec.benign) as report:
                yield
            self.findings += report.findings

    def _timed(self, call: Callable[[], Any]) -> Any:
        """Run the kernel call (under the interpreter's checks when they apply), wait for it, account its time."""
        t0 = time.perf_counter()
        with self._call():
            ret = call()
        synchronize(self.device)
        self.seconds += time.perf_counter() - t0
        return ret

    def outputs(self, args: Sequence[Any]) -> tuple[list[torch.Tensor], list[torch.Tensor | None]]:
        """Run once; return the outputs and, per output, where it still holds poison (None if unknown)."""
        spec, case = self.spec, self.case
        config = case.config_dict
        storage = PRECISIONS[case.precision].storage
        if spec.outputs is not None:
            outs = []
            for t in spec.outputs:
                assert isinstance(t, Tensor)
                buf = torch.empty(shape_of(t.dims, case.sizes), dtype=t.dtype or storage, device=self.device)
                outs.append(buf.zero_() if t.pattern == "zeros" else poison_(buf))
            self._timed(lambda: spec.kernel(*args, *outs, **config))
            masks = [None if (t.pattern == "zeros") else unwritten_mask(o) for t, o in zip(spec.outputs, outs,
                                                                                        strict=True)]
        else:
            with PoisonAllocations():
                outs = list(_as_tuple(self._timed(lambda: spec.kernel(*args, **config)), "the kernel"))
            masks = [unwritten_mask(o) for o in outs]
        masks = [None if (m is None or o.dtype in AMBIGUOUS) else m for m, o in zip(masks, outs, strict=True)]
        return outs, masks

    def run(self, *args: Any) -> tuple[torch.Tensor, ...]:
        return tuple(self.outputs(args)[0])


def _bits_equal(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.dtype.is_floating_point:
        return (a == b) | (torch.isnan(a) & torch.isnan(b))
    return a == b


def _fingerprint(t: torch.Tensor, chunk: int = 1 << 24) -> tuple[int, int]:
    """Order-sensitive checksum of a tensor's bits, for inputs too large to copy."""
    bits = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    flat = t.reshape(-1).view(bits)
    s1 = s2 = 0
    for start in range(0, flat.numel(), chunk):
        part = flat[start:start + chunk].to(torch.int64)
        w = torch.arange(start + 1, start + 1 + part.numel(), device=part.device, dtype=torch.int64)
        s1 = (s1 + int(part.sum())) % (1 << 61)
        s2 = (s2 + int((part * w).sum())) % (1 << 61)
    return s1, s2


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


def run_case(spec: Spec, case: Case, device: DeviceInfo, framework: str,
             options: RunOptions | None = None) -> CaseResult:
    """Run ``case`` of ``spec`` on ``device`` and judge it. Never raises for the kernel's faults."""
    t_start = time.perf_counter()
    timing = Timing()
    result = CaseResult(case, Status.PASSED, timing=timing)
    case_skip, kind = case.skip, case.skip_kind or SkipKind.DEVICE
    if case_skip is None and (problem := index_range_problem(spec, case)):
        case_skip, kind = problem, SkipKind.SPEC
    if not case_skip and framework == "cuda" and not device.is_gpu:
        case_skip, kind = "CUDA C kernels run on a GPU only; here their source is compiled for sm_90 and checked", \
            SkipKind.DEVICE
    if case_skip:
        result.status, result.reasons, result.skip_kind = Status.SKIPPED, [case_skip], kind
        return result
    try:
        _run(spec, case, device, framework, result, options or RunOptions())
    finally:
        timing.total = time.perf_counter() - t_start
    return result


def _run(spec: Spec, case: Case, device: DeviceInfo, framework: str, result: CaseResult,
         options: RunOptions) -> None:
    dev = device.device
    timing = result.timing
    try:
        args = make_args(spec, case, dev)
    except Exception as exc:
        result.status, result.reasons = Status.ERROR, [f"building the inputs raised {_short_traceback(exc)}"]
        return
    t0 = time.perf_counter()
    try:
        with torch.no_grad():
            raw = _as_tuple(spec.reference(*upcast(args)), "the reference")
            ref_floating = [e.is_floating_point() for e in raw]
            expected = [e.to(torch.float64) for e in raw]
            del raw
    except Exception as exc:
        result.status, result.reasons = Status.ERROR, [f"the reference raised {_short_traceback(exc)}"]
        return
    timing.reference = time.perf_counter() - t0
    pristine = {i: a.clone() for i, a in enumerate(args) if getattr(spec.inputs[i], "mutated", False)
                and isinstance(a, torch.Tensor)}
    # the inputs as they were before any call: an in-place kernel writes into ``args``
    inputs_before = [pristine.get(i, a) for i, a in enumerate(args)]
    baselines: list[torch.Tensor] | None = None
    if spec.baseline is not False and case.precision in _BASELINE_REQUIRED | _BASELINE_ALLOWANCE:
        fn = spec.reference if spec.baseline is True else spec.baseline
        t0 = time.perf_counter()
        try:
            with torch.no_grad():
                b_args = [a.clone() if i in pristine else a for i, a in enumerate(inputs_before)]
                baselines = list(_as_tuple(fn(*b_args), "the baseline"))  # type: ignore[operator]
        except Exception as exc:  # e.g. an op with no kernel for this dtype on this device
            result.warnings.append(f"no same-precision baseline ({_short_traceback(exc)}); table tolerance only")
        timing.baseline = time.perf_counter() - t0
    snapshot = {i: _snapshot(a) for i, a in enumerate(args) if isinstance(a, torch.Tensor)
                and not getattr(spec.inputs[i], "mutated", False)}
    checks = options if (options.interpreter_checks and framework == "triton" and device.interpreter) else None
    kernel = _Kernel(spec, case, dev, checks)
    try:
        outs, masks = kernel.outputs(args)
    except Exception as exc:
        timing.kernel = kernel.seconds
        result.findings = deduplicate(kernel.findings)
        result.status, result.reasons = Status.ERROR, [f"the kernel raised {_short_traceback(exc)}"]
        limitation = untrusted_error(framework, exc, device)
        if limitation:
            _untrust(result, limitation)
        else:
            _maybe_untrust(result, framework, case, device)
        return
    n = reduction_length(tuple(spec.reduce), case.sizes)
    names = [f"output {i}" for i in range(len(outs))]
    if len(outs) != len(expected):
        result.status = Status.FAILED
        result.reasons.append(f"the kernel returned {len(outs)} outputs, the reference {len(expected)}")
    input_scale = _Lazy(lambda: rms_of_inputs(inputs_before))
    for i, (out, exp) in enumerate(zip(outs, expected, strict=False)):
        exp = exp.to(out.device)
        scale = rms(exp)
        tol = tolerance_for(case.precision, out.dtype, n, scale, rtol=spec.rtol, atol=spec.atol,
                            input_scale=input_scale)
        base = baselines[i] if baselines is not None and i < len(baselines) else None
        if base is not None and base.shape != out.shape:
            base = None
        cmp = compare(names[i], out, exp, tol, unwritten=masks[i], baseline=base,
                      baseline_factor=spec.baseline_factor,
                      baseline_required=case.precision in _BASELINE_REQUIRED,
                      accumulate=math.sqrt(n) * PRECISIONS[case.precision].accumulate_eps,
                      input_scale=input_scale() if scale == 0 else 0.0)
        result.comparisons.append(cmp)
        wrong_dtype = _dtype_problem(spec, case, i, out, ref_floating[i])
        if wrong_dtype:
            cmp.passed = False
            cmp.reasons.insert(0, wrong_dtype)
        if cmp.baseline is not None and cmp.baseline.forgave:
            b = cmp.baseline
            result.warnings.append(
                f"{names[i]}: ill-conditioned case: the framework's own {case.precision} result fails this "
                f"tolerance too ({b.baseline_mismatches} elements, max error {b.baseline_max_abs:.3g}); the "
                f"kernel's {b.kernel_max_abs:.3g} is within {b.factor:g}x of it, so its mismatches are forgiven")
        verdict = noop_guard(out, exp, tol, inputs_before)
        result.weak += [f"{names[i]}: {w}" for w in verdict.weak]
        if verdict.caught and result.noop is None:
            result.noop = f"{names[i]} is exactly {verdict.caught}"
            cmp.passed = False
            cmp.reasons.append(f"no-op: the output is exactly {verdict.caught}, which this tolerance cannot tell "
                               "from the reference; the kernel did not compute it")
    for i, before in snapshot.items():
        what = _changed(before, args[i])
        if what:
            result.mutated_inputs.append(f"{_names(spec)[i]} ({what})")
    if pristine:  # in-place kernels: repeats and properties start from the same inputs
        outs = [o.clone() for o in outs]  # an output may be the mutated input itself
        for i, copy in pristine.items():
            args[i].copy_(copy)
    if case.repeats:
        _determinism(kernel, args, outs, expected, result, case.repeats, pristine)
    if case.properties and spec.properties:
        _properties(spec, case, kernel, args, n, result)
    timing.kernel = kernel.seconds
    result.findings = deduplicate(kernel.findings)
    _judge(result)
    if result.status is Status.FAILED:
        _maybe_untrust(result, framework, case, device)


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
        result.warnings.append(f"not deterministic: {differing} elements differ between runs on the same inputs "
                               f"(max {max_abs:.3g}, {max_ulp:.3g} ulp)")
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
    reasons = [f.describe() for f in result.findings]
    for cmp in result.comparisons:
        reasons += [f"{cmp.output}: {r}" for r in cmp.reasons]
    if result.mutated_inputs:
        reasons.append("the kernel changed its inputs: " + ", ".join(result.mutated_inputs))
    for p in result.properties:
        if not p.passed:
            reasons.append(f"property '{p.name}' does not hold: {p.message}")
    result.reasons += reasons
    if result.reasons:
        result.status = Status.FAILED


def _maybe_untrust(result: CaseResult, framework: str, case: Case, device: DeviceInfo) -> None:
    why = untrusted_reason(framework, case.precision, device)
    if why:
        _untrust(result, why)


def _untrust(result: CaseResult, why: str) -> None:
    result.untrusted = why
    result.status = Status.UNTRUSTED
    result.warnings.append(f"not blamed on the kernel: {why}; check this case on a GPU")


class _Lazy:
    """A float computed on first use, then remembered."""

    def __init__(self, fn: Callable[[], float]) -> None:
        self.fn = fn
        self.value: float | None = None

    def __call__(self) -> float:
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
