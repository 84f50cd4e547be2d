"""Shapes of the outputs a kernel allocates itself, learned from the reference, cheaply and bounded.

The matrix needs every case's tensor shapes (memory estimates, the CPU budgets, the past-2**31 case), but a Spec
whose kernel returns its outputs declares no output shapes. kcheck runs the reference on meta tensors (shapes only:
no memory, no arithmetic), and bounds what that costs:

- **a rule from three probes**: the reference runs at three small size assignments, each dimension a distinct
  prime (kept inside its Dim's constraints). Each output extent is matched to a constant times a product of named
  dimensions (``N``, ``2*N``, ``M*N``, ``16``); when every extent of every output matches, the rule gives the
  output shapes of every case without calling the reference again;
- **otherwise, once per distinct set of sizes**, memoized, at most ``MAX_CALLS`` calls and ``MAX_SECONDS`` in all,
  and only where the inputs hold at most ``MAX_DIRECT_ELEMENTS`` elements; past that the outputs are left out
  (the shapes are the inputs' and the declared outputs' only);
- **small CPU tensors first**: the three probes run the reference on CPU tensors of the probes' sizes (primes up
  to a few dozen per dimension: microseconds), built as a case's inputs are (randn, masks, ids in range); meta
  tensors of a composite operation (``layer_norm``, ``matmul``) go through torch's Python decompositions, whose
  first call imports ``torch._dynamo`` (3-5 s of every process that builds a matrix). A Custom input is built
  by its own ``make`` with ``ctx.device`` "cpu" at those sizes (its floating tensors upcast to float64). Where
  the reference or a ``make`` cannot run so, the probes run on meta tensors as below;
- **meta otherwise**: the reference runs with meta as the default device (``torch.arange(n)`` costs nothing), and a
  tensor of more than one element created on another device (``torch.arange(n, device="cpu")``) stops the call
  before it allocates: kcheck then stops asking that reference for shapes. A reference that raises on meta
  tensors at the probes is not asked again either;
- **Custom inputs** past the small probes are built by their ``make`` with ``ctx.device`` "meta", and every
  tensor they return stands in on the meta device; past the probes,
  only when each Custom declares its ``dims`` (so that its size counts against ``MAX_DIRECT_ELEMENTS``);
- **modes**: the reference gets the case's ``params``; shapes are learned per set of modes (``reduction="none"``
  and ``reduction="sum"`` return different shapes);
- **declared**: a Spec's ``output_shapes`` are used as they are; the reference is not called.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from .._dtypes import PRECISIONS
from .._spec import Custom, Index, Scalar, Spec, Tensor
from ._context import CaseContext, cpu_generator
from ._patterns import make, make_mask

#: Calls of the reference, beyond the three probes, per Spec when no rule fits.
MAX_CALLS = 16
#: Seconds the reference may take in all, beyond the probes, per Spec when no rule fits.
MAX_SECONDS = 2.0
#: Without a rule, the reference is not called for sizes whose inputs hold more elements than this.
MAX_DIRECT_ELEMENTS = 2**26
#: A rule is looked for over products of at most this many dimensions' subsets (2**n products per extent).
MAX_RULE_DIMS = 10

_PRIMES = (5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107,
           109, 113, 127, 131)

Shape = tuple[int, ...]
#: Per output, per axis: (constant, dimension names) meaning constant * product of those dimensions.
Rule = list[list[tuple[int, tuple[str, ...]]]]


class _NotMeta(Exception):
    """The reference created (or was about to create) a tensor off the meta device."""


def _meta_only_mode() -> Any:
    """A torch-function mode that stops any call creating or reading a tensor of more than one element off the
    meta device; None where torch has no such modes.

    A function mode, not a dispatch mode: under a Python dispatch mode a composite op (``torch.matmul``) makes torch
    import ``torch._dynamo`` (seconds, in every process that builds a matrix); a function mode sees the same
    calls at the Python level, their arguments and their results, and imports nothing."""
    try:
        from torch.overrides import TorchFunctionMode
        from torch.utils._pytree import tree_leaves
    except ImportError:  # pragma: no cover - every supported torch has them
        return None

    def real(x: object) -> bool:
        if isinstance(x, torch.Tensor):
            return x.device.type != "meta" and x.numel() > 1
        return isinstance(x, torch.device) and x.type != "meta"

    class MetaOnly(TorchFunctionMode):  # type: ignore[misc]
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            if any(real(a) for a in tree_leaves((args, kwargs))):
                raise _NotMeta(getattr(func, "__name__", str(func)))
            out = func(*args, **kwargs)
            if any(real(o) for o in tree_leaves(out)):
                raise _NotMeta(getattr(func, "__name__", str(func)))
            return out

    return MetaOnly()


@dataclass
class _Inference:
    rule: Rule | None = None
    probed: bool = False
    stopped: str | None = None  # why the reference is no longer asked
    calls: int = 0  # calls beyond the probes
    seconds: float = 0.0
    memo: dict[tuple[tuple[str, int], ...], list[Shape]] = field(default_factory=dict)


def _state(spec: Spec, params: Mapping[str, Any]) -> _Inference:
    memo = spec._shape_memo
    key = ("outputs", tuple(params.items()))
    state = memo.get(key)
    if state is None:
        state = memo[key] = _Inference()
    return state


def _input_elements(spec: Spec, dims: Mapping[str, int]) -> int | None:
    """Elements of every input whose shape is known at ``dims``; None when a Custom input does not declare its."""
    total = 0
    for t in spec.inputs:
        if isinstance(t, (Tensor, Index)) or (isinstance(t, Custom) and t.dims is not None):
            assert t.dims is not None
            total += math.prod(dims[d] if isinstance(d, str) else d for d in t.dims)
        elif isinstance(t, Custom):
            return None
    return total


def _on_meta(value: Any) -> Any:
    """``value`` with every tensor in it replaced by a meta stand-in (floating ones in float64, as the reference
    sees them upcast)."""
    from torch.utils._pytree import tree_map

    def meta(x: Any) -> Any:
        if not isinstance(x, torch.Tensor):
            return x
        dtype = torch.float64 if x.is_floating_point() else x.dtype
        return torch.empty(x.shape, dtype=dtype, device="meta")

    return tree_map(meta, value)


def _custom(spec: Spec, t: Custom, slot: int, dims: Mapping[str, int], params: Mapping[str, Any],
            device: str = "meta") -> Any:
    """A Custom input's value as the reference sees it: on meta (meta stand-ins), or ``device="cpu"`` at a
    probe's small sizes (floating tensors upcast to float64)."""
    ctx = CaseContext(dict(dims), PRECISIONS["fp32"].storage, "fp32", "randn", device, cpu_generator(slot), 0,
                      dict(params))
    with torch.no_grad():
        value = t.make(ctx)
    if device == "meta":
        return _on_meta(value)
    from torch.utils._pytree import tree_map

    return tree_map(lambda x: x.to(torch.float64) if isinstance(x, torch.Tensor) and x.is_floating_point() else x,
                    value)


