"""Gradient checks for ``Spec(grad=True)``: the kernel's backward against float64 autograd of the reference.

For one case, after the forward outputs are judged:

1. upstream gradients (``grad_outputs``) are drawn per output of the reference that is differentiable, in the kernel
   output's dtype, with the case's seed, layout and device (the ``randn`` pattern: the inputs already carry the
   case's pattern, and an upstream gradient of zeros or NaN would make every gradient zero or NaN and check
   nothing);
2. the reference runs again on the float64 upcast of the inputs, each checked input a leaf that requires grad, and
   ``torch.autograd.grad`` gives the expected gradients (an input the reference does not use has a zero gradient);
3. the kernel runs forward then ``torch.autograd.grad`` with the same upstream gradients (in their own dtype), under
   poisoned allocations and the interpreter's checks where they apply, so a gradient buffer the backward leaves
   partly unwritten shows as such;
4. each gradient is compared under the tolerance model, as a comparison named ``grad of input i (name)``. Its
   reduction length is ``R + L``: ``R`` the product of the forward's ``reduce`` dimensions (1 if none) and ``L``
   the product of the sizes of the Spec's dimensions the input does not have (1 if none): a weight ``w[N]`` of
   ``x[M, N]`` has its gradient summed over the ``M`` rows; independent rounding errors of the two accumulations
   add in variance. The same-precision baseline (FlashAttention's rule) is the reference's own autograd in the
   case's precision.
5. with the case's repeats, forward and backward run again on the same inputs and the gradients are compared bit
   for bit (atomics-based weight gradients are where run-to-run differences come from).

A Spec with an explicit ``backward`` launcher (a kernel whose backward is not behind autograd) replaces step 3:
``backward(*inputs, *grad_outputs, **params, **config)`` is called on the case's inputs (copies where the kernel
mutates them) and the upstream gradients, under the same poisoned allocations and interpreter checks; it returns
the checked inputs' gradients in input order (or one per input, None for the others). The rest is the same.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .._dtypes import PRECISIONS, ulp_spacing
from .._results import CaseResult, Determinism, Reason, ReasonKind, Status
from .._spec import Spec, Tensor
from ..cases import Case, call_kernel, call_reference, make_args, upcast
from ..compare import (
    Comparison,
    Tolerance,
    compare,
    expected_in,
    mismatch_mask,
    reduction_length,
    rms,
    rms_of_inputs,
    tolerance_for,
)
from ._poison import AMBIGUOUS, poison_, unwritten_mask
from ._tensors import as_tuple as _as_tuple

if TYPE_CHECKING:
    from ._execute import Execution

_OOM: type[BaseException] = getattr(torch, "OutOfMemoryError", torch.cuda.OutOfMemoryError)
#: The reason that marks a case out of device memory (its kind is what code reads: a pool runs the case again alone).
OUT_OF_MEMORY_WORDS = "the device ran out of memory"
_aten = torch.ops.aten
#: The ops that return a fresh, undefined allocation: what kcheck poisons (and a probe may zero).
EMPTY_OPS = {_aten.empty, _aten.empty_like, _aten.empty_strided, _aten.new_empty, _aten.new_empty_strided}


class PoisonedBackward(TorchDispatchMode):
    """While active, every tensor from an ``empty`` allocation comes poisoned, in the forward and in the backward:
    autograd runs a Function's backward with the torch-function mode stack cleared (so the forward's
    ``PoisonAllocations`` does not reach it) but keeps dispatch modes. Poisoning a fresh allocation is always
    safe: its contents are undefined until its creator writes them."""

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        if func.overloadpacket in EMPTY_OPS and isinstance(out, torch.Tensor):
            poison_(out)
        return out


def _none(*args: Any) -> None:
    return None


def grad_label(spec: Spec, i: int) -> str:
    """How reports name input ``i``'s gradient."""
    name = getattr(spec.inputs[i], "name", None)
    return f"grad of input {i} ({name})" if name else f"grad of input {i}"


def grad_reduction(spec: Spec, case: Case, i: int) -> int:
    """The reduction length of input ``i``'s gradient: the forward's reduction plus the product of the sizes of the
    dimensions the input does not have (see the module docstring)."""
    return _grad_reduction(spec, case, i)[0]


