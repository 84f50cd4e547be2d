"""Probes: one case of a Spec, or of a variant of it, run and judged exactly as ``kcheck check`` judges it.

A variant changes what the kernel and the reference see in the same way (inputs scaled, one input replaced by ones,
the reference of a transposed input) or how outputs are allocated (zeroed instead of poisoned), so that the
difference between a probe and the plain case is evidence. Every probe is an :class:`Experiment` in the Diagnosis.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from .._device import DeviceInfo
from .._discover import locate
from .._results import CaseResult, Status
from .._spec import Spec, Tensor
from ..backends import backend_of
from ..cases import Case, skip_reason, upcast
from ..report import summarize_case
from ..run import EMPTY_OPS, Isolated, RunOptions, as_tuple, load_factor, run_case
from ._causes import Experiment


class _ZeroEmpty(TorchFunctionMode):
    """Zero what ``torch.empty``/``empty_like``/``empty_strided``/``new_empty`` return inside the kernel (after
    kcheck's poisoning, which covers the same calls); ``zeroed`` counts them."""

    zeroed = 0

    def __torch_function__(self, func: Any, types: Any, args: Sequence[Any] = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        if func in (torch.empty, torch.empty_like, torch.empty_strided, torch.Tensor.new_empty) \
                and isinstance(out, torch.Tensor):
            out.zero_()
            self.zeroed += 1
        return out


class NothingZeroed(RuntimeError):
    """The zeroed-outputs probe of a kernel whose outputs are not allocated where kcheck poisons (it writes its
    inputs in place and returns them): the probe would be the plain case run again, and a pass would say only that
    runs differ."""


class _ZeroBackward(TorchDispatchMode):
    """Zero what an ``empty`` allocation returns while a backward runs. Autograd runs a backward with the
    torch-function modes cleared, so ``_ZeroEmpty`` does not reach it; dispatch modes stay, and this one, entered
    last, zeroes after kcheck's poisoning of the same allocation."""

    def __torch_dispatch__(self, func: Any, types: Any, args: Sequence[Any] = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        if func.overloadpacket in EMPTY_OPS and isinstance(out, torch.Tensor):
            out.zero_()
        return out


class _ZeroedCall(torch.autograd.Function):
    """The kernel's forward and backward as one node, so that its backward runs inside ``_ZeroBackward`` (a mode
    entered and left within this node's own backward: a backward that raises leaves no mode behind). The forward
    records the kernel's graph on detached copies of the leaves; the backward differentiates through it."""

    @staticmethod
    def forward(ctx: Any, call: Callable[[list[torch.Tensor]], list[torch.Tensor]],
                *leaves: torch.Tensor) -> tuple[torch.Tensor, ...]:
        inner = [t.detach().requires_grad_(True) for t in leaves]
        with torch.enable_grad():
            outs = call(inner)
        ctx.inner, ctx.outs = inner, outs
        given = tuple(o.detach() for o in outs)
        ctx.mark_non_differentiable(*[d for d, o in zip(given, outs, strict=True) if not o.requires_grad])
        return given

    @staticmethod
    def backward(ctx: Any, *grads: torch.Tensor | None) -> tuple[Any, ...]:
        pairs = [(o, g) for o, g in zip(ctx.outs, grads, strict=True) if o.requires_grad and g is not None]
        if not pairs:
            return (None, *[None for _ in ctx.inner])
        with _ZeroBackward():
            got = torch.autograd.grad([o for o, _ in pairs], ctx.inner, [g for _, g in pairs], allow_unused=True)
        return (None, *got)


def _zeroed_backward(call: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """``call(*args, **kwargs)`` with its backward's allocations zeroed, where grad is on, some argument requires
    it and the call returns tensors (one, or a tuple or list of them); else the plain call."""
    leaves = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.requires_grad]
    if not (torch.is_grad_enabled() and leaves):
        return call(*args, **kwargs)
    shape: list[Any] = []

    def inner(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
        full = list(args)
        for i, t in zip(leaves, tensors, strict=True):
            full[i] = t
        out = call(*full, **kwargs)
        shape.append(out)
        outs = [out] if isinstance(out, torch.Tensor) else list(out) if isinstance(out, (tuple, list)) else []
        if not outs or not all(isinstance(o, torch.Tensor) for o in outs):
            raise _NotTensors
        return outs

    try:
        outs = _ZeroedCall.apply(inner, *[args[i] for i in leaves])
    except _NotTensors:
        return shape[0]  # no tensor to differentiate: the forward's result as the kernel returned it
    out = shape[0]
    return outs[0] if isinstance(out, torch.Tensor) else list(outs) if isinstance(out, list) else tuple(outs)


class _NotTensors(Exception):
    """The kernel returned something other than tensors: nothing for ``_ZeroedCall`` to differentiate."""


def zeroed_outputs(spec: Spec) -> Spec:
    """The Spec with its outputs zeroed before the call instead of poisoned, and what the kernel and its backward
    allocate (a buffer a sum or a gradient is added into) zeroed as well."""
    if spec.outputs is not None:
        outs = [Tensor(*t.dims, dtype=t.dtype, pattern="zeros", mutated=t.mutated, name=t.name)
                for t in spec.outputs]
        given = spec.kernel

        @functools.wraps(given)
        def plain(*args: Any, **kwargs: Any) -> Any:
            def call(*a: Any, **kw: Any) -> Any:
                with _ZeroEmpty():  # and what the launcher allocates itself (a buffer it adds into, copied out)
                    return given(*a, **kw)

            return _zeroed_backward(call, args, kwargs)

        return dataclasses.replace(spec, outputs=outs, kernel=plain, backward=_zeroed_explicit(spec.backward))
    kernel = spec.kernel

    @functools.wraps(kernel)  # __wrapped__: the wrapper keeps the launcher's framework (interpreter checks)
    def run(*args: Any, **kwargs: Any) -> Any:
        mode = _ZeroEmpty()

        def call(*a: Any, **kw: Any) -> Any:
            with mode:
                return kernel(*a, **kw)

        out = _zeroed_backward(call, args, kwargs)
        outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(o, torch.Tensor)]
        given = {a.untyped_storage().data_ptr() for a in args if isinstance(a, torch.Tensor)}
        if not (mode.zeroed or spec.grad) or (outs and all(o.untyped_storage().data_ptr() in given for o in outs)):
            raise NothingZeroed("the kernel's outputs are its inputs, written in place: zeroing its allocations "
                                "leaves them as they were, and this probe does not apply")
        return out

    return dataclasses.replace(spec, kernel=run, backward=_zeroed_explicit(spec.backward))


def _zeroed_explicit(backward: Callable[..., Any] | None) -> Callable[..., Any] | None:
    """A Spec's explicit backward launcher with what it allocates zeroed (it runs outside autograd, where
    ``_ZeroEmpty`` reaches)."""
    if backward is None:
        return None
    b = backward

    @functools.wraps(b)
    def zeroed(*args: Any, **kwargs: Any) -> Any:
        with _ZeroEmpty():
            return b(*args, **kwargs)

    return zeroed


class _GradThrough(torch.autograd.Function):
    """The values of ``new``, the gradient of ``old``: an input a probe replaced stays on the gradient's path."""

    @staticmethod
    def forward(ctx: Any, old: torch.Tensor, new: torch.Tensor) -> torch.Tensor:
        return new.view_as(new)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        return grad, None


def _on_grad_path(old: list[Any], new: list[Any]) -> list[Any]:
    """``new``, where each input that replaced one requiring grad (a copy, built apart from it) takes its gradient
    back to it. Without this, a replaced input's gradient is zero for the kernel and the reference alike: the
    comparison of that gradient passes, and a backward that fails only there (a gradient buffer never zeroed) was
    "rescued" by the probe."""
    return [_GradThrough.apply(a, b) if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.requires_grad
            and not b.requires_grad and a.shape == b.shape else b for a, b in zip(old, new, strict=True)]


def transformed(spec: Spec, transform: Callable[[list[Any]], list[Any]], *, kernel_too: bool = True,
                reference_too: bool = True) -> Spec:
    """The Spec whose kernel (unless ``kernel_too`` is False) and reference (unless ``reference_too`` is False) see
    ``transform(inputs)``. Outputs the Spec allocates follow the inputs, so the transform must keep shapes. Inputs
    the transform replaces keep their gradients (``_on_grad_path``)."""
    kernel, reference = spec.kernel, spec.reference
    n_in = len(spec.inputs)

    def apply(args: list[Any]) -> list[Any]:
        return _on_grad_path(args, transform(args))

    @functools.wraps(kernel)  # __wrapped__: the wrapper keeps the launcher's framework (interpreter checks)
    def k(*args: Any, **kwargs: Any) -> Any:
        return kernel(*apply(list(args[:n_in])), *args[n_in:], **kwargs)

    def r(*args: Any, **kwargs: Any) -> Any:  # kwargs: the case's modes (Spec.params)
        return reference(*apply(list(args)), **kwargs)

    baseline = spec.baseline
    if callable(baseline) and baseline is not True:
        b = baseline

        def baseline(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            return b(*apply(list(args)), **kwargs)

    return dataclasses.replace(spec, kernel=k if kernel_too else kernel, reference=r if reference_too else reference,
                               baseline=baseline if reference_too else spec.baseline)


def scaled(spec: Spec, factor: float) -> Spec:
    def t(args: list[Any]) -> list[Any]:
        return [a * factor if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]

    return transformed(spec, t)


def same_layout(a: torch.Tensor) -> torch.Tensor:
    """A copy of ``a`` with its exact layout (sizes, strides, storage offset, padding): a strided case stays strided
    (``ones_like``/``clone`` would make a padded view contiguous)."""
    span = a.untyped_storage().nbytes() // a.element_size()
    storage = torch.as_strided(a.detach(), (span,), (1,), 0).clone()
    return torch.as_strided(storage, a.size(), a.stride(), a.storage_offset())


def ones_at(spec: Spec, index: int | tuple[int, ...]) -> Spec:
    """The kernel and the reference given input ``index`` (or each of several inputs) all ones."""
    which = {index} if isinstance(index, int) else set(index)

    def t(args: list[Any]) -> list[Any]:
        return [same_layout(a).fill_(1) if i in which and isinstance(a, torch.Tensor) else a
                for i, a in enumerate(args)]

    return transformed(spec, t)


def reference_of_transposed(spec: Spec, index: int) -> Spec:
    """The kernel unchanged, the reference given input ``index`` transposed (its last two dims; square only)."""

    def t(args: list[Any]) -> list[Any]:
        return [a.transpose(-1, -2).contiguous() if i == index else a for i, a in enumerate(args)]

    return transformed(spec, t, kernel_too=False)


def _input_replaced(spec: Spec, index: int, values: Callable[[torch.Tensor], torch.Tensor | None]) -> Spec:
    """The kernel and the reference given input ``index`` replaced by ``values`` of it (in float64; None: left as
    it is), copied into the input's own layout."""

    def t(args: list[Any]) -> list[Any]:
        out = list(args)
        a = args[index]
        if isinstance(a, torch.Tensor) and a.is_floating_point():
            v = values(a.double())
            if v is not None:
                out[index] = same_layout(a).copy_(v)
        return out

    return transformed(spec, t)


def symmetrized(spec: Spec, index: int) -> Spec:
    """The kernel and the reference given input ``index`` made symmetric in its last two dims, (X + X^T) / 2 in the
    input's own layout (square, floating inputs only): its rows and its columns then hold the same values, so a
    kernel that reads one where it should read the other, or reduces along the other axis, is right."""
    return _input_replaced(spec, index, lambda a: (a + a.transpose(-1, -2)) / 2
                           if a.dim() >= 2 and a.shape[-1] == a.shape[-2] else None)


def _shuffled_mean(a: torch.Tensor) -> torch.Tensor | None:
    if a.numel() <= 1:
        return None
    flat = a.reshape(-1)
    # on the CPU, whatever the default device is (a GPU worker's): a CPU generator draws CPU permutations
    perm = torch.randperm(flat.numel(), generator=torch.Generator().manual_seed(0), device="cpu").to(a.device)
    return ((flat + flat[perm]) / 2).reshape(a.shape)


def averaged_shuffled(spec: Spec, index: int) -> Spec:
    """The control of ``symmetrized``: the kernel and the reference given input ``index`` averaged with a shuffled
    copy of itself (a fixed permutation of its elements), in its own layout. Its values change as the symmetric
    input's do (each the mean of two), with no structure: a kernel right on this data too was failed by the
    values, not by their places."""
    return _input_replaced(spec, index, _shuffled_mean)


def swapped_inputs(spec: Spec, i: int, j: int) -> Spec:
    """The kernel given inputs ``i`` and ``j`` in each other's place (same shapes), the reference as it was: a kernel
    that passes so reads its operands in each other's roles."""

    def t(args: list[Any]) -> list[Any]:
        out = list(args)
        out[i], out[j] = args[j], args[i]
        return out

    return transformed(spec, t, reference_too=False)


#: What the elements the reference ignores are set to: far from any value of ordinary data, finite in fp16.
BUMP = 1000.0


def ignored_region(spec: Spec, args: Sequence[Any], index: int, modes: dict[str, Any],
                   region: str) -> torch.Tensor | None:
    """The elements of input ``index`` that the reference's outputs do not depend on (zero float64 gradient under
    positive random weights), restricted to ``region``: "boundary", those next to an element it uses (one step along
    any dimension; the first element of a row it ignores whole, along the last one), or "far", the others. None when
    the reference is not differentiable there or ignores nothing. A max's gradient reaches only its largest element,
    so the others look ignored, and raising them moves the outputs: there the gradient is taken again with every
    element of the input equal, where torch spreads a max's gradient over the tied values."""
    x = args[index]
    if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.dim() >= 1 and x.numel()):
        return None
    found = _ignored_region(spec, args, index, modes, region, tied=False)
    if isinstance(found, _Moved):
        found = _ignored_region(spec, args, index, modes, region, tied=True)
    return found if isinstance(found, torch.Tensor) else None


class _Moved:
    """The region the gradient gave moves the reference's outputs when raised (a max's other elements)."""


def _ignored_region(spec: Spec, args: Sequence[Any], index: int, modes: dict[str, Any], region: str,
                    tied: bool) -> torch.Tensor | _Moved | None:
    """``ignored_region`` with the gradient taken at the inputs, or (``tied``) with input ``index`` all ones; the
    region is checked at the inputs either way, and ``_Moved`` says it failed that check."""
    xs = [a.detach().to(torch.float64, copy=True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
          for a in args]
    at = list(xs)
    at[index] = torch.ones_like(xs[index]) if tied else xs[index]
    at[index].requires_grad_(True)
    try:
        with torch.enable_grad():
            out = spec.reference(*at, **modes)
            every = [o for o in (out if isinstance(out, tuple) else (out,)) if isinstance(o, torch.Tensor)]
            outs = [o for o in every if o.requires_grad]
            if not outs:
                return None
            gen = torch.Generator().manual_seed(0)
            total = sum(((o * (torch.rand(o.shape, generator=gen, dtype=torch.float64) + 0.5).to(o.device))
                         .nan_to_num(0.0).sum() for o in outs), torch.zeros((), dtype=torch.float64))
            (grad,) = torch.autograd.grad(total, at[index], allow_unused=True)
        if tied:  # the outputs to keep are those of the inputs themselves
            plain = spec.reference(*xs, **modes)
            every = [o for o in (plain if isinstance(plain, tuple) else (plain,)) if isinstance(o, torch.Tensor)]
    except Exception:  # a reference that cannot be differentiated: no region
        return None
    if grad is None:
        return None
    used = grad.detach() != 0
    ignored = ~used
    # a reference that uses no element of the input here (a variance over one element: 0 whatever the value) has no
    # boundary to be read past; what the kernel does with the input is then its arithmetic, not its bounds
    if not bool(ignored.any()) or not bool(used.any()):
        return None
    near = torch.zeros_like(used)
    for d in range(used.dim()):
        n = used.shape[d]
        if n > 1:
            near.narrow(d, 1, n - 1).logical_or_(used.narrow(d, 0, n - 1))
            near.narrow(d, 0, n - 1).logical_or_(used.narrow(d, 1, n - 1))
    untouched_rows = ~used.any(dim=-1, keepdim=True)
    near.narrow(-1, 0, 1).logical_or_(untouched_rows)
    boundary = ignored & near
    chosen = boundary if region == "boundary" else ignored & ~boundary
    if not bool(chosen.any()):
        return None
    # a zero gradient is also a flat point of a used element ((p - t)**2 at p == t, relu below 0): the region counts
    # only if raising it leaves the reference's outputs as they were
    bumped = list(xs)
    bumped[index] = xs[index].detach().clone()
    bumped[index][chosen] += BUMP
    try:
        after = spec.reference(*bumped, **modes)
    except Exception:
        return None
    before = [o.detach() for o in every]
    after_t = [o for o in (after if isinstance(after, tuple) else (after,)) if isinstance(o, torch.Tensor)]
    if len(after_t) != len(before) or not all(
            a.shape == b.shape and bool(torch.allclose(a.detach(), b, rtol=1e-9, atol=1e-12, equal_nan=True))
            for a, b in zip(after_t, before, strict=False)):
        return _Moved()
    return chosen


def ignored_bumped(spec: Spec, index: int, region: str) -> Spec:
    """The Spec whose kernel and reference both see input ``index`` with the elements the reference ignores (in
    ``region``) raised by ``BUMP``: a right kernel does not read them either, so its error stays what it was; a
    kernel whose mask lets one element too many through (``<=`` for ``<``) reads the boundary ones."""
    kernel, reference, names = spec.kernel, spec.reference, set(spec.params)

    def bump(args: Sequence[Any], modes: dict[str, Any]) -> list[Any]:
        region_mask = ignored_region(spec, args, index, modes, region)
        out = list(args)
        if region_mask is not None:
            x = same_layout(args[index])
            x[region_mask.to(x.device)] += BUMP
            out[index] = x
        return out

    n_in = len(spec.inputs)

    @functools.wraps(kernel)  # __wrapped__: the wrapper keeps the launcher's framework (interpreter checks)
    def k(*args: Any, **kwargs: Any) -> Any:
        modes = {key: v for key, v in kwargs.items() if key in names}
        return kernel(*bump(args[:n_in], modes), *args[n_in:], **kwargs)

    def r(*args: Any, **kwargs: Any) -> Any:
        return reference(*bump(args, kwargs), **kwargs)

    # a callable baseline would see the inputs unbumped: left out (the plain one calls the wrapped reference)
    baseline = spec.baseline if isinstance(spec.baseline, bool) else False
    return dataclasses.replace(spec, kernel=k, reference=r, baseline=baseline)


#: Elements of padding each row of an input gets in the padding probe.
PAD = 16


def padded(spec: Spec, index: int, region: str) -> Spec:
    """The Spec whose kernel sees input ``index`` as a view into a buffer of ``PAD`` more elements per row (along its
    last dimension), the padding holding ``BUMP`` at its first element ("first": the one just past each row's end)
    or at the others ("rest"), 0 elsewhere ("zero": 0 everywhere, the control: what lies past the last row of the
    plain case is whatever the memory held). The view shows the same values, so the reference's result is the same;
    a kernel that reads one element past each row (a mask's ``<=`` for ``<``) reads the first ones, one that reads
    a whole tail of lanes unmasked the others too. The padding lies inside the buffer, so it shows on a GPU, where
    reading a little past a tensor stays inside its allocation and no checker sees it."""

    def t(args: list[Any]) -> list[Any]:
        out = list(args)
        x = args[index]
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.dim() >= 1 and x.numel():
            n = x.shape[-1]
            buf = torch.zeros((*x.shape[:-1], n + PAD), dtype=x.dtype, device=x.device)
            if region == "first":
                buf[..., n] = BUMP
            elif region == "rest":
                buf[..., n + 1:] = BUMP
            view = buf[..., :n]
            view.copy_(x)
            out[index] = view
        return out

    return transformed(spec, t, reference_too=False)


def end_bumped(spec: Spec, index: int, dim: int, pos: int) -> Spec:
    """The Spec whose kernel and reference both see input ``index`` with its elements at position ``pos`` along
    ``dim`` (-1: the last, -2: the one before, 0: the first) set to NaN. A kernel that reads them gives NaN where
    the reference does; one whose loop or mask stops short of the end (``< n - 1``, a last partial tile skipped)
    does not see the last ones and stays finite where the reference is NaN. NaN rather than a large value: a
    saturating operation (a sigmoid, a clamp) hides a large value, and NaN goes through it."""

    def t(args: list[Any]) -> list[Any]:
        out = list(args)
        x = args[index]
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.dim() > 0 and x.shape[dim] > abs(pos):
            y = same_layout(x)
            y.select(dim, pos).fill_(float("nan"))
            out[index] = y
        return out

    return transformed(spec, t)


#: What a slice of an input is raised by in the slice probe: a change any dependence shows, finite in fp16.
SLICE_BUMP = 1.0


def slice_raised(args: Sequence[Any], index: int, dim: int, pos: int) -> list[Any]:
    """``args`` with input ``index``'s slice ``pos`` along ``dim`` raised (same layout) by ``SLICE_BUMP`` times 1,
    1.5, 2, 1, ... along the slice: not by one constant, which an operation invariant to a shift of the slice (a
    standardization per column) would not show inside it."""
    out = list(args)
    y = same_layout(args[index])
    part = y.select(dim, pos)
    steps = 1.0 + 0.5 * (torch.arange(part.numel(), device=part.device) % 3)
    part.add_((SLICE_BUMP * steps).reshape(part.shape).to(part.dtype))
    out[index] = y
    return out


#: Per output, the axis its slice lies along (None: an output the raised slice does not change at all).
Axes = tuple[int | None, ...]


def _change_outside(before: Any, after: Any, axes: Axes, pos: int) -> tuple[torch.Tensor, ...]:
    """What each output changed by (computed in float64, returned in the output's dtype), with slice ``pos`` along
    that output's axis set to 0: only the change outside the raised slice is left (all of it, for an output whose
    axis is None). Then, per output, one element: 1 where anything inside the slice changed, else 0: a kernel that
    ignores the raised slice altogether (it reads that operand at positions the case does not reach) changes
    nothing outside it either, and must not pass for one that keeps the slice apart."""
    pairs = zip(before if isinstance(before, tuple) else (before,), after if isinstance(after, tuple) else (after,),
                strict=True)
    outs, inside = [], []
    for (b, a), axis in zip(pairs, axes, strict=True):
        d = a.detach().to(torch.float64) - b.detach().to(torch.float64)
        changed = axis is not None and bool((d.select(axis, pos).nan_to_num(1.0) != 0).any())
        inside.append(torch.full((1,), float(changed), dtype=a.dtype, device=a.device))
        if axis is not None:
            d.select(axis, pos).zero_()
        outs.append(d.to(a.dtype))  # in the output's own dtype, which the check holds the kernel to
    return (*outs, *inside)


def _fresh_inputs(spec: Spec) -> Callable[[Sequence[Any]], list[Any]]:
    """For a variant that calls the kernel twice: the inputs with those the kernel writes in place copied (same
    layout), so that the second call starts from the inputs the first one started from."""
    written = {i for i, t in enumerate(spec.inputs) if getattr(t, "mutated", False)}

    def fresh(args: Sequence[Any]) -> list[Any]:
        return [same_layout(a) if i in written and isinstance(a, torch.Tensor) else a for i, a in enumerate(args)]

    return fresh


def slice_changed(spec: Spec, index: int, dim: int, pos: int, axes: Axes) -> Spec:
    """The Spec whose kernel and reference each return how their outputs change, outside slice ``pos`` along each
    output's axis in ``axes``, when input ``index``'s slice ``pos`` along ``dim`` is raised (each called twice, on
    the inputs and on them raised). The reference keeps that change inside the slice (``slice_axes`` found the axes
    so): it gives zeros, and a kernel whose outputs change elsewhere combines values of different indices that the
    operation keeps apart."""
    kernel, reference = spec.kernel, spec.reference
    n_in = len(spec.inputs)
    fresh = _fresh_inputs(spec)

    def clone(out: Any) -> Any:
        return tuple(o.clone() for o in out) if isinstance(out, tuple) else out.clone()

    @functools.wraps(kernel)  # __wrapped__: the wrapper keeps the launcher's framework (interpreter checks)
    def k(*args: Any, **kwargs: Any) -> Any:
        before = clone(kernel(*fresh(args[:n_in]), *args[n_in:], **kwargs))
        after = kernel(*slice_raised(fresh(args[:n_in]), index, dim, pos), *args[n_in:], **kwargs)
        return _change_outside(before, after, axes, pos)

    def r(*args: Any, **kwargs: Any) -> Any:
        return _change_outside(reference(*fresh(args), **kwargs),
                               reference(*slice_raised(fresh(args), index, dim, pos), **kwargs), axes, pos)

    # the probe compares forward values only: its outputs (differences) are no function to differentiate
    return dataclasses.replace(spec, kernel=k, reference=r, baseline=False, grad=False)


#: How far the jitter probe moves each floating input element: by a relative 2**-10 at most (a random amount per
#: element, from a fixed seed). Far below what changes a formula's result by more than its own error (a wrong
#: constant's error moves by that fraction of itself), far above fp32's rounding of the intermediates: a difference
#: 1 + r of r = 1e-4 rounds anew once r moves by 1e-7.
JITTER = 2.0 ** -10
#: The change of the error over the error, from one run of the kernel to the next on the same inputs, past which the
#: jitter probe concludes nothing: a deterministic kernel gives 0 exactly.
UNREPEATED = 0.01


def jittered(spec: Spec) -> Spec:
    """The Spec whose kernel returns one number: how much the kernel's error (its outputs less the reference's, in
    float64) changes when every floating input element moves by a random relative amount up to ``JITTER``, over the
    error itself (L2 norms of the forward outputs' finite elements); its reference returns 0. An error that is the
    formula's (a wrong constant, a wrong index, a wrong axis) moves smoothly with the inputs: the ratio is a few
    thousandths. An error that is rounding amplified (digits lost to a cancellation, a low-precision sum) is drawn
    anew by every rounding: the ratio is about 1. The comparison's largest difference is that ratio. The kernel runs
    twice on the unmoved inputs: where its error is not the same both times (``UNREPEATED``), it returns NaN, and the
    probe concludes nothing."""
    kernel, reference = spec.kernel, spec.reference
    n_in = len(spec.inputs)
    fresh = _fresh_inputs(spec)
    modes = set(spec.params)

    def moved(args: Sequence[Any]) -> list[Any]:
        gen = torch.Generator().manual_seed(0)
        out = []
        for a in args:
            if isinstance(a, torch.Tensor) and a.is_floating_point():
                y = same_layout(a)
                u = torch.rand(a.shape, generator=gen, dtype=torch.float64) * 2 - 1
                y.mul_((1 + JITTER * u).to(device=a.device, dtype=a.dtype))
                out.append(y)
            else:
                out.append(a)
        return out

    def run(ins: list[Any], rest: Sequence[Any], kwargs: dict[str, Any]) -> list[torch.Tensor]:
        outs = as_tuple(kernel(*fresh(ins), *rest, **kwargs), "the kernel")
        return [o.detach().to("cpu", torch.float64) for o in outs]

    def expected(ins: list[Any], kwargs: dict[str, Any]) -> list[torch.Tensor]:
        device = next((a.device for a in ins if isinstance(a, torch.Tensor)), torch.device("cpu"))
        with torch.device(device):
            ref = as_tuple(reference(*upcast(fresh(ins)), **{k: v for k, v in kwargs.items() if k in modes}),
                           "the reference")
        return [e.detach().to("cpu", torch.float64) for e in ref]

    def change(before: list[torch.Tensor], after: list[torch.Tensor]) -> float:
        moved_by = norm = 0.0
        for b, a in zip(before, after, strict=True):
            finite = b.isfinite() & a.isfinite()
            moved_by += float((a[finite] - b[finite]).pow(2).sum())
            norm += float(b[finite].pow(2).sum())
        return (moved_by / norm) ** 0.5 if norm > 0 else 0.0

    @functools.wraps(kernel)  # __wrapped__: the wrapper keeps the launcher's framework (interpreter checks)
    def k(*args: Any, **kwargs: Any) -> Any:
        ins, rest = list(args[:n_in]), args[n_in:]
        ref, ref_moved = expected(ins, kwargs), expected(moved(ins), kwargs)
        before = [g - e for g, e in zip(run(ins, rest, kwargs), ref, strict=True)]
        again = [g - e for g, e in zip(run(ins, rest, kwargs), ref, strict=True)]
        after = [g - e for g, e in zip(run(moved(ins), rest, kwargs), ref_moved, strict=True)]
        # an error that the same inputs do not give again (memory read past an allocation, an unordered sum) is no
        # function of the inputs: its change says nothing of rounding. NaN: the probe concludes nothing
        if change(before, again) > UNREPEATED:
            return torch.tensor([math.nan], dtype=torch.float64)
        return torch.tensor([change(before, after)], dtype=torch.float64)

    def r(*args: Any, **kwargs: Any) -> Any:
        return torch.zeros(1, dtype=torch.float64)

    # forward values only: the ratio is no function to differentiate
    return dataclasses.replace(spec, kernel=k, reference=r, baseline=False, grad=False)


def slice_axes(spec: Spec, args: Sequence[Any], index: int, dim: int, pos: int, modes: dict[str, Any]) -> Axes | None:
    """Whether the slice probe can say anything on these inputs (drawn here, on the CPU), and where to look: raising
    input ``index``'s slice ``pos`` along ``dim`` changes the reference's outputs inside one slice ``pos`` of each
    output and nowhere else. Returns, per output, the axis of that slice (one of the input's size along ``dim``; the
    input's own axis first where the shapes agree: an outer product's 1-D operand is the row or the column of its
    output), None for an output it leaves unchanged; None when no output changes, or one changes outside every
    such slice (the operation combines that dimension: nothing to probe)."""
    x = args[index]
    if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.dim() >= 1 and x.shape[dim] > pos):
        return None
    xs = [a.detach().to(torch.float64) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
    try:
        before = spec.reference(*xs, **modes)
        after = spec.reference(*slice_raised(xs, index, dim, pos), **modes)
    except Exception:  # a reference that cannot run here: no probe
        return None
    b_t = before if isinstance(before, tuple) else (before,)
    a_t = after if isinstance(after, tuple) else (after,)
    if not b_t or any(not isinstance(o, torch.Tensor) or not o.is_floating_point() for o in (*b_t, *a_t)) \
            or any(a.shape != b.shape for a, b in zip(a_t, b_t, strict=True)):
        return None
    axes: list[int | None] = []
    for b, a in zip(b_t, a_t, strict=True):
        d = (a - b).nan_to_num(1.0)
        if not bool((d != 0).any()):
            axes.append(None)
            continue
        order = dict.fromkeys(([dim] if dim < d.dim() and a.shape == x.shape else []) + list(range(d.dim())))
        found = None
        for axis in order:
            if d.shape[axis] != x.shape[dim]:
                continue
            outside = d.clone()
            outside.select(axis, pos).zero_()
            if not bool((outside != 0).any()):
                found = axis
                break
        if found is None:
            return None
        axes.append(found)
    return tuple(axes) if any(a is not None for a in axes) else None


#: A probe's change of the Spec, described so that a worker process can rebuild it from the Spec's module:
#: ("scaled", factor), ("ones", input index or a tuple of them), ("transposed", input index),
#: ("symmetric", input index), ("averaged", input index), ("zeroed", None),
#: ("stage", name), ("swapped", (i, j)), ("ignored", (input index, "boundary" | "far")),
#: ("padded", (input index, "zero" | "first" | "rest")), ("end", (input index, dim, position)),
#: ("slice", (input index, dim, position, the outputs' axes)), ("jitter", None or a factor the data is scaled by).
Variant = tuple[str, Any]


def apply_variant(spec: Spec, variant: Variant) -> Spec:
    kind, arg = variant
    if kind == "scaled":
        return scaled(spec, float(arg))
    if kind == "ones":
        return ones_at(spec, int(arg) if not isinstance(arg, (tuple, list)) else tuple(int(i) for i in arg))
    if kind == "transposed":
        return reference_of_transposed(spec, int(arg))
    if kind == "symmetric":
        return symmetrized(spec, int(arg))
    if kind == "averaged":
        return averaged_shuffled(spec, int(arg))
    if kind == "zeroed":
        return zeroed_outputs(spec)
    if kind == "swapped":
        return swapped_inputs(spec, int(arg[0]), int(arg[1]))
    if kind == "ignored":
        return ignored_bumped(spec, int(arg[0]), str(arg[1]))
    if kind == "end":
        return end_bumped(spec, int(arg[0]), int(arg[1]), int(arg[2]))
    if kind == "slice":
        return slice_changed(spec, int(arg[0]), int(arg[1]), int(arg[2]),
                             tuple(None if a is None else int(a) for a in arg[3]))
    if kind == "padded":
        return padded(spec, int(arg[0]), str(arg[1]))
    if kind == "jitter":  # (on the data scaled by ``arg`` first, where it is a factor)
        return jittered(spec if arg is None else scaled(spec, float(arg)))
    if kind == "stage":
        kernel, reference = spec.stages[arg]
        return dataclasses.replace(spec, kernel=kernel, reference=reference, stages={})
    raise ValueError(f"unknown probe variant {variant!r}")


@dataclasses.dataclass(frozen=True)
class ApplyVariant:
    """A probe's change of the Spec as a picklable callable: a worker process rebuilds the variant from the Spec it
    imports (``SpecRef.transform``)."""

    variant: Variant

    def __call__(self, spec: Spec) -> Spec:
        return apply_variant(spec, self.variant)


class Prober:
    """Runs probes until the budget is spent; each returns its CaseResult and is logged as an Experiment.

    Every probe runs in an isolated worker, whose process a crashing kernel may end (on a GPU it also poisons the
    process's CUDA context for good): the debugger must outlive it, as must the script that called it. The worker
    rebuilds variants from their description. A Spec not defined at module level cannot be imported by a worker: its
    probes run in this process (on a CPU under the interpreter's checks). ``isolate=False`` runs them here anyway on
    a CPU (tests of the probes themselves); never on a GPU.
    """

    def __init__(self, spec: Spec, device: DeviceInfo, budget: float, isolate: bool = True,
                 options: RunOptions | None = None) -> None:
        self.spec, self.device, self.budget = spec, device, budget
        # the budget is the experiments' time on an idle machine: on a loaded one each probe takes longer for reasons
        # that are not the kernel's, and a budget spent by a slow sweep would leave the deciding probes unrun (the
        # same load factor stretches a case's time limit)
        self.scale = load_factor()
        self.options = options or RunOptions()  # how probes run unless one asks otherwise (the check's settings)
        self.backend = backend_of(spec.kernel)
        self.t0 = time.perf_counter()
        self.experiments: list[Experiment] = []
        self.cut = False  # some probe was not run for lack of budget
        self.skipped = 0  # probes that cannot run here (a precision this device lacks, ...)
        self.limit = 1.0  # the share of the budget probes may use for now (the rest is kept for later ones)
        self.worker: Any = None
        self.ref: Any = None
        if device.is_gpu or isolate:  # a crash (or a hang) must cost one probe, not the debugger
            self.ref = locate(spec)
            if self.ref is not None:
                self.worker = Isolated(timeout=60.0)

    def __enter__(self) -> Prober:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def left(self) -> float:
        return self.budget * self.scale * self.limit - self.elapsed

    def run(self, case: Case, axis: str, label: str, variant: Variant | None = None,
            options: RunOptions | None = None) -> CaseResult | None:
        """Run one probe and log it as an Experiment; None when the budget is spent or the device cannot run it.
        ``options``: how it runs (the interpreter's checks, the order of the programs)."""
        if self.left() <= 0:
            self.cut = True
            return None
        # a probe runs on this device: one built from a case the check ran in Triton's interpreter beside a GPU
        # (``Case.interpreted``) runs on the GPU, under its own id
        case = dataclasses.replace(case, interpreted=False) if case.interpreted else case
        if skip_reason(case, self.spec, self.device) is not None:
            self.skipped += 1
            return None
        if self.worker is not None:
            self.worker.timeout = max(5.0, min(60.0, self.left()))
            ref = dataclasses.replace(self.ref, transform=ApplyVariant(variant) if variant is not None else None)
            res = self.worker.run(ref, case, options or self.options)
        else:
            spec = apply_variant(self.spec, variant) if variant is not None else self.spec
            res = run_case(spec, case, self.device, options or self.options)
        if res.status is Status.SKIPPED:
            return None
        exp = Experiment(axis, label, case.id, res.ok, summarize_case(res))
        self.experiments.append(exp)
        return res
