"""The case matrix: which sizes, precisions, patterns, layouts, configs and seeds a Spec is checked on.

The default matrix varies one axis at a time around a base case (one-factor-at-a-time) instead of the full cartesian
product, which would be thousands of cases for a 3-D GEMM:

- size:    each dimension over its systematic set (0, 1, 17, 31-33, 63-65, 127-129, nominal), the others nominal;
           plus every dimension at once at 1, 17 and 129;
- real:    real model dimensions (37, 2880, 128256 unless the Dim says otherwise), others shrunk to fit;
- dtype:   every precision at the nominal and the odd (129) shape, with randn and large-magnitude data;
- pattern: every data pattern at the odd shape, first precision;
- layout:  non-contiguous inputs (rows padded, or an offset start for 1-D) at the odd and nominal shapes;
- config:  every launch configuration after the first at the odd and nominal shapes;
- seed:    the nominal case over ``spec.seeds`` seeds, each run twice to measure determinism;
- wave:    the first dimension one block of 128 past a whole wave (SMs x 128), the others small;
- large:   one case whose largest tensor passes 2**31 elements (int32 overflow), sized to the device's memory, and
           per 2-D input one whose last row starts past 2**31 (``row * stride`` wraps there);
- long, big: every precision at the longest reduction and at the largest non-large size the device allows;
- pairwise: a covering design in which every pair of factor values meets (``_covering``), under a budget;
- param:   every value of each of the Spec's ``params`` (modes) at the nominal and odd shapes, the other modes at
           their nominal (first) value; the modes are factors of the pairwise design too.

``tier="quick"`` keeps size, dtype and seed cases at the nominal and odd shapes only; ``tier="full"`` crosses
every precision with every pattern, every configuration with every size, and every combination of the modes (up to
``FULL_PARAM_COMBINATIONS``) at the nominal and odd shapes.
Every case is checked against the device: a case that cannot run here says why in ``skip``.
"""

from __future__ import annotations

import ast
import copy
import enum
import hashlib
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .._device import DeviceInfo
from .._dtypes import PRECISIONS, precision
from .._errors import SpecError
from .._spec import LAYOUTS, PATTERNS, Custom, Index, Spec, Tensor, param_text
from ._covering import pairwise
from ._shapes import output_shapes
from ._sizes import INT32_LIMIT, ODD, fit, real_sizes, systematic

TIERS = ("quick", "default", "full")
#: The word a case id carries when the case runs in Triton's interpreter on a machine with a GPU.
INTERPRETED = "interpreter"


class SkipKind(str, enum.Enum):
    """Who made a case unrunnable: the verdict treats a machine's limits and a Spec's impossibility differently."""

    DEVICE = "device"  # this machine cannot run it (no GPU, capability, memory, the CPU's budget)
    OPTION = "option"  # the caller turned it off (large=False)
    SPEC = "spec"  # the Spec makes it impossible (an Index with no valid value)


#: On the CPU, Triton's interpreter runs programs one after another: keep each case's tensors below this many
#: elements (the largest tensor); bigger cases run on a GPU.
CPU_MAX_ELEMENTS = 2**22
#: On the CPU, a case's *work* (the product of its named dimension sizes, each at least 1: the elements of an
#: elementwise kernel, M*N*K for a GEMM) is kept under this, or under ``CPU_NOMINAL_WORK_FACTOR`` times the Spec's
#: nominal case's own work when that is larger (a Spec with four dimensions of 128). The real-size and wave cases
#: shrink their other dimensions (to 17, then down to 1) to fit; a case still past it runs on a GPU.
CPU_MAX_WORK = 2**24
CPU_NOMINAL_WORK_FACTOR = 4
#: On a GPU, the pairwise, long and big cases keep their largest tensor below this many elements (2**28: 1 GiB in
#: fp32), so that they stay seconds long; the past-2**31 cases are the ``large`` axis's.
GPU_MAX_ELEMENTS = 2**28
#: ``tier="full"`` crosses the modes' values with each other up to this many combinations.
FULL_PARAM_COMBINATIONS = 64