def _grad_reduction(spec: Spec, case: Case, i: int) -> tuple[int, str]:
    """The reduction length of input ``i``'s gradient and how it was counted, in words."""
    sizes = case.sizes
    own = {d for d in getattr(spec.inputs[i], "dims", ()) if isinstance(d, str)}
    missing = [d for d in spec.dim_names() if d not in own and d in sizes]
    r = reduction_length(tuple(spec.reduce), sizes)
    lacks = math.prod(sizes[d] for d in missing)
    forward = f"{r} (reduce {'*'.join(spec.reduce)})" if spec.reduce else "1"
    broadcast = f"{lacks} (dims the input lacks: {'*'.join(missing)})" if missing else "1"
    return r + lacks, f"gradient reduction n = {forward} + {broadcast} = {r + lacks}"


def upstream_gradients(case: Case, like: Sequence[torch.Tensor], device: str) -> list[torch.Tensor]:
    """One upstream gradient per tensor of ``like`` (same shape and dtype), drawn with the case's pattern machinery
    (``randn``), seed and layout on ``device``; reproducible for the case."""
    if not like:
        return []
    inputs = [Tensor(*t.shape, dtype=t.dtype, pattern="randn") for t in like]
    carrier = Spec(name="grad_outputs", kernel=_none, reference=_none, inputs=inputs, baseline=False)
    return make_args(carrier, dataclasses.replace(case, spec=f"{case.spec}.grad_outputs"), device)


def _leaves(spec: Spec, inputs: Sequence[Any], wanted: Sequence[int]) -> list[Any]:
    """The inputs for one differentiated run: the checked ones as fresh leaves that require grad (same storage and
    strides, so the layout the case chose reaches the kernel), inputs the kernel writes copied."""
    args = [a.clone() if isinstance(a, torch.Tensor) and getattr(spec.inputs[i], "mutated", False) else a
            for i, a in enumerate(inputs)]
    for i in wanted:
        args[i] = args[i].detach().requires_grad_(True)
    return args


def _grads(outs: Sequence[torch.Tensor], leaves: Sequence[torch.Tensor],
           grad_outputs: Sequence[torch.Tensor]) -> list[torch.Tensor | None]:
    if not outs:
        return [None] * len(leaves)
    return list(torch.autograd.grad(list(outs), list(leaves), list(grad_outputs), allow_unused=True))


class GradError(Exception):
    """A stage of the gradient check raised: ``kind`` says whose fault it is."""

    def __init__(self, kind: ReasonKind, text: str) -> None:
        super().__init__(text)
        self.kind = kind


@dataclass(frozen=True)
class GradRules:
    """What the gradient step shares with the forward's judgement: how an exception is described, how bits are
    compared, and the precisions whose same-precision baseline is required or only forgives."""

    describe: Callable[[BaseException], str]
    bits_equal: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    baseline_required: Collection[str]
    baseline_allowance: Collection[str]


def check_gradients(ex: Execution, result: CaseResult, rules: GradRules) -> BaseException | None:
    """Add the gradient comparisons of ``ex`` (an ``Execution`` whose forward ran) to ``result``; an exception in
    the reference's or the kernel's backward makes the case an error that says which. Returns the exception the
    kernel raised (forward run with grad, or backward), for the backend to judge whether it can be blamed."""
    try:
        _check(ex, result, rules)
    except (_OOM, _Raised) as exc:
        inner = exc.exc if isinstance(exc, _Raised) else exc
        if isinstance(inner, _OOM) and ex.case.axis == "large":
            # float64 autograd of the past-2**31 case may not fit beside the kernel's backward: say so, blame no one
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            result.warnings.append(Reason("gradients not checked on this case: the device ran out of memory for "
                                          "float64 autograd of the reference beside the kernel's backward",
                                          ReasonKind.NOTE))
            return None
        stage, kind = ((exc.stage, exc.kind) if isinstance(exc, _Raised)
                       else ("the float64 reference's gradients raised", ReasonKind.REFERENCE_RAISED))
        result.status = Status.ERROR
        result.reasons.append(Reason(f"{stage} {rules.describe(inner)}", kind))
        if isinstance(inner, _OOM):
            # a backward out of memory is marked as the forward's is: a pool runs the case again alone, and the
            # verdict decides, as for the forward, whether the device's memory excuses it (a busy GPU's)
            result.reasons.append(Reason(OUT_OF_MEMORY_WORDS, ReasonKind.OUT_OF_MEMORY))
        return inner if kind is ReasonKind.KERNEL_RAISED else None
    except GradError as err:  # the kernel's fault fails the case (``judge`` sees the reason); the Spec's is an error
        if err.kind is not ReasonKind.MISMATCH:
            result.status = Status.ERROR
        result.reasons.append(Reason(str(err), err.kind))
    return None


