"""From the evidence to observations: what the matrix and the experiments showed, each as a typed record.

The rules (``_rules``) read only these observations, never the raw results, so a cause can say which observations
support it and which contradict it. Failures are weighed by severity first: a crash or a hang, then NaN/Inf or
never-written outputs, then gross errors, then errors at rounding level (a few times the tolerance). Where a
failure of a more severe kind exists, the rounding-level ones count neither as passing nor as failing in the size
patterns, and the smallest failing case is chosen among the most severe.
"""

from __future__ import annotations

import enum
import itertools
import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import torch

from .._findings import Finding
from .._results import CaseResult, ReasonKind, Status
from .._spec import Custom, Spec, Tensor
from ..cases import Case, shape_of, tensor_shapes
from ..compare import EDGE_BAND_MAX_SHARE, Comparison, ValueBand
from ._causes import Observation

if TYPE_CHECKING:  # the sweep collects the evidence and asks this module which failure is the most severe
    from ._sweep import Evidence


class Severity(enum.IntEnum):
    PASSED = -1
    RAISED = 0  # the kernel raised: no value to weigh (its own cause)
    ROUNDING = 1  # within a few times the tolerance, or beyond the same-precision baseline only
    GROSS = 2  # wrong by far more than rounding; a memory or race finding; a no-op; a broken property
    NONFINITE = 3  # NaN/Inf where the reference is finite (or the reverse), or elements never written
    CRASH = 4  # the process died or the case hung


RACES = ("race-WW", "race-RW")
#: Precisions below fp32: a failure only there is a value held in too low a precision.
LOW = ("fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp8")

#: An error within this many times its tolerance is rounding: a tolerance a little too tight, not a wrong formula
#: (fp32's table tolerance is already ~80 ulp; an error ten times past it is not rounding).
ROUNDING_EXCESS = 3.0


def _eps(dtype: str) -> float | None:
    t = getattr(torch, dtype, None)
    return float(torch.finfo(t).eps) if isinstance(t, torch.dtype) and t.is_floating_point else None


def excess(c: Any) -> float:
    """How many times its tolerance the worst element of a failed comparison is off (inf when unknown)."""
    tol = c.tolerance
    w = c.worst
    if w is None or tol.exact:
        return math.inf if c.mismatches else 0.0
    allowed = tol.atol + tol.rtol * abs(w.expected)
    return c.max_abs / allowed if allowed > 0 else math.inf


def rounding_level(c: Any) -> bool:
    """A failed comparison whose error is rounding: no NaN/Inf or unwritten element, and either within
    ``ROUNDING_EXCESS`` times the tolerance, within 16 ulp of max(1, |expected|) (a 1e-7 difference against an
    exact 0), or no element outside the table at all (the same-precision baseline rule failed)."""
    if c.nan_mismatches or c.inf_mismatches or c.unwritten:
        return False
    if not c.mismatches:
        return True
    eps = _eps(c.dtype)
    if eps is None:  # integers are compared exactly: any difference is a wrong value
        return False
    w = c.worst
    tiny = w is not None and c.max_abs <= 16 * eps * max(1.0, abs(w.expected))
    return tiny or excess(c) <= ROUNDING_EXCESS


def severity(r: CaseResult) -> Severity:
    if r.ok:
        return Severity.PASSED
    if r.status in (Status.CRASHED, Status.TIMEOUT):
        return Severity.CRASH
    if r.status is Status.ERROR:
        return Severity.RAISED
    failed = [c for c in r.comparisons if not c.passed]
    # NaN/Inf that the inputs carried in (the nonfinite pattern) are a wrong value like another, not an overflow
    produced = r.case.pattern != "nonfinite"
    if any(c.unwritten or (produced and (c.nan_mismatches or c.inf_mismatches)) for c in failed):
        return Severity.NONFINITE
    if r.findings or r.noop or r.mutated_inputs or any(not p.passed for p in r.properties):
        return Severity.GROSS
    if not failed or any(not rounding_level(c) for c in failed):
        return Severity.GROSS
    return Severity.ROUNDING


#: The wrong values of a coarse grid use at most this many bits above its step (a cancellation keeps only the bits
#: the large terms share), and the step is at least COARSE_STEP times the expected values' own ulp.
COARSE_BITS = 6
COARSE_STEP = 2.0 ** 10


def _lowbit(x: float) -> float:
    """The largest power of two dividing the fp32 value ``x`` (nonzero, finite)."""
    m, e = math.frexp(abs(x))
    mant = int(m * (1 << 24))
    tz = (mant & -mant).bit_length() - 1
    return math.ldexp(1.0, e - 24 + tz)


def _coarse(c: Comparison) -> float | None:
    """The grid step the wrong values shown (the first ones and the worst) sit on, where it is coarse: at most
    COARSE_BITS bits used above it, at least COARSE_STEP times the ulp of the largest expected value, and some
    expected value off it (a grid the reference shares, as integers on arange data, is the data's). 0.0 when every
    value shown is 0 (on any grid); None otherwise."""
    shown = [*c.first, *([c.worst] if c.worst is not None else [])]
    pairs = [(m.actual, m.expected) for m in shown if math.isfinite(m.actual) and math.isfinite(m.expected)]
    nonzero = [a for a, _ in pairs if a != 0]
    big = max((abs(e) for _, e in pairs), default=0.0)
    if pairs and not nonzero:
        return 0.0
    if len(pairs) < 3 or not nonzero or big == 0:
        return None
    q = min(_lowbit(a) for a in nonzero)
    # (integers where the reference has fractions are a cast or a count, not two large terms' ulp)
    if q >= 1 or max(abs(a) for a in nonzero) > q * 2.0 ** COARSE_BITS:
        return None
    if q < COARSE_STEP * math.ldexp(1.0, math.frexp(big)[1] - 24):
        return None
    if not any(abs(e / q - round(e / q)) > 0.05 for _, e in pairs):
        return None
    return q


def _sparse_finite(r: CaseResult) -> bool:
    """Failed at a handful of elements (at most 1% of each wrong output), every value finite and written, no
    finding."""
    failed = [c for c in r.comparisons if not c.passed]
    return r.status is Status.FAILED and not r.findings and bool(failed) and all(
        c.mismatches and c.mismatch_fraction <= 0.01 and not (c.unwritten or c.nan_mismatches or c.inf_mismatches)
        for c in failed)


def _nonfinite(r: CaseResult) -> bool:
    return any(c.nan_mismatches or c.inf_mismatches for c in r.comparisons)


def _name(ev: Evidence, i: int) -> str:
    return getattr(ev.spec.inputs[i], "name", None) or f"input {i}"


def _named(dims: tuple[str | int, ...]) -> set[str]:
    return {d for d in dims if isinstance(d, str)}


def shape_dims(t: object) -> tuple[str | int, ...] | None:
    """The declared shape of an input: a Tensor's dims, or those a Custom declares for the tensor it builds (a
    prior [I] drawn by the Spec's own function is a per-channel operand like any 1-D Tensor); None otherwise."""
    if isinstance(t, Tensor):
        return tuple(t.dims)
    return tuple(t.dims) if isinstance(t, Custom) and t.dims else None


def broadcast_along(spec: Spec, i: int) -> list[str]:
    """The dimensions input ``i`` is broadcast along: those of a tensor input of more dimensions that contains all
    of its own named dimensions (a bias [B, S] beside scores [B, T, S]: T); [] when it is not so contained."""
    dims = shape_dims(spec.inputs[i])
    if not dims or len(_named(dims)) != len(dims):
        return []
    own = _named(dims)
    for j, u in enumerate(spec.inputs):
        other = shape_dims(u)
        if j != i and other and len(other) > len(dims) and own < _named(other):
            return [d for d in other if isinstance(d, str) and d not in own]
    return []


#: Data patterns that make every input constant (along its rows at least): a value read at the wrong place reads the
#: same value, so a case of these shows only the reads that fall past the data, where a masked load gives its fill.
UNIFORM_PATTERNS = frozenset({"zeros", "ones", "constant"})

#: The jitter probe's ratio (the error's change over the error) from which the error is rounding's, and up to which
#: it is the formula's: smooth errors measured 4e-4 to 2e-2 on earlier rounds' planted constants, indices and axes;
#: rounding's 1.1 to 1.6 on their cancellations (``benchmarks/jitter_ratio.py``).
ROUNDING_NOISE = 0.3
SMOOTH_ERROR = 0.05
#: The share of a low-precision randn case's elements that may be NaN/Inf for exact coincidences of short mantissas
#: (a zero difference of two values) to explain them: beyond it, the values leave a range.
RARE_NONFINITE = 0.01


def vector_inputs(spec: Spec) -> list[int]:
    """The per-channel operands of a Spec that has an input of two or more dims: its 1-D tensor inputs (Tensors, or
    Customs that declare their shape), and the inputs broadcast along a dimension of another (a [B, S] key bias
    beside [B, T, S] scores); each one is read with some index of the output's, and reading it along the wrong one
    is the wrong-axis bug."""
    shaped = [(i, d) for i, t in enumerate(spec.inputs) if (d := shape_dims(t))]
    if not any(len(d) >= 2 for _, d in shaped):
        return []
    return [i for i, d in shaped if len(d) == 1 or broadcast_along(spec, i)]


def is_vector(ev: Evidence, i: int) -> bool:
    """Input i is a per-channel operand (``vector_inputs``)."""
    return i in vector_inputs(ev.spec)


def operand_words(spec: Spec, i: int) -> str:
    """How input ``i`` is a per-channel operand, in words."""
    dims = shape_dims(spec.inputs[i])
    if dims is not None and len(dims) == 1:
        return "1-D"
    return f"broadcast along {', '.join(broadcast_along(spec, i))}"


def _pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def one_element_past(f: Finding, row_bytes: int | None = None) -> bool:
    """Whether an out-of-bounds finding is one element just past the end (a bound off by one), not many lanes (a
    missing mask): the interpreter says how many lanes were out; memcheck, the farthest record's distance from the
    allocation (1 byte after it: the access starts at the end) or, without it, one record per case (a case that
    launches its kernel several times repeats the same record). ``row_bytes``: the last dimension's length in bytes
    of the 2-D (or more) tensor the allocation holds, where known: records that start at its end and reach no
    farther than one row are the row just past the end, which a row bound off by one reads whole (as the
    interpreter's rule below)."""
    if f.tool == "interpreter":
        return "lanes out of bounds" not in f.message or _one_row_past(f.message)
    distance = f.farthest if f.farthest is not None else f.distance
    if distance is not None:
        return 0 < (f.distance or distance) and distance <= max(1, f.size or 1, row_bytes or 0)
    return f.count <= max(1, len(f.cases))


def row_bytes_of(spec: Spec, case: Case, allocation_size: int | None) -> int | None:
    """The length in bytes of the last dimension of the one 2-D (or more) tensor of ``case`` whose size is
    ``allocation_size`` (compute-sanitizer runs with the caching allocators off, so an allocation is one tensor),
    for the element sizes kcheck stores; None where none or several rows fit (a padded strided view, outputs whose
    shapes are unknown)."""
    if not allocation_size:
        return None
    items = (1, 2, 4, 8)  # every storage kcheck uses, fp8 to fp64
    try:
        shapes = tensor_shapes(spec, dict(case.sizes), dict(case.params) or None)
    except Exception:  # outputs inferred from a reference that cannot run on meta tensors
        return None
    rows = {shape[-1] * item for shape in shapes if len(shape) >= 2 for item in items
            if math.prod(shape) * item == allocation_size}
    return rows.pop() if len(rows) == 1 else None


