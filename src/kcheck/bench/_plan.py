"""What to time for a Spec: its nominal and real-dimension cases (never the edge cases), or the cases it names, and
the bytes and FLOPs each case costs.

A Spec states its timing plan beside itself, in the same module::

    spec = kcheck.Spec(name="gemm", ...)
    kcheck.bench.configure(spec, cost=kcheck.bench.Cost(
        flops=lambda c: 2 * c["M"] * c["N"] * c["K"],
        bytes=lambda c: (c["M"] * c["K"] + c["K"] * c["N"] + c["M"] * c["N"]) * c.itemsize),
        sizes=[{"M": 4096, "N": 4096, "K": 4096}])

Without a stated cost kcheck estimates the bytes as every input and output read or written once, and states no
FLOPs.
"""

from __future__ import annotations

import math
import numbers
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._check import matrix
from .._dtypes import PRECISIONS
from .._errors import SpecError
from .._spec import Spec
from ..cases import Case

#: The matrix axes whose cases at the nominal shape (randn data, contiguous, seed 0) are timed: the nominal case in
#: each precision and each launch configuration. The ``real`` axis's cases are timed too. Every other axis holds
#: edge cases (sizes 0, 1, 17, ..., special data, strided layouts, waves, past-2**31), which are never timed.
NOMINAL_AXES = ("size", "dtype", "seed", "config")


@dataclass(frozen=True)
class CostContext:
    """What a ``Cost`` function sees of a case: ``c["M"]`` (a dimension's size), ``c.dims``, ``c.precision``,
    ``c.itemsize`` (bytes per element of the case's floating tensors) and ``c.config``."""

    dims: Mapping[str, int]
    precision: str
    itemsize: int
    config: Mapping[str, Any]

    def __getitem__(self, name: str) -> int:
        try:
            return self.dims[name]
        except KeyError:
            raise SpecError("Cost", name, f"this Spec's dimensions are {sorted(self.dims)}") from None


Amount = float | Callable[[CostContext], float] | None


@dataclass(frozen=True)
class Cost:
    """Bytes moved and floating-point operations per call of the kernel: a number, or a function of the case
    (``lambda c: 2 * c["M"] * c["N"] * c["K"]``). Either may be None (unknown)."""

    bytes: Amount = None
    flops: Amount = None

    def __post_init__(self) -> None:
        for name in ("bytes", "flops"):
            v = getattr(self, name)
            if v is not None and not callable(v) and not _nonneg(v):
                raise SpecError(f"Cost({name})", v, "give a number >= 0, a function of the case, or None")

    def evaluate(self, ctx: CostContext) -> tuple[float | None, float | None]:
        return _amount("bytes", self.bytes, ctx), _amount("flops", self.flops, ctx)


def _nonneg(v: object) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v)) and float(v) >= 0


def _amount(name: str, v: Amount, ctx: CostContext) -> float | None:
    if v is None:
        return None
    if callable(v):
        try:
            v = v(ctx)
        except SpecError:
            raise
        except Exception as exc:
            raise SpecError(f"Cost({name})", v, f"the function raised {type(exc).__name__}: {exc}") from exc
    if not _nonneg(v):
        raise SpecError(f"Cost({name})", v, "the function must return a number >= 0")
    return float(v)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Plan:
    """A Spec's timing plan: its cost, the case ids or patterns to time instead of the default, extra sizes."""

    cost: Cost | None = None
    cases: tuple[str, ...] = ()
    sizes: tuple[tuple[tuple[str, int], ...], ...] = ()
    precisions: tuple[str, ...] = field(default=())


_PLANS: dict[int, tuple[weakref.ref[Spec], Plan]] = {}