class _Raised(Exception):
    def __init__(self, stage: str, kind: ReasonKind, exc: BaseException) -> None:
        super().__init__(stage)
        self.stage, self.kind, self.exc = stage, kind, exc


def _check(ex: Execution, result: CaseResult, rules: GradRules) -> None:
    spec: Spec = ex.spec
    case: Case = ex.case
    device = ex.device.device
    inputs = ex.inputs_before
    wanted = [i for i in spec.grad_inputs() if isinstance(inputs[i], torch.Tensor) and inputs[i].is_floating_point()]
    if not wanted:
        return
    kernel_dtypes = [o.dtype for o in ex.outputs]

    # the reference's gradients, in float64
    ref_args = upcast(inputs)
    try:
        ref_outs = _reference_graph(spec, case, device, ref_args, wanted)
    except Exception as exc:
        raise _Raised("the reference raised (run with grad)", ReasonKind.REFERENCE_RAISED, exc) from exc
    diff = [k for k, e in enumerate(ref_outs) if e.requires_grad and e.is_floating_point()
            and k < len(kernel_dtypes) and kernel_dtypes[k].is_floating_point]
    if not diff:
        raise GradError(ReasonKind.REFERENCE_RAISED, "grad=True but no output of the reference depends "
                                                     "differentiably on the inputs: is it run under torch.no_grad, "
                                                     "or through .detach() or numpy?")
    like = [torch.empty(ref_outs[k].shape, dtype=kernel_dtypes[k]) for k in diff]
    upstream = upstream_gradients(case, like, device)
    up64 = [g.to(torch.float64) for g in upstream]
    try:
        expected = _grads([ref_outs[k] for k in diff], [ref_args[i] for i in wanted], up64)
    except Exception as exc:
        raise _Raised("the reference's backward raised", ReasonKind.REFERENCE_RAISED, exc) from exc
    expected_t = [torch.zeros(ref_args[i].shape, dtype=torch.float64, device=device) if e is None else e.detach()
                  for i, e in zip(wanted, expected, strict=True)]
    del ref_outs, ref_args

    # the kernel's gradients
    assert ex.kernel is not None
    kernel = ex.kernel

    def explicit_grads() -> tuple[list[torch.Tensor | None], list[torch.Tensor]]:
        assert spec.backward is not None
        backward = spec.backward
        args = _leaves(spec, inputs, [])
        with PoisonedBackward():
            try:
                ret = kernel._timed(lambda: call_kernel(backward, spec, case, [*args, *upstream]))
            except Exception as exc:
                raise _Raised("the backward launcher raised", ReasonKind.KERNEL_RAISED, exc) from exc
        return _explicit(spec, ret, wanted), []

    def kernel_grads() -> tuple[list[torch.Tensor | None], list[torch.Tensor]]:
        if spec.backward is not None:
            return explicit_grads()
        args = _leaves(spec, inputs, wanted)
        with torch.enable_grad(), PoisonedBackward():
            try:
                outs = _as_tuple(kernel._timed(lambda: call_kernel(spec.kernel, spec, case, args)), "the kernel")
            except Exception as exc:
                raise _Raised("the kernel raised (run with grad)", ReasonKind.KERNEL_RAISED, exc) from exc
            flat = [outs[k] for k in diff if k < len(outs)]
            dead = [k for k in diff if k >= len(outs) or not outs[k].requires_grad]
            if dead:
                raise GradError(ReasonKind.MISMATCH, f"output {dead[0]} of the kernel does not require grad while "
                                                     "the reference's does: the kernel is not differentiable through "
                                                     "autograd (wrap its launches in a torch.autograd.Function)")
            try:
                grads = kernel._timed(lambda: _grads(flat, [args[i] for i in wanted], upstream))
            except Exception as exc:
                raise _Raised("the kernel's backward raised", ReasonKind.KERNEL_RAISED, exc) from exc
        return [None if g is None else g.detach() for g in grads], flat

    got, _outs = kernel_grads()
    del _outs

    baselines = _baseline_grads(ex, rules, spec, inputs, wanted, diff, upstream, result)
    scales_in = [*inputs, *upstream]
    input_scale = rms_of_inputs(scales_in)
    prec = PRECISIONS[case.precision]
    tols = []
    typical: list[float] | None = None
    spread: list[float] | None = None
    for j, i in enumerate(wanted):
        label = grad_label(spec, i)
        g, exp = got[j], expected_t[j]
        missing = g is None
        if g is None:
            g = torch.zeros(inputs[i].shape, dtype=inputs[i].dtype, device=device)
        n, counted = _grad_reduction(spec, case, i)
        scale = rms(exp)
        tol = tolerance_for(case.precision, g.dtype, n, scale, rtol=spec.rtol, atol=spec.atol,
                            input_scale=input_scale)
        tol = dataclasses.replace(tol, source=f"{tol.source}; {counted}")
        tols.append(tol)
        base = baselines[j] if baselines is not None else None
        if base is not None and base.shape != g.shape:
            base = None
        mask = None if missing or g.dtype in AMBIGUOUS else unwritten_mask(g)

        accumulate = math.sqrt(n) * prec.accumulate_eps

        def compared(tol: Tolerance, zero_scale: float) -> Comparison:
            return compare(label, g, exp, tol, unwritten=mask, baseline=base,  # noqa: B023
                           baseline_factor=spec.baseline_factor,
                           baseline_required=case.precision in rules.baseline_required,
                           accumulate=accumulate, input_scale=zero_scale, inputs=inputs)  # noqa: B023

        cmp = compared(tol, input_scale if scale == 0 else 0.0)
        if scale == 0 and not cmp.passed and spec.atol is None:
            # zero because of this data alone? the same gradient's scale on randn inputs, asked only on a failure
            if typical is None:
                typical = typical_scales(spec, case, device, (wanted, diff, up64))
            if j < len(typical) and typical[j] > input_scale:
                tol = tolerance_for(case.precision, g.dtype, n, scale, rtol=spec.rtol, atol=spec.atol,
                                    input_scale=input_scale, typical=typical[j])
                tols[-1] = tol = dataclasses.replace(tol, source=f"{tol.source}; {counted}")
                cmp = compared(tol, typical[j])
        if not cmp.passed and spec.atol is None and scale > 0 and n > 2 and not missing and case.axis != "large":
            # a gradient that sums many terms (over a reduction or the rows a weight is broadcast along) can be
            # small on this draw by cancellation alone, and its rms(expected) with it, most where it has few
            # elements (a weight of one channel): the error its rounding leaves is the terms' size. Its rms over
            # other upstream gradients is that size (the root of the sum of its terms' squares), asked only on a
            # failure, and not past 2**31 elements (eight float64 backward passes there would not fit)
            if spread is None:
                spread = upstream_spread(spec, case, device, inputs, wanted, diff)
            if j < len(spread) and spread[j] > scale:
                tol = tolerance_for(case.precision, g.dtype, n, spread[j], rtol=spec.rtol, atol=spec.atol)
                words = tol.source.replace("rms(expected)", f"rms of this gradient over {SPREAD_DRAWS} other "
                                                            "upstream gradients")
                tols[-1] = tol = dataclasses.replace(tol, source=f"{words} (on this one its rms is {scale:.3g}: the "
                                                                 f"terms it sums cancel); {counted}")
                cmp = compared(tol, 0.0)
        if missing and not cmp.passed:
            cmp.reasons.insert(0, "the backward returned no gradient (None) for this input")
        result.comparisons.append(cmp)
        if cmp.baseline is not None and cmp.baseline.forgave:
            result.warnings.append(Reason(f"{label}: ill-conditioned case: the framework's own {case.precision} "
                                          "gradient fails this tolerance too; the kernel's is within "
                                          f"{cmp.baseline.factor:g}x of it, so its mismatches are forgiven",
                                          ReasonKind.ILL_CONDITIONED))
    if case.repeats:
        first = [g for g in got]
        _determinism(spec, wanted, first, expected_t, tols, result, case.repeats, kernel_grads, rules.bits_equal)


