"""The Spec: a kernel's contract, declared once and checked on every case kcheck generates.

A Spec says what the kernel takes (named dimensions, tensors, index tensors, scalars, anything else through
``Custom``), what it must return (a float64 reference), in which precisions and launch configurations, and which
properties hold. kcheck chooses the sizes, the data and the seeds.

Calling convention: ``kernel(*inputs, *outputs, **config)`` when ``outputs`` are declared (kcheck allocates and
poisons them), else ``kernel(*inputs, **config)`` returning a tensor or a tuple of tensors. ``reference(*inputs)``
receives the same inputs with floating tensors upcast to float64 and returns the expected output(s).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

from ._dtypes import Precision, precision
from ._errors import SpecError
from .properties import Property

if TYPE_CHECKING:
    from .cases import CaseContext
    from .properties import Property

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: The most seeds a Spec or a run may ask for: each is a case of the nominal shape (run twice); a larger number is a
#: typo (a fuzzed Spec's seeds=22704717 built 22 million cases and 8 GB before anything ran).
MAX_SEEDS = 1000

PATTERNS = ("randn", "zeros", "ones", "eye", "arange", "large", "tiny", "nonfinite", "constant", "large_mean")
LAYOUTS = ("contiguous", "strided")


def _is_int(v: object) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _check_name(argument: str, name: object) -> None:
    if name is not None and not isinstance(name, str):
        raise SpecError(argument, name, "give a short string that names the argument in reports, or None")


def _check_dims(argument: str, dims: Sequence[str | int]) -> tuple[str | int, ...]:
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, (str, int)):
            raise SpecError(argument, d, "each dimension is a name such as 'M' or a fixed size such as 4")
        if isinstance(d, str) and not _NAME.match(d):
            raise SpecError(argument, d, "a dimension name is an identifier such as 'M' or 'seq_len'")
        if isinstance(d, int) and d < 0:
            raise SpecError(argument, d, "a fixed size is a non-negative int")
    return tuple(dims)


def _sequence(argument: str, value: object, example: str) -> tuple[Any, ...]:
    """``value`` as a tuple when it is a list or tuple (or another non-string sequence), else a SpecError."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise SpecError(argument, value, f"give a list, e.g. {argument}={example}")
    return tuple(value)


#: Words people use for an argument under another name.
_SYNONYMS = {"precisions": "dtypes", "precision": "dtypes", "dtype": "dtypes", "ref": "reference", "fn": "kernel",
             "launcher": "kernel", "shapes": "dims", "sizes": "dims", "tol": "rtol", "tolerance": "rtol",
             "reduction": "reduce", "reduce_dims": "reduce", "layout": "layouts", "pattern": "patterns",
             "config": "configs", "seed": "seeds"}


def _strict_keywords(cls: type) -> type:
    """A misspelt keyword (``Spec(dtype=...)``, ``Dim(nominl=...)``) is a SpecError naming the closest arguments,
    not the dataclass's TypeError."""
    init = cls.__init__  # type: ignore[misc]
    params = inspect.signature(init).parameters.values()
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]

    @functools.wraps(init)
    def checked(self: Any, *args: Any, **kwargs: Any) -> None:
        for key in kwargs:
            if key not in names:
                close = difflib.get_close_matches(key, names, n=3, cutoff=0.5)
                if _SYNONYMS.get(key) in names and _SYNONYMS[key] not in close:
                    close.insert(0, _SYNONYMS[key])
                hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
                raise SpecError(key, kwargs[key], f"{cls.__name__} takes no argument {key!r}; {hint}its arguments "
                                f"are {', '.join(names)}")
        init(self, *args, **kwargs)

    cls.__init__ = checked  # type: ignore[misc]
    return cls



