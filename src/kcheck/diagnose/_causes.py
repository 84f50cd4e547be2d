"""The vocabulary of the diagnosis: the bug classes, the observations the experiments make, and the typed results.

An ``Observation`` is one thing the experiments showed (a kind and its words). A ``Cause`` is one ranked hypothesis:
the observations that support it, those that contradict it, whether its hallmark (the observation it cannot do
without) was seen, the score computed from them, and the next check to run. A ``Diagnosis`` is what ``kcheck
debug`` returns for one Spec: the ranked causes, the experiments that were run (sizes, patterns, configurations,
magnitudes, repeats, and the experiments run to decide between close causes), the smallest failing case and the
standalone repro script.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# key -> title. The zoo's planted bugs carry these keys (BUG_CLASS in each module).
BUG_CLASSES: dict[str, str] = {
    "edge-guard": "missing edge guard (a load or store without its bounds mask)",
    "off-by-one-mask": "off-by-one bound in a mask (<= instead of <)",
    "tail-tile-dropped": "tail tile dropped (grid or loop bound rounds down)",
    "missing-syncthreads": "missing __syncthreads() between shared-memory writes and reads",
    "divergent-barrier": "barrier in divergent code (__syncthreads() under a thread-dependent branch)",
    "int32-overflow": "int32 index overflow past 2**31 elements",
    "uninitialized-accumulator": "uninitialized accumulator (reads the output or memory before writing it)",
    "exp-overflow": "exp overflow without max subtraction",
    "low-precision-accumulation": "accumulation in a low precision (fp16/bf16 accumulator)",
    "index-transposition": "index or transposition error (a stride or dimension swapped)",
    "wrong-axis": "a reduction or a per-channel operand along the wrong axis",
    "missing-atomic": "inter-block result lost (a plain store where an atomic, a carry or a second pass is needed)",
    "cancellation": "catastrophic cancellation (a small result computed as the difference of large terms)",
    "misaligned-access": "misaligned vector access (float4 / wide load on an unaligned address)",
    "division-by-zero": "division by a sum or norm that can be zero",
    "no-op": "the kernel does not compute (returns an input, zeros, or leaves the output)",
    "race": "data race (results vary between runs by more than reordering)",
    "nondeterministic-reordering": "run-to-run differences of a few ULP: reduction order, not a bug",
    "tolerance": "the test's own tolerance or reference is wrong",
    "stride-assumption": "a stride assumed (rows taken as contiguous) where the tensor's own stride belongs",
    "wrong-constant": "a wrong constant or coefficient (the result off everywhere, yet shaped like the right one)",
    "kernel-raises": "the kernel or its launcher raises (a Python, launch or compile error)",
    "kernel-crash": "the kernel crashes its process (a signal, or a GPU fault that ends the context), or its "
                    "addresses, taken from the data and not clamped, leave the tensors",
    "unknown": "unknown: no cause's hallmark was seen (what the experiments showed is listed)",
}


@dataclass(frozen=True)
class Observation:
    """One thing the experiments showed. ``kind`` names it for the rules (``"square-only"``, ``"edge-pattern"``,
    ``"race-right-values"``, ...: see ``OBSERVATIONS``); ``text`` says it in words, with the sizes and cases.
    ``weight`` is what the observation adds to (supports) or takes from (contradicts) the score of the cause it is
    listed under; 0 where it is only what was seen."""

    kind: str
    text: str
    weight: float = 0.0


# kind -> what it means. The rules read only these.
OBSERVATIONS: dict[str, str] = {
    "noop": "the output is exactly an input, zeros or a constant, in most failing cases",
    "noop-some": "a few failing cases' output is exactly an input, zeros or a constant",
    "never-written": "an output is never written at all (every element still holds kcheck's poison)",
    "large-only": "only the past-2**31 case(s) fail",
    "static-int32": "the static check finds int32 index arithmetic that can overflow",
    "edge-pattern": "along a dimension, every failing size is a non-multiple of a block and every multiple passes",
    "edge-decided": "the deciding experiment: a ragged size fails where multiples of the block pass",
    "tail-errors": "the wrong elements lie past the last full block of an axis",
    "tail-on-uniform-only": "the wrong elements lie past the last full block only where the data is constant; "
                            "elsewhere they do not",
    "past-one-block": "along a dimension, right up to one block (or one program's reach) and wrong at every size "
                      "past it, multiples included",
    "errors-beyond-boundary": "an operation whose outputs each read one input is wrong at most elements: more than "
                              "a read next to the ignored elements explains",
    "nonfinite-edge": "NaN/Inf computed on ordinary data, only at sizes that are not multiples of the block (masked "
                      "lanes computing on their fill value)",
    "movement-written-twice": "the reference only moves values, and two programs store to the same element within "
                              "the tensors",
    "threshold-follows-data": "the size where the failures start along a dimension moves with the data's seed: a "
                              "rare value in the data fails, not the size",
    "threshold-holds-seeds": "the size where the failures start along a dimension is the same with other seeds",
    "oob-data-dependent": "the out-of-bounds accesses vanish on other values at the same shape: their addresses "
                          "come from the data (a table lookup, a gather, a bin) and nothing clamps them",
    "oob-any-data": "the out-of-bounds accesses stay on zeros and on ones at the same shape: the bound is fixed by "
                    "the shape",
    "scaled-output": "in several randn cases every wrong element shown is the expected value times one factor: the "
                     "output is the right one scaled",
    "nonfinite-randn-rare": "NaN/Inf on randn data only in fp16/bf16, at a handful of elements, the fp32 randn cases "
                            "finite: two values that cancel exactly in a short mantissa",
    "fails-at-length": "the failing past-2**31 case's longest dimension fails alone, far below 2**31 elements: the "
                       "length (a long sum's rounding), not an offset",
    "length-passes": "the failing past-2**31 case's longest dimension passes alone: only the whole tensor fails",
    "param-threshold": "the size where a dimension starts failing is the value of one of the case's parameters (a "
                       "window, a band), not a block",
    "param-threshold-moves": "a case with a smaller value of that parameter fails below that size: the threshold "
                             "moves with the parameter",
    "square-only": "passes on every square shape, fails on the non-square ones",
    "rounding-noise": "the kernel's error on a failing fp32 case changes by about as much as itself when every "
                      "input moves by a relative 2**-10: rounding drawn anew, digits lost",
    "smooth-error": "the kernel's error on a failing fp32 case changes by a few hundredths of itself at most when "
                    "every input moves by a relative 2**-10: the formula's error, which moves smoothly",
    "square-only-no-vector": "passes on every square shape, and no input is a per-channel operand whose wrong axis "
                             "a square shape would hide",
    "vector-operand": "an input is 1-D or broadcast along a dimension of another (a per-channel operand)",
    "vector-ones-rescues": "with the per-channel operand all ones, the values are right",
    "vectors-ones-rescue": "with every per-channel operand all ones at once (and not one at a time), the values are "
                           "right: constant operands hide a wrong axis and a wrong index into them alike",
    "ones-rescues": "with an input all ones, the values are right",
    "transposed-reference": "the output matches the reference of an input transposed",
    "symmetric-rescues": "with a square input made symmetric, (X + X^T) / 2, the values are right",
    "arange-transposed": "on arange inputs, wrong outputs hold the value of the transposed position",
    "arange-misplaced": "a data movement whose wrong outputs, on arange inputs, mostly hold another position's value",
    "swapped-roles": "the kernel is right when its inputs are passed in each other's place",
    "oob": "out-of-bounds accesses (interpreter checks, memcheck)",
    "oob-single-lane": "each out-of-bounds access is one lane, one element past the end",
    "unwritten": "output elements never written (still poisoned)",
    "unwritten-tail": "the never-written elements are past the last full block",
    "race-between-programs": "write-write or read-write races between programs on global memory",
    "race-right-values": "race findings on cases whose values are right",
    "race-beyond-edge": "programs race at sizes that no ragged edge explains (whole blocks, or no edge pattern)",
    "edge-accesses-clean": "an edge pattern, and the interpreter saw no access out of bounds: the tail is never "
                           "visited",
    "coarse-grid": "the wrong values sit on a grid far coarser than the expected values' precision (0 and 2**-11 "
                   "where the reference gives 1e-5 to 1e-3): the ulp of two large terms whose difference is taken",
    "edge-band": "the only wrong values are a band of the same width at the same end of a dimension, at several "
                 "sizes of it (the first W of a window, a stencil's last row): a boundary handled one off",
    "last-element-wrong": "the only wrong value is the last element (column, row) of an axis, written but wrong",
    "low-precision-only": "only the cases below fp32 fail; the fp32 ones pass",
    "order-dependent": "the result changes with the order the programs run in",
    "order-independent": "the result is the same whatever order the programs run in",
    "shared-race": "racecheck: a shared-memory hazard between threads",
    "divergent-barrier": "synccheck: a barrier under a thread-dependent branch",
    "nonfinite-large": "NaN/Inf only on large magnitudes (the large pattern, randn scaled up); randn is right",
    "nonfinite-zero": "NaN/Inf where a sum or spread is zero (zeros, constant rows)",
    "noop-follows-scale": "zeros on the nominal randn data, computed values on the same data scaled up",
    "nonfinite-randn": "NaN/Inf on plain randn data",
    "crash-follows-data": "the crashes are on some data patterns only; randn data of the same sizes runs",
    "nonfinite-shrinks": "NaN/Inf on the nominal randn case, gone when the same data is scaled down",
    "nonfinite-scale-free": "NaN/Inf on randn data at every scale tried, up and down",
    "nonfinite-below-one-block": "NaN/Inf only at ragged sizes below one block, finite wrong values at ragged sizes "
                                 "past it",
    "nonfinite-strided": "NaN/Inf only in non-contiguous cases (kcheck pads strided views with NaN)",
    "large-mean-baseline": "the only cases beyond the same-precision baseline have a large mean",
    "nonfinite-short": "NaN/Inf on randn data only where an axis is one or two elements long",
    "tiny-scale-fails": "the nominal randn case passes, and fails with finite errors when its data is scaled down",
    "large-mean-only": "finite errors only with a large mean and a small spread; randn, and randn of the same "
                       "magnitude, are right",
    "baseline-only": "within the tolerance table but beyond the same-precision baseline",
    "error-grows": "the error grows with the reduction length",
    "wide-precision-gross": "fp32 randn cases wrong far beyond rounding, the error not growing with the length",
    "rounding-amplified": "a few elements wrong, about as many as the reference puts outside the tolerance when its "
                          "inputs move by half an ulp",
    "sparse-randn": "a minority of the randn cases fail, each at a handful of finite elements: data-dependent",
    "wider-precision-passes": "the same case passes in a wider precision",
    "zeroed-rescues": "passes when the outputs are zeroed before the call instead of poisoned",
    "nondeterministic": "repeated runs on the same inputs differ by more than 64 ULP",
    "nondeterministic-ulp": "repeated runs differ by a few ULP",
    "misaligned": "a misaligned-address crash or finding",
    "crash": "the kernel crashed its process (a signal, a GPU fault) or hung",
    "crash-illegal-address": "the crash names an illegal or out-of-bounds address",
    "raises": "the kernel or its launcher raised a Python exception",
    "config-dependent": "the smallest failing case passes with another launch configuration",
    "everywhere-wrong": "wrong at every size tried",
    "rounding-only": "the failing case's error is at rounding level (a few times its tolerance)",
    "gross": "some case is wrong by far more than rounding",
    "empty-fails": "a case with an empty dimension fails (left out of the size and shape patterns)",
    "all-rounding": "every failure is at rounding level",
    "nothing-failed": "no case failed (the evidence is static)",
    "zero-only": "every failure that counts is on zeros or constant rows",
    "reduce-across-blocks": "the dimension that fails past one block is a reduction dimension",
    "shared-memory": "the CUDA C kernel shares memory between threads (__shared__)",
    "static-divergent-barrier": "the static check: a barrier under a thread-dependent branch",
    "blocks-decided": "the deciding experiment: one block passes, two full blocks fail",
    "scale-decided": "the deciding experiment: the same data scaled up gives NaN/Inf",
    "shift-decided": "the deciding experiment: a large mean fails, randn of the same magnitude passes",
    "shift-passes": "the deciding experiment: a large mean passes",
    "ragged-passes": "the deciding experiment: other ragged sizes pass",
    "vector-ones-fails": "the deciding experiment: with the per-channel operand all ones the values stay wrong",
    "scaled-finite": "the deciding experiment: the same data scaled up by 1e3 stays finite",
    "nonfinite-on-zeros": "NaN/Inf from all-zero inputs (no sum of zeros overflows: a division or a log of zero)",
    "nonfinite-constant-only": "NaN/Inf on constant rows, all-zero rows finite: equal terms whose difference rounds "
                               "below zero, not a zero denominator",
    "layout-only": "only non-contiguous inputs fail; the same shapes contiguous pass",
    "offset-only": "only the cases whose 1-D inputs start one element into their buffer fail (no stride to assume)",
    "layout-oob": "only non-contiguous inputs fail, beside accesses out of bounds (an edge the layout moved)",
    "systematic-error": "off at nearly every element of nearly every ordinary case, by a fraction of the values "
                        "(the output keeps the shape of the right one): a formula or a constant, not an index",
    "oob-vector": "a 1-D (per-channel) operand is read past its end: indexed along a longer dimension",
    "vector-edge": "a 1-D operand is read past its end only where a size is not a multiple of the block, or only "
                   "by the last tile's overhang",
    "differs-without-reduction": "runs differ and the Spec reduces no dimension across programs",
    "oob-wide": "an out-of-bounds access of many lanes at once (not one element past the end)",
    "wrong-in-bounds": "wrong values (gross, randn, contiguous) at a size where the interpreter saw every access in "
    "bounds, beside sizes whose accesses leave the tensors: the index is wrong everywhere, no mask is missing",
    "oob-at-origin": "the first element of program (0,0,0)'s tile accessed past the tensor's end, every dimension 8 or "
    "more: the address formula is wrong at its origin, which no missing mask explains",
    "race-write-write": "programs write the same global element (write-write races): updates can be lost",
    "race-read-only": "every race is a program reading what another writes, none writes the same element",
    "partly-written": "in some failing case the output is written except for a part (not a kernel that never runs)",
    "reads-one-past": "the kernel reads the input elements just past those the reference uses, and no farther",
    "in-place-movement": "the reference only moves values (a flip, a roll, a transpose) and the kernel writes an "
                         "input in place: nothing accumulates, programs can read what others overwrote",
    "reduces": "the outputs hold fewer elements than the largest input: each output combines several inputs",
    "flaky": "the smallest failing case passed when run again on the same inputs (a GPU's timing decides)",
    "unwritten-interior": "never-written elements inside the output, not a tail past the last block",
    "ignores-last": "NaN at the last element of an axis: the reference gives NaN, the kernel stays finite; NaN at "
                    "the one before the last, and at the first, it propagates",
    "ignores-tail": "NaN at the last elements of an axis (the last and the one before): the reference gives NaN, the "
                    "kernel stays finite; NaN at the first it propagates",
    "reads-ignored": "the kernel reads input elements the reference ignores, away from those it uses too",
    "value-band": "the wrong elements of the failing fp32 randn cases are those whose value in one input lies in one "
                  "band (or whose magnitude does): wrong by value, not by place",
    "mixes-slices": "raising one slice of an input (a dimension that is not reduced) changes the kernel's outputs "
                    "outside that slice, where the reference's stay: the kernel combines what the operation keeps "
                    "apart",
    "spec-raises": "the Spec's own reference or input builder raised in every failing case",
    "written-one-slice": "one slice of an output dimension alone is written, at several sizes of it; the others "
                         "never are",
    "unwritten-slice": "the never-written elements fill the same slices of an output dimension whose size stays the "
                       "same at every shape, and nothing else is wrong: one slice's store is missing",
    "dense-errors": "most ordinary (randn, contiguous) cases are wrong at most elements, with finite values, every "
                    "element written and no access finding",
    "keeps-slices": "raising one slice of each input along every dimension the operation keeps apart changes the "
                    "kernel's outputs inside that slice only, as the reference's: it reads each element where the "
                    "operation does",
    "static-atomic-readback": "the kernel loads the very pointer it adds into atomically, in the same launch: it "
                              "reads a total the other programs are still adding to",
    "ones-hides-mixing": "with the input whose slices the kernel combines all ones, the values are right: equal "
                         "slices hide the mixing",
}


@dataclass
class Cause:
    """A ranked hypothesis. ``score`` is computed from ``supports`` and ``contradicts`` (see ``_rules.score``):
    a cause whose hallmark was seen and that nothing contradicts scores 0.5 or more; any other at most 0.45, so it
    cannot outrank one whose hallmark is there. ``evidence`` is the supports in words, then the contradictions
    ("against: ..."), for readers of the JSON and HTML reports."""

    key: str  # one of BUG_CLASSES
    title: str
    score: float  # 0..1, higher is more likely; the list is sorted by it
    evidence: list[str] = field(default_factory=list)
    next_check: str = ""
    supports: list[Observation] = field(default_factory=list)
    contradicts: list[Observation] = field(default_factory=list)
    hallmark: str = ""  # the observation this cause cannot do without, in words
    hallmark_seen: bool = False

    def describe(self) -> str:
        lines = [f"{self.title} (score {self.score:.2f})"]
        lines += [f"  evidence: {e}" for e in self.evidence]
        if self.next_check:
            lines.append(f"  next: {self.next_check}")
        return "\n".join(lines)


@dataclass
class Experiment:
    """One probe the debugger ran: what it varied, the case id, and whether it passed."""

    axis: str  # size / pattern / config / magnitude / precision / repeat / stage / input / decide
    label: str  # e.g. "N=33", "pattern=zeros", "scale=1e4", "stage=load_only"
    case: str
    passed: bool
    detail: str = ""  # e.g. "3 of 33 elements wrong; unwritten 1; nonfinite 0"
    decided: str = ""  # a deciding experiment: which of the causes it was run for it settled, and why


@dataclass
class Diagnosis:
    spec: str
    failed: bool  # whether the Spec failed at all
    causes: list[Cause] = field(default_factory=list)
    experiments: list[Experiment] = field(default_factory=list)
    minimal_case: str | None = None
    repro: str | None = None  # path of the standalone script
    repro_output: str = ""  # the last lines the script printed when kcheck ran it
    error_maps: list[str] = field(default_factory=list)  # PNG paths
    seconds: float = 0.0
    budget_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)  # everything the experiments showed
    not_run: str = ""  # why no case ran (skipped here, untrusted, no worker), when none passed or failed

    @property
    def top(self) -> Cause | None:
        return self.causes[0] if self.causes else None