def _reference_graph(spec: Spec, case: Case, device: str, args: list[Any], wanted: Sequence[int]) -> tuple[Any, ...]:
    """The reference's outputs on ``args`` (float64, the caller's), with grad: each checked input ``wanted`` made a
    fresh leaf that requires grad, in ``args`` itself, so the caller differentiates with respect to ``args[i]``.
    Raises what the reference raises."""
    for i in wanted:
        args[i] = args[i].detach().requires_grad_(True)
    with torch.enable_grad():
        return _as_tuple(call_reference(spec.reference, spec, case, args, device), "the reference")


def typical_scales(spec: Spec, case: Case, device: str,
                   grads: tuple[Sequence[int], Sequence[int], Sequence[torch.Tensor]] | None = None) -> list[float]:
    """The rms of each output of the float64 reference on randn inputs of ``case``'s sizes, precision and seed, or
    with ``grads`` (the inputs checked, the outputs differentiated, the upstream gradients) of each checked gradient:
    the magnitude it has on typical data, for one that is exactly zero on this case's data (points that coincide on
    'ones' data). Empty where the case is already randn or the reference cannot run there."""
    if case.pattern == "randn":
        return []
    typical = dataclasses.replace(case, pattern="randn")
    try:
        args = upcast(make_args(spec, typical, device))
        if grads is None:
            with torch.no_grad():
                outs = _as_tuple(call_reference(spec.reference, spec, typical, args, device), "the reference")
            return [rms(e) if e.is_floating_point() else 0.0 for e in outs]
        wanted, diff, upstream = grads
        outs = _reference_graph(spec, typical, device, args, wanted)
        got = _grads([outs[k] for k in diff], [args[i] for i in wanted], list(upstream))
        return [0.0 if g is None else rms(g.detach()) for g in got]
    except Exception:  # a reference that refuses randn data (a domain it checks) gives no scale: the inputs' stays
        return []


