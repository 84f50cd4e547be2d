"""Materialize a case's arguments: tensors per pattern and layout, index tensors, scalars, custom objects."""

from __future__ import annotations

import hashlib
import inspect
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from .._dtypes import PRECISIONS
from .._errors import SpecError
from .._spec import Custom, Index, Scalar, Spec, Tensor
from ._context import CaseContext, cpu_generator
from ._matrix import Case, kernel_kwargs, params_of, reference_kwargs
from ._patterns import make, make_mask

#: torch's words when a generator of one device draws for another.
_GENERATOR_DEVICE = re.compile(r"generator", re.IGNORECASE)


def _seed(case: Case, slot: int) -> int:
    """A seed per (spec, seed, input slot, sizes) so every input differs but a case rebuilds identically."""
    key = f"{case.spec}|{case.seed}|{slot}|{case.dims}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little") & (2**63 - 1)


def _generator(device: str, seed: int) -> torch.Generator:
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen


def _layout(x: torch.Tensor, layout: str) -> torch.Tensor:
    """Return a view with the same values in the requested memory layout. The padding around the view holds NaN
    (zeros for other dtypes), never what the allocator left there: a kernel that reads it (a stride assumed) gets
    the same wrong answer at every run and in the repro script, and cannot pass by finding an earlier input's
    values in recycled memory (a ones input over a freed ones input read right)."""
    if layout == "contiguous" or x.numel() == 0 or x.dim() == 0:
        return x
    if x.dim() >= 2:  # rows padded: stride(-2) = N + 7, last dimension still unit-stride
        base = torch.empty(*x.shape[:-1], x.shape[-1] + 7, dtype=x.dtype, device=x.device)
        view = base[..., : x.shape[-1]]
    else:  # 1-D: start one element into the buffer (misaligned for vector loads)
        base = torch.empty(x.shape[0] + 1, dtype=x.dtype, device=x.device)
        view = base[1:]
    if base.is_floating_point() or base.is_complex():
        base.fill_(math.nan)
    else:
        base.zero_()
    view.copy_(x)
    return view


def shape_of(dims: Sequence[str | int], sizes: Mapping[str, int]) -> tuple[int, ...]:
    return tuple(sizes[d] if isinstance(d, str) else d for d in dims)


def output_buffers(spec: Spec, case: Case, device: str) -> list[torch.Tensor]:
    """Uninitialized buffers for the Spec's declared ``outputs`` at ``case`` (the caller fills them: poison, zeros);
    [] when the kernel returns its outputs."""
    storage = PRECISIONS[case.precision].storage
    return [torch.empty(shape_of(t.dims, case.sizes), dtype=t.dtype or storage, device=device)
            for t in spec.outputs or ()]


def make_args(spec: Spec, case: Case, device: str) -> list[Any]:
    """The kernel's input arguments for ``case`` (outputs are allocated by the runner)."""
    sizes = case.sizes
    storage = PRECISIONS[case.precision].storage
    args: list[Any] = []
    for slot, inp in enumerate(spec.inputs):
        if isinstance(inp, Custom):
            args.append(_custom(spec, case, slot, inp, device, storage))
            continue
        gen = _generator(device, _seed(case, slot))
        if isinstance(inp, Tensor):
            shape = shape_of(inp.dims, sizes)
            if inp.dtype == torch.bool:
                assert inp.density is not None
                x = make_mask(inp.pattern or case.pattern, shape, inp.density, device, gen)
            else:
                x = make(inp.pattern or case.pattern, shape, inp.dtype or storage, device, gen)
            args.append(_layout(x, case.layout))
        elif isinstance(inp, Index):
            shape = shape_of(inp.dims, sizes)
            high = sizes[inp.high] if isinstance(inp.high, str) else inp.high
            if high <= inp.low:
                x = torch.full(shape, inp.low, dtype=inp.dtype, device=device)
            else:
                x = torch.randint(inp.low, high, shape, generator=gen, device=device, dtype=inp.dtype)
                flat = x.view(-1)
                if flat.numel() >= 2:  # the extremes are where an off-by-one shows
                    flat[0], flat[-1] = inp.low, high - 1
            args.append(x)
        elif isinstance(inp, Scalar):
            args.append(inp.value(sizes) if callable(inp.value) else inp.value)
    return args