@_strict_keywords
@dataclass(frozen=True, init=False)
class Dim:
    """How kcheck sizes one named dimension.

    ``sizes`` replaces the systematic set (0, 1, 17, 31-33, ...); ``real`` adds real model dimensions (clipped into
    the constraints); ``multiple_of`` keeps every size a multiple (for kernels that document such a constraint: say
    so, it is a finding in itself); ``min``/``max`` bound every size kcheck uses (0 stays in the set while
    ``min`` is 0); ``large=False`` keeps this dimension out of the past-2**31 case. ``nominal`` (default: 128
    clipped into the constraints) is the size the other dimensions vary around; it must satisfy the constraints.
    Declared ``sizes`` must satisfy them too.
    """

    nominal: int
    sizes: tuple[int, ...] | None
    real: tuple[int, ...]
    min: int
    max: int | None
    multiple_of: int
    large: bool

    def __init__(self, nominal: int | None = None, sizes: Sequence[int] | None = None,
                 real: Sequence[int] = (37, 2880, 128256), min: int = 0, max: int | None = None,
                 multiple_of: int = 1, large: bool = True) -> None:
        for arg, v in (("Dim.min", min), ("Dim.multiple_of", multiple_of)):
            if not _is_int(v) or v < 0:
                raise SpecError(arg, v, "give a non-negative int")
        if multiple_of < 1:
            raise SpecError("Dim.multiple_of", multiple_of, "give an int >= 1 (1 means no constraint)")
        if max is not None and (not _is_int(max) or max < 1):
            raise SpecError("Dim.max", max, "give an int >= 1, or None for no bound")
        if max is not None and max < min:
            raise SpecError("Dim.max", max, f"give an int >= min={min}, or None")
        if not isinstance(large, bool):
            raise SpecError("Dim.large", large, "give True or False")
        object.__setattr__(self, "min", int(min))
        object.__setattr__(self, "max", None if max is None else int(max))
        object.__setattr__(self, "multiple_of", int(multiple_of))
        object.__setattr__(self, "large", large)
        lo, hi = self.bounds()
        if hi is not None and lo > hi:
            raise SpecError("Dim(min, max, multiple_of)", (min, max, multiple_of),
                            f"no size >= 1 in [{min}, {max}] is a multiple of {multiple_of}: widen min/max or "
                            "change multiple_of")
        if nominal is None:
            nominal = self.clip(128)
        elif not _is_int(nominal) or nominal < 1:
            raise SpecError("Dim.nominal", nominal, "give an int >= 1 (0 is in the size set already)")
        elif nominal % multiple_of:
            raise SpecError("Dim.nominal", nominal, f"give a multiple of multiple_of={multiple_of}")
        elif not self.allows(nominal):
            raise SpecError("Dim.nominal", nominal, f"give a size within min={min} and max={max}")
        object.__setattr__(self, "nominal", int(nominal))
        if sizes is not None:
            sizes = _sequence("Dim.sizes", sizes, "[64, 128, 4096]")
            if not sizes:
                raise SpecError("Dim.sizes", list(sizes), "list at least one size, or leave sizes=None")
            for v in sizes:
                if not _is_int(v) or v < 0:
                    raise SpecError("Dim.sizes", v, "each size is a non-negative int")
                if not self.allows(v):
                    raise SpecError("Dim.sizes", v, f"each size must satisfy min={min}, max={max} and "
                                                    f"multiple_of={multiple_of}")
            sizes = tuple(int(v) for v in sizes)
        object.__setattr__(self, "sizes", sizes)
        real = _sequence("Dim.real", real, "[4096, 128256]")
        for v in real:
            if not _is_int(v) or v < 0:
                raise SpecError("Dim.real", v, "each real size is a non-negative int")
        object.__setattr__(self, "real", tuple(int(v) for v in real))

    def bounds(self) -> tuple[int, int | None]:
        """The smallest and largest size >= 1 this dimension allows (None: no largest)."""
        m = self.multiple_of
        lo = -(-max(self.min, 1) // m) * m
        hi = None if self.max is None else self.max // m * m
        return lo, hi

    def allows(self, size: int) -> bool:
        """Whether ``size`` satisfies min, max and multiple_of (0 only while min is 0)."""
        if size == 0:
            return self.min == 0
        lo, hi = self.bounds()
        return size >= lo and (hi is None or size <= hi) and size % self.multiple_of == 0

    def clip(self, size: int) -> int:
        """The size this dimension allows nearest above ``size`` (below, past max); 0 stays 0 while min is 0."""
        if size <= 0 and self.min == 0:
            return 0
        lo, hi = self.bounds()
        size = max(size, lo)
        size += -size % self.multiple_of
        return size if hi is None else min(size, hi)


def _check_dtype(argument: str, dtype: object) -> None:
    if dtype is not None and not isinstance(dtype, torch.dtype):
        raise SpecError(argument, dtype, "give a torch dtype such as torch.float32, or None")
    if isinstance(dtype, torch.dtype) and dtype.is_complex:
        raise SpecError(argument, dtype, "kcheck compares real tensors: give a real dtype such as torch.float32")


@_strict_keywords
@dataclass(frozen=True)
class Tensor:
    """A tensor whose shape is named dimensions (or fixed ints): floating as an input, floating or integer as an
    output.

    ``dtype`` pins a dtype (else the case's precision decides); ``pattern`` pins a data pattern (else the case's);
    ``mutated=True`` declares that the kernel writes this input on purpose (in place), so kcheck does not report it.
    ``grad=False`` keeps this input out of a ``Spec(grad=True)``'s gradient checks (a constant the kernel does not
    differentiate, e.g. a cos/sin table).

    ``dtype=torch.bool`` makes a boolean mask: each element True with probability ``density`` (default 0.5), drawn
    from the case's seed, for the random patterns; the patterns ``zeros`` (all False), ``ones`` (all True),
    ``constant`` (whole rows alternately all True and all False, the first all False), ``eye`` (the diagonal) and
    ``arange`` (every other element) give the extremes (see ``cases._patterns.make_mask``). A mask is never
    differentiated.
    """

    dims: tuple[str | int, ...]
    dtype: torch.dtype | None = None
    pattern: str | None = None
    mutated: bool = False
    name: str | None = None
    grad: bool = True
    density: float | None = None

    def __init__(self, *dims: str | int, dtype: torch.dtype | None = None, pattern: str | None = None,
                 mutated: bool = False, name: str | None = None, grad: bool = True,
                 density: float | None = None) -> None:
        object.__setattr__(self, "dims", _check_dims("Tensor(*dims)", dims))
        _check_dtype("Tensor(dtype)", dtype)
        if density is not None:
            if dtype != torch.bool:
                raise SpecError("Tensor(density)", density, "density is the share of True elements of a boolean "
                                                            "mask: give dtype=torch.bool too, or leave density out")
            if not _is_number(density) or not 0.0 <= float(density) <= 1.0:
                raise SpecError("Tensor(density)", density, "give a number in [0, 1]: the probability that an "
                                                            "element of the mask is True")
            density = float(density)
        elif dtype == torch.bool:
            density = 0.5
        object.__setattr__(self, "density", density)
        if pattern is not None and pattern not in PATTERNS:
            raise SpecError("Tensor(pattern)", pattern, f"use one of {list(PATTERNS)} or None")
        if not isinstance(mutated, bool):
            raise SpecError("Tensor(mutated)", mutated, "give True or False")
        _check_name("Tensor(name)", name)
        if not isinstance(grad, bool):
            raise SpecError("Tensor(grad)", grad, "give True or False")
        object.__setattr__(self, "grad", grad)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "pattern", pattern)
        object.__setattr__(self, "mutated", mutated)
        object.__setattr__(self, "name", name)


