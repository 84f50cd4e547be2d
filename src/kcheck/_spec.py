"""The Spec: a kernel's contract, declared once and checked on every case kcheck generates.

A Spec says what the kernel takes (named dimensions, tensors, index tensors, scalars, anything else through
``Custom``), what it must return (a float64 reference), in which precisions and launch configurations, and which
properties hold. kcheck chooses the sizes, the data and the seeds.

Calling convention: ``kernel(*inputs, *outputs, **config)`` when ``outputs`` are declared (kcheck allocates and
poisons them), else ``kernel(*inputs, **config)`` returning a tensor or a tuple of tensors. ``reference(*inputs)``
receives the same inputs with floating tensors upcast to float64 and returns the expected output(s).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

from ._dtypes import Precision, precision
from ._errors import SpecError

if TYPE_CHECKING:
    from .cases import CaseContext
    from .properties import Property

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

PATTERNS = ("randn", "zeros", "ones", "eye", "arange", "large", "tiny", "nonfinite", "constant", "large_mean")
LAYOUTS = ("contiguous", "strided")


def _check_dims(argument: str, dims: Sequence[str | int]) -> tuple[str | int, ...]:
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, (str, int)):
            raise SpecError(argument, d, "each dimension is a name such as 'M' or a fixed size such as 4")
        if isinstance(d, str) and not _NAME.match(d):
            raise SpecError(argument, d, "a dimension name is an identifier such as 'M' or 'seq_len'")
        if isinstance(d, int) and d < 0:
            raise SpecError(argument, d, "a fixed size is a non-negative int")
    return tuple(dims)


@dataclass(frozen=True)
class Dim:
    """How kcheck sizes one named dimension.

    ``sizes`` replaces the systematic set (0, 1, 17, 31-33, ...); ``real`` adds real model dimensions;
    ``multiple_of`` keeps every size a multiple (for kernels that document such a constraint: say so, it is a
    finding in itself); ``min``/``max`` clip the set; ``large=False`` keeps this dimension out of the
    past-2**31 case.
    """

    nominal: int = 128
    sizes: Sequence[int] | None = None
    real: Sequence[int] = (37, 2880, 128256)
    min: int = 0
    max: int | None = None
    multiple_of: int = 1
    large: bool = True

    def __post_init__(self) -> None:
        for arg, v in (("Dim.nominal", self.nominal), ("Dim.min", self.min), ("Dim.multiple_of", self.multiple_of)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise SpecError(arg, v, "give a non-negative int")
        if self.multiple_of < 1:
            raise SpecError("Dim.multiple_of", self.multiple_of, "give an int >= 1 (1 means no constraint)")
        if self.max is not None and self.max < max(self.min, 1):
            raise SpecError("Dim.max", self.max, f"give an int >= min={self.min} and >= 1, or None")
        if self.nominal % self.multiple_of:
            raise SpecError("Dim.nominal", self.nominal, f"give a multiple of multiple_of={self.multiple_of}")


@dataclass(frozen=True)
class Tensor:
    """A floating tensor whose shape is named dimensions (or fixed ints).

    ``dtype`` pins a dtype (else the case's precision decides); ``pattern`` pins a data pattern (else the case's);
    ``mutated=True`` declares that the kernel writes this input on purpose (in place), so kcheck does not report it.
    """

    dims: tuple[str | int, ...]
    dtype: torch.dtype | None = None
    pattern: str | None = None
    mutated: bool = False
    name: str | None = None

    def __init__(self, *dims: str | int, dtype: torch.dtype | None = None, pattern: str | None = None,
                 mutated: bool = False, name: str | None = None) -> None:
        object.__setattr__(self, "dims", _check_dims("Tensor(*dims)", dims))
        if dtype is not None and not isinstance(dtype, torch.dtype):
            raise SpecError("Tensor(dtype)", dtype, "give a torch dtype such as torch.float32, or None")
        if pattern is not None and pattern not in PATTERNS:
            raise SpecError("Tensor(pattern)", pattern, f"use one of {list(PATTERNS)} or None")
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "pattern", pattern)
        object.__setattr__(self, "mutated", mutated)
        object.__setattr__(self, "name", name)


@dataclass(frozen=True)
class Index:
    """An integer tensor whose values lie in [low, high): ``Index("T", high="V")`` holds token ids below V.

    ``high`` is a dimension name or an int. kcheck always includes the extreme values low and high-1.
    """

    dims: tuple[str | int, ...]
    high: str | int = 1
    low: int = 0
    dtype: torch.dtype = torch.int64
    name: str | None = None

    def __init__(self, *dims: str | int, high: str | int, low: int = 0, dtype: torch.dtype = torch.int64,
                 name: str | None = None) -> None:
        object.__setattr__(self, "dims", _check_dims("Index(*dims)", dims))
        if isinstance(high, bool) or not isinstance(high, (str, int)):
            raise SpecError("Index(high)", high, "give a dimension name such as 'V' or an int")
        if dtype not in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
            raise SpecError("Index(dtype)", dtype, "give an integer dtype such as torch.int64 or torch.int32")
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "name", name)


@dataclass(frozen=True)
class Scalar:
    """A scalar argument: a constant, or a function of the case's sizes (``Scalar(lambda d: d["N"])``)."""

    value: Any
    name: str | None = None