#: Largest input the shape probes build on the CPU (elements); larger probes run on meta tensors.
SMALL_PROBE_ELEMENTS = 2**22


def _small_input(t: Tensor | Index, shape: Shape, slot: int, dims: Mapping[str, int]) -> torch.Tensor:
    """A CPU stand-in for a probe's input, drawn as a case's are: randn in float64 (as the reference sees it
    upcast), a mask, or ids in their range."""
    gen = cpu_generator(slot)
    if isinstance(t, Index):
        high = dims[t.high] if isinstance(t.high, str) else t.high
        return torch.randint(t.low, max(high, t.low + 1), shape, generator=gen, dtype=t.dtype)
    if t.dtype == torch.bool:
        return make_mask("randn", shape, t.density if t.density is not None else 0.5, "cpu", gen)
    return make("randn", shape, torch.float64, "cpu", gen)


def _call(spec: Spec, dims: Mapping[str, int], params: Mapping[str, Any], small: bool = False) -> list[Shape] | None:
    """The reference's output shapes at ``dims`` on meta tensors; None when it cannot run there (``_NotMeta`` when
    it computes off the meta device). ``small``: on small CPU tensors instead (the probes' sizes), which needs none
    of the Python decompositions that meta tensors of composite operations go through (the first of them imports
    ``torch._dynamo``: 3-5 s of every matrix-building process); None when the reference cannot run so."""
    args: list[Any] = []
    for slot, t in enumerate(spec.inputs):
        if isinstance(t, (Tensor, Index)):
            shape = tuple(dims[d] if isinstance(d, str) else d for d in t.dims)
            if small:
                if math.prod(shape) > SMALL_PROBE_ELEMENTS:  # a Dim's multiple_of of 2**31: meta tensors, not RAM
                    return None
                args.append(_small_input(t, shape, slot, dims))
                continue
            dtype = t.dtype if isinstance(t, Index) or t.dtype == torch.bool else torch.float64
            try:
                args.append(torch.empty(shape, dtype=dtype, device="meta"))
            except (RuntimeError, TypeError, OverflowError):  # past what a tensor can hold (a square Spec's large
                return None  # case), or a size past int64 (TypeError from torch's argument parser)
        elif isinstance(t, Scalar):
            try:
                args.append(t.value(dict(dims)) if callable(t.value) else t.value)
            except Exception:
                return None
        else:
            try:
                args.append(_custom(spec, t, slot, dims, params, "cpu" if small else "meta"))
            except Exception:
                return None  # a make that cannot build on this device: nothing to learn from
    if small:
        try:
            with torch.no_grad():
                res = spec.reference(*args, **params)
        except Exception:
            return None
    else:
        mode = _meta_only_mode()
        try:
            with torch.no_grad(), torch.device("meta"):
                if mode is None:
                    res = spec.reference(*args, **params)
                else:
                    with mode:
                        res = spec.reference(*args, **params)
        except _NotMeta:
            raise
        except Exception:
            return None
    res = res if isinstance(res, (tuple, list)) else (res,)
    return [tuple(r.shape) for r in res if isinstance(r, torch.Tensor)]