def configure(spec: Spec, *, cost: Cost | None = None, cases: str | Sequence[str] | None = None,
              sizes: Sequence[Mapping[str, int]] | None = None, dtypes: Sequence[str] | None = None) -> Spec:
    """State how ``spec`` is timed (call it at module level, beside the Spec): its ``cost``, the ``cases`` to time
    (ids, globs or substrings of its matrix's timing cases), extra ``sizes`` to time (each a dict of every named
    dimension; in every precision of ``dtypes``, default the Spec's first). Returns the Spec."""
    if not isinstance(spec, Spec):
        raise SpecError("spec", spec, "pass a kcheck.Spec")
    if cost is not None and not isinstance(cost, Cost):
        raise SpecError("cost", cost, "give a kcheck.bench.Cost(bytes=..., flops=...)")
    names = tuple([cases] if isinstance(cases, str) else cases or ())
    if not all(isinstance(c, str) for c in names):
        raise SpecError("cases", cases, "give case ids, globs or substrings")
    dims = spec.dim_names()
    fixed = []
    for s in sizes or ():
        if not isinstance(s, Mapping) or set(s) != set(dims) or not all(
                isinstance(v, int) and not isinstance(v, bool) and spec.dim(k).allows(v) and v > 0
                for k, v in s.items()):
            raise SpecError("sizes", s, f"give a dict of every dimension {dims} to a size >= 1 its Dim allows")
        fixed.append(tuple((d, int(s[d])) for d in dims))
    precs = tuple(dtypes or ())
    for p in precs:
        if p not in PRECISIONS:
            raise SpecError("dtypes", p, f"use names from {list(PRECISIONS)}")
    _PLANS[id(spec)] = (weakref.ref(spec), Plan(cost, names, tuple(fixed), precs))
    return spec


def plan_of(spec: Spec) -> Plan:
    got = _PLANS.get(id(spec))
    if got is not None and got[0]() is spec:
        return got[1]
    return Plan()


def _nominal(spec: Spec) -> dict[str, int]:
    return {d: spec.dim(d).clip(spec.dim(d).nominal) for d in spec.dim_names()}


def is_timing_case(spec: Spec, case: Case) -> bool:
    """Whether ``case`` is one kcheck times by default: the nominal shape (randn data, contiguous, seed 0) in some
    precision or configuration, or a real model dimension."""
    if case.axis == "real":
        return case.pattern == "randn" and case.layout == "contiguous"
    return (case.axis in NOMINAL_AXES and case.sizes == _nominal(spec) and case.pattern == "randn"
            and case.layout == "contiguous" and case.seed == 0)


def select_cases(spec: Spec, *, cases: str | Sequence[str] | None = None, dtypes: Sequence[str] | None = None,
                 device: Any = None) -> tuple[list[Case], list[Case]]:
    """The cases to time, and those left out because this machine cannot run them (each with its ``skip``).

    Default: the Spec's nominal and real-dimension cases from its matrix (``is_timing_case``). ``cases`` (here or
    in ``configure``) narrows them by id, glob or substring; ``configure(sizes=...)`` adds sizes of its own."""
    plan = plan_of(spec)
    all_cases = matrix(spec, large=False, dtypes=dtypes, device=device)
    chosen = [c for c in all_cases if is_timing_case(spec, c)]
    patterns = [cases] if isinstance(cases, str) else list(cases or ()) or list(plan.cases)
    if patterns:
        import fnmatch

        chosen = [c for c in chosen if any(p == c.id or fnmatch.fnmatchcase(c.id, p) or p in c.id for p in patterns)]
    if plan.sizes and not patterns:
        precs = list(dtypes or plan.precisions or [spec.precisions[0].name])
        cfg = tuple(spec.configs[0].items()) if spec.configs else ()
        known = {c.id for c in chosen}
        for dims in plan.sizes:
            for p in precs:
                case = Case(spec.name, dims, p, config=cfg, axis="bench")
                if case.id not in known:
                    chosen.append(case)
                    known.add(case.id)
    runnable = [c for c in chosen if c.skip is None]
    return runnable, [c for c in chosen if c.skip is not None]
