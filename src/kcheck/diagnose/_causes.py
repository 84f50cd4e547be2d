"""The vocabulary of the diagnosis: the seeds' bug classes (FR 4.6, ZH 五/六) and the typed results.

A ``Cause`` is one ranked hypothesis with the evidence that supports it and the next check to run; a ``Diagnosis``
is what ``kcheck debug`` returns for one Spec: the ranked causes, the experiments that were run (bisection over
sizes, patterns, configurations, magnitudes, repeats), the smallest failing case and the standalone repro script.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# key -> what the seeds call it. The zoo's planted bugs carry these keys (BUG_CLASS in each module).
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
    "wrong-axis": "per-channel operand applied along the wrong axis",
    "missing-atomic": "inter-block result lost (plain store where an atomic or a second pass is needed)",
    "cancellation": "catastrophic cancellation (E[x^2] - E[x]^2 style formula)",
    "misaligned-access": "misaligned vector access (float4 / wide load on an unaligned address)",
    "division-by-zero": "division by a sum or norm that can be zero",
    "no-op": "the kernel does not compute (returns an input, zeros, or leaves the output)",
    "race": "data race (results vary between runs by more than reordering)",
    "nondeterministic-reordering": "run-to-run differences of a few ULP: reduction order, not a bug",
    "tolerance": "the test's own tolerance or reference is wrong",
    "kernel-raises": "the kernel or its launcher raises (a Python, launch or compile error)",
}


@dataclass
class Cause:
    key: str  # one of BUG_CLASSES
    title: str
    score: float  # 0..1, higher is more likely; the list is sorted by it
    evidence: list[str] = field(default_factory=list)
    next_check: str = ""

    def describe(self) -> str:
        lines = [f"{self.title} (score {self.score:.2f})"]
        lines += [f"  evidence: {e}" for e in self.evidence]
        if self.next_check:
            lines.append(f"  next: {self.next_check}")
        return "\n".join(lines)


@dataclass
class Experiment:
    """One probe the debugger ran: what it varied, the case id, and whether it passed."""

    axis: str  # size / pattern / config / magnitude / precision / repeat / stage / input
    label: str  # e.g. "N=33", "pattern=zeros", "scale=1e4", "stage=load_only"
    case: str
    passed: bool
    detail: str = ""  # e.g. "3 of 33 elements wrong; unwritten 1; nonfinite 0"


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

    @property
    def top(self) -> Cause | None:
        return self.causes[0] if self.causes else None
