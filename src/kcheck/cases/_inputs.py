"""Materialize a case's arguments: tensors per pattern and layout, index tensors, scalars, custom objects."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from .._dtypes import PRECISIONS
from .._spec import Custom, Index, Scalar, Spec, Tensor
from ._matrix import Case
from ._patterns import make


@dataclass(frozen=True)
class CaseContext:
    """What a ``Custom`` input's ``make`` (and a user-defined property) sees of the case."""

    dims: Mapping[str, int]
    dtype: torch.dtype  # storage dtype of the case's floating tensors
    precision: str
    pattern: str
    device: str
    generator: torch.Generator
    seed: int


def _seed(case: Case, slot: int) -> int:
    """A seed per (spec, seed, input slot, sizes) so every input differs but a case rebuilds identically."""
    key = f"{case.spec}|{case.seed}|{slot}|{case.dims}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little") & (2**63 - 1)


def _generator(device: str, seed: int) -> torch.Generator:
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen


def _layout(x: torch.Tensor, layout: str) -> torch.Tensor:
    """Return a view with the same values in the requested memory layout."""
    if layout == "contiguous" or x.numel() == 0 or x.dim() == 0:
        return x
    if x.dim() >= 2:  # rows padded: stride(-2) = N + 7, last dimension still unit-stride
        base = torch.empty(*x.shape[:-1], x.shape[-1] + 7, dtype=x.dtype, device=x.device)
        view = base[..., : x.shape[-1]]
    else:  # 1-D: start one element into the buffer (misaligned for vector loads)
        base = torch.empty(x.shape[0] + 1, dtype=x.dtype, device=x.device)
        view = base[1:]
    view.copy_(x)
    return view


def shape_of(dims: Sequence[str | int], sizes: Mapping[str, int]) -> tuple[int, ...]:
    return tuple(sizes[d] if isinstance(d, str) else d for d in dims)


def make_args(spec: Spec, case: Case, device: str) -> list[Any]:
    """The kernel's input arguments for ``case`` (outputs are allocated by the runner)."""
    sizes = case.sizes
    storage = PRECISIONS[case.precision].storage
    args: list[Any] = []
    for slot, inp in enumerate(spec.inputs):
        gen = _generator(device, _seed(case, slot))
        if isinstance(inp, Tensor):
            shape = shape_of(inp.dims, sizes)
            dtype = inp.dtype or storage
            x = make(inp.pattern or case.pattern, shape, dtype, device, gen)
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
        elif isinstance(inp, Custom):
            ctx = CaseContext(sizes, storage, case.precision, case.pattern, device, gen, case.seed)
            args.append(inp.make(ctx))
    return args


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