_INDEX_DTYPES = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


@_strict_keywords
@dataclass(frozen=True)
class Index:
    """An integer tensor whose values lie in [low, high): ``Index("T", high="V")`` holds token ids below V.

    ``high`` is a dimension name or an int > ``low``; with a dimension name, ``low`` is >= 0 and a case where the
    dimension is <= ``low`` while the tensor has elements cannot be built (it is skipped, and a Spec where no size
    of the dimension is above ``low`` is refused). kcheck always includes the extreme values low and high-1.
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
        if isinstance(high, str) and not _NAME.match(high):
            raise SpecError("Index(high)", high, "a dimension name is an identifier such as 'V'")
        if dtype not in _INDEX_DTYPES:
            raise SpecError("Index(dtype)", dtype, "give an integer dtype such as torch.int64 or torch.int32")
        if not _is_int(low):
            raise SpecError("Index(low)", low, "give an int (the smallest index value)")
        info = torch.iinfo(dtype)
        if isinstance(high, str):
            if low < 0:
                raise SpecError("Index(low)", low, f"give an int >= 0: high={high!r} is a size, so values lie in "
                                                   f"[low, {high})")
        else:
            if high < 1:
                raise SpecError("Index(high)", high, "give an int >= 1 (values lie in [low, high))")
            if high <= low:
                raise SpecError("Index(high)", high, f"give an int > low={low}: values lie in [low, high)")
            if high - 1 > info.max:
                raise SpecError("Index(high)", high, f"values up to {high - 1} do not fit {dtype}: give a wider "
                                                     "dtype such as torch.int64")
            if high > 2**63 - 1:  # torch.randint takes its bound as a signed 64-bit int
                raise SpecError("Index(high)", high, "give an int <= 2**63 - 1 (values are drawn with torch.randint, "
                                                     "whose bound is a signed 64-bit int)")
        if low < info.min or low > info.max:
            raise SpecError("Index(low)", low, f"{low} does not fit {dtype}: give a wider dtype")
        _check_name("Index(name)", name)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "low", int(low))
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "name", name)


@_strict_keywords
@dataclass(frozen=True)
class Scalar:
    """A scalar argument: a constant (a number, a bool, a string, None), or a function of the case's sizes
    (``Scalar(lambda d: d["N"])``). A tensor is a ``Tensor``; anything else is built by ``Custom``."""

    value: Any
    name: str | None = None

    def __post_init__(self) -> None:
        v = self.value
        if isinstance(v, torch.Tensor):
            raise SpecError("Scalar(value)", v, "declare a tensor argument as kcheck.Tensor (or build it with "
                                                "kcheck.Custom)")
        if not (callable(v) or v is None or isinstance(v, (numbers.Number, str))):
            raise SpecError("Scalar(value)", v, "give a number, a bool, a string, or a function of the sizes such "
                                                "as lambda d: 1 / d['N']; build other objects with kcheck.Custom")
        if isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isnan(float(v)):
            raise SpecError("Scalar(value)", v, "a NaN scalar turns the reference into NaN wherever it is used, and "
                                                "NaN matches NaN: give a number")
        _check_name("Scalar(name)", self.name)


@_strict_keywords
@dataclass(frozen=True)
class Custom:
    """Escape hatch: ``make(ctx)`` builds any argument from the case; ``ctx`` is a ``kcheck.CaseContext`` (the
    sizes ``ctx.dims``, the storage ``ctx.dtype``, ``ctx.device``, ``ctx.params``, a seeded CPU ``ctx.generator``
    and helpers ``ctx.randn``/``ctx.rand``/``ctx.randint``/``ctx.randperm``/``ctx.mask`` that draw on the CPU and
    move the result to ``ctx.device``, so the same Spec builds the same values on a CPU and on a GPU). A floating
    tensor it returns is upcast to float64 for the reference.

    ``dims`` declares the shape of the tensor ``make`` returns, in named dimensions or ints as ``Tensor`` does
    (``Custom(labels, dims=("T",))``): kcheck then sizes those dimensions (a dimension only a Custom uses gets its
    sizes too), counts the tensor in its memory and CPU budgets and its past-2**31 cases, and checks that ``make``
    returned a tensor of that shape. A Custom that returns something else may still name the dimensions it reads.
    """

    make: Callable[[CaseContext], Any]
    name: str | None = None
    dims: tuple[str | int, ...] | None = None

    def __post_init__(self) -> None:
        if not callable(self.make):
            raise SpecError("Custom(make)", self.make, "give a callable taking a kcheck.CaseContext")
        _check_name("Custom(name)", self.name)
        if self.dims is not None:
            if isinstance(self.dims, (str, int)) or not isinstance(self.dims, Sequence):
                raise SpecError("Custom(dims)", self.dims, "give the shape of the tensor make returns as a tuple, "
                                                           "e.g. dims=('T',) or dims=('T', 'D')")
            object.__setattr__(self, "dims", _check_dims("Custom(dims)", self.dims))


Input = Tensor | Index | Scalar | Custom


def _as_precisions(dtypes: object) -> tuple[Precision, ...]:
    if isinstance(dtypes, (str, torch.dtype)):
        dtypes = [dtypes]
    if isinstance(dtypes, Mapping) or not isinstance(dtypes, Sequence):
        raise SpecError("dtypes", dtypes, "give a list of precisions, e.g. ['fp32', 'bf16']")
    out = tuple(precision(d, "dtypes") for d in dtypes)
    if not out:
        raise SpecError("dtypes", list(dtypes), "list at least one precision, e.g. ['fp32', 'bf16']")
    return out


def _tolerance_number(argument: str, value: object, what: str) -> float:
    if not _is_number(value):
        raise SpecError(argument, value, f"give a number such as 1e-3 (the {what}), a dict per precision name, "
                                         "or None for the table")
    v = float(value)  # type: ignore[arg-type]
    if math.isnan(v) or math.isinf(v):
        raise SpecError(argument, value, f"give a finite number >= 0: a {what} of {v} lets every comparison pass")
    if v < 0:
        raise SpecError(argument, value, f"give a number >= 0: a negative {what} fails every comparison")
    return v


def _tolerance(argument: str, value: object, precisions: tuple[Precision, ...]) -> float | dict[str, float] | None:
    """A user's rtol/atol: None, one number for every precision, or a number per precision name the Spec runs."""
    what = "relative tolerance" if argument == "rtol" else "absolute tolerance"
    if value is None:
        return None
    if not isinstance(value, Mapping):
        return _tolerance_number(argument, value, what)
    names = [p.name for p in precisions]
    out: dict[str, float] = {}
    for key, v in value.items():
        try:
            name = precision(key, argument).name
        except SpecError:
            raise SpecError(argument, key, f"key the dict by the precisions the Spec runs: {names}") from None
        if name not in names:
            raise SpecError(argument, key, f"this Spec does not run {name}; key the dict by its precisions: {names}")
        out[name] = _tolerance_number(f"{argument}[{key!r}]", v, what)
    return out