@dataclass(frozen=True)
class Case:
    """One point of the matrix: everything needed to rebuild its inputs exactly."""

    spec: str
    dims: tuple[tuple[str, int], ...]
    precision: str
    pattern: str = "randn"
    seed: int = 0
    layout: str = "contiguous"
    config: tuple[tuple[str, Any], ...] = ()
    axis: str = "size"  # why the case exists (see the module docstring)
    repeats: int = 0  # extra runs on the same inputs, to measure determinism
    properties: bool = False  # the Spec's properties are checked on this case's shape and precision
    skip: str | None = None  # why it cannot run on this device, if it cannot
    notes: tuple[str, ...] = field(default=(), compare=False)
    skip_kind: SkipKind | None = field(default=None, compare=False)
    params: tuple[tuple[str, Any], ...] = ()  # one value per mode of the Spec (``Spec.params``), in its order
    # run in Triton's interpreter on a machine whose other cases run on its GPU (``run.cross_cases``)
    interpreted: bool = False

    @property
    def sizes(self) -> dict[str, int]:
        return dict(self.dims)

    @property
    def config_dict(self) -> dict[str, Any]:
        return dict(self.config)

    @property
    def params_dict(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def compile_key(self) -> tuple:
        """What a JIT compiler specializes this case's kernel on (``compile_key``)."""
        return compile_key(self.sizes, self.precision, self.layout, self.config, self.params)

    @property
    def id(self) -> str:
        parts = [f"{k}={v}" for k, v in self.dims]
        parts += [self.precision, self.pattern]
        if self.layout != "contiguous":
            parts.append(self.layout)
        parts += [f"{k}={v}" for k, v in self.config]
        parts += [f"{k}={param_text(v)}" for k, v in self.params]
        if self.interpreted:
            parts.append(INTERPRETED)
        parts.append(f"seed={self.seed}")
        return f"{self.spec}[{','.join(parts)}]"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "dims": self.sizes, "precision": self.precision, "pattern": self.pattern,
                "seed": self.seed, "layout": self.layout, "config": _plain(self.config),
                "params": _plain(self.params), "axis": self.axis, "interpreted": self.interpreted,
                "repeats": self.repeats, "properties": self.properties, "skip": self.skip,
                "skip_kind": None if self.skip_kind is None else self.skip_kind.value}


