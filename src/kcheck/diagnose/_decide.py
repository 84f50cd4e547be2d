"""Experiments that decide between two close causes.

When the two best causes score within ``_rules.CLOSE`` of each other, the debugger runs the experiment whose outcome
each of them predicts differently, within what is left of the budget, and records which cause it favoured:

- **shape** (an edge bug vs an index/axis bug): a square shape and a non-square one of the same area, both
  multiples of the block, and a ragged square. An index or axis bug fails the non-square one only; an edge bug the
  ragged square only.
- **param** (a bound on one of the case's parameters vs a block or an edge; run whenever it applies, close scores or
  not): where failures start past the value of a parameter (a window), the largest passing size again with a smaller
  value of it. A bound that follows the parameter fails there; a lost inter-block result does not.
- **blocks** (an edge bug vs a lost inter-block result): one block and two full blocks along the failing dimension.
  Two full blocks pass when the edge is the problem; they fail when the blocks' results are not combined.
- **order** (a lost inter-block result or a race vs anything else): the smallest failing case with the programs run
  in reversed and in random order (Triton's interpreter). A result that changes with the order depends on which
  program runs last.
- **scale** (an exp overflow vs another cause): the smallest failing case with its data scaled by 1e3 and by 1e-3.
- **ragged** (an edge bug vs another cause): the failing dimension at more ragged sizes and at whole blocks. An edge
  bug fails the ragged ones only.
- **shift** (a cancellation vs another cause): the same case with a large mean (1e4 + randn) and with randn scaled
  to the same magnitude (randn x 1e4). A cancellation fails the first only.
- **ones** (a wrong axis vs a transposition): the per-channel operand (1-D, or broadcast along a dimension) set to
  ones. A per-channel operand read at the wrong place gives right values then.
- **data** (a bound fixed by the shape vs an index computed from the data; run whenever an edge cause ranks first on
  out-of-bounds accesses with no edge pattern, close scores or not): the case whose accesses went out of bounds, at
  the same shape on zeros, then on ones, under the interpreter's checks or compute-sanitizer's memcheck. A missing or
  off-by-one bound reads past the end whatever the values; a table lookup, a gather or a bin whose index comes from
  the data and is not clamped stays in bounds on them. A case whose accesses only Triton's interpreter beside a GPU saw
  out of bounds first runs on its own data under the GPU's memcheck: a check that cannot see the access there (it
  lands in memory the process owns) settles nothing on other values.
- **length** (an int32 offset past 2**31 vs a row too long for its sum; run whenever int32-overflow ranks first on a
  failing past-2**31 case that is also the longest along a dimension): that length alone, the other dimensions at
  their smallest. An offset needs the whole tensor past 2**31 elements to wrap; a long row's rounding fails there too.
- **seeds** (a threshold of the size vs one of the data; run whenever a cause that reads sizes ranks first on failures
  that start at one size, close scores or not): the largest passing size and the smallest failing one with other
  seeds. A block's reach or an edge gives the same outcome whatever the seed; a rare value in the data (a bin or
  table index out of its range, a branch for large values) moves the size where the failures start.
- **swap** (an index error vs another cause): two inputs of the same shape passed in each other's place. A kernel
  that is right then reads its operands in each other's roles.

Each run adds a :class:`_sweep.Decision` to the Evidence (its observations feed the rules) and sets the
``decided`` text of its Experiments.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from .. import sanitize as sanitizer  # looked up at call time: tests stand in a fake one
from .._results import CaseResult, Status
from .._spec import Tensor
from ..cases import Case, numel, tensor_shapes
from ..run import RunOptions
from ._causes import Cause, Observation
from ._observe import Facts, Severity, is_vector, severity, values_right
from ._probe import Prober
from ._rules import CLOSE
from ._sweep import Decision, Evidence, _with, case_elements, operand_longest

EDGE = {"edge-guard", "off-by-one-mask", "tail-tile-dropped"}
AXIS = {"index-transposition", "wrong-axis"}
NONFINITE = {"exp-overflow", "division-by-zero"}
PRECISION = {"cancellation", "low-precision-accumulation", "tolerance"}
ORDER = {"missing-atomic", "race"}
#: Largest tensor a deciding experiment may build (elements): the interpreter runs program by program.
MAX_ELEMENTS_CPU = 2**20
MAX_ELEMENTS_GPU = 2**26


def _max_elements(p: Prober) -> int:
    return MAX_ELEMENTS_GPU if p.device.is_gpu else MAX_ELEMENTS_CPU


def _fits(p: Prober, ev: Evidence, sizes: dict[str, int]) -> bool:

    try:
        biggest = max((numel(s) for s in tensor_shapes(ev.spec, sizes)), default=0)
    except Exception:  # shapes the reference cannot infer: let the run say
        return True
    return biggest <= _max_elements(p)


def _nonfinite(r: CaseResult) -> bool:
    return any(c.nan_mismatches or c.inf_mismatches for c in r.comparisons)


def _signature(r: CaseResult) -> tuple[object, ...]:
    return (r.status.value, tuple((c.mismatches, c.unwritten, round(c.max_abs, 12)) for c in r.comparisons))


class _Run:
    """The cases of one deciding experiment, logged with their label."""

    def __init__(self, p: Prober, name: str, between: tuple[str, str], dim: str | None = None) -> None:
        self.p = p
        self.decision = Decision(name, between, dim=dim)
        self.first = len(p.experiments)

    def run(self, case: Case, label: str, variant: tuple | None = None,
            options: RunOptions | None = None) -> CaseResult | None:
        a, b = self.decision.between
        res = self.p.run(dataclasses.replace(case, axis="debug", skip=None, skip_kind=None, repeats=0), "decide",
                         f"{label} ({a} or {b}?)", variant, options)
        if res is not None:
            self.decision.results[label] = res
        return res

    def observe(self, kind: str, text: str) -> None:
        self.decision.observations.append(Observation(kind, text))

    def close(self, settled: str) -> Decision:
        self.decision.settled = settled
        for e in self.p.experiments[self.first:]:
            e.decided = settled or "settled nothing: both causes predict this outcome"
        return self.decision


def _shape(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    names = [d for d in ev.spec.dim_names() if ev.base is not None and d in ev.base.sizes]
    if ev.base is None or len(names) < 2:
        return None
    block = max([b for _, b, _ in facts.edge] or [32])
    s = max(2 * block, 32)
    square = _with(ev.base, dict.fromkeys(names, s), ev.spec)
    wide = _with(ev.base, {**dict.fromkeys(names, s), names[0]: s // 2, names[1]: 2 * s}, ev.spec)
    ragged = _with(ev.base, dict.fromkeys(names, s + 1), ev.spec)
    if len({square.sizes[d] for d in names}) != 1 or len({wide.sizes[d] for d in names[:2]}) != 2 \
            or not all(_fits(p, ev, c.sizes) for c in (square, wide, ragged)):
        return None
    run = _Run(p, "shape", pair)
    dims = lambda c: "x".join(str(c.sizes[d]) for d in names)  # noqa: E731
    r_sq = run.run(square, f"square {dims(square)}")
    r_wide = run.run(wide, f"non-square {dims(wide)}, same area")
    # the Dims' constraints may leave no ragged square (a multiple_of): the whole-block square then stands in for
    # it, and only the index/axis outcome can be settled
    r_rag = run.run(ragged, f"ragged square {dims(ragged)}") if len({ragged.sizes[d] for d in names}) == 1 \
        and ragged.sizes[names[0]] % block else r_sq
    if r_sq is None or r_wide is None or r_rag is None:
        return run.close("")
    settled = ""
    if r_sq.ok and not r_wide.ok and r_rag.ok:
        run.observe("square-only", f"deciding experiment: {dims(square)} and the ragged {dims(ragged)} pass, "
                    f"{dims(wide)} (same area as {dims(square)}) fails: the failure needs two dims to differ")
        settled = "an index or axis error: the non-square shape fails, the square ones pass"
    elif r_sq.ok and r_wide.ok and not r_rag.ok:
        run.observe("edge-decided", f"deciding experiment: {dims(square)} and {dims(wide)} (multiples of {block}) "
                    f"pass, the ragged {dims(ragged)} fails: the edge of a block is the problem")
        settled = "an edge bug: the ragged square fails, the shapes of whole blocks pass"
    return run.close(settled)


def _blocks(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    if ev.base is None:
        return None
    found = [(d, t) for d, t, _ in facts.blocks] + [(d, b) for d, b, _ in facts.edge]
    if not found:
        return None
    d, b = found[0]
    one, two = _with(ev.base, {d: b}, ev.spec), _with(ev.base, {d: 2 * b}, ev.spec)
    if one.sizes[d] != b or two.sizes[d] != 2 * b or not _fits(p, ev, two.sizes):
        return None
    run = _Run(p, "blocks", pair, dim=d)
    r1 = run.run(one, f"{d}={b} (one block)")
    r2 = run.run(two, f"{d}={2 * b} (two full blocks)")
    if r1 is None or r2 is None:
        return run.close("")
    settled = ""
    if r1.ok and not r2.ok and severity(r2) >= Severity.GROSS:
        run.observe("blocks-decided", f"deciding experiment: {d}={b} (one block) passes, {d}={2 * b} (two full "
                    "blocks, no ragged edge) fails")
        run.observe("past-one-block", f"{d}: right at one block ({b}), wrong at two full blocks ({2 * b})")
        settled = "a lost inter-block result: two full blocks fail where one passes"
    elif r1.ok and r2.ok and any(not ok for v, ok, _ in ev.sizes.get(d, []) if v % b):
        run.observe("edge-decided", f"deciding experiment: {d}={b} and {d}={2 * b} (whole blocks) pass; the ragged "
                    "sizes fail")
        settled = "an edge bug: whole blocks pass, only ragged sizes fail"
    return run.close(settled)


def _param(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    """Failures that start past the value of one of the case's parameters (a window) look like failures past one
    block. The largest passing size run again with a smaller value of that parameter: a kernel whose bound follows
    the parameter now fails there (the Facts see the result among the decisions' and say the threshold moves); a
    lost inter-block result still passes."""
    if ev.base is None or not facts.param_thresholds or facts.has("param-threshold-moves"):
        return None
    d, t, name, value = facts.param_thresholds[0]
    smaller = sorted(v for v in ev.spec.params.get(name, ()) if isinstance(v, (int, float))
                     and not isinstance(v, bool) and v < value and v < t)
    if not smaller:
        return None
    case = _with(ev.base, {d: t}, ev.spec)
    if case.sizes[d] != t or not _fits(p, ev, case.sizes):
        return None
    case = dataclasses.replace(case, params=tuple((n, smaller[-1] if n == name else v) for n, v in case.params))
    run = _Run(p, "param", pair)
    r = run.run(case, f"{d}={t} (passes at {name}={value:g}) with {name}={smaller[-1]:g}")
    if r is None:
        return run.close("")
    if not r.ok:
        return run.close(f"a bound on {name}: the size that passed fails once {name} is smaller")
    return run.close("")


def _oob_case(ev: Evidence) -> Case | None:
    """The failing case whose accesses went out of bounds: the smallest one the interpreter's checks flagged, else the
    one compute-sanitizer ran on; None when no access went out of bounds."""
    flagged = [r for r in ev.failing if any(f.kind == "out-of-bounds" for f in r.findings)]
    if flagged:
        return min(flagged, key=lambda r: case_elements(ev.spec, r.case)).case
    if any(f.kind == "out-of-bounds" for f in ev.sanitizer):
        return ev.sanitized
    return None


def _in_bounds(p: Prober, ev: Evidence, run: _Run, case: Case, label: str) -> bool | None:
    """Whether every access of ``case`` stays in bounds: under the interpreter's checks (its result's findings) or,
    on a GPU, compute-sanitizer's memcheck run to its end. None when neither can say."""
    r = run.run(case, label)
    if r is None or r.status is Status.TIMEOUT:
        return None
    if ev.interpreted and p.options.interpreter_checks:
        return r.status is not Status.CRASHED and not any(f.kind == "out-of-bounds" for f in r.findings)
    if not p.device.is_gpu or p.left() < 10:
        return None
    rep = sanitizer.sanitize(ev.spec, tools=("memcheck",), cases=[case], device=p.device, timeout=max(15.0, p.left()))
    memcheck = next((t for t in rep.tools if t.tool == "memcheck"), None)
    if memcheck is None or memcheck.status not in ("clean", "errors"):  # "unknown": it did not run to its end
        return None
    return not any(f.kind == "out-of-bounds" for f in memcheck.findings)