#: How many upstream gradients ``upstream_spread`` draws: the rms over them estimates a gradient's size within
#: about a quarter (a chi-square of 8 degrees of freedom per element).
SPREAD_DRAWS = 8


def upstream_spread(spec: Spec, case: Case, device: str, inputs: Sequence[Any], wanted: Sequence[int],
                    diff: Sequence[int]) -> list[float]:
    """The rms of each checked gradient of the float64 reference over ``SPREAD_DRAWS`` upstream gradients drawn anew
    (randn, seeded by the case): the size of the gradient on typical upstream data. A gradient is linear in its
    upstream gradient g, sum_j g_j t_j, so its mean square over random g is sum_j t_j^2, whatever this draw's
    cancellation. Empty where the reference cannot run so."""
    try:
        args = upcast(inputs)
        outs = _reference_graph(spec, case, device, args, wanted)
        flat = [outs[k] for k in diff]
        gen = torch.Generator(device=device).manual_seed(case.seed * 1_000_003 + 17)
        squares = [0.0] * len(wanted)
        for _ in range(SPREAD_DRAWS):
            up = [torch.randn(o.shape, dtype=torch.float64, device=device, generator=gen) for o in flat]
            got = torch.autograd.grad(flat, [args[i] for i in wanted], up, retain_graph=True, allow_unused=True)
            for j, g in enumerate(got):
                if g is not None:
                    squares[j] += rms(g.detach()) ** 2
        return [math.sqrt(s / SPREAD_DRAWS) for s in squares]
    except Exception:  # a reference whose graph cannot run twice: the case's own scale stays
        return []


def _explicit(spec: Spec, ret: Any, wanted: Sequence[int]) -> list[torch.Tensor | None]:
    """The gradients an explicit backward returned, one per checked input (see the module docstring)."""
    grads = list(ret) if isinstance(ret, (tuple, list)) else [ret]
    if len(grads) == len(spec.inputs) and len(grads) != len(wanted):
        grads = [grads[i] for i in wanted]
    if len(grads) != len(wanted) or not all(g is None or isinstance(g, torch.Tensor) for g in grads):
        names = ", ".join(grad_label(spec, i) for i in wanted)
        raise GradError(ReasonKind.MISMATCH, f"the backward launcher returned {len(grads)} values "
                                             f"({', '.join(type(g).__name__ for g in grads)}); it must return "
                                             f"{len(wanted)} gradients ({names}), or one per input with None for "
                                             "the others")
    return [None if g is None else g.detach() for g in grads]