def context(spec: Spec, case: Case, slot: int, device: str) -> CaseContext:
    """The context input ``slot`` of ``case`` is built in: its generator is on the CPU, seeded per case and slot,
    so that what it draws is the same wherever the case runs."""
    storage = PRECISIONS[case.precision].storage
    return CaseContext(case.sizes, storage, case.precision, case.pattern, device, cpu_generator(_seed(case, slot)),
                       case.seed, params_of(spec, case), case.layout)


def _custom(spec: Spec, case: Case, slot: int, inp: Custom, device: str, storage: torch.dtype) -> Any:
    label = f"inputs[{slot}]" + (f" ({inp.name})" if inp.name else "")
    try:
        value = inp.make(context(spec, case, slot, device))
    except RuntimeError as exc:
        if _GENERATOR_DEVICE.search(str(exc)) and "device" in str(exc) and str(device) != "cpu":
            raise SpecError(f"Custom(make) of {label}", str(exc).strip().splitlines()[0],
                            "ctx.generator is a CPU generator (the same draws on every device): draw on the CPU "
                            "and move, torch.randint(..., generator=ctx.generator).to(ctx.device), or use "
                            "ctx.randint(...) / ctx.randn(...)") from exc
        raise
    if inp.dims is not None and isinstance(value, torch.Tensor):
        want = shape_of(inp.dims, case.sizes)
        if tuple(value.shape) != want:
            raise SpecError(f"Custom(dims) of {label}", tuple(value.shape),
                            f"make returned a tensor of shape {tuple(value.shape)} where dims={inp.dims} says "
                            f"{want}: return that shape or declare the dims it has")
    return value


def index_range_problem(spec: Spec, case: Case) -> str | None:
    """An Index whose value range is empty although its tensor has elements, or whose values its dtype cannot
    hold: the case cannot be built."""
    sizes = case.sizes
    for inp in spec.inputs:
        if isinstance(inp, Index):
            high = sizes[inp.high] if isinstance(inp.high, str) else inp.high
            numel = 1
            for s in shape_of(inp.dims, sizes):
                numel *= s
            if numel and high <= inp.low:
                return f"Index(high={inp.high!r}) is {high}: no valid index value for {numel} elements"
            top = torch.iinfo(inp.dtype).max
            if numel and high - 1 > top:
                return (f"Index(high={inp.high!r}) is {high}: index values up to {high - 1} do not fit "
                        f"{str(inp.dtype).removeprefix('torch.')} (largest {top})")
    return None


def upcast(args: Sequence[Any]) -> list[Any]:
    """Floating tensors to float64 copies (the reference's inputs: a float64 input is copied too, so that neither
    the reference nor an in-place kernel sees the other's writes); everything else as is."""
    return [a.to(torch.float64, copy=True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
            for a in args]


def call_kernel(fn: Callable[..., Any], spec: Spec, case: Case, args: Sequence[Any], **extra: Any) -> Any:
    """``fn(*args, **modes, **configuration, **extra)``: how kcheck calls the kernel, or anything called like it
    (a stage, the journaled variant), for ``case``."""
    kwargs = {**kernel_kwargs(spec, case), **extra}
    return fn(*args, *_positional(fn, len(args), kwargs), **kwargs)


def _positional(fn: Callable[..., Any], given: int, kwargs: dict[str, Any]) -> list[Any]:
    """For ``fn`` an autograd ``Function.apply``, which takes no keyword arguments in torch before 2.13: the
    keyword arguments moved (out of ``kwargs``) to their places after the ``given`` positional ones, by the
    names of ``forward``'s parameters (a parameter left out takes its default). Nothing for other callables."""
    owner = getattr(fn, "__self__", None)
    if not kwargs or not (isinstance(owner, type) and issubclass(owner, torch.autograd.Function)) or \
            getattr(fn, "__name__", "") != "apply":
        return []
    params = list(inspect.signature(owner.forward).parameters.values())[1 + given:]  # after ctx and the inputs
    out: list[Any] = []
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or not kwargs:
            break
        if p.name in kwargs:
            out.append(kwargs.pop(p.name))
        elif p.default is not p.empty:
            out.append(p.default)
        else:
            break
    return out


def call_reference(fn: Callable[..., Any], spec: Spec, case: Case, args: Sequence[Any], device: str) -> Any:
    """``fn(*args, **modes)``: how kcheck calls the reference (or the baseline) for ``case``, with ``device`` as
    torch's default device, so that a table the reference builds without ``device=`` (``torch.arange(T)``) lands
    where its inputs are instead of on the CPU."""
    with torch.device(device):
        return fn(*args, **reference_kwargs(spec, case))
