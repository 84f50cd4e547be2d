"""The debugger's experiments: sizes per dimension with bisection between the largest passing and the smallest
failing size, magnitudes, repeated runs, zeroed outputs, one input at a time set to ones, the reference of a
transposed input, arange inputs decoded, and the Spec's code stages. What they show is gathered in an
:class:`Evidence`; ``_observe`` turns it into observations for the rules, and ``_decide`` adds the experiments run
to separate two close causes (as :class:`Decision` records)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .._dtypes import PRECISIONS
from .._results import CaseResult, SpecReport, Status
from .._spec import Custom, Spec, Tensor
from ..cases import Case, call_reference, fit, make_args, numel, params_of, shape_of, tensor_shapes, upcast
from ..compare import expected_in, mismatch_mask, reduction_length, rms, tolerance_for
from ._causes import Experiment
from ._observe import (
    Facts,
    elements_wrong,
    empty,
    error_of,
    forward_comparisons,
    ignores_nan,
    most_severe_smallest,
    reads_bumped,
    reduces,
    shape_dims,
    values_right,
    vector_inputs,
)
from ._probe import Axes, Prober, ignored_region, slice_axes

SIZES = (1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1024)
#: randn scaled by these factors: up for overflow (exp without the max), down for an additive constant that no longer
#: vanishes beside the data (an eps of another size than the reference's).
MAGNITUDES = (10.0, 100.0, 1e3, 1e4, 1e-3)


@dataclass
class Decision:
    """One deciding experiment: the causes it was run to separate, what each of its cases gave, and the
    observations it adds."""

    name: str  # shape / blocks / order / scale / shift / ones / swap
    between: tuple[str, str]
    results: dict[str, CaseResult] = field(default_factory=dict)  # label -> result
    observations: list[Any] = field(default_factory=list)  # Observation records
    settled: str = ""  # in words: which cause it favoured and why ("" when it settled nothing)
    dim: str | None = None  # the dimension varied, when it varies one as the size sweep does


@dataclass(frozen=True)
class Decoded:
    """One wrong output of the case on arange inputs: its value, the expected one, and the position whose expected
    value it is (``source``; None when no single position holds it)."""

    index: tuple[int, ...]
    value: float
    expected: float
    source: tuple[int, ...] | None = None

    @property
    def transposed(self) -> bool:
        """The value belongs at this position with its last two indices swapped (and only those)."""
        j, i = self.source, self.index
        return j is not None and len(i) >= 2 and j != i and j[-2:] == i[-2:][::-1] and j[:-2] == i[:-2]

    @property
    def text(self) -> str:
        if self.source is None:
            return f"out{list(self.index)} = {self.value!r}, expected {self.expected!r}"
        note = " (the transposed position)" if self.transposed else ""
        return f"out{list(self.index)} = {self.value!r}, the value expected at out{list(self.source)}{note}"


@dataclass
class Evidence:
    spec: Spec
    report: SpecReport
    failing: list[CaseResult]
    base: Case | None = None  # the case the probes vary: nominal sizes, first precision, randn, first failing config
    sizes: dict[str, list[tuple[int, bool, CaseResult]]] = field(default_factory=dict)
    magnitudes: list[tuple[float, CaseResult]] = field(default_factory=list)
    repeat: CaseResult | None = None
    zeroed: CaseResult | None = None
    ones: dict[int, CaseResult] = field(default_factory=dict)  # input index -> probe with that input all ones
    vectors_ones: CaseResult | None = None  # the probe with every 1-D input all ones at once (when several)
    transposed: dict[int, CaseResult] = field(default_factory=dict)  # input index -> kernel vs ref(input^T)
    symmetric: dict[int, CaseResult] = field(default_factory=dict)  # input index -> both given (X + X^T) / 2
    arange: list[Decoded] = field(default_factory=list)  # decoded wrong outputs
    arange_moves: bool = False  # on arange inputs, every expected value is an input's value (a data movement)
    # ... and the outputs hold as many elements as the largest input, and most of its values: each input element
    # moved somewhere (a flip, a roll, a transpose), not a selection of a few (a max, a gather of some rows, a
    # z-buffer keeping one depth per cell of a grid larger than its list of points)
    arange_permutes: bool = False
    stages: list[tuple[str, CaseResult]] = field(default_factory=list)
    configs: list[tuple[str, CaseResult]] = field(default_factory=list)  # other launch configs, smallest case
    precisions: list[tuple[str, CaseResult]] = field(default_factory=list)  # other precisions, smallest case
    # input index, "boundary" | "far", the probe with the elements the reference ignores there raised by 1000
    ignored: list[tuple[int, str, CaseResult]] = field(default_factory=list)
    # input index, dim, the plain case, {position along dim: the probe with the elements there set to NaN}
    ends: list[tuple[int, int, CaseResult, dict[int, CaseResult]]] = field(default_factory=list)
    # input index, dim name, its axis, position, the probe (how the outputs change outside that slice when raised),
    # and each output's axis the slice lies along; the inputs' dimensions no slice probe covered
    slices: list[tuple[int, str, int, int, CaseResult, Axes]] = field(default_factory=list)
    slices_unprobed: list[str] = field(default_factory=list)
    # input index, "first" | "rest", the control (rows padded with 0), the probe with the padding raised
    # by 1000 just past each row's end ("first") or farther ("rest")
    padded: list[tuple[int, str, CaseResult, CaseResult]] = field(default_factory=list)
    lint: list[Any] = field(default_factory=list)  # static findings on the Spec's source file
    sanitizer: list[Any] = field(default_factory=list)  # compute-sanitizer findings (GPU)
    minimal: CaseResult | None = None
    decisions: list[Decision] = field(default_factory=list)  # the deciding experiments run so far
    interpreted: bool = False  # the cases ran under the interpreter's access checks (a clean run is evidence)
    # a failing case compute-sanitizer's memcheck ran to its end with no finding (a GPU's clean run), or None
    memcheck_clean: CaseResult | None = None
    sanitized: Case | None = None  # the case compute-sanitizer's findings (``sanitizer``) come from
    # a failing case with few wrong elements, and where the reference itself puts its outputs outside the tolerance
    # when its inputs move by a few ulps (``conditioning``): (the kernel's result, per output those indices)
    conditioned: tuple[CaseResult, list[set[tuple[int, ...]]]] | None = None
    # a failing fp32 case with finite wrong values, and the jitter probe on it (``probe_jitter``): how much the
    # kernel's error changes when the inputs move by a relative 2**-10, over the error itself
    # (and the factor its data was scaled by, where only scaled data failed)
    jitter: tuple[CaseResult, CaseResult, float | None] | None = None

    # -- views the rules use ---------------------------------------------------------------------------------------
    def comparisons(self) -> list[Any]:
        return [c for r in self.failing for c in r.comparisons if not c.passed]

    def findings(self) -> list[Any]:
        return [f for r in self.failing for f in r.findings] + list(self.sanitizer)

    def crashes(self) -> list[str]:
        return [" ".join(r.reasons) for r in self.failing if r.status in (Status.CRASHED, Status.ERROR)]


def _input_tensors(spec: Spec) -> list[int]:
    return [i for i, t in enumerate(spec.inputs) if isinstance(t, Tensor)]


def base_case(spec: Spec, report: SpecReport) -> Case | None:
    """Nominal sizes, first precision, randn, contiguous, seed 0; the config and the modes (``Spec.params``) of the
    first failing case."""

    failing = [r for r in report.cases if not r.ok]
    sizes = {d: fit(spec.dim(d), spec.dim(d).nominal) for d in spec.dim_names()}
    nominal = next((r.case for r in report.cases if r.case.axis in ("size", "seed") and r.case.pattern == "randn"
                    and r.case.layout == "contiguous" and r.case.sizes == sizes), None)
    if nominal is None:
        return None
    config = failing[0].case.config if failing else nominal.config
    params = failing[0].case.params if failing else nominal.params
    return dataclasses.replace(nominal, config=config, params=params, repeats=0, properties=False, axis="debug",
                               skip=None, skip_kind=None)


def _with(case: Case, sizes: dict[str, int], spec: Spec | None = None) -> Case:
    """The case at other sizes, each clipped into its Dim's constraints (min, max, multiple_of) when ``spec`` is
    given: a probe never leaves the kernel's contract."""

    dims = tuple((d, fit(spec.dim(d), sizes[d]) if spec is not None and d in sizes else sizes.get(d, v))
                 for d, v in case.dims)
    return dataclasses.replace(case, dims=dims)