def _baseline_grads(ex: Execution, rules: GradRules, spec: Spec, inputs: Sequence[Any], wanted: Sequence[int],
                    diff: Sequence[int], upstream: Sequence[torch.Tensor],
                    result: CaseResult) -> list[torch.Tensor | None] | None:
    """The reference's gradients in the case's own precision (the baseline of FlashAttention's rule), or None
    where the Spec has no baseline for this precision or it cannot run."""
    case = ex.case
    if spec.baseline is False or case.precision not in {*rules.baseline_required, *rules.baseline_allowance}:
        return None
    fn = spec.reference if spec.baseline is True else spec.baseline
    args = _leaves(spec, inputs, wanted)
    try:
        with torch.enable_grad():
            outs = _as_tuple(call_reference(fn, spec, case, args, ex.device.device),  # type: ignore[arg-type]
                             "the baseline")
            flat = [outs[k] for k in diff]
            if not all(o.requires_grad for o in flat):
                raise TypeError("the baseline's outputs do not require grad")
            grads = _grads(flat, [args[i] for i in wanted], [u.to(o.dtype) for u, o in zip(upstream, flat,
                                                                                          strict=True)])
    except Exception as exc:  # e.g. an op with no backward for this dtype on this device
        result.warnings.append(Reason(f"no same-precision baseline for the gradients ({type(exc).__name__}: "
                                      f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}); table "
                                      "tolerance only", ReasonKind.NO_BASELINE))
        return None
    return [None if g is None else g.detach() for g in grads]


def _determinism(spec: Spec, wanted: Sequence[int], first: Sequence[torch.Tensor | None],
                 expected: Sequence[torch.Tensor], tols: Sequence[Tolerance], result: CaseResult, repeats: int,
                 run: Callable[[], tuple[list[torch.Tensor | None], list[torch.Tensor]]],
                 bits_equal: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> None:
    """Forward and backward again on the same inputs; gradients compared bit for bit, and a repeat that falls
    outside the tolerance fails its gradient as the first run's would."""
    differing, max_abs, max_ulp = 0, 0.0, 0.0
    per: dict[int, int] = {}
    again: list[torch.Tensor | None] = list(first)
    for _ in range(repeats):
        again, _outs = run()
        for j, (a, b) in enumerate(zip(first, again, strict=True)):
            if a is None or b is None or a.shape != b.shape:
                continue
            d = int((~bits_equal(a, b)).sum())
            if not d:
                continue
            differing += d
            per[j] = per.get(j, 0) + d
            f, s = a.double(), b.double()
            delta = torch.where(torch.isfinite(f) & torch.isfinite(s), (f - s).abs(), torch.zeros_like(f))
            max_abs = max(max_abs, float(delta.max()))
            max_ulp = max(max_ulp, float((delta / ulp_spacing(f, a.dtype)).max()))
    old = result.determinism
    if old is None:
        result.determinism = Determinism(repeats + 1, differing, max_abs, max_ulp)
    else:
        result.determinism = Determinism(old.runs, old.differing + differing, max(old.max_abs, max_abs),
                                         max(old.max_ulp, max_ulp))
    if not differing:
        return
    which = ", ".join(f"{grad_label(spec, wanted[j])} ({d})" for j, d in per.items())
    result.warnings.append(Reason(f"gradients not deterministic: elements differ between runs on the same inputs: "
                                  f"{which} (max {max_abs:.3g}, {max_ulp:.3g} ulp)", ReasonKind.NOT_DETERMINISTIC))
    by_name = {c.output: c for c in result.comparisons}
    for j, second in enumerate(again):
        cmp = by_name.get(grad_label(spec, wanted[j]))
        if cmp is None or second is None or second.shape != expected[j].shape:
            continue
        e = expected[j].to(second.device)
        bad = int(mismatch_mask(second.double(), e, tols[j], expected_in(e, second.dtype)).sum())
        if bad and cmp.passed:
            cmp.passed = False
            cmp.reasons.append(f"a repeat run on the same inputs has {bad} elements outside the tolerance (the "
                               "first run passed): the gradient varies run to run")
