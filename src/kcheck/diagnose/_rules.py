"""Causes scored from evidence: each bug class as a profile of the observations that support it, those that
contradict it, and its hallmark, the observation it cannot do without.

A cause is proposed when its hallmark or one of its supports was seen. Its score::

    raw   = prior (the hallmark's, when seen; GUESS otherwise) + sum(support weights) - sum(contradiction weights)
    score = max(0.5, min(0.99, raw))   when the hallmark was seen and nothing contradicts it
    score = max(0.05, min(0.45, raw))  otherwise

so a cause whose hallmark is absent or contradicted never outranks one whose hallmark is present, and never
reaches 0.5. When no cause has its hallmark, an ``unknown`` cause lists what was seen. Scores are ordinal (which
explanation fits best), not probabilities.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .._results import ReasonKind
from .._spec import Index, Scalar
from ..backends import backend_of
from ._causes import BUG_CLASSES, Cause, Observation
from ._observe import Facts, Severity, in_place_movement, shape_dims, spec_raise, symmetric_rescues
from ._sweep import Evidence

#: The raw score of a cause proposed on its supports alone, before their weights.
GUESS = 0.25
#: The score of the ``unknown`` cause: above a guess with little support, below any cause with its hallmark.
UNKNOWN = 0.3
#: Top two causes closer than this get a deciding experiment (``_decide``).
CLOSE = 0.15

Hallmark = tuple[str, ...]  # observation kinds that must all be seen


@dataclass(frozen=True)
class Profile:
    """One bug class as evidence: ``hallmarks`` maps each way of seeing the hallmark (all of its kinds seen) to the
    prior it gives; ``supports``/``contradicts`` map observation kinds to weights."""

    key: str
    hallmark: str  # in words
    hallmarks: dict[Hallmark, float]
    supports: dict[str, float] = field(default_factory=dict)
    contradicts: dict[str, float] = field(default_factory=dict)
    advice: Callable[[Evidence], str] = lambda ev: ""
    prior: Callable[[Facts, float], float] | None = None  # adjusts the hallmark's prior from the facts
    # contradiction kind -> the kind (or kinds, any of them) that explains it away: when both are seen, the
    # contradiction does not count
    unless: dict[str, str | tuple[str, ...]] = field(default_factory=dict)


#: Keys that are also parts of other words ("lse" of "else" and "false"): matched as whole words only.
_WHOLE_WORDS = frozenset({"lse", "var", "std"})


def _axis_advice(ev: Evidence) -> str:
    """A square input made symmetric rescuing the case points at a reduction's axis (or an index) over that input;
    otherwise at the index a per-channel operand is read with."""
    # (an Evidence rebuilt from a stored row, as the replay does, holds no probes at all)
    if hasattr(ev, "symmetric") and symmetric_rescues(ev):
        return ("check the axis of each reduction over the square input (its row sums or means against its column "
                "ones: axis=1 against axis=0) and the order of its indices where it is read")
    return "check which index the per-channel operand is read with (column vs row, % N vs % M)"


def _op(ev: Evidence) -> str:
    """What the Spec computes, as far as its names and its reference's source say: variance, log-sum-exp, softmax,
    scan, reduction, matmul, or '' when none of them."""
    words = [ev.spec.name, getattr(ev.spec.kernel, "__name__", ""), getattr(ev.spec.reference, "__name__", "")]
    try:
        words.append(inspect.getsource(ev.spec.reference))
    except (OSError, TypeError):
        pass
    text = " ".join(words).lower()
    for op, keys in (("log-sum-exp", ("logsumexp", "log_sum_exp", "lse", "log_softmax")),
                     ("variance", ("var", "variance", "std", "stddev", "layernorm", "layer_norm", "batchnorm",
                                   "batch_norm", "rmsnorm", "rms_norm", "welford")),
                     ("softmax", ("softmax",)),
                     ("scan", ("cumsum", "cumprod", "scan", "prefix")),
                     ("matmul", ("matmul", "gemm", " mm(", ".mm(", "@", "bmm", "einsum")),
                     ("reduction", ("sum", "mean", "reduce", "norm", "max", "min", "argmax"))):
        if any(re.search(rf"(?<![a-z0-9]){re.escape(k)}(?![a-z0-9])", text) if k in _WHOLE_WORDS else k in text
               for k in keys):
            return op
    return ""


def _cancellation_advice(ev: Evidence) -> str:
    op = _op(ev)
    if op == "variance":
        return "compute the variance from centred values (two passes or Welford), not E[x^2] - E[x]^2"
    what = f"the {op}" if op else "the result"
    return (f"find where {what} is the difference of two large, nearly equal terms; compute it from centred values "
            "instead (subtract the mean or the max before combining, add it back after), or in a wider precision")


def _atomic_advice(ev: Evidence) -> str:
    if _op(ev) == "scan":
        return ("carry each program's running total into the programs after it (a second pass that adds the block "
                "totals, or a look-back); test with one block (the size that passes)")
    return ("combine the blocks' partial results with tl.atomic_add / atomicAdd, a carry or a second pass; test "
            "with one block (the size that passes)")


def _off_by_one_advice(ev: Evidence) -> str:
    modes = [name for name, values in ev.spec.params.items()
             if any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)]
    if modes:
        return (f"check each mask's comparison: offs < n, not offs <= n, and the bounds taken from {', '.join(modes)} "
                "(i - window < j, not i - window <= j): which side of the parameter's value is in")
    return "check the mask's comparison: offs < n, not offs <= n"


def _race_advice(ev: Evidence) -> str:
    readback = next((f for f in ev.lint if f.kind == "triton-atomic-readback"), None)
    if readback is not None:
        return (f"the load at line {readback.line} reads the total while other programs are still adding to it: "
                "finish the atomic adds in one kernel and read the total in a second kernel launched after it")
    if in_place_movement(ev) is not None:
        return ("an in-place move must read each element before any program overwrites it: let exactly one program "
                "handle each pair or tile it exchanges (each swap once), or write into a separate output")
    if ev.arange_permutes and any(f.kind == "race-WW" for f in ev.findings()):
        return ("each element of a movement has one owner: let exactly one program handle each pair or tile it "
                "exchanges (each swap once), so no two programs store to the same element")
    return "run compute-sanitizer racecheck; look for a missing barrier or atomic"


def _crash_advice(ev: Evidence) -> str:
    dependent = any(o.kind == "oob-data-dependent" for d in ev.decisions for o in d.observations)
    if dependent:
        where = next((f"{f.file}:{f.line}" for f in ev.findings() if f.kind == "out-of-bounds" and f.line), "")
        at = f" (the out-of-bounds access at {where})" if where else ""
        return (f"clamp or check the index computed from the data before the load or store{at}: a value outside the "
                "range the index assumes (a table's [0, 1], a class id, a bin edge; NaN and Inf included) sends it "
                "out of the tensor")
    return ("run the smallest crashing case alone (the repro script) under compute-sanitizer memcheck on a GPU, or "
            "under kcheck's interpreter checks on a CPU, for the faulting line")


def _raises_prior(facts: Facts, prior: float) -> float:
    failing = facts.ev.failing
    raised = [r for r in failing if r.reasons_of(ReasonKind.KERNEL_RAISED)]
    share = len(raised) / max(len(failing), 1)
    # every failing case raised: that is the story. Some cases that raised beside others that computed wrong values
    # (a launcher that refuses some shapes) are a second finding: kept below 0.5, so any cause whose hallmark
    # explains the wrong values ranks first, however many cases raised
    return 0.95 if share == 1 else min(0.3 + 0.5 * share, 0.49)


def _crash_prior(facts: Facts, prior: float) -> float:
    failing = facts.ev.failing
    crashed = [r for r in failing if r.status.value in ("crashed", "timeout")]
    # below a cause that explains where it crashes (only past 2**31, only at ragged sizes, a misaligned address)
    return prior + (0.1 if crashed and len(crashed) == len(failing) else 0.0)


# a failure that does not come back on the same inputs is timing: a bound, an index or a formula is wrong every run
_TIMING = {"flaky": 0.3}
_AXIS = {"square-only": 0.3, "race-beyond-edge": 0.3, "past-one-block": 0.3, "nonfinite-large": 0.3,
         "nonfinite-zero": 0.3, **_TIMING}

PROFILES: list[Profile] = [
    Profile("no-op", "the output is exactly an input or zeros, or never written",
            {("noop",): 0.97, ("never-written",): 0.97, ("unwritten-slice",): 0.8, ("written-one-slice",): 0.75},
            # a kernel that writes part of its output at other sizes runs: its grid or loop bounds drop the rest
            # and one that passes at every multiple of a block, or up to one block, computes there
            # and so does one that passes at every size below 2**31 elements: a bound that wraps past int32 (a mask
            # "offs < M * N" whose product turns negative) leaves the whole output unwritten there alone
            contradicts={"partly-written": 0.3, "unwritten-tail": 0.3, "edge-pattern": 0.3, "past-one-block": 0.3,
                         "large-only": 0.3, **_TIMING},
            # (one slice of a dimension of fixed size left unwritten at every shape, the rest right: the store of that
            # slice deleted, which is written "partly", and may be the dimension's last slice; or one slice alone
            # written at every size, the loop's store deleted)
            unless={"partly-written": ("unwritten-slice", "written-one-slice"),
                    "unwritten-tail": ("unwritten-slice", "written-one-slice")},
            advice=lambda ev: "check that the launcher launches the kernel and returns the buffer the kernel writes, "
            "and that each plane or channel of the output has its store (a never-written slice)"),
    Profile("int32-overflow", "only the past-2**31 case fails (or, with nothing failing, the static int32 finding)",
            {("large-only",): 0.93, ("static-int32", "nothing-failed"): 0.55},
            {"static-int32": 0.0, "never-written": 0.03, "length-passes": 0.02},
            # the row's length fails below 2**31 elements too: its sum's rounding, not an offset
            {"fails-at-length": 0.5},
            advice=lambda ev: "cast the program id or the row index to int64 before multiplying by a stride (kcheck "
            "lint shows the line); run the past-2**31 case on a GPU with the memory"),
    Profile("edge-guard", "fails at non-multiples of a block and passes at the multiples (or the errors lie past the "
            "last full block)",
            {("edge-pattern",): 0.75, ("edge-decided",): 0.75, ("tail-errors",): 0.6, ("oob-wide",): 0.55},
            {"oob": 0.1, "edge-decided": 0.1, "crash-illegal-address": 0.05, "config-dependent": 0.05,
             "vector-edge": 0.05},
            {**_AXIS, "oob-single-lane": 0.15, "ragged-passes": 0.3, "edge-accesses-clean": 0.3, "noop": 0.3,
             "oob-data-dependent": 0.3, "threshold-follows-data": 0.3,
             "layout-only": 0.3, "systematic-error": 0.3, "oob-vector": 0.3, "reads-one-past": 0.15,
             "unwritten-interior": 0.3, "ignores-last": 0.3, "ignores-tail": 0.3, "oob-at-origin": 0.3,
             "wrong-in-bounds": 0.3, "crash-follows-data": 0.3, "unwritten-slice": 0.3},
            advice=lambda ev: "add the bounds mask (offs < n) to the load/store at the line the checks name; run "
            "compute-sanitizer memcheck (or kcheck in the interpreter) on the failing size for the line"),
    Profile("off-by-one-mask", "each out-of-bounds access is a single lane, one element past the end (or only the "
            "last element wrong)",
            {("oob-single-lane", "edge-pattern"): 0.88, ("oob-single-lane",): 0.7, ("last-element-wrong",): 0.75,
             # the same band at one end at every size, written, in bounds: a window's or a stencil's boundary test
             ("edge-band",): 0.7,
             ("reads-one-past",): 0.6, ("ignores-last",): 0.85,
             # wrong exactly past a parameter's value (a window, a band's width): the comparison with it is off
             ("param-threshold", "param-threshold-moves"): 0.8, ("param-threshold",): 0.6},
            {"edge-pattern": 0.0}, {**_AXIS, "reads-ignored": 0.3, "errors-beyond-boundary": 0.3,
                                    "oob-data-dependent": 0.3, "threshold-follows-data": 0.3,
                                    "oob-at-origin": 0.3},
            # a store one past each row's end lands on the next row's first element, which that row's program
            # writes too: programs race at every size, by the bound's one extra lane
            unless={"race-beyond-edge": "oob-single-lane"},
            advice=_off_by_one_advice),
    Profile("tail-tile-dropped", "output elements never written past the last full block (or an edge pattern with "
            "no access out of bounds)",
            # a grid that rounds down launches nothing below one block: there the output is left as it was (an
            # in-place update holds its input, which no poison marks), where a missing guard still computes
            {("unwritten-tail",): 0.85, ("unwritten", "edge-pattern"): 0.85, ("edge-accesses-clean",): 0.6,
             ("nonfinite-below-one-block",): 0.85,
             ("ignores-tail", "edge-pattern"): 0.85, ("ignores-tail",): 0.7, ("noop", "edge-pattern"): 0.8},
            {"edge-pattern": 0.05, "tail-errors": 0.03},
            # a dropped tail leaves elements as they were or loses their terms: it computes no NaN
            # and it drops the same elements whatever the data: a threshold that moves with the seed is the data's
            # nor any on randn or all-zero data (its unwritten elements are poison, which the observations leave
            # out), and an input at ones cannot put back the elements it never wrote
            # nor a misaligned address: a vector path (float4) taken on a length its width does not divide both
            # drops the remainder and reads rows that start off their alignment; the alignment is the cause
            # nor the same slice of a dimension of fixed size at every shape: no block lies along such a dimension
            {"oob": 0.3, "square-only": 0.3, "race-beyond-edge": 0.3, "past-one-block": 0.3,
             "unwritten-interior": 0.3, "nonfinite-edge": 0.3, "threshold-follows-data": 0.3, "unwritten-slice": 0.3,
             "nonfinite-randn": 0.3, "nonfinite-zero": 0.3, "ones-rescues": 0.3, "misaligned": 0.3, **_TIMING},
            advice=lambda ev: "check the grid (triton.cdiv, not //) and the loop bounds over tiles"),
    Profile("missing-atomic", "right up to one block and wrong past it, or races between programs",
            {("past-one-block",): 0.55, ("race-write-write",): 0.75, ("order-dependent",): 0.7,
             ("flaky", "reduces"): 0.65},
            # (the seeds experiment keeping the threshold where it was: the size's, not the data's)
            {"race-between-programs": 0.08, "race-right-values": 0.08, "past-one-block": 0.08, "reduces": 0.03,
             "reduce-across-blocks": 0.06, "order-dependent": 0.08, "blocks-decided": 0.05,
             "threshold-holds-seeds": 0.05},
            # lost updates stay inside the tensor: accesses past its end are an edge bug whose stores land on other
            # programs' elements; a program reading others' results unordered is a race, not a lost update
            # and a kernel that adds atomically and loads the total back in the same launch loses no update: it
            # reads before the others have added theirs (what is wrong past one block is when it reads)
            {"edge-decided": 0.3, "square-only": 0.3, "nonfinite-large": 0.3, "nonfinite-zero": 0.3, "oob": 0.3,
             "race-read-only": 0.3, "differs-without-reduction": 0.3, "in-place-movement": 0.3,
             "static-atomic-readback": 0.3, "param-threshold": 0.3, "threshold-follows-data": 0.3,
             "movement-written-twice": 0.3},
            # (programs that store to the same element lose updates where the data sends them there: a bin's count)
            unless={"threshold-follows-data": "race-write-write"},
            advice=_atomic_advice),
    Profile("exp-overflow", "NaN/Inf only on large magnitudes, randn right",
            # finite errors beyond the same-precision baseline on ordinary data: a sum that loses precision (and may
            # overflow on large data too), not an exp that only large inputs push past the range
            # an exp past the range overflows in fp32 too on the same data: only the low precisions failing is their
            # range (an fp16 sum of squares), not the exp
            # (NaN on randn itself, gone at a smaller scale: an exp underflowing to 0 / 0 at ordinary distances; its
            # measured precision is not known yet, so it ranks the cause first without making it confident)
            {("nonfinite-large",): 0.9, ("nonfinite-shrinks",): 0.65}, {"scale-decided": 0.05},
            # (and NaN that no scale takes away is no value out of range)
            {"scaled-finite": 0.3, "baseline-only": 0.3, "low-precision-only": 0.3, "nonfinite-scale-free": 0.3},
            advice=lambda ev: "subtract the row max before exp (x - max(x)), as the stable softmax / log-sum-exp"),
    Profile("division-by-zero", "NaN/Inf where a sum or spread is zero",
            # (NaN on the randn data too, at every scale: zeros that its data holds, as a sparse histogram does)
            {("nonfinite-zero", "zero-only"): 0.88, ("nonfinite-zero", "nonfinite-short"): 0.85,
             ("nonfinite-zero", "nonfinite-scale-free"): 0.85,
             ("nonfinite-edge", "edge-accesses-clean"): 0.86, ("nonfinite-short",): 0.6, ("nonfinite-edge",): 0.55,
             ("nonfinite-zero",): 0.5, ("nonfinite-zero", "nonfinite-randn-rare"): 0.8},
            # NaN read from memory past the tensor (poison) is not a zero denominator
            # nor is NaN that only non-contiguous cases get: kcheck pads strided views with NaN, so a kernel that
            # assumes its rows contiguous reads it
            # nor NaN on randn that a smaller scale of the same data takes away: a zero stays zero at any scale
            # nor the 0 / 0 of a loop that summed nothing: finite wrong values past one block are its dropped tail
            contradicts={"oob": 0.3, "edge-pattern": 0.3, "nonfinite-randn": 0.3, "nonfinite-strided": 0.3,
                         "nonfinite-constant-only": 0.3, "nonfinite-shrinks": 0.3, "nonfinite-below-one-block": 0.3,
                         "zeroed-rescues": 0.3},
            # NaN computed at ragged sizes with every access in bounds: the masked lanes' 0 / 0, which is this
            # cause at the edge of a block and on randn data
            unless={"edge-pattern": "nonfinite-edge", "nonfinite-randn": ("nonfinite-edge", "nonfinite-scale-free")},
            advice=lambda ev: "guard the denominator (max(denominator, eps), or tl.where(den == 0, ...)) as the "
            "reference does; lanes a mask turns off compute too, on the masked load's `other`: keep their terms "
            "out (tl.where(mask, term, 0))"),
    Profile("cancellation", "finite errors only with a large mean and a small spread",
            # constant rows are the extreme of a small spread beside a mean: the two terms are equal there
            # (or wrong at the few elements where rounding the inputs alone would fail the reference: near a pole,
            # where two close values are subtracted after each was rounded)
            {("large-mean-only",): 0.85, ("large-mean-baseline",): 0.8, ("nonfinite-constant-only",): 0.75,
             ("rounding-amplified",): 0.75,
             # (an error drawn anew by every rounding: digits lost, on ordinary data too where most elements are
             # wrong: log(1 + r) for log1p(r) with r of a few 1e-4; not confident alone, a low-precision sum's is
             # rounding too)
             ("rounding-noise", "dense-errors"): 0.65, ("rounding-noise",): 0.5,
             # the nominal data passes and the same data scaled down fails by an error drawn anew: 1 + x of a
             # small x loses x's digits (log(1 + x) for log1p, exp(x) - 1 for expm1), where an eps of another size
             # would move smoothly with the data
             ("tiny-scale-fails", "rounding-noise"): 0.8,
             # the wrong values on a grid of the large terms' ulp, far coarser than the result's own precision
             # (sqrt(R0^2 + u^2) - R0 at R0 = 5000 gives 0 or 2**-11 where the result is 1e-5 to 1e-3): only a
             # difference of large, nearly equal terms rounds onto that grid
             ("coarse-grid",): 0.8,
             # zeros on the nominal data and computed values on the same data scaled up: the result
             # rounds to nothing at ordinary sizes (1 - cos(x) is exactly 0 in fp32 for |x| < 2**-12); not
             # confident alone, a threshold off by orders of magnitude does it too
             ("noop-follows-scale",): 0.6},
            {"shift-decided": 0.05},
            # a formula that cancels is right on randn data (mean zero): fp32 randn cases wrong far beyond rounding
            # are another bug, whatever a large-mean case beside them loses (unless they are wrong where randn data
            # itself puts two close values against each other)
            # and digits lost are rounding, drawn anew when the inputs move a little: an error that moves smoothly
            # with them is the formula's
            {"nonfinite-large": 0.3, "shift-passes": 0.3, "wide-precision-gross": 0.3, "smooth-error": 0.3},
            # (unless the randn errors are rounding drawn anew: a formula that loses digits on ordinary data, as
            # log(1 + r) does on small r, fails randn and passes once the data sits far from zero)
            # (nor where the wrong values sit on the large terms' grid: a constant of the operation (a range of
            # kilometres) is the large term there, not the data's mean, and the kernel's output stays on that grid
            # while the reference moves smoothly)
            # (nor where the output is zeros on small data and computed on large: its error is the reference itself,
            # which moves smoothly, and data far from zero computes)
            unless={"wide-precision-gross": ("rounding-amplified", "rounding-noise", "coarse-grid",
                                             "noop-follows-scale"),
                    "shift-passes": ("rounding-noise", "noop-follows-scale"),
                    "smooth-error": ("coarse-grid", "noop-follows-scale")},
            advice=_cancellation_advice),
    Profile("low-precision-accumulation", "within the tolerance table but beyond the same-precision baseline, or "
            "failing only below fp32",
            {("baseline-only",): 0.85, ("low-precision-only",): 0.7},
            {"error-grows": 0.03, "wider-precision-passes": 0.03},
            # an accumulator's dtype loses the same digits at every run (gross run-to-run differences are a race),
            # and loses them on randn data too, not on large-mean data alone (that is a formula that cancels); it
            # loses them gradually with the length, not at block boundaries, past a tensor's end or off the square
            # and it cannot make the fp32 cases wrong far beyond rounding unless it grows with the length, nor make
            # NaN/Inf of all-zero inputs (a sum of zeros is zero in any precision: that is a division by zero)
            {"nondeterministic": 0.3, "large-mean-baseline": 0.3, "past-one-block": 0.3, "edge-pattern": 0.3,
             "oob": 0.3, "square-only": 0.3, "wide-precision-gross": 0.3, "nonfinite-on-zeros": 0.3,
             "smooth-error": 0.3},
            advice=lambda ev: "accumulate in fp32 (tl.float32 / float) and cast once at the end; keep indices and "
            "intermediates out of the low precision too"),
    Profile("uninitialized-accumulator", "passes when the outputs are zeroed first, fails when poisoned",
            {("zeroed-rescues",): 0.92},
            # kcheck's poison is the same at every run: a kernel reading it is wrong the same way each time; runs on
            # the same inputs that differ by more than reordering are a race (a zeroed run that passed was luck)
            # and it is wrong at every shape: passing every square one is an index, a never-written tail a bound
            # a kernel that reads past a tensor's end may read the output's memory next to it: zeroing that changes
            # what it reads, so the rescue says nothing about an accumulator
            # (a failure that did not come back on the same inputs is timing too: the zeroed run passed by luck)
            contradicts={"nondeterministic": 0.3, "square-only": 0.3, "unwritten-tail": 0.3, "oob": 0.3, **_TIMING},
            advice=lambda ev: "initialise the accumulator (tl.zeros / 0.0f) instead of loading the output; or zero "
            "the output in the launcher"),
    Profile("wrong-axis", "a per-channel operand (1-D, or broadcast along a dimension), and failures that need two "
            "dims to differ (or vanish when that operand is all ones); or outputs that change with a slice of an "
            "input the operation keeps apart from them; or a square input's failure that vanishes when it is made "
            "symmetric (the reference of its transpose not matching: not the whole input read transposed)",
            # (every operand at ones at once: 0.62, a wrong index into them is hidden as well)
            {("vector-ones-rescues",): 0.88, ("square-only", "vector-operand"): 0.8, ("oob-vector",): 0.7,
             ("vectors-ones-rescue",): 0.62,
             ("mixes-slices",): 0.72, ("symmetric-rescues",): 0.75},
            {"vector-ones-rescues": 0.05, "oob-vector": 0.05, "mixes-slices": 0.03, "ones-hides-mixing": 0.03},
            # another input at ones righting the values too: constant data hides any element read in the wrong
            # place (a race on a stale tile, a wrong offset), not the per-channel operand's axis in particular
            # the operand read past its end only at sizes that are not multiples of a block: its load lacks the mask
            # a read at the wrong place is wrong the same way every run: runs on the same inputs that differ grossly
            # are programs racing (and the operand at ones "rescuing" one run is as likely their luck)
            # NaN from all-zero inputs that the operand at ones removes: the ones took a zero denominator away, they
            # did not put a misplaced operand right (a wrong axis on zeros computes zeros)
            # and an operand read on the wrong axis changes outputs outside a raised slice: every slice kept apart
            # says the operands are read where they should be; and an operation that only moves values (arange's
            # outputs are its inputs' values) has no reduction or broadcast to take along an axis: a value it puts
            # at another position is an index; nor does passing every square shape with no per-channel operand (a
            # reduction over the wrong axis is wrong on squares too: a GEMM reading B with rows K long mixes B's
            # columns, and only its squares pass)
            {"transposed-reference": 0.3, "vector-ones-fails": 0.3, "ones-rescues": 0.3, "vector-edge": 0.3,
             "nondeterministic": 0.3, "nonfinite-on-zeros": 0.3, "oob-data-dependent": 0.3, "keeps-slices": 0.3,
             "arange-misplaced": 0.3, "square-only-no-vector": 0.3, "rounding-noise": 0.3, **_TIMING},
            advice=_axis_advice),
    Profile("index-transposition", "passes on square shapes only, or matches a transposed reference",
            {("transposed-reference",): 0.9, ("arange-transposed",): 0.9, ("square-only",): 0.65,
             ("swapped-roles",): 0.8, ("arange-misplaced",): 0.6, ("unwritten-interior",): 0.6,
             # an address wrong at the tile's origin, fixed by the shape: a formula (strides, the order of the
             # indices), not an index read from the data, which "oob-data-dependent" contradicts
             ("oob-at-origin",): 0.5, ("wrong-in-bounds",): 0.5},
            {"everywhere-wrong": 0.15, "ones-rescues": 0.1, "mixes-slices": 0.05, "symmetric-rescues": 0.05},
            # an access whose address moves with the data is an index read from it: a stride's is fixed by the shape
            # and a wrong stride or index maps elements one to one: two programs storing to the same element of a
            # movement move it twice
            # and a swapped stride sends lanes far past an end, many at once: accesses each a single lane just past
            # the end are a bound one too far (every stored row with them was an off-by-one)
            # nor does it leave every slice of every dimension kept apart: swapped indices move a raised slice's
            # change to other rows or columns
            {"vector-ones-rescues": 0.3, "systematic-error": 0.3, "layout-only": 0.3, "value-band": 0.3,
             "oob-data-dependent": 0.3, "movement-written-twice": 0.3, "oob-single-lane": 0.3, "keeps-slices": 0.3,
             "unwritten-slice": 0.3, "written-one-slice": 0.3, "rounding-noise": 0.3, **_TIMING},
            # (outputs off by a fraction everywhere are what a transposed matrix near the identity gives, where the
            # reference of the transposed input, run on the same data, matches the kernel)
            unless={"systematic-error": "transposed-reference"},
            advice=lambda ev: "check the strides and the order of the indices (row * stride_row + col * stride_col); "
            "on arange inputs, read which element each wrong output came from"),
    Profile("missing-syncthreads", "a racecheck hazard in shared memory (or runs that differ, with shared memory)",
            # a kernel whose source declares shared memory: Triton's kernels share memory the compiler manages and
            # fences, so a racecheck hazard there is not a barrier their author left out
            {("shared-race", "shared-memory"): 0.93, ("nondeterministic", "shared-memory"): 0.82},
            {"shared-race": 0.05},
            # a barrier found under a thread-dependent branch: the barrier is there, some threads skip it
            {"static-divergent-barrier": 0.3},
            advice=lambda ev: "put __syncthreads() between the shared-memory writes and the reads of other threads; "
            "run compute-sanitizer racecheck (kcheck sanitize --tool racecheck) for the line"),
    Profile("divergent-barrier", "synccheck's (or the static check's) barrier under a thread-dependent branch",
            {("divergent-barrier",): 0.9, ("static-divergent-barrier",): 0.6},
            # the threads that skip the barrier race on shared memory: what a divergent barrier looks like at run time
            {"nondeterministic": 0.2, "shared-race": 0.2},
            advice=lambda ev: "move __syncthreads() out of the thread-dependent branch (all threads must reach it)"),
    Profile("race", "repeated runs on the same inputs differ by more than 64 ULP (or the kernel loads back what it "
            "adds atomically, and fails past one block)",
            # an in-place movement accumulates nothing: the programs that race, or that are right only as long as
            # one of them covers the tensor, read what another has overwritten
            {("nondeterministic",): 0.6, ("race-read-only",): 0.78, ("movement-written-twice",): 0.88,
             ("in-place-movement", "race-between-programs"): 0.85, ("in-place-movement", "past-one-block"): 0.8,
             ("in-place-movement", "order-dependent"): 0.8, ("in-place-movement", "flaky"): 0.85, ("flaky",): 0.6,
             ("static-atomic-readback", "past-one-block"): 0.86, ("static-atomic-readback", "order-dependent"): 0.85,
             ("static-atomic-readback", "nondeterministic"): 0.85, ("static-atomic-readback",): 0.6},
            {"order-dependent": 0.05, "race-right-values": 0.05, "differs-without-reduction": 0.05},
            {"oob": 0.3},
            advice=_race_advice),
    Profile("nondeterministic-reordering", "runs differ by a few ULP and nothing is grossly wrong",
            {("nondeterministic-ulp",): 0.5}, contradicts={"gross": 0.3},
            advice=lambda ev: "a reduction order that varies: not a bug if the tolerance covers it"),
    Profile("misaligned-access", "a misaligned-address crash or finding",
            {("misaligned",): 0.92},
            advice=lambda ev: "use vector loads only on addresses aligned to their width (check n % 4 == 0 and the "
            "row offset), else a scalar path"),
    Profile("stride-assumption", "only non-contiguous inputs fail; the same shapes contiguous pass",
            {("layout-only",): 0.9}, {"nonfinite-strided": 0.1},
            advice=lambda ev: "address rows with the tensor's own strides (x.stride(0), passed to the kernel), or "
            "make the input contiguous in the launcher"),
    Profile("wrong-constant", "off at nearly every element of ordinary data by a fraction of the values, at every "
            "shape (square ones too), with no NaN, unwritten element or access out of bounds; or off exactly where "
            "an input's values lie in one band",
            # (wrong at every size and at most elements, with each element read where the operation reads it: the
            # arithmetic; below the hallmarks that say which arithmetic, and no more than a guess beside any
            # contradiction)
            {("systematic-error",): 0.6, ("tiny-scale-fails",): 0.75, ("value-band",): 0.75, ("scaled-output",): 0.8,
             ("everywhere-wrong", "keeps-slices", "dense-errors"): 0.55},
            # (every slice kept apart is part of that hallmark only: beside another one it says nothing of which
            # arithmetic, and a formula that loses digits keeps its slices apart too)
            {"ones-rescues": 0.05, "everywhere-wrong": 0.05},
            {"square-only": 0.3, "edge-pattern": 0.3, "past-one-block": 0.3, "oob": 0.3, "layout-only": 0.3,
             "low-precision-only": 0.3, "large-mean-only": 0.3, "transposed-reference": 0.3,
             "arange-transposed": 0.3, "arange-misplaced": 0.3, "vector-ones-rescues": 0.3, "zeroed-rescues": 0.3,
             "vectors-ones-rescue": 0.3,
             "race-between-programs": 0.3, "nondeterministic": 0.3, "reads-one-past": 0.3, "reads-ignored": 0.3,
             "ignores-last": 0.3, "ignores-tail": 0.3, "mixes-slices": 0.3, "oob-vector": 0.3,
             # a wrong coefficient stays wrong on symmetric data: rows and columns confused do not
             "symmetric-rescues": 0.3,
             # nor does it crash the process on some data only: an address taken from the data does
             "crash-follows-data": 0.3,
             # and its error moves smoothly with the inputs: one drawn anew by each rounding is digits lost; its
             # values have full precision, not the grid of two large terms' ulp
             "rounding-noise": 0.3, "coarse-grid": 0.3, **_TIMING},
            # a coefficient that is 0 in the reference at one element makes the kernel "read" it: one symptom
            unless={"reads-one-past": "errors-beyond-boundary"},
            advice=lambda ev: "compare the kernel's constants and coefficients with the reference's term by term "
            "(a scale such as 1/ln 2 for exp2, a beta, an eps, a 1/n); run one tiny case by hand"),
    Profile("kernel-raises", "the kernel or its launcher raised",
            {("raises",): 0.95}, prior=_raises_prior,
            advice=lambda ev: "read the exception: a launcher that cannot take this shape, a compile error, a bad "
            "argument"),
    Profile("kernel-crash", "the kernel crashed its process or hung (or its addresses, taken from the data, leave "
            "the tensors)",
            # an index read from the data (a table lookup, a gather) that nothing clamps faults on the values that
            # put it far out; near ones read garbage, and the interpreter flags both
            # (crashes on large or infinite data alone, the same sizes of randn running: 0.65, its precision not
            # yet measured)
            {("crash",): 0.6, ("oob-data-dependent",): 0.8, ("crash", "oob-data-dependent"): 0.9,
             ("crash", "crash-follows-data"): 0.65},
            {"crash-illegal-address": 0.0, "threshold-follows-data": 0.05}, prior=_crash_prior, advice=_crash_advice),
    Profile("tolerance", "every failure is at rounding level (a few times its tolerance), or the Spec's own "
            "reference or inputs raise",
            {("all-rounding",): 0.55, ("spec-raises",): 0.95}, {"rounding-only": 0.05},
            {"baseline-only": 0.3, "error-grows": 0.3, "smooth-error": 0.3},
            advice=lambda ev: "fix the Spec first: its reference or input builder raised (the exception is in each "
            "case's reason), so the kernel was never judged" if any(spec_raise(r) for r in ev.failing)
            else "the failures are rounding: check the Spec's rtol/atol (or leave them to kcheck's table) and that the "
            "reference computes what the kernel does"),
]


def _extra_observations(facts: Facts) -> None:
    """Compound observations some profiles need."""
    ev = facts.ev
    if not ev.failing and facts.has("static-int32"):
        facts.add("nothing-failed", "no case failed here")
    if facts.has("nonfinite-zero"):
        others = [r for r in ev.failing if r.case.pattern not in ("zeros", "constant", "nonfinite") and facts.counts(r)]
        if not others:
            facts.add("zero-only", "every failure that counts is on zeros or constant rows")
    if facts.has("reads-one-past") and facts.has("systematic-error") and not facts.has("reduces"):
        facts.add("errors-beyond-boundary", "each output reads one input element, and most elements are wrong in "
                  "most ordinary cases: more than the elements next to those the reference ignores can explain, so "
                  "the read there is one symptom of a formula that differs everywhere (a coefficient that is 0 in "
                  "the reference only at that element)")
    reduce = set(ev.spec.reduce)
    for d, _, _ in facts.blocks:
        if d in reduce:
            facts.add("reduce-across-blocks", f"{d} is a reduction dimension: its blocks' partial results must be "
                      "combined")
    if facts.has("nondeterministic") and not reduce and not facts.has("race-write-write", "reduces"):
        facts.add("differs-without-reduction", "runs on the same inputs differ, and no dimension is reduced across "
                  "programs: a program reads what another writes, not a partial result lost")
    if facts.has("oob-vector") and facts.has("edge-pattern"):
        # read past its end only where a size is not a multiple of the block: the edge, not the axis it is read on
        facts.observations = [o for o in facts.observations if o.kind != "oob-vector"]
        facts.add("vector-edge", "the 1-D operand is read past its end only at sizes that are not a multiple of the "
                  "block (the edge pattern): its load lacks the bounds mask")
    if facts.has("layout-only"):
        _layout_meaning(facts)
    if facts.worst is Severity.ROUNDING and not facts.has("baseline-only") \
            and facts.has("rounding-only"):
        facts.add("all-rounding", "every failure is at rounding level")
    try:
        if backend_of(ev.spec.kernel).shares_memory(ev.spec.kernel):
            facts.add("shared-memory", "the kernel shares memory between the threads of a block")
    except Exception:  # a kernel whose sources cannot be read: no shared-memory observation
        pass


def _layout_meaning(facts: Facts) -> None:
    """Only the non-contiguous cases failing is a stride assumed where kcheck's non-contiguous layout has a stride
    to get wrong: rows padded in a tensor of two or more dims. A 1-D tensor's layout only starts one element into
    its buffer, which changes what lies past its end and its alignment, not a stride. And padded rows keep a kernel
    that assumes them contiguous inside the buffer: accesses out of bounds beside that failure are an edge the
    layout moved, not a stride."""
    ev = facts.ev
    # a Scalar has no layout; a Custom that declares no shape may build any
    shapes = [tuple(t.dims) if isinstance(t, Index) else shape_dims(t) for t in ev.spec.inputs
              if not isinstance(t, Scalar)]
    flat = all(d is not None and len(d) <= 1 for d in shapes)
    if not flat and not facts.has("oob"):
        return
    facts.observations = [o for o in facts.observations if o.kind != "layout-only"]
    if flat:
        facts.add("offset-only", "only the cases whose 1-D inputs start one element into their buffer fail: a 1-D "
                  "tensor has no row stride to assume; the start moves what lies past its end and its alignment")
    else:
        facts.add("layout-oob", "only the non-contiguous cases fail, and accesses go out of bounds: padded rows keep "
                  "a kernel that assumes them contiguous inside the buffer; the layout moved what lies past an end")


def _weight(observations: list[Observation]) -> float:
    """Each kind of observation counts once (two out-of-bounds findings are one piece of evidence)."""
    best: dict[str, float] = {}
    for o in observations:
        best[o.kind] = max(best.get(o.kind, 0.0), o.weight)
    return sum(best.values())


def score(prior: float | None, supports: list[Observation], contradicts: list[Observation]) -> float:
    """The score of a cause: its hallmark's prior (None: the hallmark was not seen) plus its supports' weights
    minus its contradictions' (each kind once); at least 0.5 with the hallmark and no contradiction, at most 0.45
    otherwise."""
    raw = (prior if prior is not None else GUESS) + _weight(supports) - _weight(contradicts)
    if prior is not None and not contradicts:
        return round(max(0.5, min(0.99, raw)), 3)
    return round(max(0.05, min(0.45, raw)), 3)


def _matched(profile: Profile, kinds: set[str] | frozenset[str]) -> tuple[list[Hallmark], set[str], set[str]]:
    """Which of ``profile``'s hallmarks the observation kinds show (the strongest first), which supports and which
    contradictions (a contradiction that its ``unless`` kind explains away left out)."""
    seen = sorted((h for h in profile.hallmarks if all(k in kinds for k in h)), key=lambda h: -profile.hallmarks[h])
    def lifted(k: str) -> bool:
        lifts = profile.unless.get(k, ())
        return any(x in kinds for x in ((lifts,) if isinstance(lifts, str) else lifts))

    against = {k for k in kinds if k in profile.contradicts and not lifted(k)}
    return seen, {k for k in kinds if k in profile.supports}, against


def evaluate(profile: Profile, facts: Facts) -> Cause | None:
    seen, supported, against = _matched(profile, {o.kind for o in facts.observations})
    supports = [replace(o, weight=profile.supports[o.kind]) for o in facts.observations if o.kind in supported]
    if not seen and not supports:
        return None
    hallmark_obs = list({(o.kind, o.text): o for h in seen for k in h for o in facts.get(k)}.values())
    prior = profile.hallmarks[seen[0]] if seen else None
    if prior is not None and profile.prior is not None:
        prior = profile.prior(facts, prior)
    # the hallmark's observations first (with their weight where they are supports too), then the other supports
    weighed = {(o.kind, o.text): o for o in supports}
    first = [weighed.get((o.kind, o.text), o) for o in hallmark_obs]
    supports = first + [o for o in supports if (o.kind, o.text) not in {(f.kind, f.text) for f in first}]
    contradicts = [replace(o, weight=profile.contradicts[o.kind]) for o in facts.observations if o.kind in against]
    s = score(prior, supports, contradicts)
    evidence = [o.text for o in supports] + [f"against: {o.text}" for o in contradicts]
    return Cause(profile.key, BUG_CLASSES[profile.key], s, evidence, profile.advice(facts.ev), supports,
                 contradicts, profile.hallmark, bool(seen))


def replay(kinds: set[str] | frozenset[str],
           fixed: dict[str, float] | None = None) -> list[tuple[str, float, Hallmark]]:
    """The causes these observation kinds alone rank, best first, as (key, score, the strongest hallmark seen, or
    ()): the rules replayed on a row the zoo scorer stored (its JSON keeps each row's observation kinds), to measure
    a change of weights on earlier rounds without running them again. The observations are those the observers of
    that run made; the causes whose prior reads the facts (kernel-raises, kernel-crash) take their score from
    ``fixed`` (the row's own), else their hallmark's prior (kernel-raises below 0.5: a few raising cases beside
    wrong values)."""
    out: list[tuple[str, float, Hallmark, bool]] = []
    for profile in PROFILES:
        seen, supported, against = _matched(profile, kinds)
        if not seen and not supported:
            continue
        prior = profile.hallmarks[seen[0]] if seen else None
        supports = [Observation(k, k, profile.supports[k]) for k in supported]
        contradicts = [Observation(k, k, profile.contradicts[k]) for k in against]
        s = score(prior, supports, contradicts)
        if profile.prior is not None and prior is not None and not contradicts:
            s = (fixed or {}).get(profile.key, min(s, 0.49) if profile.key == "kernel-raises" else s)
        out.append((profile.key, s, seen[0] if seen else (), bool(seen) and not contradicts))
    if not any(sure for *_, sure in out):
        out.append(("unknown", UNKNOWN, (), False))
    return [(k, s, h) for k, s, h, _ in sorted(out, key=lambda c: -c[1])]


def unknown(facts: Facts) -> Cause:
    seen = [o for o in facts.observations if o.kind not in ("gross",)] or facts.observations
    evidence = ["no cause's hallmark was seen; here is what the experiments showed:"] + [o.text for o in seen[:8]]
    return Cause("unknown", BUG_CLASSES["unknown"], UNKNOWN, evidence,
                 "read the experiments and the smallest failing case (the repro script); run on arange inputs to see "
                 "which element each wrong output came from", list(seen), [], "", False)


def diagnose(ev: Evidence, facts: Facts | None = None) -> list[Cause]:
    """The ranked causes: every profile that the observations propose, and ``unknown`` when none has its
    hallmark (with something failing)."""
    facts = facts or Facts(ev)
    _extra_observations(facts)
    causes = [c for p in PROFILES if (c := evaluate(p, facts)) is not None]
    failed = bool(ev.failing or ev.sanitizer)
    if failed and not any(c.hallmark_seen and not c.contradicts for c in causes):
        causes.append(unknown(facts))
    return sorted(causes, key=lambda c: -c.score)