def sweep_sizes(p: Prober, ev: Evidence, dims: list[str], share: float = 0.6) -> None:
    """Per dimension, the others at their nominal: SIZES plus 2x and 4x the nominal, then bisection between the
    largest passing size below the smallest failing one and that failing size."""
    assert ev.base is not None
    for d in dims:
        nominal = ev.base.sizes[d]
        raw = sorted({v for v in SIZES if v <= max(1024, nominal)} | {nominal, 2 * nominal, 4 * nominal + 1})
        values = sorted({_with(ev.base, {d: v}, ev.spec).sizes[d] for v in raw})
        seen: dict[int, tuple[bool, CaseResult]] = {}
        for v in values:
            if p.elapsed > share * p.budget:  # leave the rest of the budget to the probes of the failing case
                p.cut = True
                break
            res = p.run(_with(ev.base, {d: v}), "size", f"{d}={v}")
            if res is not None:
                seen[v] = (res.ok, res)
        fails = sorted(v for v, (ok, _) in seen.items() if not ok)
        if fails:
            f = fails[0]
            below = [v for v, (ok, _) in seen.items() if ok and v < f]
            lo = max(below) if below else None
            while lo is not None and f - lo > 1 and p.elapsed < share * p.budget:
                mid = _with(ev.base, {d: (lo + f) // 2}, ev.spec).sizes[d]
                if mid in seen or not lo < mid < f:
                    break
                res = p.run(_with(ev.base, {d: mid}), "bisect", f"{d}={mid}")
                if res is None:
                    break
                seen[mid] = (res.ok, res)
                if res.ok:
                    lo = mid
                else:
                    f = mid
        ev.sizes[d] = sorted((v, ok, r) for v, (ok, r) in seen.items())


def probe_magnitudes(p: Prober, ev: Evidence) -> None:
    assert ev.base is not None
    for k in MAGNITUDES:
        res = p.run(ev.base, "magnitude", f"randn x {k:g}", ("scaled", k))
        if res is not None:
            ev.magnitudes.append((k, res))


def failures(ev: Evidence) -> list[CaseResult]:
    """Every failing result the matrix and the size sweep found."""
    return list(ev.failing) + [r for rows in ev.sizes.values() for _, ok, r in rows if not ok]


def smallest_failing(ev: Evidence) -> Case | None:
    """The failing case of fewest elements, whatever its kind of failure (none past 2**31 elements), among those
    where the kernel ran on data when there are some: a case of an empty dimension, or one whose reference or
    launcher raised, launches nothing for racecheck or synccheck to watch."""
    cands = [r for r in failures(ev) if r.case.axis != "large"]
    ran = [r for r in cands if not empty(r) and r.status is not Status.ERROR]
    cands = ran or [r for r in cands if not empty(r)] or cands
    if not cands:
        return None
    return min(cands, key=lambda r: (case_elements(ev.spec, r.case), r.case.id)).case


def probe_case(ev: Evidence, max_elements: int | None = None) -> Case | None:
    """The case the probes of structure run on: the smallest failing one (fewest elements) among the failures of
    the most severe kind the matrix or the size sweep found (a crash, then NaN/Inf or never-written outputs, then
    gross errors, then rounding-level ones; a case that raised only when nothing else failed). With
    ``max_elements``, among the failures that fit it when some do: a race that turns to NaN only in the largest
    case (past what a probe may run) is probed on a smaller case that fails too, rather than not at all."""

    cands = failures(ev)
    # a failure of the device's own before one of the interpreter's beside a GPU: the probes run on the device
    cands = [r for r in cands if not r.case.interpreted] or cands
    if max_elements is not None:
        cands = [r for r in cands if case_elements(ev.spec, r.case) <= max_elements] or cands
    best = most_severe_smallest(cands)
    if best is None:
        return None
    ev.minimal = best
    return best.case


def valued_case(ev: Evidence, max_elements: int) -> Case | None:
    """The smallest case that computed wrong values (failed, neither crashed nor raised) among the failures the
    matrix and the size sweep found, up to ``max_elements`` elements: where values can be decoded when the case the
    probes run on crashes (an index that reads far past a tensor at some sizes, misplaces values at others)."""
    cands = [r for r in failures(ev) if r.status is Status.FAILED and r.case.axis != "large"
             and case_elements(ev.spec, r.case) <= max_elements]
    best = most_severe_smallest(cands)
    return None if best is None else best.case


def finite_failure(r: CaseResult) -> bool:
    """A case that computed wrong values, every one finite and written: one whose values a probe can compare."""
    return r.status is Status.FAILED and not any(c.nan_mismatches or c.inf_mismatches or c.unwritten
                                                 for c in r.comparisons)


def finite_case(ev: Evidence, max_elements: int) -> Case | None:
    """The smallest case whose wrong values are all finite and written (randn data first) among the failures the
    matrix and the size sweep found, up to ``max_elements`` elements: where the probes of layout can compare values
    when the case they ran on crashed or computed NaN (a swapped stride that also reads a strided view's padding)."""
    cands = [r for r in failures(ev) if finite_failure(r) and r.case.axis != "large"
             and case_elements(ev.spec, r.case) <= max_elements]
    best = min(cands, key=lambda r: (r.case.pattern != "randn", case_elements(ev.spec, r.case), r.case.id),
               default=None)
    return None if best is None else best.case


def case_elements(spec: Spec, case: Case) -> int:
    """Elements of the case's largest tensor, as the matrix counts them (inputs and outputs)."""
    return max((numel(s) for s in tensor_shapes(spec, dict(case.sizes))), default=0)


#: Elements up to which the reference runs on the CPU to see whether transposing an input changes it.
_INVARIANCE_MAX_ELEMENTS = 2**22


def _cpu_inputs(spec: Spec, case: Case) -> list[Any] | None:
    """``case``'s inputs built on the CPU in float64, as the reference gets them; None past
    ``_INVARIANCE_MAX_ELEMENTS`` input elements (what the reference-only checks run on)."""
    shapes = [shape_of(dims, case.sizes) for t in spec.inputs if (dims := getattr(t, "dims", None)) is not None]
    if sum(math.prod(s) for s in shapes) > _INVARIANCE_MAX_ELEMENTS:
        return None
    return upcast(make_args(spec, case, "cpu"))


def _cpu_reference(spec: Spec, case: Case, args: list[Any]) -> tuple[Any, ...]:
    """The reference's outputs on ``args``, on the CPU, as a tuple."""
    with torch.no_grad():
        out = call_reference(spec.reference, spec, case, args, "cpu")
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def transpose_invariant(spec: Spec, case: Case, i: int) -> bool:
    """Whether the reference gives the same result with input ``i`` transposed (its last two dims) at ``case``'s
    inputs, built on the CPU, to within the case precision's table tolerance: a symmetrization, a Gram matrix of a
    symmetric input, a per-row normalization of arange rows (every row, and every column, normalizes to the same
    values). There the probe "the kernel matches the reference of the transposed input" is the plain comparison
    again, and a pass says only that the kernel's error is near the tolerance. False when it cannot tell (a large
    case, a reference that cannot run so)."""
    try:
        args = _cpu_inputs(spec, case)
        if args is None:
            return False
        swapped = [a.transpose(-1, -2).contiguous() if k == i else a for k, a in enumerate(args)]
        plain, other = _cpu_reference(spec, case, args), _cpu_reference(spec, case, swapped)
        rtol = PRECISIONS[case.precision].rtol

        def near(a: torch.Tensor, b: torch.Tensor) -> bool:
            return torch.allclose(a.double(), b.double(), rtol=rtol, atol=max(rtol * rms(a), 1e-12), equal_nan=True)

        return len(plain) == len(other) and all(
            isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape and near(a, b)
            for a, b in zip(plain, other, strict=True))
    except Exception:  # a reference or an input that cannot run on the CPU: the probe runs
        return False


#: A failing case whose outputs are wrong at more than this share of their elements is not a few ill-conditioned ones.
_FEW_WRONG = 0.05
#: How far ``conditioning`` moves each input element, in units of the case precision's epsilon (a few roundings, so
#: that each element where rounding the inputs can fail the reference is caught, whichever way its own rounding went).
_MOVE_ULPS = 4
_MOVE_DRAWS = 4


def forward_wrong(r: CaseResult) -> tuple[int, int]:
    """(elements outside the tolerance, elements compared) over the forward outputs of ``r`` (not the gradients)."""
    forward = forward_comparisons(r)
    return sum(c.mismatches for c in forward), sum(c.numel for c in forward)


def conditioning(spec: Spec, case: Case) -> list[set[tuple[int, ...]]] | None:
    """Where the reference itself puts ``case``'s outputs outside the case's tolerance when each floating input
    element moves by a few ulps of the case precision (a fixed random sign per element), computed on the CPU in
    float64: per output, the indices of the elements where the operation is so ill-conditioned that rounding the
    inputs alone fails them. A formula that cancels (two close values subtracted after each was rounded) errs there;
    a stable one does not. None when it cannot tell (a large case, a reference that cannot run so)."""
    try:
        args = _cpu_inputs(spec, case)
        if args is None:
            return None
        prec = PRECISIONS[case.precision]
        step = _MOVE_ULPS * prec.storage_eps
        gen = torch.Generator().manual_seed(0)

        def moved(a: Any) -> Any:
            if not (isinstance(a, torch.Tensor) and a.is_floating_point()):
                return a
            sign = torch.randint(0, 2, a.shape, generator=gen, device="cpu").to(a.dtype) * 2 - 1
            return a * (1 + step * sign)

        plain = _cpu_reference(spec, case, args)
        n = reduction_length(tuple(spec.reduce), case.sizes)
        where: list[set[tuple[int, ...]]] = [set() for _ in plain]
        # several draws: two inputs moved the same way may leave a difference of theirs as it was (a ratio of
        # them), and each draw catches the elements its signs push apart
        for _ in range(_MOVE_DRAWS):
            other = _cpu_reference(spec, case, [moved(a) for a in args])
            if len(plain) != len(other):
                return None
            for k, (e, a) in enumerate(zip(plain, other, strict=True)):
                if not (isinstance(e, torch.Tensor) and isinstance(a, torch.Tensor)) or e.shape != a.shape:
                    return None
                if not e.is_floating_point():
                    continue
                e, a = e.double(), a.to(prec.storage).double()
                tol = tolerance_for(case.precision, prec.storage, n, rms(e), rtol=spec.rtol, atol=spec.atol)
                bad = mismatch_mask(a, e, tol, expected_in(e, prec.storage))
                where[k] |= {tuple(int(v) for v in i) for i in bad.nonzero().tolist()}
        return where
    except Exception:  # a reference or an input that cannot run on the CPU: nothing said
        return None


def _clean_wide_failure(r: CaseResult) -> bool:
    """A failed fp32 (or fp64) case whose wrong values are all finite and written, and whose accesses were all in
    bounds: its error is what the kernel computes, for the probes that measure it."""
    return finite_failure(r) and r.case.precision in ("fp32", "fp64") and not r.findings


def probe_conditioning(p: Prober, ev: Evidence) -> None:
    """On the smallest fp32 randn case whose forward outputs are wrong at a few elements, finite: the reference's
    own failures under inputs moved by a few ulps (``conditioning``; the reference alone runs, on the CPU)."""
    cands = []
    for r in failures(ev):
        if r.case.pattern != "randn" or not _clean_wide_failure(r):
            continue
        wrong, total = forward_wrong(r)
        if wrong and wrong <= _FEW_WRONG * total:
            cands.append(r)
    if not cands:
        return
    # the smallest with a few wrong elements to place, where it has them (one element lands anywhere by chance)
    several = [r for r in cands if forward_wrong(r)[0] >= 3]
    r = min(several or cands, key=lambda r: case_elements(ev.spec, r.case))
    where = conditioning(ev.spec, r.case)
    if where is not None:
        ev.conditioned = (r, where)
        wrong, total = forward_wrong(r)
        moved = sum(len(w) for w in where)
        p.experiments.append(Experiment(
            "conditioning", f"the reference on its inputs moved by {_MOVE_ULPS} ulps", r.case.id, moved == 0,
            f"the reference moves {moved} of {total} elements outside the tolerance; the kernel has {wrong} wrong"))


JITTER_ELEMENTS = 16


def probe_jitter(p: Prober, ev: Evidence) -> None:
    """Is the error the formula's or rounding's? On the smallest fp32 (or fp64) case whose forward outputs are wrong
    with finite values, every element written and every access in bounds (contiguous randn data first), the
    kernel's error is measured again with the inputs moved by a relative 2**-10 (``jittered``); a case with
    ``JITTER_ELEMENTS`` wrong elements at least first. Where no such case failed but the nominal one did with its
    data scaled (the magnitude probe), on that scaled data. Only on kernels that return their outputs."""
    if ev.spec.outputs is not None:
        return
    # (an output that is exactly zeros or an input does not move with the inputs: its error is the reference's,
    # smooth whatever the kernel computes elsewhere)
    cands = [r for r in failures(ev) if _clean_wide_failure(r) and r.case.axis != "large" and forward_wrong(r)[0]
             and not r.noop and case_elements(ev.spec, r.case) <= PAD_MAX]
    scale: float | None = None
    if not cands:
        # the nominal case failing only with its data scaled: jitter the first scaled data that failed cleanly
        # (in MAGNITUDES' order; 1 + x of a small x fails at 1e-3 alone)
        scaled_fails = [(k, r) for k, r in ev.magnitudes if _clean_wide_failure(r) and forward_wrong(r)[0]
                        and not r.noop]
        if not scaled_fails or ev.base is None:
            return
        scale, plain = scaled_fails[0]
        case = ev.base
    else:
        # (several wrong elements first: one element's error may move little by chance)
        plain = min(cands, key=lambda r: (forward_wrong(r)[0] < JITTER_ELEMENTS, r.case.pattern != "randn",
                                          r.case.layout != "contiguous", case_elements(ev.spec, r.case), r.case.id))
        case = plain.case
    case = dataclasses.replace(case, axis="debug", skip=None, skip_kind=None, repeats=0)
    on = "" if scale is None else f" (the data x {scale:g})"
    moved = p.run(case, "jitter", f"inputs{on} moved by a relative 2**-10: the error's change over the error",
                  ("jitter", scale))
    if moved is not None and moved.status in (Status.PASSED, Status.FAILED):
        ev.jitter = (plain, moved, scale)
        if any(c.nan_mismatches for c in moved.comparisons) and p.experiments[-1].axis == "jitter":  # its NaN
            p.experiments[-1].detail = ("the kernel's error on the unmoved inputs was not the same twice (memory "
                                        "read past an allocation, an unordered sum): nothing concluded")


def square_case(spec: Spec, case: Case, i: int) -> Case | None:
    """The case with input ``i``'s last two dims made equal, where the transposed-reference probe can run: the case
    itself when they are, else the named one of them set to the other (a [32, H] table at H=32; an [M, N] matrix at
    M=N=min(M, N), or at min(max(M, N), 16) where the smaller is 1: a single row is no square, and 16 fits one
    tile of most kernels, where a tile's own rows and columns are what a symmetric input makes alike), within the
    Dims' constraints. None when they cannot be made equal or the input is not 2-D."""
    dims = _dims(spec, i)
    if len(dims) < 2:
        return None
    a, b = dims[-2], dims[-1]
    shape = shape_of(dims, case.sizes)
    if shape[-1] == shape[-2] > 1:
        return case
    if isinstance(a, str) and isinstance(b, str):
        n = min(shape[-2], shape[-1])
        if n <= 1:
            n = min(max(shape[-2], shape[-1]), 16)
        square = _with(case, {a: n, b: n}, spec)
    elif isinstance(a, str) or isinstance(b, str):
        named, k = (a, b) if isinstance(a, str) else (b, a)
        square = _with(case, {str(named): int(k)}, spec)
    else:
        return None
    s = shape_of(dims, square.sizes)
    return square if s[-1] == s[-2] > 1 else None


def operand_longest(spec: Spec, i: int, case: Case) -> bool:
    """Input ``i`` (a per-channel operand) has a dimension at least as long as every dimension of ``case``: an index
    taken along another dimension then stays inside it (past its end a GPU reads garbage, and a masked load its
    fill, which ones cannot right)."""
    own = max((case.sizes.get(d, 0) if isinstance(d, str) else d for d in getattr(spec.inputs[i], "dims", ())),
              default=0)
    return all(own >= v for v in case.sizes.values())


def _operand_longest(p: Prober, ev: Evidence, case: Case, i: int) -> Case:
    """Where a 1-D per-channel operand's dimension is shorter than another of ``case`` (``operand_longest``): the
    case with that dimension as long as the longest, when it fails too (its randn control run here); else
    ``case``."""
    dims = shape_dims(ev.spec.inputs[i])
    if dims is None or len(dims) != 1 or not isinstance(dims[0], str) or dims[0] not in case.sizes \
            or operand_longest(ev.spec, i, case):
        return case
    d = dims[0]
    wide = _with(case, {d: max(case.sizes.values())}, ev.spec)
    if wide.sizes[d] <= case.sizes[d]:
        return case
    where = ", ".join(f"{k}={v}" for k, v in wide.dims if v != case.sizes.get(k))
    control = p.run(wide, "input", f"the control at {where} (for the ones of {_name(ev.spec, i)})")
    return wide if control is not None and control.status is Status.FAILED else case


def probe_structure(p: Prober, ev: Evidence, case: Case) -> None:
    """On a failing case: repeats, zeroed outputs, ones per input, transposed references, arange decoded."""
    case = dataclasses.replace(case, axis="debug", skip=None, skip_kind=None)
    res = p.run(dataclasses.replace(case, repeats=3), "repeat", "3 more runs on the same inputs")
    ev.repeat = res
    ev.zeroed = p.run(case, "outputs", "outputs zeroed instead of poisoned", ("zeroed", None))
    probe_ignored(p, ev, case)
    probe_padding(p, ev)
    probe_ends(p, ev)
    probe_slices(p, ev)
    tensors = _input_tensors(ev.spec)
    vectors = vector_inputs(ev.spec)
    # each input in turn at ones: the Tensors, and the per-channel operands a Custom builds
    onesable = tensors + [i for i in vectors if i not in tensors]
    if len(onesable) > 1:
        for i in onesable:
            ones_at = _operand_longest(p, ev, case, i) if i in vectors else case
            where = "" if ones_at == case else " at " + ", ".join(f"{d}={v}" for d, v in ones_at.dims
                                                                  if v != case.sizes.get(d))
            r = p.run(ones_at, "input", f"{_name(ev.spec, i)} = ones{where}", ("ones", i))
            if r is not None:
                ev.ones[i] = r
    if len(vectors) > 1:  # a scale and a shift read along one wrong axis: each alone at ones leaves the other wrong
        names = ", ".join(_name(ev.spec, i) for i in vectors)
        ev.vectors_ones = p.run(case, "input", f"{names} = ones", ("ones", tuple(vectors)))
    probe_layout(p, ev, case)
    for prec in ev.spec.precisions:  # dtype: the same case in the Spec's other precisions
        if prec.name == case.precision:
            continue
        r = p.run(dataclasses.replace(case, precision=prec.name), "precision", prec.name)
        if r is not None:
            ev.precisions.append((prec.name, r))
    configs = [tuple(c.items()) for c in ev.spec.configs]
    if len(configs) > 1:  # the launch configurations: block sizes, warps (one block or many per row)
        for config in configs:
            if config == case.config:
                continue
            label = ", ".join(f"{k}={v}" for k, v in config) or "default config"
            r = p.run(dataclasses.replace(case, config=config), "config", label)
            if r is not None:
                ev.configs.append((label, r))
    if ev.spec.stages and p.left() > 0:
        for stage in ev.spec.stages:
            r = p.run(case, "stage", f"stage {stage}", ("stage", stage))
            if r is not None:
                ev.stages.append((stage, r))
                if not r.ok:
                    break


def probe_layout(p: Prober, ev: Evidence, case: Case) -> None:
    """On a failing case (or its square twin): the reference of each input of two dims or more transposed, and each
    such input made symmetric. Run by ``probe_structure``, and again on the smallest case with finite wrong values
    where the case the probes ran on crashed or computed NaN (an index that reads far past a tensor at some sizes
    misplaces values at the others, which these probes show); a result replaces the one of that case."""
    case = dataclasses.replace(case, axis="debug", skip=None, skip_kind=None)
    tensors = _input_tensors(ev.spec)
    # the transposed reference of every input of two dims or more: the Tensors, and the Customs that declare their
    # shape (a fixed 3x3 matrix built by the Spec, which no size of the Spec makes non-square)
    shaped = tensors + [i for i, t in enumerate(ev.spec.inputs)
                        if isinstance(t, Custom) and len(_dims(ev.spec, i)) >= 2]
    for i in shaped:
        square = square_case(ev.spec, case, i)
        if square is not None and not transpose_invariant(ev.spec, square, i):
            at = "" if square == case else " at " + ", ".join(f"{d}={v}" for d, v in square.dims
                                                               if v != case.sizes.get(d))
            r = p.run(square, "transpose", f"reference of {_name(ev.spec, i)} transposed{at}", ("transposed", i))
            if r is not None:
                ev.transposed[i] = r
    # each floating input of two dims or more (the Tensors, and the Customs that declare their shape) made
    # symmetric, (X + X^T) / 2, for the kernel and the reference alike, on the failing case where the input is
    # square, else on its square twin (``square_case``), which must then fail on its own first (the control): its
    # rows and its columns then hold the same values, so rows read as columns, or a reduction along the other axis,
    # are right. Square inputs are where "passes on the square shapes only" cannot be seen: an N x N matrix, or a
    # kernel whose wrong axis also fails square shapes of random data
    for i in shaped:
        dtype = getattr(ev.spec.inputs[i], "dtype", None)
        if dtype is not None and not dtype.is_floating_point:
            continue
        square = square_case(ev.spec, case, i)
        if square is None:
            continue
        if square != case:
            at = ", ".join(f"{d}={v}" for d, v in square.dims if v != case.sizes.get(d))
            control = p.run(square, "symmetric", f"the square case {at} as it is (the control)")
            if control is None or not elements_wrong(control):
                continue
            label = f"{_name(ev.spec, i)} made symmetric, (X + X^T) / 2, at {at}"
        else:
            label = f"{_name(ev.spec, i)} made symmetric, (X + X^T) / 2"
        r = p.run(square, "symmetric", label, ("symmetric", i))
        if r is None:
            continue
        if r.ok or values_right(r):
            # the values changed too (each the mean of two): the input averaged with a shuffled copy of itself
            # must still fail, else the values failed it (a low-precision sum, a large mean), not their places
            shuffled = p.run(square, "symmetric", f"{_name(ev.spec, i)} averaged with a shuffled copy (the control)",
                             ("averaged", i))
            if shuffled is None or not elements_wrong(shuffled):
                continue
        ev.symmetric[i] = r


def _ignores_some(spec: Spec, case: Case, i: int) -> bool:
    """Whether the reference ignores elements of input ``i`` next to those it uses, on the case's inputs drawn here
    on the CPU: a dense operation (or an integer input) ignores none, and no probe is spent on it."""
    try:
        args = make_args(spec, case, "cpu")
        return ignored_region(spec, args, i, params_of(spec, case), "boundary") is not None
    except Exception:  # inputs or a reference that cannot be built here: the probe itself decides
        return True


def probe_ignored(p: Prober, ev: Evidence, case: Case) -> None:
    """Does the kernel read what the reference ignores? For each floating input (three at most), the elements the
    reference's outputs do not depend on, next to those they do, are raised by 1000 for the kernel and the
    reference alike; if that makes the kernel far more wrong, the elements farther away are tried too. Reading only
    the first ones is a bound off by one (a mask's ``<=`` for ``<``, a window one too wide)."""
    plain = ev.minimal
    if plain is None or plain.status is not Status.FAILED:
        return
    for i in [i for i in _input_tensors(ev.spec) if _ignores_some(ev.spec, case, i)][:3]:
        near = p.run(case, "ignored", f"{_name(ev.spec, i)} + 1000 where the reference ignores it, next to what it "
                     "uses", ("ignored", (i, "boundary")))
        if near is None:
            continue
        ev.ignored.append((i, "boundary", near))
        if reads_bumped(near, plain):
            far = p.run(case, "ignored", f"{_name(ev.spec, i)} + 1000 where the reference ignores it, away from "
                        "what it uses", ("ignored", (i, "far")))
            if far is not None:
                ev.ignored.append((i, "far", far))


#: Inputs the padding probe tries, at most, and the largest case it pads (elements).
PADDED_INPUTS = 3
PAD_MAX = 2**24


def probe_padding(p: Prober, ev: Evidence) -> None:
    """Does the kernel read past the end of an input's rows? On the smallest failing case with finite wrong values,
    each floating input the kernel only reads (three at most) is given as a view into rows padded with 0 (the
    control: in the plain case, what lies past the last row is whatever the memory held, stale and unrepeatable),
    then with 1000 just past their end; if that makes the kernel far more wrong than the control, the padding
    farther away is tried too. Reading only the first padding element is a bound off by one; reading farther, a
    tail of lanes with no mask."""
    plain = _finite_failure(ev)
    if plain is None:
        return
    case = dataclasses.replace(plain.case, axis="debug", skip=None, skip_kind=None, repeats=0)
    for i in [i for i in _input_tensors(ev.spec) if not getattr(ev.spec.inputs[i], "mutated", False)][
            :PADDED_INPUTS]:
        name = _name(ev.spec, i)
        control = p.run(case, "padding", f"{name}'s rows padded with 0", ("padded", (i, "zero")))
        if control is None or not math.isfinite(error_of(control)):
            continue
        first = p.run(case, "padding", f"{name}'s rows padded, 1000 just past their end",
                      ("padded", (i, "first")))
        if first is None:
            continue
        ev.padded.append((i, "first", control, first))
        if reads_bumped(first, control):
            rest = p.run(case, "padding", f"{name}'s rows padded, 1000 from the second element past their "
                         "end on", ("padded", (i, "rest")))
            if rest is not None:
                ev.padded.append((i, "rest", control, rest))


#: Inputs the end probe tries, at most.
END_INPUTS = 2


def probe_ends(p: Prober, ev: Evidence) -> None:
    """Does a reducing kernel see the last elements along an axis? The elements at the end of an input's axis are
    set to NaN for the kernel and the reference alike; where the kernel stays finite while the reference gives NaN,
    the one before the end and the first are set to NaN too. A kernel that stops one short (``< n - 1``) ignores
    only the last; one that skips the last partial tile ignores several. The case: where sizes fail only off the
    multiples of a block, that dimension at two blocks and 5 (a tail of 5 elements); else the smallest case with
    finite wrong values and an axis of 8 elements at least."""
    # only a reducing kernel's output stays finite for want of reading a NaN input: an elementwise kernel's wrong
    # tail misses the NaN put there whatever its bug (its own evidence: the unwritten or wrong tail)
    if not any(reduces(ev.spec, r) for r in ev.failing):
        return
    edge = Facts(ev).edge
    plain: CaseResult | None = None
    axes: list[tuple[int, int]] = []
    if edge and ev.base is not None:
        d, b, _ = edge[0]
        case = _with(ev.base, {d: 2 * b + 5}, ev.spec)
        if case.sizes[d] % b >= 2 and case_elements(ev.spec, case) <= PAD_MAX:
            case = dataclasses.replace(case, axis="debug", skip=None, skip_kind=None, repeats=0)
            plain = p.run(case, "ends", f"{d}={case.sizes[d]} (a tail of {case.sizes[d] % b} past whole blocks)")
            axes = [(i, k) for i in _input_tensors(ev.spec) for k, x in enumerate(_dims(ev.spec, i)) if x == d]
    if plain is None:  # an axis of 8 elements at least: the last, the one before and the first apart from the rest
        axes = [(i, len(_dims(ev.spec, i)) - 1) for i in _input_tensors(ev.spec) if _dims(ev.spec, i)]
        plain = _finite_failure(ev, lambda c: any(shape_of(_dims(ev.spec, i), c.sizes)[k] >= 8 for i, k in axes))
    if plain is None or plain.status is not Status.FAILED or not math.isfinite(error_of(plain)) \
            or not reduces(ev.spec, plain):
        return
    case = dataclasses.replace(plain.case, axis="debug", skip=None, skip_kind=None, repeats=0)
    axes = [(i, k) for i, k in axes if not getattr(ev.spec.inputs[i], "mutated", False)
            and shape_of(_dims(ev.spec, i), case.sizes)[k] >= 3][:END_INPUTS]
    for i, k in axes:
        name = _name(ev.spec, i)
        runs: dict[int, CaseResult] = {}
        for pos, where in ((-1, "the last"), (-2, "the one before the last"), (0, "the first")):
            r = p.run(case, "ends", f"{name}: {where} along axis {k} = NaN", ("end", (i, k, pos)))
            if r is None:
                break
            runs[pos] = r
            if pos == -1 and not ignores_nan(r):
                break  # the kernel gives NaN where the reference does: it reads the last elements
        ev.ends.append((i, k, plain, runs))


#: Slice probes at most (each calls the kernel twice).
SLICE_PROBES = 6
#: Failing cases the slice probe looks at for one where the reference shows a raised slice's change.
SLICE_CASES = 3


def _middle(n: int) -> int:
    """A slice in the middle of ``n``, one past the half: the half of a power of two starts a block, where a kernel
    that mixes the lanes of a block with the block's first can look right."""
    return min(n // 2 + 1, n - 1)


def _dim_sizes(spec: Spec, case: Case, i: int) -> list[tuple[int, str, int, bool]]:
    """Input ``i``'s dimensions as (axis, name, size in ``case``, reduced by the operation); a dimension of fixed
    size is named by its number."""
    reduce = set(spec.reduce)
    return [(k, str(d), case.sizes.get(d, 0) if isinstance(d, str) else int(d), d in reduce)
            for k, d in enumerate(_dims(spec, i))]


def _sliced_inputs(spec: Spec) -> list[int]:
    """The inputs whose dimensions are declared (Tensors, and Customs that name theirs): the slice probe's."""
    return [i for i, t in enumerate(spec.inputs) if isinstance(t, Tensor) or getattr(t, "dims", None)]


def probe_slices(p: Prober, ev: Evidence) -> None:
    """Does the kernel mix what the operation keeps apart? For each input and each of its dimensions that is not
    reduced, one slice in the middle is raised (``slice_raised``) for the kernel and the reference alike, where the
    reference's outputs change only inside one slice of each output (``slice_axes``: the input's own axis where the
    shapes agree, the row or the column of an outer product's 1-D operand); the probe compares how each one's
    outputs change outside it. A reduction along the wrong axis (a sum over channels for one over the length), or
    an index that reads another slice, changes them there. ``ev.slices_unprobed`` names the dimensions no probe
    covered (reduced, the operation combines them, too short, over ``SLICE_PROBES``, or not run): with none, a
    kernel that kept every slice apart reads each element where the operation does. Only on kernels that return
    their outputs (allocated, or an input written in place, which each of the probe's two calls gets a copy of), not
    on those that write outputs the Spec passes them, and only on a failing case with finite values: the smallest
    such case with a dimension to slice."""
    spec = ev.spec
    if spec.outputs is not None:
        return

    sliced = _sliced_inputs(spec)

    def kept_apart(c: Case) -> list[int]:  # the sizes of the dimensions not reduced
        return [size for i in sliced for _, _, size, reduced in _dim_sizes(spec, c, i) if not reduced]

    def sliceable(c: Case) -> bool:
        return any(size >= 3 for size in kept_apart(c))

    def worse(c: Case) -> tuple[bool, bool]:
        # a dimension of 1 or 2 hides what a kernel mixes across it, and data far from randn's (large magnitudes
        # saturate a sigmoid) hides how much an output moves: such cases last
        return any(size < 3 for size in kept_apart(c)), c.pattern != "randn"

    # the smallest failing cases with a dimension to slice, finite values (those whose every dimension is long
    # enough, on randn data, first): the first where the reference keeps a raised slice's change inside one slice
    # and shows it there (one row of a column standardization is all zeros, whatever the column holds)
    for plain in sorted(_finite_failures(ev, sliceable), key=lambda r: worse(r.case))[:SLICE_CASES]:
        case = dataclasses.replace(plain.case, axis="debug", skip=None, skip_kind=None, repeats=0)
        try:
            args = make_args(spec, case, "cpu")
        except Exception:  # inputs that cannot be drawn here: not this case
            continue
        modes = params_of(spec, case)
        plan: list[tuple[int, int, str, int, Axes]] = []
        # an operand with no dimensions to slice (an index tensor, a Custom of no declared shape) may be read at the
        # wrong place too: it counts as not probed
        unprobed = [_name(spec, i) for i, a in enumerate(args[:len(spec.inputs)])
                    if isinstance(a, torch.Tensor) and a.dim() >= 1 and a.numel() > 1
                    and (i not in sliced or not a.is_floating_point())]
        for i in sliced:
            if not (isinstance(args[i], torch.Tensor) and args[i].is_floating_point()):
                continue
            for k, d, size, reduced in _dim_sizes(spec, case, i):
                # a reduced dimension is combined by the operation itself: an index read wrong along it (a
                # Toeplitz matrix's diagonal offset negated) moves no raised slice's change
                if reduced:
                    if size > 1:
                        unprobed.append(f"{_name(spec, i)}[{d}]")
                    continue
                pos = _middle(size)
                axes = slice_axes(spec, args, i, k, pos, modes) if size >= 3 else None
                if axes is None:
                    unprobed.append(f"{_name(spec, i)}[{d}]")
                else:
                    plan.append((i, k, d, pos, axes))
        if not plan:
            continue
        unprobed += [f"{_name(spec, i)}[{d}]" for i, _, d, _, _ in plan[SLICE_PROBES:]]
        for i, k, d, pos, axes in plan[:SLICE_PROBES]:
            r = p.run(case, "slice", f"{_name(spec, i)}[{d}={pos}] + 1..2: outputs outside that slice",
                      ("slice", (i, k, pos, axes)))
            if r is None:
                unprobed.append(f"{_name(spec, i)}[{d}]")
            else:
                ev.slices.append((i, d, k, pos, r, axes))
        ev.slices_unprobed = unprobed
        return


def _dims(spec: Spec, i: int) -> tuple[str | int, ...]:
    return tuple(getattr(spec.inputs[i], "dims", None) or ())


def _finite_failures(ev: Evidence, keep: Callable[[Case], bool] = lambda c: True) -> list[CaseResult]:
    """The cases that computed finite wrong values (a NaN or an Inf hides how much worse a probe makes it), among
    those ``keep`` accepts, from the minimal one and the failures of the matrix and the size sweep: the minimal one
    first when it qualifies, then the others smallest first, each case once."""
    cands = [ev.minimal] if ev.minimal is not None else []
    cands += list(ev.failing) + [r for rows in ev.sizes.values() for _, ok, r in rows if not ok]
    finite = [r for r in cands if r is not None and r.status is Status.FAILED and r.case.axis != "large"
              and math.isfinite(error_of(r)) and error_of(r) > 0 and case_elements(ev.spec, r.case) <= PAD_MAX
              and keep(r.case)]
    first = [ev.minimal] if ev.minimal in finite else []
    out: list[CaseResult] = []
    seen: set[str] = set()
    for r in first + sorted(finite, key=lambda r: case_elements(ev.spec, r.case)):
        if r.case.id not in seen:
            seen.add(r.case.id)
            out.append(r)
    return out


def _finite_failure(ev: Evidence, keep: Callable[[Case], bool] = lambda c: True) -> CaseResult | None:
    """The first of ``_finite_failures``: the minimal case when it computed finite wrong values, else the smallest
    such failure; None when there is none."""
    found = _finite_failures(ev, keep)
    return found[0] if found else None


def _name(spec: Spec, i: int) -> str:
    return getattr(spec.inputs[i], "name", None) or f"input {i}"


def _within_multiset(expected: list[torch.Tensor], values: torch.Tensor) -> bool:
    """Whether each expected value occurs no more often than the inputs hold it: a movement (a flip, a transpose)
    places each input element at most once; counts of a histogram on arange inputs are small integers that the
    inputs hold once each, and repeat."""
    want = torch.cat([x[torch.isfinite(x)].reshape(-1) for x in expected]) if expected else values[:0]
    if values.numel() == 0:
        return want.numel() == 0
    u, n = torch.unique(want, return_counts=True)
    have_u, have_n = torch.unique(values, return_counts=True)
    pos = torch.searchsorted(have_u, u).clamp(max=have_u.numel() - 1)
    return bool(((have_u[pos] == u) & (have_n[pos] >= n)).all())


#: Share of the largest input's values a movement's outputs hold at least: each input element moved somewhere.
MOVED_SHARE = 0.9


def _covers(expected: list[torch.Tensor], largest: torch.Tensor) -> bool:
    """Whether the outputs hold at least ``MOVED_SHARE`` of the largest input's distinct values: a flip, a roll or a
    transpose moves each of them; a scatter that keeps one value per cell (a z-buffer's nearest depth) holds few of
    its points' values, however many cells its output has."""
    want = torch.unique(largest[torch.isfinite(largest)])
    if want.numel() == 0:
        return False
    held = torch.cat([x[torch.isfinite(x)].reshape(-1) for x in expected]) if expected else largest[:0]
    return float(torch.isin(want, held).double().mean()) >= MOVED_SHARE


def decode_arange(ev: Evidence, case: Case, prober: Prober) -> CaseResult | None:
    """Run the case on arange inputs (each value its flat index) as a probe (in an isolated worker on a GPU) and
    say, for the first wrong outputs, which expected position their value belongs to: the reference at the same
    inputs is computed here, on the CPU, and each wrong value looked up in it. Returns the probe's result."""
    spec = ev.spec
    c = dataclasses.replace(case, pattern="arange", repeats=0, axis="debug")
    if PRECISIONS[case.precision].storage.itemsize < 4 and "fp32" in {p.name for p in spec.precisions}:
        # arange wraps in a 16-bit storage to stay exact (values repeat): decode where each value is one position
        c = dataclasses.replace(c, precision="fp32")
    res = prober.run(c, "pattern", "arange")
    if res is None or res.status not in (Status.FAILED, Status.PASSED):  # not run, or raised: nothing to decode
        return res
    try:
        args = make_args(spec, c, "cpu")
        with torch.no_grad():
            raw = call_reference(spec.reference, spec, c, upcast(args), "cpu")
        expected = [e.detach().double() for e in (raw if isinstance(raw, (tuple, list)) else (raw,))
                    if isinstance(e, torch.Tensor)]
    except Exception:  # the reference cannot run on the CPU: the values stay undecoded
        return res
    # a data movement (a copy, transpose, gather): every expected value is one of the inputs' values, so a value
    # found at another position is a misplaced element; after arithmetic (x + bias[...]) it may be a coincidence
    pool = [a.detach().double().reshape(-1) for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()]
    values = torch.cat(pool) if pool else torch.empty(0, dtype=torch.float64)
    ev.arange_moves = values.numel() > 0 and all(bool(torch.isin(x[torch.isfinite(x)], values).all())
                                                 for x in expected)
    ev.arange_permutes = ev.arange_moves and sum(x.numel() for x in expected) >= max(p.numel() for p in pool) \
        and _within_multiset(expected, values) and _covers(expected, max(pool, key=lambda p: p.numel()))
    if res.status is not Status.FAILED:  # passed: the movement is known, nothing to decode
        return res
    for cmp, x in zip(res.comparisons, expected, strict=False):
        if tuple(x.shape) != tuple(cmp.shape):
            continue
        finite = x[torch.isfinite(x)]
        scale = float(finite.abs().max()) if finite.numel() else 1.0
        xf = x.reshape(-1)
        for m in cmp.first:
            # wrong by more than rounding: arange values are integers, a misplaced one is off by at least 1
            v = m.actual
            if math.isfinite(v) and math.isfinite(m.expected) and abs(v - m.expected) < max(1e-3 * scale, 0.5):
                continue
            hits = torch.nonzero(xf == v).reshape(-1)[:2].tolist() if math.isfinite(v) else []
            flat = sum(i * math.prod(cmp.shape[k + 1:]) for k, i in enumerate(m.index))
            source = None
            if len(hits) == 1 and hits[0] != flat:
                source = tuple(int(t) for t in torch.unravel_index(torch.tensor(hits[0]), tuple(cmp.shape)))
            ev.arange.append(Decoded(tuple(m.index), v, m.expected, source))
    return res