def _plain(items: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """Keyword values as JSON holds them: numbers, strings, bools and None as they are, anything else as its repr."""
    return {k: v if v is None or isinstance(v, (int, float, str, bool)) else repr(v) for k, v in items}


def params_of(spec: Spec, case: Case) -> dict[str, Any]:
    """The modes ``case`` runs with: the Spec's nominal values, replaced by the case's own (a case built without
    them, e.g. by hand, gets the nominal ones)."""
    return {**spec.nominal_params(), **{k: v for k, v in case.params if k in spec.params}}


def kernel_kwargs(spec: Spec, case: Case) -> dict[str, Any]:
    """The keyword arguments every call of the kernel (or of anything called like it: a stage, the journaled
    variant) takes for ``case``: its modes, then its launch configuration. The one place they are put together."""
    return {**params_of(spec, case), **case.config_dict}


def reference_kwargs(spec: Spec, case: Case) -> dict[str, Any]:
    """The keyword arguments every call of the reference (and of the baseline) takes for ``case``: its modes."""
    return params_of(spec, case)


def shaped(spec: Spec) -> list[Tensor | Index | Custom]:
    """The inputs and outputs whose shape the Spec declares: tensors, index tensors, Customs with ``dims``."""
    return [t for t in [*spec.inputs, *(spec.outputs or ())] if isinstance(t, (Tensor, Index))
            or (isinstance(t, Custom) and t.dims is not None)]


def tensor_shapes(spec: Spec, dims: dict[str, int],
                  params: dict[str, Any] | None = None) -> list[tuple[int, ...]]:
    """Shapes of every tensor input and output at the given sizes (and modes: the nominal ones by default).
    Outputs the kernel allocates itself are the Spec's ``output_shapes`` or inferred from the reference on meta
    tensors, learned once per Spec and modes (see ``cases._shapes``); where they cannot be they are left out."""
    out = []
    for t in shaped(spec):
        assert t.dims is not None
        out.append(tuple(dims[d] if isinstance(d, str) else d for d in t.dims))
    if spec.outputs is None:
        out += output_shapes(spec, dims, spec.nominal_params() if params is None else params)
    return out


def numel(shape: Iterable[int]) -> int:
    return math.prod(shape)


def work(dims: dict[str, int]) -> int:
    """A case's work: the product of its named dimension sizes, each at least 1 (see ``CPU_MAX_WORK``)."""
    return math.prod(max(1, s) for s in dims.values())


def cpu_work_budget(spec: Spec) -> int:
    """The most work a case of ``spec`` may have on the CPU (see ``CPU_MAX_WORK``)."""
    nominal = work({d: spec.dim(d).nominal for d in spec.dim_names()})
    return max(CPU_MAX_WORK, CPU_NOMINAL_WORK_FACTOR * nominal)


#: Inputs larger than this are fingerprinted rather than copied to check that the kernel left them unchanged.
SNAPSHOT_MAX_ELEMENTS = 2**26


#: Elements of the comparison's chunk (``compare``) and about how many float64 temporaries of that size it holds.
_COMPARE_CHUNK, _COMPARE_TEMPORARIES = 2**24, 24


#: The axes whose sizes are chosen from the device's free memory when the matrix is built: a case of theirs that
#: then finds the memory taken (by another process, or a reference that needs more than the model) says nothing of
#: the kernel, and is not run for the device rather than an error.
SIZED_TO_MEMORY = frozenset({"large", "long", "big"})

#: Above the modelled peak: what the reference computes on the way (its temporaries), for the pool's side-by-side
#: budget, which must not under-count.
ESTIMATE_MARGIN = 1.15


def peak_bytes(spec: Spec, dims: dict[str, int], itemsize: int, params: dict[str, Any] | None = None, *,
               floor: bool = False) -> int:
    """The modelled peak device memory of one case: the largest of its stages, plus 1 GiB (a CUDA context's
    allocations, the allocator's rounding). ``floor``: only what the case certainly holds at once (the inputs,
    their float64 copies and the float64 results; with gradients, the float64 gradients too): a case is kept off a
    device only when that exceeds it, since what a reference computes on the way is its own (one that then runs
    out of memory is a device skip, with the reason).

    - The reference: the inputs, their float64 copies, and the float64 results.
    - The judging: the inputs (and a copy of each that is small enough to snapshot or written in place); per output
      the float64 reference, the kernel's output, its poison mask and a same-precision baseline; the comparison's
      chunk temporaries.
    - A Spec with gradients, at the reference's backward: the inputs and their float64 copies; per checked input
      its float64 gradient and 16 bytes an element of what the graph keeps and the backward computes on the way;
      per output the forward's float64 reference, the kernel's output and its mask (still held), the float64
      result with its graph, and the upstream gradients in the output's dtype and in float64.

    Measured on an H200 (torch's peak allocated bytes, docs/gpu-validation.md runs 39 and 41, kept by
    tests/test_matrix_design.py), against the model (and its floor): vector_add's 2**31-element case 64 GiB, 65
    (65); softmax's and layernorm's 45.6, 46 (41); gemm's 40 and 48, 46 and 49 (41, 49); train_cross_entropy's
    72.2, 73 (41); train_rmsnorm's 130.1, 139 (57); train_rope's 138.0, 144 (62)."""
    params = spec.nominal_params() if params is None else params
    ins: list[tuple[int, int, int, bool, bool]] = []  # (input index, elements, bytes each, floating, copied)
    for k, t in enumerate(spec.inputs):
        if isinstance(t, (Tensor, Index)) or (isinstance(t, Custom) and t.dims is not None):
            assert t.dims is not None
            n = numel(dims[d] if isinstance(d, str) else d for d in t.dims)
            ins.append((k, n, 8 if isinstance(t, Index) else itemsize, isinstance(t, Tensor),
                        n <= SNAPSHOT_MAX_ELEMENTS or getattr(t, "mutated", False)))
    outs = [numel(s) for s in tensor_shapes(spec, dims, params)[len(ins):]]
    inputs = sum(n * b for _, n, b, _, _ in ins) + sum(n * 8 for _, n, _, floating, _ in ins if floating)  # + float64
    grad_inputs = set(spec.grad_inputs()) if spec.grad else set()
    checked = sum(n for k, n, _, _, _ in ins if k in grad_inputs)  # elements whose gradients are checked
    reference = inputs + 8 * sum(outs)
    if floor:
        return reference + 8 * checked + 2**30
    biggest = max([*outs, *(n for _, n, _, _, _ in ins)], default=0)
    judging = sum(n * b * (2 if copied else 1) for _, n, b, _, copied in ins) \
        + sum(n * (8 + 2 * itemsize + 1) for n in outs) + min(biggest, _COMPARE_CHUNK) * 8 * _COMPARE_TEMPORARIES
    stages = [reference, judging]
    if spec.grad:
        stages.append(inputs + 24 * checked + sum(n * (8 + itemsize + 1 + 8 + itemsize + 8) for n in outs))
    return max(stages) + 2**30


def estimate_bytes(spec: Spec, dims: dict[str, int], itemsize: int, params: dict[str, Any] | None = None) -> int:
    """``peak_bytes`` with ``ESTIMATE_MARGIN`` on top: what the pool counts for a past-2**31 case running beside
    others (one that runs out of memory so runs again alone)."""
    return int(ESTIMATE_MARGIN * (peak_bytes(spec, dims, itemsize, params) - 2**30)) + 2**30


def case_bytes(spec: Spec, case: Case) -> int:
    """The estimated peak bytes of ``case`` on its device (``estimate_bytes`` at its sizes, precision and modes)."""
    return estimate_bytes(spec, dict(case.sizes), PRECISIONS[case.precision].storage.itemsize, params_of(spec, case))


#: A case whose estimated peak is at least this share of the device's memory is near its capacity: the matrix admits
#: such sizes (a real vocabulary beside a long row) only as the memory free at its building allows.
NEAR_CAPACITY = 0.25


def sized_to_memory(spec: Spec, case: Case, total_bytes: int) -> bool:
    """Whether ``case`` was sized to the device's memory: an axis chosen from it (``SIZED_TO_MEMORY``), or an
    estimated peak of at least ``NEAR_CAPACITY`` of the device (``total_bytes``). Running out of memory there says
    nothing of the kernel (another process on the GPU, a reference that needs more than the model)."""
    if case.axis in SIZED_TO_MEMORY:
        return True
    try:
        return case_bytes(spec, case) >= NEAR_CAPACITY * total_bytes
    except Exception:  # shapes the model cannot learn: not known to be near the capacity
        return False


def compile_key(dims: dict[str, int], precision: str, layout: str, config: tuple, params: tuple = ()) -> tuple:
    """What a JIT compiler specializes a kernel on, as far as a case decides it: the precision, the layout, the
    launch configuration, the modes (a launcher may pass one as a constexpr) and, per size, whether it is 1 or a
    multiple of 16 (Triton specializes integer arguments so). Two cases with the same key usually share one
    compiled kernel."""
    return (precision, layout, config, params,
            tuple((d, 1 if v == 1 else 16 if v % 16 == 0 else 0) for d, v in dims.items()))


class _Builder:
    def __init__(self, spec: Spec, device: DeviceInfo, tier: str) -> None:
        self.spec, self.device, self.tier = spec, device, tier
        self.names = spec.dim_names()
        self.nominal = {d: fit(spec.dim(d), spec.dim(d).nominal) for d in self.names}
        self.odd = {d: fit(spec.dim(d), ODD) for d in self.names}
        self.p0 = spec.precisions[0].name
        self.cfg0 = tuple(spec.configs[0].items())
        self.params0 = tuple(spec.nominal_params().items())
        self.cases: dict[str, Case] = {}

    def add(self, dims: dict[str, int], axis: str, *, precision: str | None = None, pattern: str = "randn",
            seed: int = 0, layout: str = "contiguous", config: tuple[tuple[str, Any], ...] | None = None,
            repeats: int = 0, properties: bool = False, notes: tuple[str, ...] = (),
            params: tuple[tuple[str, Any], ...] | None = None) -> None:
        if pattern not in self.spec.patterns and pattern != "randn":
            return
        if layout != "contiguous" and layout not in self.spec.layouts:
            return
        case = Case(self.spec.name, tuple((d, dims[d]) for d in self.names), precision or self.p0, pattern, seed,
                    layout, self.cfg0 if config is None else config, axis, repeats, properties, None, notes,
                    params=self.params0 if params is None else params)
        old = self.cases.get(case.id)
        if old is not None:  # the same case reached from two axes: keep the first, merge what each asks of it
            case = replace(old, repeats=max(old.repeats, repeats), properties=old.properties or properties)
        self.cases[case.id] = _with_skip(case, self.spec, self.device)

    def shrink_to_fit(self, dims: dict[str, int], keep: str) -> dict[str, int]:
        """On the CPU, shrink the other dimensions (nominal -> 17 -> 1), one at a time, until the case fits the
        element and work budgets."""
        if self.device.is_gpu:
            return dims
        dims = dict(dims)
        budget = cpu_work_budget(self.spec)
        for target in (17, 1):
            for d in self.names:
                biggest = max((numel(s) for s in tensor_shapes(self.spec, dims)), default=0)
                if biggest <= CPU_MAX_ELEMENTS and work(dims) <= budget:
                    return dims
                if d != keep:
                    dims[d] = min(dims[d], fit(self.spec.dim(d), target))
        return dims

    def build(self) -> list[Case]:
        spec, nom, odd = self.spec, self.nominal, self.odd
        quick = self.tier == "quick"
        full = self.tier == "full"
        configs = [tuple(c.items()) for c in spec.configs]
        base_shapes = [nom, odd]
        # size axis
        self.add(nom, "size")
        for d in self.names:
            for size, _why in ([] if quick else systematic(spec.dim(d))):
                for cfg in (configs if full else [self.cfg0]):
                    self.add({**nom, d: size}, "size", config=cfg)
        for s in ((1, ODD) if quick else (1, 17, ODD)):
            self.add({d: fit(spec.dim(d), s) for d in self.names}, "size")
        # real model dimensions
        if not quick:
            for d in self.names:
                for size in real_sizes(spec.dim(d)):
                    self.add(self.shrink_to_fit({**nom, d: size}, d), "real")
        # precisions
        for p in spec.precisions:
            pats = spec.patterns if full else ("randn", "large")
            for shape in base_shapes:
                for pat in pats:
                    self.add(shape, "dtype", precision=p.name, pattern=pat)
        # patterns
        for pat in spec.patterns:
            self.add(odd, "pattern", pattern=pat)
        # layouts
        for lay in spec.layouts:
            if lay != "contiguous" and any(isinstance(t, Tensor) for t in spec.inputs):
                for shape in base_shapes:
                    self.add(shape, "layout", layout=lay)
        # configs
        for cfg in configs[1:]:
            for shape in base_shapes:
                self.add(shape, "config", config=cfg)
        # modes: each value of each mode, the others nominal (tier full: their combinations)
        for params in self._param_sets(full):
            for shape in base_shapes:
                self.add(shape, "param", params=params)
        # properties, on the nominal and odd shapes
        if spec.properties:
            for shape in base_shapes:
                self.add(shape, "size", properties=True)
        # seeds (each run twice: determinism)
        for seed in range(spec.seeds):
            self.add(nom, "seed", seed=seed, repeats=1)
        if not quick:
            self._wave()
            self._long_and_big()
            self._interactions()
        self._large()
        self._large_rows()
        return list(self.cases.values())

    def _param_sets(self, full: bool) -> list[tuple[tuple[str, Any], ...]]:
        """The modes' value sets other than the nominal one: one value changed at a time, or (``full``) every
        combination while there are at most ``FULL_PARAM_COMBINATIONS``."""
        spec = self.spec
        names = list(spec.params)
        combos = math.prod(len(v) for v in spec.params.values())
        if full and combos <= FULL_PARAM_COMBINATIONS:
            sets = [tuple(zip(names, values, strict=True))
                    for values in itertools.product(*(spec.params[n] for n in names))]
        else:
            sets = [tuple((n, value if n == name else spec.params[n][0]) for n in names)
                    for name in names for value in spec.params[name][1:]]
        return [p for p in sets if p != self.params0]

    # -- cases for bugs that need two factors at once -------------------------------------------------------------

    def _levels(self, d: str) -> list[int]:
        """The sizes of one dimension in the pairwise design: 1, 17, the odd 129, the nominal and the largest real
        size (a long reduction for a reduced dimension), as the Dim's constraints allow; or its declared sizes."""
        dim = self.spec.dim(d)
        raw = list(dim.sizes) if dim.sizes is not None else [1, 17, ODD, dim.nominal]
        raw += sorted(real_sizes(dim))[-1:]
        out: list[int] = []
        for v in raw:
            f = fit(dim, v)
            if f > 0 and f not in out:
                out.append(f)
        return out

    def fits(self, dims: dict[str, int], elements: int | None = None) -> bool:
        """Whether a non-large case of these sizes runs here in reasonable time: on the CPU within the
        interpreter's element and work budgets; on a GPU below ``GPU_MAX_ELEMENTS`` and half the free memory."""
        biggest = max((numel(s) for s in tensor_shapes(self.spec, dims)), default=0)
        if not self.device.is_gpu:
            cap = CPU_MAX_ELEMENTS if elements is None else elements
            return biggest <= cap and work(dims) <= cpu_work_budget(self.spec)
        cap = GPU_MAX_ELEMENTS if elements is None else elements
        return biggest <= cap and estimate_bytes(self.spec, dims, 4) <= 0.5 * self.device.free_bytes

    def _shrink_until_fits(self, dims: dict[str, int], keep: Sequence[str] = (),
                           elements: int | None = None) -> dict[str, int] | None:
        """Halve the largest dimension (those not in ``keep`` first) until the case fits; None if it never does."""
        dims = dict(dims)
        while not self.fits(dims, elements):
            movable = [d for d in self.names if d not in keep and dims[d] > 1] or [
                d for d in self.names if dims[d] > 1]
            if not movable:
                return None
            d = max(movable, key=lambda x: dims[x])
            smaller = fit(self.spec.dim(d), dims[d] // 2)
            if smaller >= dims[d]:  # the Dim's constraints allow nothing smaller
                if d in keep or all(x in keep for x in movable):
                    return None
                keep = (*keep, d)
                continue
            dims[d] = smaller
        return dims

    def _long_and_big(self) -> None:
        """Every precision at the longest reduction length and at the largest non-large size this device allows."""
        spec = self.spec
        longest = {d: max(self._levels(d)) for d in self.names}
        for p in spec.precisions:
            if spec.reduce:
                dims = self._shrink_until_fits({**self.nominal, **{r: longest[r] for r in spec.reduce}},
                                               keep=tuple(spec.reduce))
                if dims is not None:
                    n = math.prod(dims[r] for r in spec.reduce)
                    self.add(dims, "long", precision=p.name,
                             notes=(f"the longest reduction this device allows, {n} terms, in {p.name}",))
            big_cap = None if self.device.is_gpu else CPU_MAX_ELEMENTS // 4
            dims = self._shrink_until_fits(dict(longest), elements=big_cap)
            if dims is not None:
                self.add(dims, "big", precision=p.name,
                         notes=(f"the largest non-large size this device allows in {p.name}",))

    def _interactions(self) -> None:
        """A pairwise covering design over the sizes, precision, pattern, layout and configuration (see
        ``_covering``), under a budget of a third of the other cases (at least 8): the default matrix grows by at
        most half."""
        spec = self.spec
        factors: dict[str, list[Any]] = {f"dim:{d}": self._levels(d) for d in self.names}
        factors["precision"] = [p.name for p in spec.precisions]
        factors["pattern"] = list(dict.fromkeys(["randn", *spec.patterns]))
        has_tensor = any(isinstance(t, Tensor) for t in spec.inputs)
        factors["layout"] = list(dict.fromkeys(["contiguous", *spec.layouts])) if has_tensor else ["contiguous"]
        factors["config"] = list(range(len(spec.configs)))
        for name, values in spec.params.items():  # by position: 1 == 1.0 == True as dict keys
            factors[f"param:{name}"] = list(range(len(values)))
        budget = max(8, len(self.cases) // 3)

        def sizes(row: dict[str, Any]) -> dict[str, int]:
            return {d: row[f"dim:{d}"] for d in self.names}

        def params(row: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
            return tuple((n, v[row[f"param:{n}"]]) for n, v in spec.params.items())

        def key(row: dict[str, Any]) -> tuple:
            return compile_key(sizes(row), row["precision"], row["layout"], tuple(spec.configs[row["config"]].items()),
                               params(row))

        seen: set = {c.compile_key for c in self.cases.values()}
        design = pairwise(factors, seed=_stable_seed(spec.name), budget=budget, feasible=lambda r: self.fits(sizes(r)),
                          key=key, seen=seen)
        note = (f"pairwise design: {len(design.rows)} cases cover {design.covered} of {design.pairs} pairs of "
                f"values ({design.infeasible} pairs too large to run here)",)
        for row in design.rows:
            self.add(sizes(row), "pairwise", precision=row["precision"], pattern=row["pattern"], layout=row["layout"],
                     config=tuple(spec.configs[row["config"]].items()), notes=note, params=params(row))

    def _large_rows(self) -> None:
        """For each input or output of two or more dimensions, a case where the last row *starts* past 2**31
        elements: its outer dimension grown, the others nominal. ``row * stride`` in int32 wraps there even when the
        flat-element case (which may grow the row length instead) never does. An Index whose values range over that
        outer dimension (ids into an embedding table) reaches it too: its extreme value high-1 is always drawn."""
        spec = self.spec
        for t in shaped(spec):
            assert t.dims is not None
            if len(t.dims) < 2 or not isinstance(t.dims[0], str):
                continue
            d = t.dims[0]
            if not spec.dim(d).large:
                continue
            stride = numel(self.nominal[x] if isinstance(x, str) else x for x in t.dims[1:])
            if stride < 1:
                continue
            rows = -(-INT32_LIMIT // stride) + 1  # the fewest rows whose last one starts at 2**31 or past it
            rows += 1 - rows % 2
            rows = fit(spec.dim(d), rows)
            if (rows - 1) * stride < INT32_LIMIT:
                continue
            if any(c.axis == "large" and c.sizes[d] >= rows and all(
                    c.sizes[x] == self.nominal[x] for x in self.names if x != d) for c in self.cases.values()):
                continue  # the flat-element case already grows this dimension that far
            dims = {**self.nominal, d: rows}
            cost = estimate_bytes(spec, dims, 4)
            self.add(dims, "large", notes=(f"{d}={rows}: the last row of {t.name or 'a tensor'} starts at offset "
                                           f"{(rows - 1) * stride:,} > 2**31, where row * stride in int32 wraps "
                                           f"(~{cost / 2**30:.0f} GiB)",))

    def _wave(self) -> None:
        if not self.names:
            return
        d = self.names[0]
        size = fit(self.spec.dim(d), self.device.sm_count * 128 + 1)
        self.add(self.shrink_to_fit({**self.nominal, d: size}, d), "wave",
                 notes=(f"{d}={size}: one element past {self.device.sm_count} blocks of 128 (a whole wave on "
                        f"{self.device.sm_count} SMs), so the last wave is nearly empty",))

    def _large(self) -> None:
        """One case whose largest tensor passes 2**31 elements, growing the dimension that costs least memory."""
        spec = self.spec
        best: tuple[int, dict[str, int], str] | None = None
        for d in self.names:
            if not spec.dim(d).large:
                continue
            for shape_dims in [t.dims or () for t in shaped(spec)]:
                if d not in shape_dims:
                    continue
                others = numel(self.nominal[x] if isinstance(x, str) else x for x in shape_dims if x != d) or 1
                size = INT32_LIMIT // others + 1
                size += 1 - size % 2  # odd: also a ragged last block
                size = fit(spec.dim(d), size)
                dims = {**self.nominal, d: size}
                biggest = max(numel(s) for s in tensor_shapes(spec, dims))
                if biggest <= INT32_LIMIT:
                    continue
                cost = estimate_bytes(spec, dims, 4)
                if best is None or cost < best[0]:
                    best = (cost, dims, d)
        if best is None:
            return
        cost, dims, d = best
        self.add(dims, "large", notes=(f"{d}={dims[d]}: the largest tensor passes 2**31 elements, where int32 "
                                       f"index arithmetic overflows (~{cost / 2**30:.0f} GiB)",))


def _stable_seed(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def _with_skip(case: Case, spec: Spec, device: DeviceInfo) -> Case:
    reason = skip_reason(case, spec, device)
    return case if reason is None else replace(case, skip=reason, skip_kind=SkipKind.DEVICE)


def skip_reason(case: Case, spec: Spec, device: DeviceInfo) -> str | None:
    """Why ``case`` cannot run on ``device``, or None."""
    prec = PRECISIONS[case.precision]
    if prec.min_capability is not None and (device.capability is None or device.capability < prec.min_capability):
        cap = ".".join(map(str, prec.min_capability))
        here = "this CPU" if device.capability is None else f"capability {device.capability[0]}.{device.capability[1]}"
        return f"{case.precision} needs a GPU of compute capability >= {cap} ({here})"
    dims = case.sizes
    itemsize = prec.storage.itemsize
    params = params_of(spec, case)
    need = peak_bytes(spec, dims, itemsize, params, floor=True)
    biggest = max((numel(s) for s in tensor_shapes(spec, dims, params)), default=0)
    if case.axis == "large" and not device.is_gpu:
        return (f"large case ({biggest:,} elements, >= ~{need / 2**30:.0f} GiB) runs on a GPU only: on the CPU the "
                "interpreter would run it program by program for hours")
    if need > device.total_bytes:  # no other process giving memory back makes it fit
        return (f"needs at least ~{need / 2**30:.1f} GiB, more than {device.name}'s "
                f"{device.total_bytes / 2**30:.1f} GiB")
    if need > device.free_bytes:
        return (f"needs at least ~{need / 2**30:.1f} GiB, {device.name} has {device.free_bytes / 2**30:.1f} GiB "
                "free")
    if not device.is_gpu and biggest > CPU_MAX_ELEMENTS:
        return (f"{biggest:,} elements is past the CPU budget of {CPU_MAX_ELEMENTS:,} for Triton's interpreter; "
                "it runs on a GPU")
    if not device.is_gpu and (w := work(dims)) > (budget := cpu_work_budget(spec)):
        return (f"work {'*'.join(str(s) for s in dims.values())} = {w:,} is past the CPU budget of {budget:,} for "
                "Triton's interpreter; it runs on a GPU")
    return None


def build_matrix(spec: Spec, device: DeviceInfo, *, tier: str = "default", large: bool = True,
                 precisions: Sequence[str] | None = None, patterns: Sequence[str] | None = None,
                 seeds: int | None = None) -> list[Case]:
    """The cases of ``spec`` on ``device``. ``precisions``/``patterns``/``seeds`` narrow or widen the spec's own."""
    if tier not in TIERS:
        raise SpecError("tier", tier, f"use one of {list(TIERS)}")
    if precisions is not None or patterns is not None or seeds is not None:
        spec = _narrowed(spec, precisions, patterns, seeds)
    cases = _Builder(spec, device, tier).build()
    if not large:
        cases = [c if c.axis != "large" else replace(
            c, skip="large cases turned off (large=False)", skip_kind=SkipKind.OPTION) for c in cases]
    return cases


def _narrowed(spec: Spec, precisions: Sequence[str] | None, patterns: Sequence[str] | None,
              seeds: int | None) -> Spec:
    new = copy.copy(spec)
    if precisions is not None:
        new.precisions = tuple(precision(p, "dtypes") for p in precisions)
    if patterns is not None:
        for p in patterns:
            if p not in PATTERNS:
                raise SpecError("patterns", p, f"use names from {list(PATTERNS)}")
        new.patterns = tuple(patterns)
    if seeds is not None:
        if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
            raise SpecError("seeds", seeds, "give an int >= 1")
        new.seeds = seeds
    return new


def case_from_id(spec: Spec, case_id: str) -> Case:
    """Rebuild a Case from its id (``name[M=128,N=33,fp32,randn,BLOCK=64,seed=0]``): what a worker process needs
    for a case that is not in the Spec's matrix (the debugger's probes, a bisected size)."""
    prefix = f"{spec.name}["
    if not (case_id.startswith(prefix) and case_id.endswith("]")):
        raise SpecError("case id", case_id, f"give an id of the form {spec.name}[M=...,fp32,randn,seed=0]")
    dims: list[tuple[str, int]] = []
    config: list[tuple[str, Any]] = []
    params = spec.nominal_params()
    prec, pattern, layout, seed, interpreted = None, "randn", "contiguous", 0, False
    names = set(spec.dim_names())
    for part in case_id[len(prefix):-1].split(","):
        if "=" in part:
            key, value = part.split("=", 1)
            if key in names:
                dims.append((key, int(value)))
            elif key == "seed":
                seed = int(value)
            elif key in spec.params:
                params[key] = _param_value(spec, key, value, case_id)
            else:
                try:
                    config.append((key, ast.literal_eval(value)))
                except (ValueError, SyntaxError):
                    config.append((key, value))
        elif part in PRECISIONS:
            prec = part
        elif part in PATTERNS:
            pattern = part
        elif part in LAYOUTS:
            layout = part
        elif part == INTERPRETED:
            interpreted = True
    if prec is None:
        raise SpecError("case id", case_id, f"name a precision from {list(PRECISIONS)}")
    return Case(spec.name, tuple(dims), prec, pattern, seed, layout, tuple(config), axis="debug",
                params=tuple(params.items()), interpreted=interpreted)


def _param_value(spec: Spec, name: str, text: str, case_id: str) -> Any:
    """The declared value of mode ``name`` that reads ``text`` in a case id."""
    for v in spec.params[name]:
        if param_text(v) == text:
            return v
    known = ", ".join(param_text(v) for v in spec.params[name])
    raise SpecError("case id", case_id, f"{name}={text} is not one of the values the Spec declares for {name} "
                                        f"({known})")