@dataclass(frozen=True)
class Custom:
    """Escape hatch: ``make(ctx)`` builds any argument from the case (``ctx.dims``, ``ctx.dtype``, ``ctx.device``,
    ``ctx.generator``, ``ctx.pattern``). A floating tensor it returns is upcast to float64 for the reference."""

    make: Callable[[CaseContext], Any]
    name: str | None = None


Input = Tensor | Index | Scalar | Custom


def _as_precisions(dtypes: Sequence[object]) -> tuple[Precision, ...]:
    if isinstance(dtypes, (str, torch.dtype)):
        dtypes = [dtypes]
    out = tuple(precision(d, "dtypes") for d in dtypes)
    if not out:
        raise SpecError("dtypes", list(dtypes), "list at least one precision, e.g. ['fp32', 'bf16']")
    return out


@dataclass
class Spec:
    """A kernel's contract. See the module docstring for the calling convention; every argument is keyword-only.

    ``reduce`` names the reduction dimension(s): the tolerance widens with sqrt(length) (M2).
    ``baseline`` (default ``True``) also runs ``reference`` on the un-upcast inputs, in the case's precision, and
    requires the kernel's error to be at most ``baseline_factor`` times that baseline's (FlashAttention's rule);
    pass a callable to use another same-precision baseline, or ``False`` to turn it off.
    ``rtol``/``atol`` override the table, per precision name or for all.
    ``benign`` declares intended races between programs, left out by the interpreter's race check:
    ``[("out", "write-write")]`` (an argument name and "write-write", "read-write" or "any"), or predicates.
    ``stages`` declares partial versions of the kernel for code bisection (``kcheck debug``), in pipeline order:
    ``{"load_only": (kernel, reference), "max_only": (kernel, reference)}``, each called like ``kernel`` and
    checked like it; the debugger reports the first stage that goes wrong.
    """

    name: str
    kernel: Callable[..., Any]
    reference: Callable[..., Any]
    inputs: Sequence[Input]
    outputs: Sequence[Tensor] | None = None
    dims: Mapping[str, Dim] = field(default_factory=dict)
    dtypes: Sequence[object] = ("fp32", "bf16", "fp16")
    reduce: Sequence[str] = ()
    configs: Sequence[Mapping[str, Any]] = ()
    properties: Sequence[Property] = ()
    patterns: Sequence[str] = PATTERNS
    layouts: Sequence[str] = LAYOUTS
    rtol: float | Mapping[str, float] | None = None
    atol: float | Mapping[str, float] | None = None
    baseline: bool | Callable[..., Any] = True
    baseline_factor: float = 2.0
    seeds: int = 3
    benign: Sequence[Any] = ()
    stages: Mapping[str, tuple[Callable[..., Any], Callable[..., Any]]] = field(default_factory=dict)
    precisions: tuple[Precision, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise SpecError("name", self.name, "give an identifier such as 'softmax' (it names the cases)")
        for arg in ("kernel", "reference"):
            if not callable(getattr(self, arg)):
                raise SpecError(arg, getattr(self, arg), "give a callable (a launcher function, a torch op, ...)")
        self.inputs = tuple(self.inputs)
        if not self.inputs:
            raise SpecError("inputs", [], "declare at least one input, e.g. [kcheck.Tensor('M', 'N')]")
        for i, inp in enumerate(self.inputs):
            if not isinstance(inp, (Tensor, Index, Scalar, Custom)):
                raise SpecError(f"inputs[{i}]", inp, "use kcheck.Tensor, kcheck.Index, kcheck.Scalar or kcheck.Custom")
        if self.outputs is not None:
            self.outputs = tuple(self.outputs)
            for i, out in enumerate(self.outputs):
                if not isinstance(out, Tensor):
                    raise SpecError(f"outputs[{i}]", out, "declare outputs as kcheck.Tensor(...) or leave outputs=None")
        self.precisions = _as_precisions(self.dtypes)
        self.dims = dict(self.dims)
        named = self.dim_names()
        for d, v in self.dims.items():
            if d not in named:
                raise SpecError("dims", d, f"no input or output uses dimension {d!r}; known: {sorted(named)}")
            if not isinstance(v, Dim):
                raise SpecError(f"dims[{d!r}]", v, "give a kcheck.Dim(...)")
        for inp in self.inputs:
            if isinstance(inp, Index) and isinstance(inp.high, str) and inp.high not in named:
                raise SpecError("Index(high)", inp.high, f"name a dimension the spec uses: {sorted(named)}")
        self.reduce = tuple(self.reduce)
        for r in self.reduce:
            if r not in named:
                raise SpecError("reduce", r, f"name a dimension the spec uses: {sorted(named)}")
        self.configs = tuple(dict(c) for c in self.configs) or ({},)
        for i, c in enumerate(self.configs):
            for k in c:
                if not isinstance(k, str):
                    raise SpecError(f"configs[{i}]", k, "config keys are keyword-argument names of the kernel")
        for p in self.patterns:
            if p not in PATTERNS:
                raise SpecError("patterns", p, f"use names from {list(PATTERNS)}")
        for lay in self.layouts:
            if lay not in LAYOUTS:
                raise SpecError("layouts", lay, f"use names from {list(LAYOUTS)}")
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, int) or self.seeds < 1:
            raise SpecError("seeds", self.seeds, "give an int >= 1 (how many random seeds the nominal case uses)")
        if not (isinstance(self.baseline, bool) or callable(self.baseline)):
            raise SpecError("baseline", self.baseline, "give True, False or a callable baseline")
        self.stages = dict(self.stages)
        for stage, pair in self.stages.items():
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(callable(f) for f in pair)):
                raise SpecError(f"stages[{stage!r}]", pair, "give a (kernel, reference) pair of callables")
        if not self.baseline_factor >= 1.0:
            raise SpecError("baseline_factor", self.baseline_factor, "give a float >= 1 (FlashAttention uses 2)")
        from .properties import (
            Property,  # local: properties imports compare, which imports this module's types
        )

        for i, prop in enumerate(self.properties):
            if not isinstance(prop, Property):
                raise SpecError(f"properties[{i}]", prop, "use kcheck.props.* or kcheck.Property(name, fn)")

    def dim_names(self) -> list[str]:
        """Every named dimension, in order of first use."""
        names: list[str] = []
        for t in [*self.inputs, *(self.outputs or ())]:
            dims = getattr(t, "dims", ())
            extra = [t.high] if isinstance(t, Index) and isinstance(t.high, str) else []
            for d in [*dims, *extra]:
                if isinstance(d, str) and d not in names:
                    names.append(d)
        return names

    def dim(self, name: str) -> Dim:
        return self.dims.get(name, Dim())  # type: ignore[union-attr]