def _data(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    """Out-of-bounds accesses at every size, multiples of the block included, read as a missing bound. The case whose
    accesses went out of bounds runs again, same shape, on zeros and then on ones: a bound fixed by the shape reads
    past the end whatever the values; an index computed from the data that nothing clamps comes back in bounds."""
    case = _oob_case(ev)
    if case is None or case.pattern in ("zeros", "ones"):
        return None
    run = _Run(p, "data", pair)
    if case.interpreted:
        # the accesses went out of bounds in Triton's interpreter beside the GPU; the probes here run on the GPU, under
        # memcheck, which does not see an access that lands in memory the process owns (PyTorch's caching allocator
        # hands out slices of larger blocks). The same case on its own data first: a check that cannot see the
        # access there says nothing of it on other values
        case = dataclasses.replace(case, interpreted=False)
        seen = _in_bounds(p, ev, run, case, f"the same case on {case.pattern}, under this device's check")
        if seen is None or seen:
            return run.close("")
    for pattern in ("zeros", "ones"):
        clean = _in_bounds(p, ev, run, dataclasses.replace(case, pattern=pattern), f"the same shape on {pattern}")
        if clean is None:
            return run.close("")
        if clean:
            run.observe("oob-data-dependent", f"deciding experiment: at the shape of {case.id} every access stays in "
                        f"bounds on {pattern} and goes out of bounds on {case.pattern}: the addresses come from the "
                        "data (a table lookup, a gather, a bin) and nothing clamps them")
            return run.close("an index computed from the data: the same shape on other values stays in bounds")
    run.observe("oob-any-data", f"deciding experiment: at the shape of {case.id} the accesses go out of bounds on "
                "zeros and on ones too: the bound is fixed by the shape, not the data")
    return run.close("a bound fixed by the shape: the accesses go out of bounds whatever the values")


#: Other seeds a size runs with in the seeds experiment, on each side of the threshold.
SEEDS = 4


def _seeds(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    """Failures that start at one size along a dimension read as a block's reach or an edge. On random data they can
    start where the data first holds a rare value (a table index out of its range, a branch for large values), and
    that size moves with the seed. The largest passing size below the threshold runs with other seeds, then the
    smallest failing one: a size's threshold (a block, an edge) gives the same outcome whatever the seed. Each
    outcome that differs from the first seed's is run again, so a race's lucky run does not count."""
    if ev.base is None or ev.base.pattern != "randn":
        return None
    if facts.blocks:
        d, t, f = facts.blocks[0]
    elif facts.edge:
        d, _, bad = facts.edge[0]
        ok = [v for v, passed, _ in ev.sizes.get(d, []) if passed and v < min(bad)]
        if not ok:
            return None
        t, f = max(ok), min(bad)
    else:
        return None
    below, above = _with(ev.base, {d: t}, ev.spec), _with(ev.base, {d: f}, ev.spec)
    if below.sizes[d] != t or above.sizes[d] != f or not _fits(p, ev, above.sizes):
        return None
    run = _Run(p, "seeds", pair)
    others = [ev.base.seed + k for k in range(1, SEEDS + 1)]
    for case, ok_first in ((below, True), (above, False)):
        for s in others if ok_first else others[:SEEDS - 1]:
            other = dataclasses.replace(case, seed=s)
            r = run.run(other, f"{d}={case.sizes[d]} with seed {s}")
            if r is None:
                return run.close("")
            if r.status in (Status.CRASHED, Status.TIMEOUT, Status.ERROR) or r.ok == ok_first:
                continue
            again = run.run(other, f"{d}={case.sizes[d]} with seed {s}, again")
            first = run.run(case, f"{d}={case.sizes[d]} with seed {case.seed}, again")
            if again is None or first is None or again.ok != r.ok or first.ok != ok_first:
                continue  # an outcome that does not come back on the same inputs is timing, not the data
            said = "fails" if not r.ok else "passes"
            run.observe("threshold-follows-data", f"deciding experiment: {d}={case.sizes[d]} "
                        f"{'passes' if ok_first else 'fails'} with seed {case.seed} and {said} with seed {s}, each "
                        "twice: where the failures start along "
                        f"{d} follows values in the data (a rare value that takes a branch, an index or a bin out of "
                        "its range), not the size")
            return run.close(f"a threshold of the data, not of {d}: the same size {said} with another seed")
    run.observe("threshold-holds-seeds", f"deciding experiment: {d}={t} passes with {SEEDS} other seeds and {d}={f} "
                f"fails with {SEEDS - 1}: the threshold is the size's")
    return run.close(f"a threshold of {d}'s size: other seeds keep it")


def _length(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    """Only the past-2**31 case fails, and it is also the longest along a dimension (a row of 16.7M elements where
    every other case has at most thousands): an int32 offset wraps there, and so may a sum over that row lose its
    digits. The same length with the other dimensions at their smallest, far below 2**31 elements, tells them apart."""
    large = [r for r in ev.failing if r.case.axis == "large" and r.status is Status.FAILED]
    if not large or not facts.has("large-only"):
        return None
    r = large[0]
    others = [x for x in facts.results if x.case.axis != "large" and x.case.spec == r.case.spec
              and x.status is not Status.SKIPPED]
    longest = [d for d, v in r.case.sizes.items() if others and all(v > o.case.sizes.get(d, 0) for o in others)]
    if not longest:
        return None
    d = max(longest, key=lambda k: r.case.sizes[k])
    case = _with(r.case, {k: (v if k == d else 1) for k, v in r.case.sizes.items()}, ev.spec)
    if case.sizes[d] != r.case.sizes[d] or not _fits(p, ev, case.sizes) or case_elements(ev.spec, case) >= 2**31:
        return None
    run = _Run(p, "length", pair, dim=None)
    shape = ", ".join(f"{k}={v}" for k, v in case.sizes.items())
    res = run.run(case, f"{d}={case.sizes[d]} alone ({shape}: {case_elements(ev.spec, case):,} elements, below 2**31)")
    if res is None or res.status in (Status.CRASHED, Status.TIMEOUT, Status.ERROR):
        return run.close("")
    if not res.ok:
        run.observe("fails-at-length", f"deciding experiment: {d}={case.sizes[d]} with the other dimensions at their "
                    f"smallest ({shape}, far below 2**31 elements) fails too: the length along {d}, not an offset "
                    "past 2**31, is what fails (a sum over a row that long loses its digits)")
        return run.close(f"not an int32 overflow: {d}={case.sizes[d]} fails below 2**31 elements")
    run.observe("length-passes", f"deciding experiment: {d}={case.sizes[d]} alone ({shape}) passes: only the whole "
                "past-2**31 tensor fails")
    return run.close(f"an offset past 2**31: {d}={case.sizes[d]} alone passes")


def _order(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    if ev.minimal is None or not p.backend.interpreted(p.device) \
            or ev.minimal.status.value not in ("failed", "passed"):
        return None
    run = _Run(p, "order", pair)
    base = ev.minimal
    results = [r for order in ("reversed", "random")
               if (r := run.run(base.case, f"programs in {order} order",
                                options=dataclasses.replace(p.options, order=order))) is not None]
    if not results:
        return run.close("")
    if any(_signature(r) != _signature(base) for r in results):
        run.observe("order-dependent", f"deciding experiment: {base.case.id} gives other values with the programs "
                    "in another order: the result depends on which program runs last")
        return run.close("a lost inter-block result or a race: the values change with the order of the programs")
    run.observe("order-independent", f"deciding experiment: {base.case.id} gives the same values whatever the "
                "order of the programs")
    return run.close("")


def _ragged(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    if ev.base is None or not facts.edge:
        return None
    d, b, _ = facts.edge[0]
    tried = {v for v, _, _ in ev.sizes.get(d, [])}
    ragged = [v for v in (b + 1, 2 * b + 1, 3 * b - 1) if v not in tried]
    whole = [v for v in (2 * b, 3 * b) if v not in tried]
    cases = {v: _with(ev.base, {d: v}, ev.spec) for v in ragged + whole}
    cases = {v: c for v, c in cases.items() if c.sizes[d] == v and _fits(p, ev, c.sizes)}
    if not any(v in cases for v in ragged) or not any(v in cases for v in whole):
        return None
    run = _Run(p, "ragged", pair, dim=d)
    res = {v: r for v, c in cases.items() if (r := run.run(c, f"{d}={v} ({'ragged' if v % b else 'whole blocks'})"))
           is not None}
    rag = [r for v, r in res.items() if v % b]
    whole_res = [r for v, r in res.items() if not v % b]
    sizes = ", ".join(str(v) for v in res if v % b)
    if rag and whole_res and all(not r.ok for r in rag) and all(r.ok for r in whole_res):
        run.observe("edge-decided", f"deciding experiment: {d} at more ragged sizes ({sizes}) fails, at whole "
                    f"blocks of {b} passes")
        return run.close("an edge bug: ragged sizes fail, whole blocks pass")
    if rag and all(r.ok for r in rag):
        run.observe("ragged-passes", f"deciding experiment: {d} at other ragged sizes ({sizes}) passes: the edge "
                    "of a block is not the problem")
        return run.close("not an edge bug: other ragged sizes pass")
    return run.close("")


def _scale(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    case = ev.minimal.case if ev.minimal is not None else None
    if case is None or ev.minimal is None or _nonfinite(ev.minimal) or case.pattern != "randn":
        case = ev.base
    if case is None:
        return None
    run = _Run(p, "scale", pair)
    up = run.run(case, "the same data x 1e3", ("scaled", 1e3))
    down = run.run(case, "the same data x 1e-3", ("scaled", 1e-3))
    if up is None:
        return run.close("")
    if _nonfinite(up) and not (down is not None and _nonfinite(down)):
        run.observe("scale-decided", "deciding experiment: the same data x 1e3 gives NaN/Inf, x 1e-3 does not")
        return run.close("an overflow: NaN/Inf appear when the same data is scaled up")
    if not _nonfinite(up):
        run.observe("scaled-finite", "deciding experiment: the same data x 1e3 stays finite")
        return run.close("not an overflow: the data scaled up stays finite")
    return run.close("")


def _shift(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    if ev.base is None:
        return None
    run = _Run(p, "shift", pair)
    mean = run.run(dataclasses.replace(ev.base, pattern="large_mean"), "large mean (1e4 + randn)")
    wide = run.run(ev.base, "randn x 1e4 (the same magnitude, mean 0)", ("scaled", 1e4))
    if mean is None or wide is None:
        return run.close("")
    if not mean.ok and wide.ok:
        run.observe("shift-decided", "deciding experiment: 1e4 + randn fails, randn x 1e4 passes: the mean, not "
                    "the magnitude, breaks it")
        return run.close("a cancellation: a large mean fails where the same magnitude without it passes")
    if mean.ok:
        run.observe("shift-passes", "deciding experiment: 1e4 + randn passes")
        return run.close("not a cancellation: a large mean passes")
    return run.close("")


def _ones(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:
    vectors = [i for i in range(len(ev.spec.inputs)) if is_vector(ev, i)]
    # a case whose values are wrong and whose accesses are clean: an index past the end of the operand reads
    # nothing the ones could fix
    clean = [r for r in facts.results if not r.ok and not values_right(r) and not r.findings
             and r.status.value == "failed" and r.case.pattern == "randn"]
    if not vectors or not clean:
        return None
    # where the per-channel operands' own dimensions are the longest, an index taken along another dimension stays
    # inside them and the ones can show it; a longer other dimension reads past their end (garbage on a GPU)
    inside = [r for r in clean if all(operand_longest(ev.spec, i, r.case) for i in vectors)]
    target = min(inside or clean, key=lambda r: math.prod(max(v, 1) for v in r.case.sizes.values()))
    if ev.minimal is not None and target.case.id == ev.minimal.case.id and all(i in ev.ones for i in vectors):
        return None  # the probes of structure already ran it
    run = _Run(p, "ones", pair)
    name = lambda i: getattr(ev.spec.inputs[i], "name", None) or f"input {i}"  # noqa: E731
    rescued = []
    for i in vectors:
        r = run.run(target.case, f"{name(i)} = ones", ("ones", i))
        if r is not None and (r.ok or values_right(r)):
            rescued.append(name(i))
    together = False  # only every operand at ones at once rights the values
    if not rescued and len(vectors) > 1:  # a scale and a shift read along one wrong axis: both at ones at once
        r = run.run(target.case, f"{', '.join(name(i) for i in vectors)} = ones", ("ones", tuple(vectors)))
        if r is not None and (r.ok or values_right(r)):
            rescued.append(" and ".join(name(i) for i in vectors))
            together = True
    if rescued:
        run.observe("vectors-ones-rescue" if together else "vector-ones-rescues",
                    f"deciding experiment: on {target.case.id} the values are right when "
                    f"{rescued[0]} is all ones: the per-channel operand is read at the wrong place")
        return run.close("a wrong axis: the per-channel operand at ones gives right values")
    run.observe("vector-ones-fails", f"deciding experiment: on {target.case.id} the values stay wrong with the "
                "per-channel operand(s) all ones")
    return run.close("not a wrong axis: the per-channel operand at ones leaves the values wrong")


def _swap(p: Prober, ev: Evidence, facts: Facts, pair: tuple[str, str]) -> Decision | None:

    if ev.minimal is None or ev.minimal.status.value != "failed":
        return None
    shapes = [(i, t.dims) for i, t in enumerate(ev.spec.inputs) if isinstance(t, Tensor)]
    same = [(i, j) for a, (i, di) in enumerate(shapes) for j, dj in shapes[a + 1:] if di == dj]
    if not same:
        return None
    i, j = same[0]
    run = _Run(p, "swap", pair)
    r = run.run(ev.minimal.case, f"inputs {i} and {j} swapped", ("swapped", (i, j)))
    if r is not None and r.ok:
        run.observe("swapped-roles", f"deciding experiment: the kernel is right with inputs {i} and {j} in each "
                    "other's place: it reads its operands in each other's roles")
        return run.close("an index error: the operands' roles are swapped")
    return run.close("")


Experiment = Callable[[Prober, Evidence, Facts, tuple[str, str]], Decision | None]

#: (applies to the pair of keys, experiment), in the order they are tried.
EXPERIMENTS: list[tuple[str, Callable[[set[str]], bool], Experiment]] = [
    ("shape", lambda k: bool(k & AXIS) and bool(k & (EDGE | {"missing-atomic"})), _shape),
    # a transposition beside any other candidate: the per-channel operand at ones tests the wrong axis it looks like
    ("ones", lambda k: bool(k & AXIS), _ones),
    ("blocks", lambda k: "missing-atomic" in k and bool(k & EDGE), _blocks),
    ("ragged", lambda k: bool(k & EDGE) and not k <= EDGE, _ragged),
    ("order", lambda k: bool(k & ORDER), _order),
    ("scale", lambda k: "exp-overflow" in k, _scale),
    ("shift", lambda k: "cancellation" in k, _shift),
    ("swap", lambda k: "index-transposition" in k, _swap),
]


def _second(ranked: list[str]) -> str:
    return (ranked[1:] or ["unknown"])[0]


#: Experiments run whatever the scores, in order: (name, applies to the ranked keys and the facts, experiment, the
#: pair of causes it separates).
ALWAYS: list[tuple[str, Callable[[list[str], Facts], bool], Experiment, Callable[[list[str]], tuple[str, str]]]] = [
    # a threshold at a parameter's value reads as a block to every cause that looks at blocks
    ("param", lambda r, f: True, _param,
     lambda r: (r[0], "off-by-one-mask" if r[0] != "off-by-one-mask" else _second(r))),
    # a past-2**31 case that is also the longest row reads as an int32 overflow
    ("length", lambda r, f: r[0] == "int32-overflow" and f.has("large-only"), _length,
     lambda r: ("int32-overflow", _second(r))),
    # failures that start at one size read as a block's reach or an edge to the causes that look at sizes: on random
    # data that size may be where the data first holds a rare value
    ("seeds", lambda r, f: r[0] in EDGE | {"missing-atomic"} and bool(f.blocks or f.edge), _seeds,
     lambda r: (r[0], _second(r))),
    # out-of-bounds accesses at every size read as a missing bound to the edge causes, and as a wrong stride to the
    # index causes (whose addresses the shape fixes: an index taken from the data moves with it)
    ("data", lambda r, f: (r[0] in EDGE or r[0] in AXIS) and f.has("oob")
     and not (f.has("edge-pattern") or f.has("edge-decided")), _data, lambda r: (r[0], "kernel-crash")),
]


def close_pair(causes: list[Cause]) -> tuple[str, str] | None:
    """The two best causes (``unknown`` aside) when they are within CLOSE of each other."""
    ranked = [c for c in causes if c.key != "unknown"]
    if len(ranked) < 2 or ranked[0].score - ranked[1].score > CLOSE:
        return None
    return ranked[0].key, ranked[1].key


def decide(p: Prober, ev: Evidence, facts: Facts, causes: list[Cause]) -> Decision | None:
    """Run the first of ``ALWAYS`` that applies (whatever the scores) and has not run yet, else the first experiment
    that separates the two close causes and has not run yet; None when there is none (or no budget)."""
    if p.left() <= 0:
        return None
    done = {d.name for d in ev.decisions}
    ranked = [c.key for c in causes if c.key != "unknown"]
    for always, when, first, pair_of in ALWAYS:
        if always in done or not ranked or not when(ranked, facts):
            continue
        dec = first(p, ev, facts, pair_of(ranked))
        if dec is not None and dec.results:
            ev.decisions.append(dec)
            return dec
    pair = close_pair(causes)
    if pair is None:
        return None
    for name, applies, experiment in EXPERIMENTS:
        if name in done or not applies(set(pair)):
            continue
        dec = experiment(p, ev, facts, pair)
        if dec is not None and dec.results:
            ev.decisions.append(dec)
            return dec
    return None