def _index_problems(index: Index, dim: Dim) -> None:
    """Refuse an Index whose named ``high`` no size of its dimension makes valid (or that its dtype cannot hold
    at the nominal size)."""
    assert isinstance(index.high, str)
    _lo, hi = dim.bounds()
    if hi is not None and hi <= index.low:
        raise SpecError("Index(high)", index.high,
                        f"every size of {index.high!r} is <= low={index.low} (max={dim.max}), so no index value "
                        f"is valid: raise dims[{index.high!r}].max or lower low")
    if dim.nominal <= index.low:
        raise SpecError("Index(high)", index.high,
                        f"the nominal size of {index.high!r} ({dim.nominal}) is <= low={index.low}: give "
                        f"dims[{index.high!r}] a nominal above {index.low}")
    top = torch.iinfo(index.dtype).max
    if dim.nominal - 1 > top:
        raise SpecError("Index(dtype)", index.dtype,
                        f"the nominal size of {index.high!r} ({dim.nominal}) passes {index.dtype}'s largest value "
                        f"{top}: give a wider dtype or dims[{index.high!r}] = kcheck.Dim(max={top + 1})")


@_strict_keywords
@dataclass
class Spec:
    """A kernel's contract. See the module docstring for the calling convention; every argument is keyword-only.

    ``reduce`` names the reduction dimension(s): the tolerance widens with sqrt(length).
    ``baseline`` (default ``True``) also runs ``reference`` on the un-upcast inputs, in the case's precision, and
    requires the kernel's error to be at most ``baseline_factor`` times that baseline's (FlashAttention's rule);
    pass a callable to use another same-precision baseline, or ``False`` to turn it off.
    ``rtol``/``atol`` override the table: a finite number >= 0, or a dict keyed by the precisions the Spec runs.
    ``output_dtypes`` (kernels that return their outputs): the dtype of each floating output when it is not the
    case's storage dtype (``None`` for one that is), e.g. ``[torch.float32]`` for a kernel that returns fp32 from
    bf16 inputs. A floating output of another dtype fails its case; declared ``outputs`` carry their own ``dtype``.
    ``benign`` declares intended races between programs, left out by the interpreter's race check:
    ``[("out", "write-write")]`` (an argument name and "write-write", "read-write" or "any"), or predicates.
    ``stages`` declares partial versions of the kernel for code bisection (``kcheck debug``), in pipeline order:
    ``{"load_only": (kernel, reference), "max_only": (kernel, reference)}``, each called like ``kernel`` and
    checked like it; the debugger reports the first stage that goes wrong.
    ``journaled``: the kernel with a GPU journal, called like ``kernel`` plus ``journal=`` (a ``kcheck.journal.Journal``
    it logs into); ``kcheck debug`` runs it on the smallest failing case and cites the first step where NaN, Inf or
    an outlier appears, and where.
    ``grad=True`` also checks the backward: the kernel must be differentiable through autograd (e.g. a
    ``torch.autograd.Function``'s ``apply``) and return its outputs; kcheck draws upstream gradients, runs
    ``torch.autograd.grad`` through the kernel and through the float64 reference, and compares the gradient of every
    floating ``Tensor`` input (``Tensor(..., grad=False)`` leaves one out) under the tolerance model, a reduction
    over the forward's ``reduce`` dimensions plus the dimensions the input lacks (see docs/training.md).
    ``params`` declares modes: ``{"label_smoothing": [0.0, 0.1], "ignore_index": [-100]}``. Each case takes one
    value per name (the first is the nominal one), passed as a keyword argument to the kernel, the reference and
    the baseline alike; the matrix runs every value at least once and pairs them with the other factors, and the
    case id names them (``ce[T=64,V=512,fp32,randn,label_smoothing=0.1,ignore_index=-100,seed=0]``).
    ``output_shapes`` (kernels that return their outputs): the shape of each returned output, in named dimensions
    or ints (``[("M", "N"), ("M",)]``), so kcheck need not learn them from the reference (see cases._shapes).
    ``backward``: the kernel's backward as a launcher of its own, for kernels not behind autograd:
    ``backward(*inputs, *grad_outputs, **params, **config)`` returns the gradients of the checked inputs (those
    ``grad=True`` checks, in input order; or one per input, None for the others). kcheck then checks gradients as
    ``grad=True`` does, calling it instead of autograd through the kernel; ``grad_outputs`` are the upstream
    gradients, one per floating output of the reference.
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
    output_dtypes: Sequence[torch.dtype | None] | None = None
    journaled: Callable[..., Any] | None = None
    grad: bool = False
    params: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    output_shapes: Sequence[Sequence[str | int]] | None = None
    backward: Callable[..., Any] | None = None
    precisions: tuple[Precision, ...] = field(init=False, repr=False)
    #: What the matrix learned of the reference's output shapes (see cases._shapes), shared by narrowed copies.
    _shape_memo: dict[Any, Any] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise SpecError("name", self.name, "give an identifier such as 'softmax' (it names the cases)")
        for arg in ("kernel", "reference"):
            if not callable(getattr(self, arg)):
                raise SpecError(arg, getattr(self, arg), "give a callable (a launcher function, a torch op, ...)")
        if isinstance(self.inputs, (Tensor, Index, Scalar, Custom)):
            raise SpecError("inputs", self.inputs, "give a list of inputs, e.g. inputs=[kcheck.Tensor('N')]")
        self.inputs = _sequence("inputs", self.inputs, "[kcheck.Tensor('M', 'N')]")
        if not self.inputs:
            raise SpecError("inputs", [], "declare at least one input, e.g. [kcheck.Tensor('M', 'N')]")
        for i, inp in enumerate(self.inputs):
            if not isinstance(inp, (Tensor, Index, Scalar, Custom)):
                raise SpecError(f"inputs[{i}]", inp, "use kcheck.Tensor, kcheck.Index, kcheck.Scalar or kcheck.Custom")
            if (isinstance(inp, Tensor) and inp.dtype is not None and not inp.dtype.is_floating_point
                    and inp.dtype != torch.bool):
                raise SpecError(f"inputs[{i}]", inp, "a Tensor input is floating or a boolean mask: declare integer "
                                                     "inputs as kcheck.Index(..., high=..., dtype=...) or build "
                                                     "them with kcheck.Custom")
        if self.outputs is not None:
            if isinstance(self.outputs, Tensor):
                raise SpecError("outputs", self.outputs, "give a list of outputs, e.g. outputs=[kcheck.Tensor('N')]")
            self.outputs = _sequence("outputs", self.outputs, "[kcheck.Tensor('M', 'N')]")
            if not self.outputs:
                raise SpecError("outputs", [], "declare at least one output, or leave outputs=None when the kernel "
                                               "returns its outputs")
            for i, out in enumerate(self.outputs):
                if not isinstance(out, Tensor):
                    raise SpecError(f"outputs[{i}]", out, "declare outputs as kcheck.Tensor(...) or leave outputs=None")
        if self.output_dtypes is not None:
            if self.outputs is not None:
                raise SpecError("output_dtypes", self.output_dtypes, "declared outputs carry their dtype: "
                                                                     "outputs=[kcheck.Tensor(..., dtype=...)]")
            self.output_dtypes = _sequence("output_dtypes", self.output_dtypes, "[torch.float32]")
            for i, dt in enumerate(self.output_dtypes):
                if dt is not None:
                    _check_dtype(f"output_dtypes[{i}]", dt)
        self.precisions = _as_precisions(self.dtypes)
        if not isinstance(self.dims, Mapping):
            raise SpecError("dims", self.dims, "give a dict of dimension name to kcheck.Dim, e.g. "
                                               "dims={'N': kcheck.Dim(nominal=1024)}")
        self.dims = dict(self.dims)
        named = self.dim_names()
        for d, v in self.dims.items():
            if d not in named:
                raise SpecError("dims", d, f"no input or output uses dimension {d!r}; known: {sorted(named)}")
            if not isinstance(v, Dim):
                raise SpecError(f"dims[{d!r}]", v, "give a kcheck.Dim(...)")
        for inp in self.inputs:
            if isinstance(inp, Index) and isinstance(inp.high, str):
                if inp.high not in named:
                    raise SpecError("Index(high)", inp.high, f"name a dimension the spec uses: {sorted(named)}")
                _index_problems(inp, self.dim(inp.high))
        self.reduce = (self.reduce,) if isinstance(self.reduce, str) else _sequence("reduce", self.reduce, "['K']")
        for r in self.reduce:
            if r not in named:
                raise SpecError("reduce", r, f"name a dimension the spec uses: {sorted(named)}")
        configs = _sequence("configs", self.configs, "[{'BLOCK': 64}, {'BLOCK': 128}]")
        for i, c in enumerate(configs):
            if not isinstance(c, Mapping):
                raise SpecError(f"configs[{i}]", c, "each configuration is a dict of the kernel's keyword arguments, "
                                                    "e.g. {'BLOCK': 64}")
            for k in c:
                if not isinstance(k, str) or not _NAME.match(k):
                    raise SpecError(f"configs[{i}]", k, "config keys are keyword-argument names of the kernel")
        self.configs = tuple(dict(c) for c in configs) or ({},)
        self.patterns = (self.patterns,) if isinstance(self.patterns, str) else _sequence(
            "patterns", self.patterns, "['randn', 'large']")
        if not self.patterns:
            raise SpecError("patterns", [], f"list at least one data pattern from {list(PATTERNS)}")
        for p in self.patterns:
            if p not in PATTERNS:
                raise SpecError("patterns", p, f"use names from {list(PATTERNS)}")
        self.layouts = (self.layouts,) if isinstance(self.layouts, str) else _sequence(
            "layouts", self.layouts, "['contiguous']")
        if not self.layouts:
            raise SpecError("layouts", [], f"list at least one layout from {list(LAYOUTS)} ('contiguous' alone "
                                           "leaves out strided inputs)")
        for lay in self.layouts:
            if lay not in LAYOUTS:
                raise SpecError("layouts", lay, f"use names from {list(LAYOUTS)}")
        if not _is_int(self.seeds) or not 1 <= self.seeds <= MAX_SEEDS:
            raise SpecError("seeds", self.seeds, f"give an int >= 1 and <= {MAX_SEEDS} (how many random seeds the "
                            "nominal case uses; each is a case, run twice)")
        if not (isinstance(self.baseline, bool) or callable(self.baseline)):
            raise SpecError("baseline", self.baseline, "give True, False or a callable baseline")
        if not _is_number(self.baseline_factor) or not 1.0 <= float(self.baseline_factor) < math.inf:
            raise SpecError("baseline_factor", self.baseline_factor,
                            "give a float >= 1, finite (FlashAttention uses 2)")
        self.baseline_factor = float(self.baseline_factor)
        self.rtol = _tolerance("rtol", self.rtol, self.precisions)
        self.atol = _tolerance("atol", self.atol, self.precisions)
        self.benign = _sequence("benign", self.benign, "[('out', 'write-write')]")
        if not isinstance(self.stages, Mapping):
            raise SpecError("stages", self.stages, "give a dict of stage name to (kernel, reference)")
        self.stages = dict(self.stages)
        for stage, pair in self.stages.items():
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(callable(f) for f in pair)):
                raise SpecError(f"stages[{stage!r}]", pair, "give a (kernel, reference) pair of callables")
        if self.journaled is not None and not callable(self.journaled):
            raise SpecError("journaled", self.journaled, "give the kernel's journaled variant: a callable taking "
                                                         "the kernel's arguments and journal=")
        self._check_grad()
        self._check_params()
        if self.output_shapes is not None:
            if self.outputs is not None:
                raise SpecError("output_shapes", self.output_shapes, "declared outputs carry their shape: "
                                                                     "outputs=[kcheck.Tensor('M', 'N')]")
            shapes = _sequence("output_shapes", self.output_shapes, "[('M', 'N')]")
            if not shapes:
                raise SpecError("output_shapes", [], "give one shape per returned output, e.g. [('M', 'N')], or "
                                                     "leave output_shapes=None")
            checked = []
            for i, shape in enumerate(shapes):
                if isinstance(shape, (str, int)) or not isinstance(shape, Sequence):
                    raise SpecError(f"output_shapes[{i}]", shape, "give a tuple of dimension names or ints, e.g. "
                                                                  "('M', 'N'), or () for a scalar")
                shape_dims = _check_dims(f"output_shapes[{i}]", shape)
                for od in shape_dims:
                    if isinstance(od, str) and od not in named:
                        raise SpecError(f"output_shapes[{i}]", od, f"name a dimension the inputs use: "
                                                                   f"{sorted(named)}")
                checked.append(shape_dims)
            self.output_shapes = tuple(checked)
        self.properties = _sequence("properties", self.properties, "[kcheck.props.linear()]")
        for i, prop in enumerate(self.properties):
            if not isinstance(prop, Property):
                raise SpecError(f"properties[{i}]", prop, "use kcheck.props.* or kcheck.Property(name, fn)")

    def _check_grad(self) -> None:
        if not isinstance(self.grad, bool):
            raise SpecError("grad", self.grad, "give True (check the backward through autograd) or False")
        if self.backward is not None:
            if not callable(self.backward):
                raise SpecError("backward", self.backward, "give the backward launcher: a callable taking the "
                                                           "inputs and the upstream gradients, returning the input "
                                                           "gradients")
            if not self.grad_inputs():
                raise SpecError("backward", self.backward, "no input to differentiate: a backward needs a "
                                                           "kcheck.Tensor input without grad=False")
            self.grad = True
            return
        if not self.grad:
            return
        if self.outputs is not None:
            raise SpecError("grad", self.grad, "gradients flow through outputs the kernel returns: leave outputs=None "
                                               "and return them (e.g. from a torch.autograd.Function's forward)")
        if not self.grad_inputs():
            raise SpecError("grad", self.grad, "no input to differentiate: grad=True needs a kcheck.Tensor input "
                                               "without grad=False")

    def grad_inputs(self) -> list[int]:
        """The inputs whose gradients ``grad=True`` checks: floating ``Tensor`` inputs not declared grad=False."""
        return [i for i, inp in enumerate(self.inputs) if isinstance(inp, Tensor) and inp.grad
                and inp.dtype != torch.bool]

    def _check_params(self) -> None:
        if not isinstance(self.params, Mapping):
            raise SpecError("params", self.params, "give a dict of keyword name to the list of its values, e.g. "
                                                   "params={'label_smoothing': [0.0, 0.1]}")
        params: dict[str, tuple[Any, ...]] = {}
        taken = {getattr(inp, "name", None) for inp in self.inputs} - {None}
        dims = set(self.dim_names())
        configs = {k for c in self.configs for k in c}
        for name, values in self.params.items():
            if not isinstance(name, str) or not _NAME.match(name):
                raise SpecError("params", name, "each key is the keyword name the kernel and the reference take, "
                                                "an identifier such as 'ignore_index'")
            if name in taken:
                raise SpecError(f"params[{name!r}]", name, "an input is named so too: rename the input (its name= "
                                                           "labels reports) or the mode")
            if name in dims or name in _RESERVED:
                raise SpecError(f"params[{name!r}]", name, "a case id uses this name for a dimension or its seed: "
                                                           "give the mode another keyword name")
            if name in configs:
                raise SpecError(f"params[{name!r}]", name, "a launch configuration passes this keyword already: "
                                                           "keep it in configs or in params, not both")
            if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence) or not values:
                raise SpecError(f"params[{name!r}]", values, f"give a non-empty list of values, e.g. "
                                                             f"params={{{name!r}: [0.0, 0.1]}} (the first is nominal)")
            texts: dict[str, Any] = {}
            for v in values:
                try:
                    hash(v)
                except TypeError:
                    raise SpecError(f"params[{name!r}]", v, "each value must be hashable (a number, a string, "
                                                            "a bool, None, a tuple, a torch dtype)") from None
                if isinstance(v, torch.Tensor):
                    raise SpecError(f"params[{name!r}]", v, "a mode is a plain value: declare tensors as inputs")
                text = param_text(v)
                if text in texts:
                    raise SpecError(f"params[{name!r}]", v, f"{v!r} and {texts[text]!r} read the same in a case "
                                                            f"id ({name}={text}): list each value once")
                texts[text] = v
            params[name] = tuple(values)
            positional = len(self.inputs) + len(self.outputs or ())
            callables = [("kernel", self.kernel, positional), ("reference", self.reference, len(self.inputs))]
            if callable(self.baseline) and not isinstance(self.baseline, bool):
                callables.append(("baseline", self.baseline, len(self.inputs)))
            if self.backward is not None:
                callables.append(("backward", self.backward, len(self.inputs)))
            for stage, (k, r) in self.stages.items():
                callables += [(f"stages[{stage!r}] kernel", k, positional),
                              (f"stages[{stage!r}] reference", r, len(self.inputs))]
            for what, fn, n in callables:
                why = _cannot_take(fn, n, name)
                if why is not None:
                    raise SpecError(f"params[{name!r}]", name, f"the {what} cannot take {name}= ({why}): add a "
                                                               f"keyword parameter {name} to it")
        self.params = params

    def nominal_params(self) -> dict[str, Any]:
        """The first value of every mode: what a case that does not vary a mode passes."""
        return {k: v[0] for k, v in self.params.items()}

    def dim_names(self) -> list[str]:
        """Every named dimension, in order of first use."""
        names: list[str] = []
        for t in [*self.inputs, *(self.outputs or ())]:
            dims = getattr(t, "dims", None) or ()
            extra = [t.high] if isinstance(t, Index) and isinstance(t.high, str) else []
            for d in [*dims, *extra]:
                if isinstance(d, str) and d not in names:
                    names.append(d)
        return names

    def dim(self, name: str) -> Dim:
        return self.dims.get(name) or _DEFAULT_DIM  # type: ignore[union-attr]


_DEFAULT_DIM = Dim()

#: Keywords a case id spells itself: a mode may not take them.
_RESERVED = frozenset({"seed"})


def param_text(value: object) -> str:
    """How a mode's value reads in a case id: its ``str`` (a torch dtype without ``torch.``), with commas and
    brackets replaced so that the id still splits on commas (a tuple ``(1, 2)`` reads ``(1;2)``)."""
    text = str(value).removeprefix("torch.") if isinstance(value, torch.dtype) else str(value)
    return text.replace(", ", ";").replace(",", ";").replace("[", "(").replace("]", ")")


def _signature(fn: Callable[..., Any]) -> inspect.Signature | None:
    """``fn``'s signature; for an autograd Function's ``apply``, its ``forward``'s without ``ctx``; None when
    Python cannot tell (a builtin)."""
    owner = getattr(fn, "__self__", None)
    if (getattr(fn, "__name__", None) == "apply" and isinstance(owner, type)
            and issubclass(owner, torch.autograd.Function)):
        try:
            sig = inspect.signature(owner.forward)
        except (TypeError, ValueError):
            return None
        params = list(sig.parameters.values())
        new_style = getattr(owner, "setup_context", None) is not getattr(torch.autograd.Function, "setup_context",
                                                                          None)
        return sig if new_style else sig.replace(parameters=params[1:])
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _cannot_take(fn: Callable[..., Any], positional: int, name: str) -> str | None:
    """Why ``fn(*positional arguments, name=...)`` cannot bind, or None (also when Python cannot tell)."""
    sig = _signature(fn)
    if sig is None:
        return None
    dummies: list[None] = [None] * positional
    try:
        sig.bind_partial(*dummies)
    except TypeError:
        dummies = []  # the positional count is not this check's business
    try:
        sig.bind_partial(*dummies, **{name: None})
    except TypeError as exc:
        return str(exc)
    return None