def _one_row_past(message: str) -> bool:
    """Whether the interpreter's message tells of lanes that start within one row past a 2-D (or more) tensor's end
    and are no more than one row of it: a row bound off by one (rows <= n) reads the row just past the end, whole (in
    rows padded apart, it starts past the padding the last row lacks); a missing row mask reads up to a block of
    rows past it."""
    lanes = re.search(r"; (\d+) of \d+ lanes out of bounds", message)
    shape = re.search(r"\(\d+ bytes, (\w+)\[([\d, ]+)\]\)", message)
    if lanes is None or shape is None:
        return False
    dims = [int(d) for d in shape.group(2).split(",")]
    bits = re.search(r"(\d+)$", shape.group(1))
    row = dims[-1] * (int(bits.group(1)) // 8 if bits else 1)
    past = 0 if "the access starting right at its end" in message else None
    if (start := re.search(r"the access starting (\d+) bytes past its end", message)) is not None:
        past = int(start.group(1))
    return len(dims) >= 2 and past is not None and past < row and int(lanes.group(1)) <= dims[-1]


class Facts:
    """The observations of one Evidence, and the figures the rules and the deciding experiments need."""

    def __init__(self, ev: Evidence) -> None:
        self.ev = ev
        self.observations: list[Observation] = []
        self.results = [r for r in self._all_results() if r.status is not Status.SKIPPED]
        self.worst = max((severity(r) for r in self.results if not empty(r)), default=Severity.PASSED)
        # the least severity a failure needs to count in the size and shape patterns: rounding-level failures only
        # count when nothing worse was seen
        self.floor = Severity.GROSS if self.worst >= Severity.GROSS else Severity.ROUNDING
        self.edge: list[tuple[str, int, list[int]]] = []
        self.blocks: list[tuple[str, int, int]] = []
        self.square: str | None = None
        self.mixed: set[int] = set()  # inputs whose raised slice moved the kernel's outputs outside it
        self._collect()

    # -- the results ------------------------------------------------------------------------------------------------
    def _all_results(self) -> list[CaseResult]:
        ev = self.ev
        out = list(ev.report.cases)
        out += [r for rows in ev.sizes.values() for _, _, r in rows]
        out += [r for _, r in ev.magnitudes] + [r for _, r in ev.configs] + [r for _, r in ev.precisions]
        out += [r for d in ev.decisions for r in d.results.values()]
        return out

    def counts(self, r: CaseResult) -> bool | None:
        """True: a failure that counts; False: a pass; None: neither (raised, a case of an empty dimension, or
        rounding beside gross ones)."""
        if empty(r):
            return None
        s = severity(r)
        if s is Severity.PASSED:
            return False
        if s is Severity.RAISED or s < self.floor:
            return None
        return True

    def add(self, kind: str, text: str) -> None:
        if not any(o.kind == kind and o.text == text for o in self.observations):
            self.observations.append(Observation(kind, text))

    def has(self, *kinds: str) -> bool:
        return any(o.kind in kinds for o in self.observations)

    def get(self, *kinds: str) -> list[Observation]:
        return [o for o in self.observations if o.kind in kinds]

    # -- the size patterns ------------------------------------------------------------------------------------------
    def size_pattern(self) -> dict[str, tuple[list[int], list[int]]]:
        """Per swept dimension: (passing sizes, failing sizes); a size that raised, or that failed at rounding level
        where gross failures exist, is neither."""
        out = {}
        for d, rows in self._size_rows().items():
            ok = [v for v, r in rows if self.counts(r) is False]
            bad = [v for v, r in rows if self.counts(r)]
            out[d] = (sorted(set(ok)), sorted(set(bad) - set(ok)))
        return out

    def _size_rows(self) -> dict[str, list[tuple[int, CaseResult]]]:
        rows: dict[str, list[tuple[int, CaseResult]]] = {d: [(v, r) for v, _, r in rs] for d, rs in
                                                         self.ev.sizes.items()}
        for dec in self.ev.decisions:  # the one-block-vs-two experiment varies one dimension as the sweep does
            if dec.dim is not None:
                rows.setdefault(dec.dim, []).extend((r.case.sizes[dec.dim], r) for r in dec.results.values())
        return rows

    def _edge_dims(self) -> list[tuple[str, int, list[int]]]:
        """Dimensions where every failing size (two at least) is a non-multiple of some block B >= 16 and every
        multiple of B passes: the signature of an edge or tail bug. (dim, B, failing sizes). Not when a ragged size
        (a non-multiple of B) larger than every failing one passes: a dropped or unguarded tail fails at every
        ragged size, while failures at the smallest sizes alone (1 and 2 elements of a norm or a count) are about
        how few elements there are."""
        out = []
        for d, (ok, bad) in self.size_pattern().items():
            if len(bad) < 2:  # one odd size that fails is not a pattern
                continue
            for b in (16, 32, 64, 128, 256, 512, 1024):  # the smallest block that explains the pattern
                mults = [v for v in ok + bad if v % b == 0]
                if mults and all(v % b for v in bad) and all(v in ok for v in mults):
                    if not any(v % b and v > max(bad) for v in ok):
                        out.append((d, b, bad))
                    break
        return out

    def _nonfinite_below_one_block(self) -> str:
        """Along an edge dimension (block B), the size sweep's NaN/Inf only at ragged sizes below B, and finite wrong
        values at ragged sizes past B: what a loop or grid over whole blocks gives (nothing summed below one block,
        the tail dropped past it). "" when not so."""
        for d, b, _ in self.edge:
            rows = [(v, r) for v, ok, r in self.ev.sizes.get(d, []) if not ok and v % b]
            nf = [v for v, r in rows if _nonfinite(r)]
            past = [v for v, r in rows if v > b and not _nonfinite(r) and r.status is Status.FAILED
                    and all(c.unwritten == 0 for c in r.comparisons)]
            if nf and max(nf) < b and past:
                return (f"{d}: NaN/Inf at every ragged size below one block of {b} that fails ({nf[:4]}), finite "
                        f"wrong values at ragged sizes past it ({past[:4]}), multiples of {b} right: a loop or grid "
                        "over whole blocks, which sums nothing below one block (0 / 0) and drops the tail past it")
        return ""

    def _block_dims(self) -> list[tuple[str, int, int]]:
        """Dimensions that pass up to a size T and fail with wrong values at every size above it, multiples of
        blocks included: "wrong only with several blocks". (dim, largest passing, smallest failing). A crash is
        not a lost partial result: only value failures count here."""
        out = []
        for d, rows in self._size_rows().items():
            ok = sorted({v for v, r in rows if self.counts(r) is False})
            bad_rows = [(v, r) for v, r in rows if self.counts(r)]
            bad = sorted({v for v, _ in bad_rows} - set(ok))
            if not bad or not ok:
                continue
            t = max(ok)
            values = [r for v, r in bad_rows if v == min(bad)]
            first = values[0]
            # lost blocks lose whole partial results: a large error at once, not a rounding error that grows with n
            # (the first size past the block may lose little: a second block of two rows beside one of 64)
            gross = first.status is Status.FAILED and severity(first) >= Severity.GROSS and any(
                bool(r.findings) or any(c.mismatches and c.rel_l2 > 1e-2 for c in r.comparisons if not c.passed)
                for _, r in bad_rows)
            if gross and all(v > t for v in bad) and min(bad) > 2 and any(_pow2(v) or v % 32 == 0 for v in bad) \
                    and min(bad) <= 4 * t + 1 and all(r.status is Status.FAILED for _, r in bad_rows):
                out.append((d, t, min(bad)))
        return out

    def _param_threshold(self, d: str, t: int, f: int) -> tuple[str, str] | None:
        """Where the size at which ``d`` starts failing is the value of one of the case's parameters (a window, a
        band, a length the operation takes), not a block's: right up to ``t``, wrong from ``f``, and the parameter
        ``t <= p < f``. Stronger when a case with a smaller value of that parameter fails at a size of ``d`` the
        sweep passes: the threshold moves with the parameter (the second text; empty when no case says so). None
        when no parameter lies there."""
        rows = self._size_rows().get(d, [])
        if not rows:
            return None
        base = rows[0][1].case.params_dict
        for name, p in base.items():
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not t <= p < f:
                continue
            if _TILING.search(name):  # a tile size declared as a mode rather than a config: its threshold is a block's
                continue
            moved = [r for r in self.results if self.counts(r) and d in r.case.sizes and r.case.sizes[d] <= t
                     and isinstance(q := r.case.params_dict.get(name), (int, float)) and not isinstance(q, bool)
                     and q < p and r.case.sizes[d] > q]
            text = (f"{d}: the failures start past {d} = {t}, which is the case's {name} = {p:g}, a parameter of the "
                    "operation rather than a block")
            self.param_thresholds.append((d, t, name, p))
            more = ""
            if moved:
                r = moved[0]
                more = (f"with {name} = {r.case.params_dict[name]:g} a case fails at {d} = {r.case.sizes[d]} "
                        f"({r.case.id}), below where the sweep passes at {name} = {p:g}: the threshold moves with "
                        f"{name}")
            return text, more
        return None

    def _square_only(self) -> str | None:
        """Two dims such that every randn case where they are equal passes and (nearly) every case where they differ
        fails: the failures need two dims to differ (a swapped stride, an index taken modulo the wrong size)."""
        ev = self.ev
        names = list(ev.spec.dim_names())
        rows = []
        for r in self.results:
            c = r.case
            if c.pattern != "randn" or c.layout != "contiguous" or c.axis == "large":
                continue
            verdict = self.counts(r)
            if verdict is not None:
                rows.append((c.sizes, verdict))
        shapes = lambda ss: ", ".join("x".join(str(s[d]) for d in names) for s in ss[:3])  # noqa: E731
        for a, b in itertools.combinations(names, 2):
            same = [(s, bad) for s, bad in rows if a in s and b in s and s[a] == s[b] and s[a] > 1]
            differ = [(s, bad) for s, bad in rows if a in s and b in s and s[a] != s[b]]
            bad = [s for s, v in differ if v]
            # one square size passing (129x129, in two precisions) is a single point: a kernel whose failures
            # depend on the data (lost counts) passes some shapes by chance
            if len({s[a] for s, _ in same}) < 2 or any(v for _, v in same) or len(bad) < 2 \
                    or len(bad) < 0.8 * len(differ):
                continue
            every = "every square shape" if len(names) == 2 else f"every shape where {a} == {b}"
            return (f"passes on {every} tried ({len(same)}: {shapes([s for s, _ in same])}), fails on {len(bad)} of "
                    f"{len(differ)} where {a} != {b} ({shapes(bad)}): the failures need two dims to differ")
        # a tensor with a fixed dimension beside a named one ([32 buckets, H]): square where H equals the constant
        for t in [*ev.spec.inputs, *(ev.spec.outputs or ())]:
            dims = getattr(t, "dims", None) or ()
            fixed = [d for d in dims if isinstance(d, int) and d > 1]
            for a in [d for d in dims if isinstance(d, str)]:
                for k in fixed:
                    same = [(s, bad) for s, bad in rows if s.get(a) == k]
                    differ = [(s, bad) for s, bad in rows if a in s and s[a] != k]
                    bad = [s for s, v in differ if v]
                    if not same or any(v for _, v in same) or len(bad) < 2 or len(bad) < 0.8 * len(differ):
                        continue
                    # a smaller size passing too: k lies among the small sizes that pass (two points splatted
                    # into an image collide rarely), not at the one size where the tensor is square
                    if any(not v for s, v in differ if s[a] < k):
                        continue
                    name = getattr(t, "name", None) or "a tensor"
                    shape = "[" + ", ".join(str(d) for d in dims) + "]"
                    return (f"passes wherever {a} == {k} ({len(same)}: {shapes([s for s, _ in same])}), fails on "
                            f"{len(bad)} of {len(differ)} where {a} != {k} ({shapes(bad)}): {name} {shape} is "
                            f"right only when square, the failures need its two dims to differ")
        return None

    # -- the observations -------------------------------------------------------------------------------------------
    def _collect(self) -> None:
        ev = self.ev
        valued = [r for r in ev.failing if not empty(r)]  # the failures the value patterns are read from
        self._noop_and_large(valued)
        self._crashes(ev.failing)
        self._sizes()
        self._memory(valued)
        self._values(valued)
        self._structure()
        self._layout()
        self._systematic()
        self._scaled()
        self._value_band()
        self._reduces()
        self._repeats()
        self._conditioned()
        self._jitter()
        self._coarse_grid()
        self._severity(ev.failing)
        for dec in ev.decisions:
            for o in dec.observations:
                self.add(o.kind, o.text)

    def _noop_and_large(self, failing: list[CaseResult]) -> None:
        ev = self.ev
        valued = [r for r in failing if r.status is Status.FAILED and self.counts(r)]
        # a kernel that does not compute: most of its failures are outputs it did not compute; one tiny case whose
        # output rounds to exactly zero among many computed ones is not that. Nor is a case whose shape, precision,
        # config and layout pass on randn data: the kernel computes there, and its output on this data rounds to
        # zeros (log(1 + x) of a tiny x) or to an input (x + a term below its ulp). (A grid that launches nothing
        # below one block fails randn data at those sizes too.)
        def mode(c: Case) -> tuple[str, str, str]:
            return c.precision, repr((c.dims, c.config, c.params)), c.layout

        # (passed and compared: a case skipped for the device, or untrusted, computed nothing that shows; or failed
        # with values it computed, every element written and not a no-op's output: a randn case off by rounding
        # computes as surely as one that passes, and tiny data whose output rounds to zeros there is no no-op)
        computes = {mode(r.case) for r in self.results if r.compared and r.case.pattern == "randn" and not empty(r)
                    and (r.status is Status.PASSED
                         or (r.status is Status.FAILED and not r.noop and not _zeros_shown(r)
                             and all(c.unwritten == 0 for c in r.comparisons)))}
        noops = [r for r in failing if r.noop]
        hits = [r for r in noops if mode(r.case) not in computes]
        # nor one whose nominal data gives zeros and, scaled, computed values (finite, every element written):
        # its output follows the data's size, as 1 - cos(x) does, exactly 0 in fp32 for |x| < 2**-12 and not for a
        # larger x; a store left out, or a factor that is 0, gives a no-op's output at every scale
        base = ev.base
        scaled = [(k, r) for k, r in ev.magnitudes if k > 1 and r.status in (Status.PASSED, Status.FAILED)
                  and r.compared and not r.noop and not _zeros_shown(r) and not _nonfinite(r)
                  and all(c.unwritten == 0 for c in r.comparisons)]
        # (zeros: an output that is an input scales with it, and a probe's scaled data is no guard's input)
        base_noop = [r for r in failing if base is not None and mode(r.case) == mode(base)
                     and ((r.noop or "").endswith("exactly zeros") or _zeros_shown(r))
                     and r.case.pattern == "randn" and r.case.seed == base.seed]
        if base_noop and scaled:
            k, r = scaled[0]
            what = base_noop[0].noop or "the first wrong values are exactly 0"
            self.add("noop-follows-scale", f"{what} on the nominal randn data ({base_noop[0].case.id}); the same "
                     f"data x {k:g} {'passes' if r.ok else 'gives computed values'}: the output follows the data's "
                     "size (a result that rounds to nothing, as 1 - cos(x) of a small x), not a store left out")
            hits = []
        if hits and len(hits) >= 0.5 * len(valued):
            self.add("noop", f"{len(hits)} case(s): {hits[0].noop} ({hits[0].case.id})")
        elif noops:
            self.add("noop-some", f"{len(noops)} of {len(valued)} failing case(s) are a no-op's output: "
                     f"{noops[0].noop} ({noops[0].case.id})" + ("" if hits else "; the same shape, precision and "
                                                                 "config pass on randn data: the kernel computes"))
        never = [(r, c) for r in failing for c in r.comparisons if c.numel and c.unwritten == c.numel]
        if never and len(never) == len([r for r in failing if r.status is Status.FAILED]):
            r, c = never[0]
            self.add("never-written", f"{c.output} is never written at all in {len(never)} case(s) ({r.case.id}): "
                     "every element still holds the poison")
        large = [r for r in failing if r.case.axis == "large"]
        if large and len(large) == len(failing):
            self.add("large-only", f"only the past-2**31 case(s) fail: {large[0].case.id}")
        for f in [f for f in ev.lint if "int32" in f.kind][:2]:
            self.add("static-int32", f"static check: {f.file}:{f.line}: {f.message[:120]}")
        for f in [f for f in ev.findings() if f.kind == "divergent-barrier"][:1]:
            self.add("divergent-barrier", f"{f.tool}: {f.message[:150]} at {f.file}:{f.line}")
        for f in [f for f in ev.lint if f.kind == "divergent-barrier"][:1]:
            self.add("static-divergent-barrier", f"static check: {f.message[:150]} at {f.file}:{f.line}")
        for f in [f for f in ev.lint if f.kind == "triton-atomic-readback"][:1]:
            self.add("static-atomic-readback", f"static check: {f.file}:{f.line}: {f.message[:160]}")

    def _crashes(self, failing: list[CaseResult]) -> None:
        crashed = [r for r in failing if r.status in (Status.CRASHED, Status.TIMEOUT)]
        if crashed:
            first = " ".join(crashed[0].reasons)[:200]
            kinds = sorted({r.status.value for r in crashed})
            self.add("crash", f"{len(crashed)} of {len(failing)} failing case(s) {' or '.join(kinds)}; first "
                     f"({crashed[0].case.id}): {first}")
        # crashes on some data (large values, inf) where randn data of the same sizes runs: an address taken from
        # the data and not clamped; an overrun past an edge crashes by the size, whatever the data
        died = [r for r in crashed if r.status is Status.CRASHED]
        ran = {(r.case.dims, r.case.precision, r.case.layout) for r in self.results
               if r.case.pattern == "randn" and r.status in (Status.PASSED, Status.FAILED)}
        twins = [r for r in died if (r.case.dims, r.case.precision, r.case.layout) in ran]
        if died and twins and all(r.case.pattern != "randn" for r in died):
            self.add("crash-follows-data", f"the crashes are on {'/'.join(sorted({r.case.pattern for r in died}))} "
                     f"data only ({twins[0].case.id}); randn data of the same sizes runs: an address taken from the "
                     "data")
        texts = [" ".join(r.reasons) for r in failing if r.status in (Status.CRASHED, Status.ERROR)]
        for t in texts:
            if "illegal memory access" in t or "out of bounds" in t.lower() or "illegal address" in t:
                self.add("crash-illegal-address", t[:160])
                break
        mis = texts + [f.message for f in self.ev.findings() if f.kind == "misaligned"]
        for t in mis:
            if "misaligned" in t.lower():
                self.add("misaligned", t[:160])
                break
        raised = [r for r in failing if r.status is Status.ERROR and r.reasons_of(ReasonKind.KERNEL_RAISED)]
        if raised:
            first = raised[0].reasons_of(ReasonKind.KERNEL_RAISED)[0]
            self.add("raises", f"{len(raised)} of {len(failing)} failing case(s) raised; first ({raised[0].case.id}): "
                     f"{first[:200]}")
        # the Spec's own reference or input builder raised in every failing case: the kernel's output was never
        # judged, and whatever else the probes see is the same exception again
        spec_raised = [r for r in failing if spec_raise(r)]
        if spec_raised and len(spec_raised) == len(failing):
            r = spec_raised[0]
            self.add("spec-raises", f"every failing case ({len(failing)}) is the Spec's own reference or inputs "
                     f"raising, the kernel's output never judged; first ({r.case.id}): {spec_raise(r)[:200]}")

    def _sizes(self) -> None:
        self.edge = self._edge_dims()
        for d, b, bad in self.edge:
            self.add("edge-pattern", f"{d}: fails at {bad[:5]}, passes at every multiple of {b} tried")
        self.blocks = []
        self.param_thresholds: list[tuple[str, int, str, float]] = []  # (dim, largest passing size, mode, value)
        for d, t, f in self._block_dims():
            said = self._param_threshold(d, t, f)
            if said:
                self.add("param-threshold", said[0])
            if said and said[1]:  # the threshold is the parameter's: no block is involved
                self.add("param-threshold-moves", said[1])
                continue
            self.blocks.append((d, t, f))
            exact = " (exactly one block)" if _pow2(t) and t >= 16 else ""
            self.add("past-one-block", f"{d}: right up to {t}{exact}, wrong from {f} on, multiples of blocks "
                     "included: wrong only with several blocks")
        self.square = self._square_only()
        if self.square:
            self.add("square-only", self.square)
        rows = [r for rows in self.ev.sizes.values() for _, _, r in rows]
        # wrong values at every size tried (a crash or an exception is not a wrong value)
        if rows and all(self.counts(r) and r.status is Status.FAILED for r in rows):
            self.add("everywhere-wrong", f"wrong at every size tried ({len(rows)} sizes)")

    def _row_bytes(self, f: Finding) -> int | None:
        """The row of the tensor a memcheck record's allocation holds, in the first of its cases that ran here."""
        if f.tool == "interpreter":
            return None
        cases = {r.case.id: r.case for r in self.results}
        case = next((cases[c] for c in f.cases if c in cases), None)
        return None if case is None else row_bytes_of(self.ev.spec, case, f.allocation_size)

    def _memory(self, failing: list[CaseResult]) -> None:
        ev = self.ev
        oob = [f for f in ev.findings() if f.kind == "out-of-bounds"]
        for f in oob[:2]:
            self.add("oob", f"{f.tool}: {f.message[:220]} at {f.file}:{f.line}")
        # (the sweep's sizes too: a missing mask on a power-of-two tile reads as many lanes past the end as the tile
        # overhangs, one lane at 7 elements in a tile of 8 and three at 5; a bound off by one reads one at each)
        swept = [f for r in self.results for f in r.findings if f.kind == "out-of-bounds" and f.tool == "interpreter"]
        if oob and all(one_element_past(f, self._row_bytes(f)) for f in oob + swept):
            self.add("oob-single-lane", "each out-of-bounds access is a single lane, or one row of a 2-D tensor, "
                     "just past the end: a bound off by one")
        elif oob:
            self.add("oob-wide", f"out-of-bounds accesses of many lanes at once ({oob[0].message[:120]})")
        # a missing or off-by-one mask lets the lanes past an edge through, never the first element of the first
        # program's tile: that element lying past the tensor's end (every dimension of the case 8 or more, so no
        # neighbour read of a tiny tensor explains it) is an address formula wrong at its origin
        origin = [(r.case, f) for r in self.results if r.case.sizes and min(r.case.sizes.values()) >= 8
                  for f in r.findings if f.kind == "out-of-bounds" and f.tool == "interpreter"
                  and f.block == (0, 0, 0) and f.lane is not None and not any(f.lane)
                  and (f.distance or 0) > 0 and (f.allocation_size or 0) > 0]
        if origin:
            case, f = origin[0]
            self.add("oob-at-origin", f"the first element of program (0,0,0)'s tile is read or written past the "
                     f"tensor's end ({case.id}: {f.message[:140]}): a missing mask lets through only lanes past an "
                     "edge; the address formula is wrong at its origin")
        # a missing mask fails by what it reads or writes past an edge: on a contiguous tensor the last tile's
        # overhang leaves the tensor, so each failing case has an access out of bounds. Wrong values at a size where
        # the interpreter saw every access in bounds, beside sizes whose accesses leave the tensors, say the index is
        # wrong at every size and only leaves the tensors where another dimension is longer
        checked = [r for r in self.results if ev.interpreted or r.case.interpreted]
        clean_wrong = [r for r in checked if r.status is Status.FAILED and r.case.layout == "contiguous"
                       and r.case.pattern == "randn" and not _nonfinite(r) and severity(r) >= Severity.GROSS
                       and not any(f.kind == "out-of-bounds" for f in r.findings)]
        if clean_wrong and any(any(f.kind == "out-of-bounds" for f in r.findings) for r in checked):
            r = clean_wrong[0]
            self.add("wrong-in-bounds", f"wrong values with every access in bounds ({r.case.id}), beside sizes "
                     "whose accesses leave the tensors: the reads past the end are a wrong index showing where "
                     "another dimension is longer, not a missing mask")
        # the interpreter's findings come with their case; compute-sanitizer's with the one case it ran on
        vec = [(r.case, f) for r in self.results for f in r.findings
               if f.kind == "out-of-bounds" and _on_vector(ev, r.case.sizes, f)]
        if ev.sanitized is not None:
            vec += [(ev.sanitized, f) for f in ev.sanitizer
                    if f.kind == "out-of-bounds" and _on_vector(ev, ev.sanitized.sizes, f)]
        # the interpreter's reads that reach no farther than one access's width past the operand's end (the last
        # tile's overhang, the first bad lane right at the end) are its own dimension's edge, not a longer one's:
        # an operand indexed along a longer dimension has programs wholly past its end
        far = [(case, f) for case, f in vec if not _overhang_only(f)]
        if far:
            case, f = far[0]
            self.add("oob-vector", f"the 1-D operand is read past its end ({case.id}: {f.message[:140]}): it is "
                     "indexed along a longer dimension than its own")
        elif vec:
            case, f = vec[0]
            self.add("vector-edge", f"the 1-D operand is read past its end by the last tile's overhang only "
                     f"({case.id}: {f.message[:140]}): its load lacks the bounds mask")
        racy = [r for r in self.results if any(f.kind in RACES for f in r.findings)]
        races = [f for f in ev.findings() if f.kind in RACES] + [f for r in racy for f in r.findings
                                                                 if f.kind in RACES]
        if races:
            self.add("race-between-programs", f"{races[0].tool}: {races[0].message[:220]}")
            ww = [f for f in races if f.kind == "race-WW"]
            if ww:
                self.add("race-write-write", f"{len(ww)} write-write race finding(s): programs store to the same "
                         f"element ({ww[0].message[:160]})")
            else:
                self.add("race-read-only", f"{len(races)} race finding(s), all read-write: a program reads what "
                         "another writes, with no ordering between them; no two programs write the same element")
            right = [r for r in racy if values_right(r)]
            if right:
                self.add("race-right-values", f"{len(right)} case(s) with right values whose programs race "
                         f"({right[0].case.id}): the result depends on the order the programs run in")
            # lanes past a row's end that spill into the next row race with that row's program: an edge bug; a race
            # at a size the edge pattern does not explain (a whole number of blocks) is not
            beyond = [r for r in racy if not any(d in r.case.sizes and r.case.sizes[d] % b
                                                 for d, b, _ in self.edge)]
            if beyond or not self.edge:
                where = f" ({beyond[0].case.id})" if beyond else ""
                self.add("race-beyond-edge", f"programs race at sizes no ragged edge explains{where}")
        if self.edge and ev.interpreted and not oob:
            self.add("edge-accesses-clean", "the interpreter checked every load and store at the failing sizes and "
                     "none went out of bounds: the tail is never visited, no guard is missing")
        clean = ev.memcheck_clean
        if self.edge and clean is not None and not oob and clean.case.layout == "contiguous" and any(
                clean.case.sizes.get(d, 0) % b for d, b, _ in self.edge):
            # a GPU's equivalent: memcheck tracks each allocation's exact size (kcheck turns torch's caching off);
            # not on a strided case, whose rows are padded inside one allocation: a read past a row's end stays in
            # it, unseen (an H200 called a missing load mask a dropped tail so)
            self.add("edge-accesses-clean", f"compute-sanitizer memcheck checked every access of {clean.case.id}, a "
                     "failing size past the last full block, and none went out of bounds: the tail is never "
                     "visited, no guard is missing")
        # NaN/Inf the kernel computed (no poison left) on randn data, only at ragged sizes: the lanes a mask turns
        # off still compute, on the mask's `other` value (0 / 0, log 0), and the tail's sum takes them in
        edge_nf = [r for r in self.results if r.case.pattern == "randn" and not r.ok and _nonfinite(r)
                   and all(c.unwritten == 0 for c in r.comparisons) and r.case.axis != "debug"]
        # ... unless the NaN/Inf keeps to sizes below one block, and ragged sizes past it are finite and wrong: a
        # loop over whole blocks sums nothing below one block (0 / 0) and drops the tail past it
        below = self._nonfinite_below_one_block()
        if below:
            self.add("nonfinite-below-one-block", below)
        elif self.edge and edge_nf and all(any(r.case.sizes.get(d, 0) % b for d, b, _ in self.edge)
                                           for r in edge_nf):
            d, b, _ = self.edge[0]
            self.add("nonfinite-edge", f"NaN/Inf computed (every element written) on randn data only at sizes that "
                     f"are not multiples of the block ({edge_nf[0].case.id}; {d} passes at multiples of {b}): the "
                     "lanes the mask turns off still compute, on the value the masked load gives them")
        shared = [f for f in ev.findings() if f.kind.startswith("race") and f.tool == "racecheck"]
        if shared:
            f = shared[0]
            self.add("shared-race", f"racecheck: {f.message[:150]} at {f.file}:{f.line}")
        partly = [(r, c) for r in self.results if not r.ok for c in r.comparisons
                  if not c.passed and 0 < c.unwritten < c.numel]
        if partly:
            r, c = partly[0]
            self.add("partly-written", f"{c.output}: {c.unwritten} of {c.numel} elements never written in "
                     f"{r.case.id}, the rest written")
        unwritten = [c for r in failing for c in r.comparisons if not c.passed and c.unwritten]
        if unwritten:
            self.add("unwritten", f"{unwritten[0].output}: {unwritten[0].unwritten} elements never written (still "
                     f"poisoned); {unwritten[0].location.text}")
            tails = [c for c in unwritten if c.location.kind.startswith("tail")]
            if tails:
                self.add("unwritten-tail", f"{tails[0].output}: the unwritten elements are the "
                         f"{tails[0].location.text}")
        # every wrong element unwritten, and they fill the same slices of a dimension whose size stays the same at
        # every shape (one colour plane of three): a store missing for that slice, not a bound or an index, which
        # move with the sizes
        filled = [(r, c) for r in failing if r.case.axis != "large" for c in r.comparisons
                  if not c.passed and c.unwritten] if unwritten else []
        sliced = [(r, c) for r, c in filled if c.unwritten == c.mismatches < c.numel and c.confined is not None
                  and c.confined.density >= 0.999]
        kinds = {(c.output, c.confined.dim, c.confined.size, c.confined.wrong) for _, c in sliced
                 if c.confined is not None}
        shapes = len({tuple(c.shape) for _, c in sliced})
        if len(sliced) >= 3 and len(sliced) >= 0.8 * len(filled) and len(kinds) == 1 and shapes >= 3:
            output, dim, size, k = next(iter(kinds))
            r, c = sliced[0]
            self.add("unwritten-slice", f"{output}: in {len(sliced)} failing cases of {shapes} shapes the "
                     f"never-written elements fill the same {k} of the {size} slices of its dimension {dim}, and only "
                     f"those (e.g. {r.case.id}: {c.unwritten} of {c.numel} elements): the store of that slice is "
                     "missing, not a bound or an index, which would move with the sizes")
        # every wrong element unwritten, and they fill every slice of a dimension but one, at two sizes of it or
        # more: the kernel writes one slice (its first row, before a loop) and never stores the others (the loop's
        # store left out), not an index or a bound, which write as many elements as they compute
        lone = [(r, c) for r, c in filled if c.unwritten == c.mismatches < c.numel and c.confined is not None
                and c.confined.size >= 3 and c.confined.wrong == c.confined.size - 1 and c.confined.density >= 0.999]
        dims = {c.confined.dim for _, c in lone if c.confined is not None}
        sizes = {c.confined.size for _, c in lone if c.confined is not None}
        if len(lone) >= 2 and len(lone) >= 0.8 * len(filled) and len(dims) == 1 and len(sizes) >= 2:
            r, c = lone[0]
            self.add("written-one-slice", f"{c.output}: in {len(lone)} failing cases of {len(sizes)} sizes of its "
                     f"dimension {next(iter(dims))}, one slice of it alone is written and the other slices are never "
                     f"written (e.g. {r.case.id}: {c.unwritten} of {c.numel} elements unwritten): the store of the "
                     "rest (inside a loop along that dimension) is missing")
        # every wrong element unwritten, and they are not a tail: whole tiles inside the output that no program
        # covered (programs mapped to the wrong tiles, some twice), not a grid that stops short of the end
        inside = [(r, c) for r in self.results if not r.ok for c in r.comparisons
                  if not c.passed and 0 < c.unwritten < c.numel and c.unwritten == c.mismatches
                  and not c.location.kind.startswith("tail")]
        if inside:
            r, c = inside[0]
            self.add("unwritten-interior", f"{c.output}: {c.unwritten} of {c.numel} elements never written in "
                     f"{r.case.id}, {c.location.text}: not a tail past the last block, but parts inside the output "
                     "no program wrote")
        tail = [(r, c) for r in failing if self.counts(r) for c in r.comparisons
                if not c.passed and c.location.kind.startswith("tail")]
        # errors past the last block only on constant data, while other data is wrong elsewhere too: what a value
        # read at the wrong place leaves where constant data hides it, except past the data, where the masked load
        # gives its fill (a per-cell gain broadcast along the events, read with the cell mask), not a missing guard
        spread = [(r, c) for r in failing if self.counts(r) and r.case.pattern not in UNIFORM_PATTERNS
                  for c in r.comparisons if not c.passed and not c.location.kind.startswith("tail")]
        if tail and spread and all(r.case.pattern in UNIFORM_PATTERNS for r, _ in tail):
            (r, c), (r2, c2) = tail[0], spread[0]
            self.add("tail-on-uniform-only", f"{c.output}: the errors lie past the last full block only on constant "
                     f"data ({r.case.id}: {c.location.text}); on other data they do not ({r2.case.id}: "
                     f"{c2.location.text}): constant data hides a value read at the wrong place, except where the "
                     "read falls past the data and the masked load gives its fill value")
        elif tail:
            self.add("tail-errors", f"{tail[0][1].output}: {tail[0][1].location.text}")
        counted = [r for r in failing if self.counts(r) and r.status is Status.FAILED]
        last = [r for r in counted if _last_only(r)]
        if len(last) >= 2 and len(last) >= 0.8 * len(counted):
            c = next(c for c in last[0].comparisons if not c.passed)
            self.add("last-element-wrong", f"in {len(last)} of {len(counted)} failing cases the only wrong values are "
                     f"the last element of the axis, written but wrong ({last[0].case.id}: {c.location.text})")
        band = self._edge_band(counted)
        if band:
            self.add("edge-band", band)

    def _edge_band(self, counted: list[CaseResult]) -> str | None:
        """Most failing cases wrong only in a band of the same width at the same end of one dimension of an output,
        at two sizes of that dimension or more: the first W outputs of a moving window whose mask drops x[0], a
        stencil's last row. A boundary handled one off, which a bound or a window's test decides; an index, an axis
        or a constant would be wrong throughout, and a dropped tail's width moves with the size modulo a block."""
        seen: dict[tuple[str, int, str, int], list[tuple[CaseResult, Comparison]]] = {}
        eligible: dict[tuple[str, int, str, int], int] = {}
        wrong = [(r, c) for r in counted if r.case.axis != "large" for c in r.comparisons
                 if not c.passed and not c.unwritten and not c.nan_mismatches and not c.inf_mismatches]
        for r, c in wrong:
            b = c.edge_band
            if b is not None:
                seen.setdefault((c.output, b.dim, b.end, b.width), []).append((r, c))
        for key in seen:
            output, dim, _, width = key
            eligible[key] = sum(1 for _, c in wrong if c.output == output and len(c.shape) > dim
                                and c.shape[dim] * EDGE_BAND_MAX_SHARE >= width)
        for key, rows in sorted(seen.items(), key=lambda kv: -len(kv[1])):
            output, dim, end, width = key
            sizes = sorted({c.shape[dim] for _, c in rows})
            if len(rows) < 3 or len(sizes) < 2 or len(rows) < 0.8 * eligible[key]:
                continue
            r, c = rows[0]
            params = [f"{k} = {v}" for k, v in r.case.params_dict.items()
                      if isinstance(v, int) and not isinstance(v, bool) and v == width]
            which = "first" if end == "start" else "last"
            return (f"{output}: in {len(rows)} of {eligible[key]} failing cases the only wrong values are the {which} "
                    f"{width} along its dimension {dim}, at sizes {', '.join(map(str, sizes[:6]))} of it (e.g. "
                    f"{r.case.id}: {c.location.text})" + (f"; {width} is the case's {params[0]}" if params else "")
                    + ": the boundary is handled one off, by a bound or a window's test, at every size")
        return None

    def _values(self, failing: list[CaseResult]) -> None:
        ev = self.ev
        gross_randn = [r for r in failing if r.case.pattern == "randn" and r.case.axis in ("size", "seed", "dtype")
                       and self.counts(r)]
        # a formula that cancels loses its digits only where the data's spread is small next to its mean: on randn
        # data a rare element (a window of nearly equal values). A minority of the randn cases, each wrong at a
        # handful of finite elements, is that, not another bug's gross error on ordinary data
        randn_cases = [r for r in self.results if r.case.pattern == "randn" and r.case.axis != "large"
                       and not empty(r) and r.status in (Status.PASSED, Status.FAILED)]
        randn_failing = [r for r in failing if r.case.pattern == "randn" and self.counts(r)]
        rare = [r for r in randn_failing if _sparse_finite(r)]
        rare_ids = {r.case.id for r in rare} if rare and len(rare) == len(randn_failing) and \
            3 * len(rare) <= len(randn_cases) else set()
        if rare_ids:
            c = next(c for c in rare[0].comparisons if not c.passed)
            self.add("sparse-randn", f"{len(rare)} of {len(randn_cases)} randn cases fail, each at a handful of "
                     f"elements ({rare[0].case.id}: {c.mismatches} of {c.numel}): data-dependent, where the values "
                     "happen to be nearly equal")
            gross_randn = []
        # (in a randn tensor past 2**26 elements, values within 1e-7 of zero or beyond 5 sigma occur by chance:
        # NaN/Inf there says nothing about ordinary data)
        # (and a mean over an empty dimension is 0 / 0 whatever the data: it says nothing about randn values)
        nf_data = [r for r in self.results if r.case.pattern == "randn" and not r.ok and _nonfinite(r)
                   and r.case.axis != "debug" and _elements(r) <= HUGE_RANDN and not empty(r)]
        # NaN/Inf on ordinary data: nor does a draw that holds an exact 0 say that, as a CUDA generator's randn does
        # at about one element in 8 million (the case's data has a zero denominator; data that holds zeros by design, as
        # sparse histograms do, stays in nf_data for the scale probes below)
        nf_randn = [r for r in nf_data if not r.zero_inputs]
        # on randn data a sum, count or norm is zero only by chance, and only over an axis of one or two elements
        # (a dimension that is at most 2 in every such failure, and longer in a randn case that passes)
        passing_randn = [r for r in self.results if r.ok and r.case.pattern == "randn" and r.case.axis != "debug"]
        short = [d for d in ev.spec.dim_names() if all(r.case.sizes.get(d, 3) <= 2 for r in nf_randn)
                 and any(r.case.sizes.get(d, 0) > 2 for r in passing_randn)]
        # two values of a 10- or 8-bit mantissa cancel exactly by chance: NaN/Inf at a handful of elements of the
        # fp16/bf16 randn cases alone, the fp32 ones finite, is a zero sum or difference, not data out of range
        # (a handful: 1% of the elements at most, and four; an operation over pairs meets as many coincidences as it
        # compares pairs: 19 of 4096 inverse distance weights in bf16 take a query that sits on a site)
        fp32_finite = [r for r in self.results if r.case.pattern == "randn" and r.case.precision == "fp32"
                       and r.case.axis != "debug" and not _nonfinite(r) and not empty(r)]
        rare = [r for r in nf_randn if r.case.precision in ("fp16", "bf16") and all(
            c.nan_mismatches + c.inf_mismatches <= max(4, RARE_NONFINITE * c.numel) for c in r.comparisons)]
        randn_rare = bool(nf_randn) and len(rare) == len(nf_randn) and bool(fp32_finite) and not short
        if randn_rare:
            self.add("nonfinite-randn-rare", f"NaN/Inf on randn data only in {nf_randn[0].case.precision}, at a "
                     f"handful of elements ({nf_randn[0].case.id}); the fp32 randn cases are finite: two values that "
                     "cancel exactly in a short mantissa (a zero sum or difference)")
        elif nf_randn and short:
            self.add("nonfinite-short", f"NaN/Inf on randn data only where {short[0]} is one or two elements long "
                     f"({nf_randn[0].case.id}); longer randn cases are finite: a sum, count or norm over a short "
                     "axis that can be zero")
        elif nf_randn:
            self.add("nonfinite-randn", f"NaN/Inf on plain randn data ({nf_randn[0].case.id})")
        # (the nonfinite pattern puts NaN in the inputs on purpose: where it ends up says nothing about padding; nor
        # does a case of an empty dimension, whose 0 / 0 is the same in any layout)
        nonfinite = [r for r in self.results if not r.ok and _nonfinite(r) and r.case.axis != "debug"
                     and r.case.pattern != "nonfinite" and not empty(r)]
        if nonfinite and all(r.case.layout != "contiguous" for r in nonfinite):
            self.add("nonfinite-strided", f"NaN/Inf only in non-contiguous cases ({len(nonfinite)}, e.g. "
                     f"{nonfinite[0].case.id}), whose views kcheck pads with NaN: a kernel that reads the padding "
                     "(rows taken as contiguous)")
        # large magnitudes with a zero mean (a large mean is the cancellation's pattern)
        large = [r for r in failing if r.case.pattern == "large" and _nonfinite(r)]
        mags = [(k, r) for k, r in ev.magnitudes if k > 1 and not r.ok and _nonfinite(r)]
        big_nonfinite = bool(large or mags)
        if big_nonfinite and not gross_randn and not nf_randn:
            words = []
            if large:
                words.append(f"NaN/Inf on the large-magnitude pattern(s) ({large[0].case.id})")
            if mags:
                first = min(k for k, _ in mags)
                ok = [k for k, r in ev.magnitudes if r.ok and 1 < k < first]
                words.append(f"randn x {first:g} gives NaN/Inf" + (f"; x {max(ok):g} passes" if ok else ""))
            self.add("nonfinite-large", "; ".join(words) + "; randn is right")
        # NaN/Inf on the nominal randn data that the same data scaled down takes away: a value out of range (an exp
        # whose terms all underflow to 0 / 0, a power that overflows), not a zero denominator, which stays zero at
        # any scale, nor a read of poison or padding, which no scale of the inputs reaches
        nominal = ev.base
        base_nf = [r for r in nf_data if nominal is not None
                   and (r.case.dims, r.case.precision, r.case.layout, r.case.seed, r.case.config, r.case.params)
                   == (nominal.dims, nominal.precision, nominal.layout, nominal.seed, nominal.config, nominal.params)]
        shrunk = [k for k, r in ev.magnitudes if k < 1 and r.status in (Status.PASSED, Status.FAILED)
                  and not _nonfinite(r) and not empty(r)]
        if base_nf and shrunk and not randn_rare:
            self.add("nonfinite-shrinks", f"NaN/Inf on the nominal randn case ({base_nf[0].case.id}); the same data "
                     f"x {max(shrunk):g} is finite: the values leave the range of an exp or a power at ordinary "
                     "magnitudes, where a zero denominator would stay zero")
        # NaN/Inf on the nominal randn data at every scale tried, up and down: no value out of range (which a
        # smaller scale takes away, or a larger one brings); a zero, or a sign, that no scale changes
        up = [k for k, r in ev.magnitudes if k >= 100 and _nonfinite(r)]
        down = [k for k, r in ev.magnitudes if k <= 1e-3 and _nonfinite(r)]
        if nf_data and up and down and all(_nonfinite(r) for _, r in ev.magnitudes):
            self.add("nonfinite-scale-free", f"NaN/Inf on randn data ({nf_data[0].case.id}) at every scale tried, "
                     f"x {min(down):g} to x {max(up):g}: no value leaves a range; a zero (or a sign) that no scale "
                     "changes does it")
        self._tiny_scale()
        zero = [r for r in failing if r.case.pattern in ("zeros", "constant") and _nonfinite(r)]
        if zero:
            self.add("nonfinite-zero", f"NaN/Inf where a sum or spread is zero: pattern {zero[0].case.pattern} "
                     f"({zero[0].case.id})")
        zeros = [r for r in zero if r.case.pattern == "zeros"]
        if zeros:  # a long constant row may overflow a narrow sum; all zeros overflow nothing
            self.add("nonfinite-on-zeros", f"NaN/Inf from all-zero inputs ({zeros[0].case.id}): no sum of zeros "
                     "overflows, in any precision; a division or a log of zero does")
        # a zero spread or sum is zero on all-zero rows too: NaN on constant rows alone, with all-zero rows finite,
        # is two equal nonzero terms whose rounded difference fell below zero (the root of E[x^2] - E[x]^2)
        finite_zeros = [r for r in self.results if r.case.pattern == "zeros" and not empty(r) and not _nonfinite(r)
                        and r.status in (Status.PASSED, Status.FAILED) and r.case.axis != "debug"]
        # and it is a formula right on randn data (mean zero, spread one): NaN/Inf there too is no cancellation (an
        # exp that underflows to 0 / 0 far from every sample, which constant rows far apart reach as well)
        if zero and not zeros and finite_zeros and (not nf_randn or randn_rare):
            self.add("nonfinite-constant-only", f"NaN/Inf on constant rows ({zero[0].case.id}) but not on all-zero "
                     f"ones ({finite_zeros[0].case.id}), where any zero spread, sum or norm is zero too: a difference "
                     "of two equal nonzero terms that rounds below zero (a root of E[x^2] - E[x]^2), not a zero "
                     "denominator")
        lm = [r for r in failing if r.case.pattern == "large_mean" and self.counts(r)]
        # arange is a large mean too (values 0..n), constant rows a zero spread: both fail a cancelling formula;
        # so do tiny values, whose squares underflow; NaN/Inf the inputs carry in are a question of their own (how
        # the kernel propagates them)
        others = [r for r in failing if r.case.pattern not in ("large_mean", "constant", "large", "arange",
                                                               "nonfinite", "tiny") and self.counts(r)
                  and r.case.id not in rare_ids]
        if lm and not others and not big_nonfinite:
            nan = " (NaN: a negative difference under a root)" if _nonfinite(lm[0]) else ""
            self.add("large-mean-only", f"wrong only with a large mean and a small spread ({lm[0].case.id}){nan}; "
                     "randn, and large magnitudes with a zero mean, stay finite")
        counted = [r for r in failing if self.counts(r)]
        wide_ok = [r for r in ev.report.cases if r.status is Status.PASSED and r.case.precision in ("fp32", "tf32")]
        # "the fp32 ones pass": no fp32 case may have failed otherwise (raised or crashed) either
        # (an fp32 running sum of more than 2**24 terms loses whole units itself: such fp32 failures are the same
        # accumulator's, not a sign against it)
        low = [r for r in counted if r.case.precision in LOW]
        if low and wide_ok and all(r.case.precision in LOW or long_reduction(ev.spec, r) for r in failing):
            over = f", over a reduction of {', '.join(ev.spec.reduce)}" if ev.spec.reduce else ""
            beyond = " (but past 2**24 terms of a reduction)" if len(low) < len(failing) else ""
            self.add("low-precision-only", f"only the {'/'.join(sorted({r.case.precision for r in low}))} cases "
                     f"fail ({low[0].case.id}); the fp32 ones pass{beyond}{over}: something is held in a precision "
                     "too low for it (an accumulator, an index, an intermediate)")
        base = [r for r in failing for c in r.comparisons if c.baseline is not None and c.baseline.required
                and not c.baseline.passed and not c.mismatches]
        if base:
            c = next(c for c in base[0].comparisons if c.baseline is not None)
            b = c.baseline
            assert b is not None
            self.add("baseline-only", f"{len(base)} case(s) within the table tolerance but {b.kernel_max_abs:.3g} "
                     f"error against the same-precision baseline's {b.baseline_max_abs:.3g} ({base[0].case.id})")
            if all(r.case.pattern == "large_mean" for r in base):
                self.add("large-mean-baseline", f"the cases beyond the same-precision baseline are all large-mean "
                         f"ones ({base[0].case.id}): digits lost to the data's mean, which a formula that cancels "
                         "loses and a low-precision accumulator of randn data would lose too")
        grows = _error_growth(ev)
        if grows:
            self.add("error-grows", grows)
        wide_gross = [r for r in counted if r.case.precision not in LOW and r.case.pattern == "randn"
                      and r.case.id not in rare_ids and severity(r) is Severity.GROSS
                      and not long_reduction(ev.spec, r)]
        if wide_gross and not grows:
            # an fp16 accumulator behind fp32 inputs loses digits too, but more with every element it sums
            self.add("wide-precision-gross", f"{len(wide_gross)} {wide_gross[0].case.precision} randn case(s) are "
                     f"wrong far beyond rounding ({wide_gross[0].case.id}), and the error does not grow with a "
                     "reduction's length: not digits lost to a low-precision accumulator")
        wide = [name for name, r in ev.precisions if r.ok and name in ("fp32", "tf32")]
        if wide and ev.minimal is not None and not ev.minimal.ok:
            self.add("wider-precision-passes", f"the smallest failing case passes in {wide[0]}")

    def _conditioned(self) -> None:
        """A case wrong at a few finite elements, each of them (the first ones, which the comparison keeps) where the
        reference itself leaves the tolerance when its inputs move by a few ulps, and those elements few too: the
        kernel loses what rounding its inputs loses where the operation is ill-conditioned (two close values
        subtracted after each was rounded), where a stable formula keeps it."""
        got = self.ev.conditioned
        if got is None:
            return
        r, where = got
        forward = forward_comparisons(r)
        wrong, total = sum(c.mismatches for c in forward), sum(c.numel for c in forward)
        moved = sum(len(w) for w in where)
        if len(forward) != len(where) or not (wrong and wrong <= moved <= _FEW_ILL_CONDITIONED * total):
            return
        seen = [(k, m.index) for k, c in enumerate(forward) for m in c.first]
        inside = sum(i in where[k] for k, i in seen)
        if seen and inside >= max(1, len(seen) - 1) and 2 * inside > len(seen):
            self.add("rounding-amplified", f"{r.case.id}: {wrong} element(s) wrong, {inside} of the first {len(seen)} "
                     f"where the reference itself leaves the tolerance when its inputs move by a few ulps ({moved} "
                     f"of {total} elements): the kernel's formula loses what rounding its inputs loses where the "
                     "operation is ill-conditioned; a stable one does not")

    def _layout(self) -> None:
        """Only the non-contiguous cases fail, and a contiguous case of the same shape and precision passes."""
        counted = [r for r in self.ev.failing if self.counts(r)]
        if not counted or any(r.case.layout == "contiguous" for r in counted):
            return
        passed = {(tuple(sorted(r.case.sizes.items())), r.case.precision) for r in self.results
                  if r.case.layout == "contiguous" and self.counts(r) is False}
        twins = [r for r in counted if (tuple(sorted(r.case.sizes.items())), r.case.precision) in passed]
        if twins:
            r = twins[0]
            self.add("layout-only", f"only the non-contiguous cases fail ({len(counted)}, e.g. {r.case.id}); the "
                     "same shape with contiguous inputs passes: the kernel assumes a stride the tensor does not have")

    def _coarse_grid(self) -> None:
        """In most failing fp32 cases (three at least) the kernel's wrong values shown (the first ones and the worst)
        sit on a grid far coarser than the expected values' own precision, which lie off it: 0 and 2**-11 where the
        reference gives 1.7e-5 to 8e-4. A difference of two large, nearly equal terms keeps only the bits the large
        terms share (sqrt(R0^2 + u^2) - R0 at R0 = 5000 is a multiple of ulp(5000)); a wrong constant, index or axis
        computes values of full precision, and a short accumulator's values each have their own quantum."""
        # (rounding-level failures count here: their values' grid is evidence whatever their size)
        cases = [(r, c) for r in self.results if r.status is Status.FAILED and r.case.axis != "large"
                 and not r.findings for c in r.comparisons
                 if not c.passed and c.dtype == "float32" and not (c.unwritten or c.nan_mismatches or c.inf_mismatches)]
        grids = [(r, c, _coarse(c)) for r, c in cases]
        # (wrong values shown all 0 are on every grid: they neither place one nor refute it)
        placed = [g for g in grids if g[2] != 0.0]
        on = [g for g in placed if g[2] is not None]
        if len(on) >= 3 and len(on) >= 0.8 * len(placed):
            r, c, q = on[0]
            shown = ", ".join(f"{m.actual:.3g} for {m.expected:.3g}" for m in c.first[:3])
            self.add("coarse-grid", f"in {len(on)} of {len(placed)} failing fp32 cases the wrong values sit on a grid "
                     f"of {q:.3g}, far coarser than the expected values' precision ({r.case.id}: {shown}): digits lost "
                     "to a difference of large, nearly equal terms, whose ulp that grid is")

    def _jitter(self) -> None:
        """The jitter probe (``probe_jitter``): the kernel's error, measured again with every input moved by a
        relative 2**-10, changed by about as much as the error itself (rounding, drawn anew: digits lost), or by a
        few hundredths of it at most (the formula's error, which moves smoothly with the inputs). Runs that differ
        on the same inputs say nothing of rounding."""
        if self.ev.jitter is None or self.has("nondeterministic"):
            return
        plain, r, scale = self.ev.jitter
        c = r.comparisons[0] if r.comparisons else None
        if c is None or c.nan_mismatches or c.inf_mismatches:  # (NaN: the same inputs gave another error)
            return
        ratio = c.max_abs
        if not math.isfinite(ratio):
            return
        case = plain.case.id + ("" if scale is None else f" with its data x {scale:g}")
        if ratio >= ROUNDING_NOISE:
            self.add("rounding-noise", f"{case}: with every input moved by a relative 2**-10, the kernel's "
                     f"error changed by {ratio:.2g} times itself (L2): an error drawn anew by each rounding, digits "
                     "lost (a formula that cancels, a low-precision sum), not a formula computed wrong, whose error "
                     "moves smoothly with its inputs")
        elif ratio <= SMOOTH_ERROR:
            self.add("smooth-error", f"{case}: with every input moved by a relative 2**-10, the kernel's "
                     f"error changed by {ratio:.2g} times itself (L2): it moves smoothly with the inputs, as the "
                     "error of a formula computed wrong does (a constant, an index, an axis), not rounding's, which "
                     "every rounding draws anew")

    def _tiny_scale(self) -> None:
        """The nominal randn case passes, and the same data scaled down fails with finite errors and clean accesses:
        the kernel adds something the reference adds in another amount (an eps), which only data of that order shows.
        A wrong index or a dropped tile would fail at the nominal size whatever the scale."""
        ev = self.ev
        if ev.base is None:
            return
        nominal = [ok for d, rows in ev.sizes.items() for v, ok, _ in rows if v == ev.base.sizes.get(d)]
        if not nominal or not all(nominal):
            return
        for k, r in ev.magnitudes:
            if k < 1 and not r.ok and r.status is Status.FAILED and not r.findings and not _nonfinite(r) \
                    and self.counts(r) and not any(c.unwritten for c in r.comparisons):
                c = next(c for c in r.comparisons if not c.passed)
                self.add("tiny-scale-fails", f"the nominal randn case passes, and fails with its data scaled by {k:g} "
                         f"({c.mismatch_fraction:.0%} of {c.output}'s elements wrong, relative L2 error "
                         f"{c.rel_l2:.2g}): something only data of that order shows, an additive constant (an eps) "
                         "of another size than the reference's, or a small x's digits lost in 1 + x")
                return

    def _scaled(self) -> None:
        """Ordinary data wrong at most elements, each wrong element shown (the first ones and the worst) the expected
        value times one factor per case, in three cases at least: the output is the reference scaled (a constant
        or a coefficient off by a factor), however far the factor is from 1. A permuted or garbage output has no
        common ratio."""
        factors: list[tuple[CaseResult, float]] = []
        for r in self.results:
            if r.case.pattern != "randn" or r.case.layout != "contiguous" or r.status is not Status.FAILED \
                    or r.findings or r.case.axis == "large":
                continue
            failed = [c for c in r.comparisons if not c.passed]
            if not failed or any(c.unwritten or c.nan_mismatches or c.inf_mismatches or c.mismatch_fraction < 0.5
                                 for c in failed):
                continue
            shown = [m for c in failed for m in [*c.first, *([c.worst] if c.worst else [])]
                     if math.isfinite(m.actual) and math.isfinite(m.expected) and abs(m.expected) > 1e-6]
            ratios = [m.actual / m.expected for m in shown]
            if len(ratios) < 3:
                continue
            k = sorted(ratios)[len(ratios) // 2]
            # one factor to a few units of fp16's rounding, and not rounding itself (k near 1)
            if abs(k - 1) > 0.02 and abs(k) > 1e-3 and all(abs(q - k) <= 5e-3 * abs(k) for q in ratios):
                factors.append((r, k))
        if len(factors) >= 3:
            ks = sorted({float(f"{k:.3g}") for _, k in factors})
            same = f"the reference times {ks[0]:g}" if len(ks) == 1 else \
                f"the reference times a factor per case ({', '.join(f'{k:g}' for k in ks[:4])})"
            r = factors[0][0]
            self.add("scaled-output", f"in {len(factors)} randn case(s) every wrong element shown is {same} (e.g. "
                     f"{r.case.id}): the output is the right one scaled: a constant or a coefficient off by a factor")

    def _systematic(self) -> None:
        """Ordinary data (randn, contiguous) wrong at nearly every element of nearly every case, by less than the
        values (relative L2 error at most 0.9: a permuted or garbage output is off by about 1.4, zeros by 1; a wrong
        tuning constant of a saturating loss by 0.84), with
        no NaN/Inf or unwritten element. Or wrong at nearly every element of the same slices of a dimension whose
        size is the same in every case (one channel of three, one gate of four), the other slices right: one
        channel's coefficient, where an index or an edge would move with the sizes or spill into the others."""
        rows = [r for r in self.results if r.case.pattern == "randn" and r.case.layout == "contiguous"
                and r.case.axis != "large" and not empty(r) and r.status in (Status.PASSED, Status.FAILED)]

        def off(c: Comparison, dense: bool, cap: float) -> bool:
            finite = not c.unwritten and not c.nan_mismatches and not c.inf_mismatches
            return c.rel_l2 <= cap and finite and (
                c.mismatch_fraction >= 0.5 if dense else c.confined is not None and c.confined.density >= 0.5)

        def wrong_by(dense: bool, cap: float = _SYSTEMATIC_REL_L2) -> list[CaseResult]:
            return [r for r in rows if r.status is Status.FAILED and not r.findings and all(
                c.passed or off(c, dense, cap) for c in r.comparisons) and not values_right(r)]

        # (wrong at most elements by any amount: the condition of the slice probe's hallmark of an arithmetic error)
        dense = wrong_by(True, math.inf)
        if len(dense) >= 3 and len(dense) >= 0.8 * len(rows):
            c = next(c for c in dense[0].comparisons if not c.passed)
            self.add("dense-errors", f"{len(dense)} of {len(rows)} randn cases are wrong at most elements, finite "
                     f"(e.g. {dense[0].case.id}: {c.mismatch_fraction:.0%} of elements, relative L2 error "
                     f"{c.rel_l2:.2g})")
        wrong = wrong_by(True)
        if len(wrong) >= 3 and len(wrong) >= 0.8 * len(rows):
            c = next(c for c in wrong[0].comparisons if not c.passed)
            self.add("systematic-error", f"{len(wrong)} of {len(rows)} randn cases are off at most elements by a "
                     f"fraction of the values (e.g. {wrong[0].case.id}: {c.mismatch_fraction:.0%} of elements, "
                     f"relative L2 error {c.rel_l2:.2g}): a formula or a constant, not an index or an edge")
            return
        wrong = wrong_by(False)
        slices = {(c.output, c.confined.dim, c.confined.size, c.confined.wrong) for r in wrong for c in r.comparisons
                  if not c.passed and c.confined is not None}
        shapes = {tuple(c.shape) for r in wrong for c in r.comparisons if not c.passed}
        if len(wrong) >= 3 and len(wrong) >= 0.8 * len(rows) and len(slices) == 1 and len(shapes) >= 3:
            output, dim, size, k = next(iter(slices))
            c = next(c for c in wrong[0].comparisons if not c.passed)
            assert c.confined is not None
            self.add("systematic-error", f"{len(wrong)} of {len(rows)} randn cases are off in the same {k} of the "
                     f"{size} slices of {output}'s dimension {dim}, at every shape, and right in the others (e.g. "
                     f"{wrong[0].case.id}: {c.confined.density:.0%} of those slices' elements, relative L2 error "
                     f"{c.rel_l2:.2g}): that slice's formula or constant, not an index or an edge")

    def _value_band(self) -> None:
        """In most of the failing randn cases computed in fp32 or wider, with finite values, written and accessed
        in bounds, the wrong elements are those whose value in one input of the output's shape lies in one band
        (``ValueBand``), and the bands overlap. Random data puts any value anywhere: wrong by value, not by place,
        is a formula wrong for those values (a branch's constant or coefficient), not an index, a bound or an
        edge. At least two such cases: one band alone can be chance."""
        rows = [r for r in self.ev.failing if r.case.pattern == "randn" and r.case.precision in ("fp32", "fp64")
                and r.case.axis != "large" and r.status is Status.FAILED and not r.findings and self.counts(r)]
        bands: list[tuple[CaseResult, Comparison, ValueBand]] = []
        for r in rows:
            failed = [c for c in r.comparisons if not c.passed]
            if failed and all(c.value_band is not None and not (c.unwritten or c.nan_mismatches or c.inf_mismatches)
                              for c in failed):
                bands += [(r, c, c.value_band) for c in failed if c.value_band is not None]
        cases = len({r.case.id for r, _, _ in bands})
        if cases < max(2, len(rows) // 2 + 1) or len({(b.input, b.magnitude) for _, _, b in bands}) != 1:
            return
        if max(b.lo for _, _, b in bands) > min(b.hi for _, _, b in bands):  # no one range of values
            return
        r, c, b = bands[0]
        self.add("value-band", f"in {cases} of {len(rows)} failing fp32 randn cases the "
                 f"wrong elements are those whose {_name(self.ev, b.input)} lies in one band of values (e.g. "
                 f"{r.case.id}: {c.output} wrong at {b.wrong} of the {b.inside} elements where "
                 f"{'its magnitude' if b.magnitude else 'it'} lies in "
                 f"[{b.lo:.4g}, {b.hi:.4g}], right at the other {b.total - b.inside}): a formula wrong for those "
                 "values only (a branch's constant or coefficient, a threshold), not an index or an edge")

    def _near_or_far(self, plain: CaseResult, near: CaseResult | None, far: CaseResult | None, far_needed: bool,
                     far_words: str, near_words: str) -> None:
        """The kernel reads the bumped elements next to what it should read (``near`` far more wrong than ``plain``):
        ``reads-ignored`` when the ones farther away (``far``) count too, else ``reads-one-past`` (a bound off by
        one; with ``far_needed``, only when the farther probe ran). The words carry ``{error}``, the probe's."""
        if near is None or not reads_bumped(near, plain):
            return
        if far is not None and reads_bumped(far, plain):
            self.add("reads-ignored", far_words.format(error=f"{error_of(far):.3g}"))
        elif far is not None or not far_needed:
            self.add("reads-one-past", near_words.format(error=f"{error_of(near):.3g}") + ": a bound off by one")

    def _ignored(self) -> None:
        ev = self.ev
        plain = ev.minimal
        if plain is None:
            return
        for i in sorted({j for j, _, _ in ev.ignored}):
            name, before = _name(ev, i), f"{error_of(plain):.3g}"
            self._near_or_far(
                plain, _bumped(ev, i, "boundary"), _bumped(ev, i, "far"), False,
                f"the kernel reads elements of {name} that the reference ignores, also away from those it uses "
                f"({plain.case.id}: raising them by 1000 takes the error from {before} to {{error}})",
                f"the kernel reads the elements of {name} just past those the reference uses, and no farther "
                f"({plain.case.id}: raising them by 1000 takes the error from {before} to {{error}}; the elements "
                "farther away change nothing)")

    def _padding(self) -> None:
        ev = self.ev
        for i in sorted({j for j, _, _, _ in ev.padded}):
            first = next((r for j, where, _, r in ev.padded if j == i and where == "first"), None)
            rest = next((r for j, where, _, r in ev.padded if j == i and where == "rest"), None)
            plain = next(p for j, _, p, _ in ev.padded if j == i)
            name, before = _name(ev, i), f"{error_of(plain):.3g}"
            self._near_or_far(
                plain, first, rest, True,
                f"the kernel reads past the end of {name}'s rows, farther than one element ({plain.case.id} with the "
                f"rows padded: 1000 in the padding takes the error from {before} (padding 0) to {{error}} even from "
                "the second padding element on)",
                f"the kernel reads the element just past the end of {name}'s rows, and no farther ({plain.case.id} "
                f"with the rows padded: 1000 just past their end takes the error from {before} (padding 0) to "
                "{error}; 1000 farther changes nothing)")

    def _ends(self) -> None:
        for i, k, plain, runs in self.ev.ends:
            last, before, first = runs.get(-1), runs.get(-2), runs.get(0)
            # the first must show: a kernel that drops NaN everywhere (a max that skips it) says nothing of its end
            if last is None or before is None or first is None or not ignores_nan(last) or ignores_nan(first):
                continue
            name = _name(self.ev, i)
            what = (f"{plain.case.id} with NaN at the end of {name}'s axis {k}: the reference gives NaN, the kernel "
                    "stays finite; with NaN at the first element both give NaN")
            if ignores_nan(before):
                self.add("ignores-tail", f"{what}; NaN at the one before the last is missed too: the kernel never "
                         "reads the last elements of the axis (a loop or a grid that stops at the last whole block)")
            else:
                self.add("ignores-last", f"{what}, and at the one before the last too: the kernel never reads the "
                         "last element of the axis, and reads the one before it (a bound one short)")

    def _slices(self) -> None:
        """The slice probe (``probe_slices``): the kernel's outputs changed outside the raised slice, with finite
        values, at half as many elements as the slice holds at least (and three). Fewer is a read one past a row's end
        into the next row (an edge's evidence), not a dimension combined whole. Or every probe passed (the outputs
        changed inside each slice, as the reference's, and nowhere else), and no dimension was left out: the kernel
        keeps apart every slice the operation does."""
        for i, d, _, pos, r, axes in self.ev.slices:
            # (the outputs' changes outside the slice; after them, per output, whether it changed inside)
            failed = [(j, c) for j, c in enumerate(r.comparisons[:len(axes)]) if not c.passed and c.mismatches]
            if r.status is not Status.FAILED or not failed or any(
                    c.unwritten or c.nan_mismatches or c.inf_mismatches for _, c in failed):
                continue
            j, c = max(failed, key=lambda jc: jc[1].mismatches)
            axis = axes[j] if j < len(axes) else None
            per_slice = c.numel // c.shape[axis] if axis is not None and c.shape[axis] else 1
            # (half: a wrong axis inside square tiles moves a slice's change into one column of a tile, whose rows
            # past the tensor's end are masked; three: a row reduction reading one past its row's end moves its
            # neighbour's single output)
            if c.mismatches < max(3, per_slice // 2):
                continue
            at = f" (e.g. at {list(c.first[0].index)})" if c.first else ""
            self.mixed.add(i)
            self.add("mixes-slices", f"raising {_name(self.ev, i)}'s slice {d}={pos} (by 1 to 2) changed the kernel's "
                     f"{c.output} at {c.mismatches} elements outside that slice{at}, where the reference's stays "
                     f"inside it: the kernel combines values of different {d} indices, which the operation keeps "
                     "apart (a reduction or a broadcast along the wrong axis, or an index into another slice)")
            return
        kept = [(i, d, r) for i, d, _, _, r, _ in self.ev.slices]
        # (the probe watches the forward outputs: where only gradients fail, it says nothing of the backward's reads)
        backward_only = all(c.output.startswith("grad of") for r in self.ev.failing for c in r.comparisons
                            if not c.passed)
        if kept and not self.ev.slices_unprobed and all(r.status is Status.PASSED for _, _, r in kept) \
                and not backward_only:
            names = ", ".join(f"{_name(self.ev, i)}[{d}]" for i, d, _ in kept)
            self.add("keeps-slices", f"raising one slice of {names} (each dimension the operation keeps apart) "
                     f"changed the kernel's outputs only inside that slice, as the reference's ({kept[0][2].case.id}): "
                     "it reads each element where the operation does; what differs is what it computes there")

    def _structure(self) -> None:
        ev = self.ev
        # (a case that failed in the interpreter beside a GPU has its probes run on the GPU: one passing there says
        # the two engines differ, not that poison or timing made the failure)
        if ev.zeroed is not None and ev.zeroed.ok and ev.minimal is not None and not ev.minimal.case.interpreted:
            self.add("zeroed-rescues", f"fails with kcheck's poisoned outputs, passes when they are zeroed first "
                     f"({ev.minimal.case.id}): the kernel reads its output before writing it")
        self._ignored()
        self._padding()
        self._ends()
        self._slices()
        vectors = vector_inputs(ev.spec)
        if vectors:
            words = "; ".join(f"{_name(ev, i)} is {operand_words(ev.spec, i)}" for i in vectors)
            self.add("vector-operand", f"{words}: a per-channel operand")
        elif self.square:
            # a square shape hides a per-channel operand read with the other index (i % M for i % N); a reduction over
            # the wrong axis of a full matrix is wrong on squares too: with no such operand, passing every square
            # shape is a stride or an index
            self.add("square-only-no-vector", "passes on every square shape tried, and no input is a per-channel "
                     "operand (1-D, or broadcast along a dimension): no operand whose wrong axis a square shape hides")
        # an input at ones rescues the case only if the case's values were wrong (not just its accesses)
        if ev.minimal is not None and not ev.minimal.ok and not values_right(ev.minimal):
            for i, r in ev.ones.items():
                if r.ok or values_right(r):
                    if i in self.mixed and not is_vector(ev, i):
                        # slices all alike hide what a kernel combines across them: no sign of a place read wrong
                        self.add("ones-hides-mixing", f"the failure vanishes when {_name(ev, i)} is all ones: its "
                                 "slices, all alike, hide the values the kernel combines across them")
                        continue
                    kind = "vector-ones-rescues" if is_vector(ev, i) else "ones-rescues"
                    self.add(kind, f"the failure vanishes when {_name(ev, i)} is all ones: that input is read at "
                             "the wrong place")
            vo = ev.vectors_ones
            if vo is not None and (vo.ok or values_right(vo)) and not self.has("vector-ones-rescues"):
                # (every 1-D operand constant at once hides any of them read at the wrong place: the axis one is
                # read along, or an index into it, as a Toeplitz matrix's column and row, all ones, are its own
                # transpose)
                names = ", ".join(_name(ev, i) for i in vectors)
                self.add("vectors-ones-rescue", f"the failure vanishes when {names} are all ones together (one "
                         "at a time does not do it): the per-channel operands are read at the wrong place, along "
                         "the wrong axis or at a wrong index")
        for i in symmetric_rescues(ev):
            self.add("symmetric-rescues", f"the failure vanishes when {_name(ev, i)} is made symmetric "
                     "((X + X^T) / 2, kernel and reference alike): the kernel takes its rows for its "
                     "columns somewhere, or reduces along the other axis")
        for i, r in ev.transposed.items():
            if r.ok:
                self.add("transposed-reference", f"the output matches the reference of {_name(ev, i)} transposed "
                         f"({r.case.id})")
        # the wrong outputs that hold their transposed position's value: at least two, and most of those decoded. One
        # among several is a coincidence of arange's values (a 3x3 minimum next to the diagonal finds one)
        transposed = [a for a in ev.arange if a.transposed]
        if len(transposed) >= 2 and 2 * len(transposed) >= len(ev.arange):
            for a in transposed:
                self.add("arange-transposed", a.text)
        moved = [a for a in ev.arange if a.source is not None and not a.transposed]
        if ev.arange_moves and len(moved) >= 2 and 2 * len(moved) >= len(ev.arange) and not any(
                a.transposed for a in ev.arange):
            self.add("arange-misplaced", f"on arange inputs the reference only moves values (each expected value is "
                     f"an input's), and {len(moved)} of the {len(ev.arange)} wrong outputs decoded hold the value "
                     f"it puts at another position (wrong indices, not wrong arithmetic): {moved[0].text}")
        written = in_place_movement(ev)
        if written is not None:
            self.add("in-place-movement", f"the reference only moves values (on arange inputs every expected value "
                     f"is an input's, as many as the input holds) and the kernel writes {written} in place: "
                     "nothing is accumulated, so no partial result can be lost, but a program can read an element "
                     "another program has already overwritten")
        # a movement gives each output element one owner: two programs storing to the same one (within the tensors:
        # a store past a row's end lands on the next row's elements) move a pair twice, or one over the other
        if ev.arange_permutes and self.has("race-write-write") and not self.has("oob"):
            self.add("movement-written-twice", "the reference only moves values (on arange inputs every expected "
                     "value is an input's, as many as the input holds), yet two programs store to the same element, "
                     "within the tensors: each element has one owner in a movement, and a wrong stride or index "
                     "maps the elements one to one too")
        if ev.minimal is not None and ev.configs:
            good = [label for label, r in ev.configs if r.ok]
            if good:
                failing = ", ".join(f"{k}={v}" for k, v in ev.minimal.case.config) or "its config"
                self.add("config-dependent", f"the smallest failing case passes with {good[0]} and fails with "
                         f"{failing}")

    def _reduces(self) -> None:
        """The outputs hold fewer elements than the largest input: each output combines several inputs (a sum, a
        max, a norm), declared in ``Spec.reduce`` or not."""
        r = self.ev.minimal
        out, biggest = element_counts(self.ev.spec, r) if r is not None else (0, 0)
        if r is None:
            return
        bad = [c for c in r.comparisons if not c.passed]
        if 0 < out < biggest:
            self.add("reduces", f"the outputs hold {out} element(s), the largest input {biggest} ({r.case.id}): "
                     "each output combines several inputs")
        elif bad and all(0 < c.numel < biggest for c in bad):
            # a forward that keeps the shape has a backward that reduces: the gradient of a per-channel operand
            # sums over every row, so where only such outputs fail, partial sums of several programs meet there
            self.add("reduces", f"the failing output(s) ({', '.join(c.output for c in bad)}) hold "
                     f"{', '.join(str(c.numel) for c in bad)} element(s), the largest input {biggest} "
                     f"({r.case.id}): each of their elements combines several inputs")

    def _repeats(self) -> None:
        ev = self.ev
        if ev.minimal is not None and ev.minimal.status is Status.FAILED and ev.repeat is not None and ev.repeat.ok \
                and not ev.minimal.case.interpreted:
            self.add("flaky", f"the smallest failing case ({ev.minimal.case.id}) passed when run again on the same "
                     "inputs: its failure depends on the timing of the programs, not on the data")
        det = self.ev.repeat.determinism if self.ev.repeat is not None else None
        if det is None or not det.differing:
            return
        if det.max_ulp > 64:
            self.add("nondeterministic", f"3 runs on the same inputs differ in {det.differing} elements by up to "
                     f"{det.max_ulp:.3g} ULP")
        else:
            self.add("nondeterministic-ulp", f"runs on the same inputs differ by at most {det.max_ulp:.3g} ULP")

    def _severity(self, failing: list[CaseResult]) -> None:
        empties = [r for r in failing if empty(r)]
        if empties:
            self.add("empty-fails", f"{len(empties)} case(s) with an empty dimension fail ({empties[0].case.id}: "
                     f"{'; '.join(empties[0].reasons)[:120]}); they are left out of the patterns")
        gross = [r for r in self.results if severity(r) >= Severity.GROSS and not empty(r)]
        if gross:
            worst = max(gross, key=severity)
            self.add("gross", f"{len(gross)} failing result(s) wrong by far more than rounding; the most severe: "
                     f"{severity(worst).name.lower()} ({worst.case.id})")
        rounding = [r for r in failing if severity(r) is Severity.ROUNDING and not empty(r)
                    and any(c.mismatches for c in r.comparisons if not c.passed)]
        if rounding:
            r = min(rounding, key=_elements)
            c = next(c for c in r.comparisons if not c.passed and c.mismatches)
            also = "; the diagnosis rests on the gross failures" if gross else ""
            self.add("rounding-only", f"{len(rounding)} failing case(s) off by rounding only, e.g. {r.case.id}: max "
                     f"error {c.max_abs:.3g}, {excess(c):.2g}x its tolerance{also}")


#: A probe's error this many times the plain case's: the kernel read the elements the probe changed.
READS_FACTOR = 10.0


def max_abs(res: CaseResult) -> float:
    """The largest finite absolute error over a case's outputs."""
    return max((c.max_abs for c in res.comparisons), default=0.0)


def error_of(res: CaseResult) -> float:
    """The largest absolute error over a case's outputs (infinite where a NaN or Inf is wrong)."""
    return math.inf if _nonfinite(res) else max_abs(res)


def in_place_movement(ev: Evidence) -> str | None:
    """The name of the input a kernel writes in place when its reference only moves values (a flip, a roll, a
    transpose: ``Evidence.arange_permutes``); None otherwise."""
    if not ev.arange_permutes:
        return None
    return next((_name(ev, i) for i, t in enumerate(ev.spec.inputs) if getattr(t, "mutated", False)), None)


def ignores_nan(probe: CaseResult) -> bool:
    """A NaN probe whose outputs differ from the reference's in where they are NaN: the kernel did not read the NaN
    the probe put in where the reference did (its plain case is finite)."""
    return any(c.nan_mismatches for c in probe.comparisons)


def reads_bumped(probe: CaseResult, plain: CaseResult) -> bool:
    """The probe (elements the reference ignores raised by 1000) is wrong by far more than the plain case."""
    return not probe.ok and error_of(probe) > READS_FACTOR * max(error_of(plain), 1e-6)


def _bumped(ev: Evidence, i: int, region: str) -> CaseResult | None:
    return next((r for j, where, r in ev.ignored if j == i and where == region), None)


def _overhang_only(f: Any) -> bool:
    """An interpreter finding whose reads, over every program that made them, reach no farther past the end than
    the access's own width, its first bad lane right at the end (one record per program, merged: ``farthest`` is
    the first bad lane farthest out). A read of lanes all past the end, farther than that, is not an overhang."""
    if f.tool != "interpreter" or "the access starting right at its end" not in f.message:
        return False
    lanes = re.search(r"; (\d+) of (\d+) lanes out of bounds", f.message)
    width = int(lanes.group(2)) if lanes else 1
    reach = f.farthest if f.farthest is not None else f.distance
    return reach is not None and 0 < reach <= width * max(1, f.size or 1)


def _on_vector(ev: Evidence, sizes: dict[str, int], f: Any) -> bool:
    """The out-of-bounds finding ``f`` of a case of ``sizes`` is on a per-channel operand: its allocation is the
    size of a 1-D input (at 2, 4 or 8 bytes an element) and of no input of more dims, and some input has more dims
    (among 1-D tensors alone, a read past the end has no longer dimension to come from: an elementwise update's
    edge)."""
    size = getattr(f, "allocation_size", None)
    if not size:
        return False

    def nbytes(t: Tensor) -> set[int]:
        n = math.prod(sizes.get(d, 1) if isinstance(d, str) else d for d in t.dims)
        return {n * k for k in (2, 4, 8)}

    tensors = [t for t in ev.spec.inputs if isinstance(t, Tensor)]
    if not any(len(t.dims) >= 2 for t in tensors):
        return False
    one = set().union(*(nbytes(t) for t in tensors if len(t.dims) == 1)) if tensors else set()
    more = set().union(*(nbytes(t) for t in tensors if len(t.dims) >= 2)) if tensors else set()
    return size in one and size not in more


def _last_only(r: CaseResult) -> bool:
    """Every failing comparison of the case is wrong in the last element (or column, or row) alone, and written."""
    bad = [c for c in r.comparisons if not c.passed]
    return bool(bad) and all(not c.unwritten and (c.location.text.startswith(("the last column", "the last row"))
                                                  or c.location.text.startswith("tail: the last 1 elements"))
                             for c in bad)


def element_counts(spec: Spec, r: CaseResult) -> tuple[int, int]:
    """The elements of a case's compared outputs, and of its largest input tensor (0 where the case does not size
    them)."""
    try:
        ins = [math.prod(shape_of(t.dims, r.case.sizes)) for t in spec.inputs if isinstance(t, Tensor)]
    except Exception:  # dims the case does not size
        ins = []
    return sum(c.numel for c in r.comparisons), max(ins, default=0)


def reduces(spec: Spec, r: CaseResult) -> bool:
    """The case's outputs hold fewer elements than its largest input: each output combines several inputs."""
    out, biggest = element_counts(spec, r)
    return 0 < out < biggest


#: A randn case with more elements than this holds chance extremes (near-zero values, 5-sigma ones).
HUGE_RANDN = 2**26
#: Mode names that say a tiling (a block size passed as a mode rather than a config): no parameter threshold.
_TILING = re.compile(r"block|tile|chunk|split|warp|stage", re.IGNORECASE)
#: A reduction longer than this many terms exhausts an fp32 running sum (24 significand bits).
FP32_EXHAUSTED = 2**24


def long_reduction(spec: Spec, r: CaseResult) -> bool:
    """The case reduces more than ``FP32_EXHAUSTED`` terms into each output element: along the Spec's ``reduce``
    dimensions where it declares them, else the largest input's elements per output element."""
    if spec.reduce:
        return math.prod(max(r.case.sizes.get(d, 1), 1) for d in spec.reduce) > FP32_EXHAUSTED
    out, biggest = element_counts(spec, r)
    return 0 < out and biggest // out > FP32_EXHAUSTED


def empty(r: CaseResult) -> bool:
    """A case with an empty dimension: how a kernel treats no data is its own question, not the planted bug's."""
    return any(v == 0 for v in r.case.sizes.values())


#: The relative L2 error below which an output wrong at most elements is "off by part of the values" (a formula or a
#: constant): under a zeroed output's 1 and a permuted or garbage one's sqrt(2) on random data.
_SYSTEMATIC_REL_L2 = 0.9

#: The share of a case's elements that may be ill-conditioned for "rounding-amplified": more, and the operation is
#: ill-conditioned nearly everywhere on that data, where any error would land among them.
_FEW_ILL_CONDITIONED = 0.05


def forward_comparisons(r: CaseResult) -> list[Comparison]:
    """The comparisons of ``r``'s forward outputs (not of the gradients a training Spec's backward gives)."""
    return [c for c in r.comparisons if not c.output.startswith("grad of ")]


def elements_wrong(r: CaseResult) -> bool:
    """Elements outside the tolerance: a failure of the values themselves, not of an error beyond the
    same-precision baseline alone (borderline, which other data of the same kind may pass) or of an access."""
    return any(c.mismatches > 0 for c in r.comparisons)


def symmetric_rescues(ev: Evidence) -> list[int]:
    """The inputs whose symmetric probe rights the values of a failing case with elements outside the tolerance
    (an error just beyond the same-precision baseline comes and goes with the data, the mean of two values as
    well). None for a data movement: a transpose, or a flip, of a symmetric matrix is right whatever it moves
    wrongly between the two triangles, as constant data hides any element moved wrongly."""
    m = ev.minimal
    if m is None or m.ok or ev.arange_permutes or not elements_wrong(m):
        return []
    return [i for i, r in ev.symmetric.items() if r.ok or values_right(r)]


def values_right(r: CaseResult) -> bool:
    """Every output compared within tolerance, whatever the memory and race checks found."""
    return r.status in (Status.FAILED, Status.PASSED) and bool(r.comparisons) and all(c.passed for c in r.comparisons)


def spec_raise(r: CaseResult) -> str:
    """The reason ``r`` errs when the Spec's own reference or input builder raised (not the kernel), else ""."""
    return next(iter(r.reasons_of(ReasonKind.REFERENCE_RAISED) + r.reasons_of(ReasonKind.INPUTS_RAISED)), "")


def _zeros_shown(r: CaseResult) -> bool:
    """Whether a failing result's first wrong values (in index order, five at least: a sample of them) are all
    exactly 0 where the expected values are not. (Its worst may be one that computed: a digit or two left.)"""
    shown = [m for c in r.comparisons if not c.passed for m in c.first]
    return len(shown) >= 5 and all(m.actual == 0.0 and m.expected != 0.0 for m in shown)


def _elements(r: CaseResult) -> int:
    return math.prod(max(v, 1) for v in r.case.sizes.values())


def _error_growth(ev: Evidence) -> str | None:
    """The error growing with the reduction length, over the sizes whose error is rounding (a gross error is
    another story)."""
    for d in ev.spec.reduce:
        rows = ev.sizes.get(d, [])
        errs = [(v, max_abs(r)) for v, _, r in rows if v >= 32
                and severity(r) <= Severity.ROUNDING]
        if len(errs) >= 3 and errs[-1][1] > 4 * max(errs[0][1], 1e-30):
            return f"the error grows with {d}: {errs[0][1]:.2g} at {errs[0][0]}, {errs[-1][1]:.2g} at {errs[-1][0]}"
    return None


def most_severe_smallest(results: Iterable[CaseResult]) -> CaseResult | None:
    """The smallest failing case among the failures of the most severe kind (a crash before NaN/Inf, before a
    gross error, before a rounding-level one); a case that raised only when nothing else failed, a case of an empty
    dimension only when no other case failed."""
    cands = [r for r in results if not r.ok]
    if not cands:
        return None
    cands = [r for r in cands if not empty(r)] or cands
    top = max(severity(r) for r in cands)
    return min((r for r in cands if severity(r) == top), key=_elements)