def _probe_dims(spec: Spec, k: int) -> dict[str, int]:
    names = spec.dim_names()
    out = {}
    for j, d in enumerate(names):
        dim = spec.dim(d)
        out[d] = dim.clip(dim.min + _PRIMES[(k * len(names) + j) % len(_PRIMES)] * dim.multiple_of)
    return out


def _learn(probes: list[dict[str, int]], shapes: list[list[Shape]]) -> Rule | None:
    """The rule that reproduces every probe's shapes, or None."""
    if len({len(s) for s in shapes}) != 1 or any(len({len(s[o]) for s in shapes}) != 1 for o in
                                                 range(len(shapes[0]))):
        return None
    names = list(probes[0])
    if len(names) > MAX_RULE_DIMS:
        return None
    subsets = [c for r in range(len(names) + 1) for c in itertools.combinations(names, r)]
    rule: Rule = []
    for o, first in enumerate(shapes[0]):
        axes = []
        for a in range(len(first)):
            best: tuple[int, tuple[str, ...]] | None = None
            for subset in subsets:
                prods = [math.prod(p[d] for d in subset) for p in probes]
                values = [s[o][a] for s in shapes]
                if prods[0] == 0 or values[0] % prods[0]:
                    continue
                c = values[0] // prods[0]
                if all(c * p == v for p, v in zip(prods, values, strict=True)):
                    cand = (c, subset)
                    if best is None or (cand[0] != 1, len(cand[1])) < (best[0] != 1, len(best[1])):
                        best = cand
            if best is None:
                return None
            axes.append(best)
        rule.append(axes)
    return rule


def _apply(rule: Rule, dims: Mapping[str, int]) -> list[Shape]:
    return [tuple(c * math.prod(dims[d] for d in subset) for c, subset in axes) for axes in rule]


def output_shapes(spec: Spec, dims: Mapping[str, int], params: Mapping[str, Any] | None = None) -> list[Shape]:
    """Shapes of the outputs the reference returns at ``dims`` with the modes ``params`` (default: the nominal
    ones), or the Spec's declared ``output_shapes`` (see the module docstring); [] when unknown."""
    if spec.output_shapes is not None:
        return [tuple(dims[d] if isinstance(d, str) else d for d in shape) for shape in spec.output_shapes]
    params = spec.nominal_params() if params is None else params
    state = _state(spec, params)
    if state.stopped is not None:
        return []
    if not state.probed:
        state.probed = True
        probes = [_probe_dims(spec, k) for k in range(3)]
        try:
            shapes = [_call(spec, p, params, small=True) for p in probes]
            if any(s is None for s in shapes):
                shapes = [_call(spec, p, params) for p in probes]
        except _NotMeta as exc:
            state.stopped = f"the reference computes off the meta device ({exc})"
            return []
        if any(s is None for s in shapes):
            state.stopped = "the reference does not run on meta tensors"
            return []
        state.rule = _learn(probes, shapes)  # type: ignore[arg-type]
    if state.rule is not None:
        return _apply(state.rule, dims)
    key = tuple(sorted(dims.items()))
    if key in state.memo:
        return state.memo[key]
    elements = _input_elements(spec, dims)
    if state.calls >= MAX_CALLS or state.seconds >= MAX_SECONDS or elements is None or elements > MAX_DIRECT_ELEMENTS:
        return []
    t0 = time.perf_counter()
    state.calls += 1
    try:
        found = _call(spec, dims, params)
    except _NotMeta as exc:
        state.stopped = f"the reference computes off the meta device ({exc})"
        found = None
    state.seconds += time.perf_counter() - t0
    state.memo[key] = found or []
    return state.memo[key]
