"""The seeds' symptom table (FR 4.6) and bug list (ZH 五/六) as rules over the evidence.

Each rule looks at the Evidence and, when its symptom is there, proposes a Cause with a score, the evidence in
words and the next check to run. Scores are ordinal (which explanation fits best), not probabilities.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .._results import Status
from .._spec import Tensor
from ._causes import BUG_CLASSES, Cause
from ._sweep import Evidence

Rule = Callable[[Evidence], Cause | None]
RULES: list[Rule] = []


def rule(fn: Rule) -> Rule:
    RULES.append(fn)
    return fn


def _cause(key: str, score: float, evidence: list[str], next_check: str) -> Cause:
    return Cause(key, BUG_CLASSES[key], score, evidence, next_check)


def _pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def _size_pattern(ev: Evidence) -> dict[str, tuple[list[int], list[int]]]:
    """Per swept dimension: (passing sizes, failing sizes). A size where the kernel raised is neither: an exception
    is not a wrong value (the kernel_raises rule speaks of it)."""
    return {d: ([v for v, ok, _ in rows if ok],
                [v for v, ok, r in rows if not ok and r.status is not Status.ERROR]) for d, rows in ev.sizes.items()}


def _edge_dims(ev: Evidence) -> list[tuple[str, int, list[int]]]:
    """Dimensions where every failing size is a non-multiple of some block B >= 16 and every multiple of B passes:
    the signature of an edge or tail bug. Returns (dim, B, failing sizes)."""
    out = []
    for d, (ok, bad) in _size_pattern(ev).items():
        if not bad:
            continue
        for b in (16, 32, 64, 128, 256, 512, 1024):  # the smallest block that explains the pattern
            mults = [v for v in ok + bad if v % b == 0]
            if mults and all(v % b for v in bad) and all(v in ok for v in mults):
                out.append((d, b, bad))
                break
    return out


def _block_dims(ev: Evidence) -> list[tuple[str, int, int]]:
    """Dimensions that pass up to a size T and fail at every size above it, multiples of blocks included:
    "wrong only with several blocks". Returns (dim, largest passing, smallest failing)."""
    out = []
    for d, (ok, bad) in _size_pattern(ev).items():
        if not bad or not ok:
            continue
        t = max(ok)
        first = next(r for v, good, r in ev.sizes[d] if v == min(bad))
        # lost blocks lose whole partial results: a large error at once, not a rounding error that grows with n
        gross = first.status is not Status.FAILED or any(
            c.mismatches and c.rel_l2 > 1e-2 for c in first.comparisons if not c.passed)
        if gross and all(v > t for v in bad) and min(bad) > 2 and any(_pow2(v) or v % 32 == 0 for v in bad) \
                and min(bad) <= 4 * t + 1:
            out.append((d, t, min(bad)))
    return out


def _oob(ev: Evidence) -> list:
    return [f for f in ev.findings() if f.kind == "out-of-bounds"]


@rule
def no_op(ev: Evidence) -> Cause | None:
    hits = [r for r in ev.failing if r.noop]
    never = [(r, c) for r in ev.failing for c in r.comparisons if c.numel and c.unwritten == c.numel]
    if not hits and not (never and len(never) == len([r for r in ev.failing if r.status is Status.FAILED])):
        return None
    evid = [f"{len(hits)} case(s): {hits[0].noop} ({hits[0].case.id})"] if hits else []
    if never:
        r, c = never[0]
        evid.append(f"{c.output} is never written at all in {len(never)} case(s) ({r.case.id}): every element still "
                    "holds the poison")
    return _cause("no-op", 0.97, evid,
                  "check that the launcher launches the kernel and returns the buffer the kernel writes")


@rule
def int32_overflow(ev: Evidence) -> Cause | None:
    large_bad = [r for r in ev.failing if r.case.axis == "large"]
    lint = [f for f in ev.lint if "int32" in f.kind]
    if large_bad and len(large_bad) == len(ev.failing):
        evid = [f"only the past-2**31 case(s) fail: {large_bad[0].case.id}"]
        evid += [f"static check: {f.file}:{f.line}: {f.message[:120]}" for f in lint[:2]]
        return _cause("int32-overflow", 0.93, evid, "cast the program id or the row index to int64 before "
                      "multiplying by a stride (kcheck lint shows the line)")
    if lint and not ev.failing:
        return _cause("int32-overflow", 0.4, [f"static check: {f.file}:{f.line}: {f.message[:120]}" for f in lint[:2]]
                      + ["no case failed here: the past-2**31 case needs a GPU with the memory"],
                      "run the large case on a GPU: kcheck check --case '*2147483649*' (or the Spec's large id)")
    return None


@rule
def edge(ev: Evidence) -> Cause | None:
    dims = _edge_dims(ev)
    oob = _oob(ev)
    unwritten = [c for c in ev.comparisons() if c.unwritten]
    tail = [c for c in ev.comparisons() if c.location.kind.startswith("tail")]
    if not dims and not oob and not tail:
        return None
    evid = [f"{d}: fails at {bad[:5]}, passes at every multiple of {b} tried" for d, b, bad in dims]
    evid += [f"{f.tool}: {f.message[:150]} at {f.file}:{f.line}" for f in oob[:2]]
    evid += [f"{c.output}: {c.location.text}" for c in tail[:1]]
    # one element past the end per access: the interpreter says how many lanes; memcheck, one record per thread
    single_lane = oob and all(("lanes out of bounds" not in f.message) if f.tool == "interpreter"
                              else f.count <= max(1, len(f.cases)) for f in oob)
    if unwritten and not oob:
        evid.append(f"{unwritten[0].unwritten} output elements never written (still poisoned)")
        return _cause("tail-tile-dropped", 0.9 if dims or tail else 0.7, evid,
                      "check the grid (triton.cdiv, not //) and the loop bounds over tiles")
    # an out-of-bounds access with no edge pattern in the sizes (a multiple of every block fails too) is more
    # likely a wrong index that runs off the end: the edge explanation then ranks lower
    score = 0.88 if dims else 0.6
    if single_lane:
        evid.append("each out-of-bounds access is a single lane: one element past the end")
        return _cause("off-by-one-mask", score, evid, "check the mask's comparison: offs < n, not offs <= n")
    if oob:
        return _cause("edge-guard", score, evid, "add the bounds mask (offs < n) to the load/store at that line")
    return _cause("edge-guard", 0.75 if dims else 0.5, evid,
                  "run compute-sanitizer memcheck on the failing size, or kcheck in the interpreter, for the line")


@rule
def several_blocks(ev: Evidence) -> Cause | None:
    dims = _block_dims(ev)
    races = [f for f in ev.findings() if f.kind in ("race-WW", "race-RW")]
    if not dims:
        return None
    evid = [f"{d}: passes up to {t}, fails from {f} on, multiples of blocks included: wrong only with several "
            "blocks" for d, t, f in dims]
    evid += [f"{f.tool}: {f.message[:150]}" for f in races[:2]]
    reduce = set(ev.spec.reduce)
    score = 0.86 if races or any(d in reduce for d, _, _ in dims) else 0.6
    return _cause("missing-atomic", score, evid, "combine the blocks' partial results with tl.atomic_add / "
                  "atomicAdd or a second pass; test with one block (the size that passes)")


def _nan(c: object) -> bool:
    return bool(getattr(c, "nan_mismatches", 0) or getattr(c, "inf_mismatches", 0))


@rule
def exp_overflow(ev: Evidence) -> Cause | None:
    large = [r for r in ev.failing if r.case.pattern == "large" and any(_nan(c) for c in r.comparisons)]
    mags = [(k, r) for k, r in ev.magnitudes if not r.ok and any(_nan(c) for c in r.comparisons)]
    randn_ok = not any(r.case.pattern == "randn" and r.case.axis in ("size", "seed") for r in ev.failing)
    if not (large or mags) or not randn_ok:
        return None
    evid = []
    if large:
        evid.append(f"NaN/Inf only on the large-magnitude pattern ({large[0].case.id})")
    if mags:
        first = min(k for k, _ in mags)
        ok = [k for k, r in ev.magnitudes if r.ok]
        evid.append(f"randn x {first:g} gives NaN/Inf" + (f"; x {max(ok):g} passes" if ok else ""))
    return _cause("exp-overflow", 0.9, evid, "subtract the row max before exp (x - max(x)), as the stable softmax")


@rule
def division_by_zero(ev: Evidence) -> Cause | None:
    zero = [r for r in ev.failing if r.case.pattern in ("zeros", "constant") and any(_nan(c) for c in r.comparisons)]
    others = [r for r in ev.failing if r.case.pattern not in ("zeros", "constant", "nonfinite")
              and r.status is not Status.ERROR]  # a case that raised has no values to weigh
    if not zero:
        return None
    score = 0.88 if not others else 0.5
    return _cause("division-by-zero", score, [f"NaN/Inf only where a sum or spread is zero: pattern "
                  f"{zero[0].case.pattern} ({zero[0].case.id})"],
                  "guard the denominator (max(denominator, eps)) as the reference does")


@rule
def cancellation(ev: Evidence) -> Cause | None:
    lm = [r for r in ev.failing if r.case.pattern == "large_mean"]
    # arange is a large mean too (values 0..n), constant rows a zero spread: both fail a cancelling formula
    others = [r for r in ev.failing if r.case.pattern not in ("large_mean", "constant", "large", "arange")]
    if not lm or others:
        return None
    return _cause("cancellation", 0.85, [f"wrong only with a large mean and a small spread ({lm[0].case.id}); "
                  "randn passes"], "compute the variance from centred values (two passes or Welford), not "
                  "E[x^2] - E[x]^2")


@rule
def accumulation(ev: Evidence) -> Cause | None:
    base = [r for r in ev.failing for c in r.comparisons if c.baseline is not None and c.baseline.required
            and not c.baseline.passed and not c.mismatches]
    if not base:
        return None
    c = next(c for c in base[0].comparisons if c.baseline is not None)
    b = c.baseline
    assert b is not None
    evid = [f"{len(base)} case(s) within the table tolerance but {b.kernel_max_abs:.3g} error against the "
            f"same-precision baseline's {b.baseline_max_abs:.3g} ({base[0].case.id})"]
    grows = _error_growth(ev)
    if grows:
        evid.append(grows)
    wide = [name for name, r in ev.precisions if r.ok and name in ("fp32", "tf32")]
    if wide:
        evid.append(f"the same case passes in {wide[0]}")
    return _cause("low-precision-accumulation", 0.85, evid, "accumulate in fp32 (tl.float32 / float) and cast once "
                  "at the end")


def _error_growth(ev: Evidence) -> str | None:
    for d in ev.spec.reduce:
        rows = ev.sizes.get(d, [])
        errs = [(v, max((c.max_abs for c in r.comparisons), default=0.0)) for v, _, r in rows if v >= 32]
        if len(errs) >= 3 and errs[-1][1] > 4 * max(errs[0][1], 1e-30):
            return f"the error grows with {d}: {errs[0][1]:.2g} at {errs[0][0]}, {errs[-1][1]:.2g} at {errs[-1][0]}"
    return None


@rule
def uninitialized(ev: Evidence) -> Cause | None:
    if ev.zeroed is None or not ev.zeroed.ok or ev.minimal is None:
        return None
    return _cause("uninitialized-accumulator", 0.92, [f"fails with kcheck's poisoned outputs, passes when they are "
                  f"zeroed first ({ev.minimal.case.id}): the kernel reads its output before writing it"],
                  "initialise the accumulator (tl.zeros / 0.0f) instead of loading the output; or zero the output "
                  "in the launcher")


@rule
def wrong_axis(ev: Evidence) -> Cause | None:
    rescued = [i for i, r in ev.ones.items() if r.ok]
    if not rescued or ev.minimal is None or ev.minimal.ok:
        return None
    names = [getattr(ev.spec.inputs[i], "name", None) or f"input {i}" for i in rescued]
    vec = [i for i in rescued if _is_vector(ev, i)]
    evid = [f"the failure vanishes when {', '.join(names)} is all ones: that input is read at the wrong place"]
    sq = _square_passes(ev)
    if sq:
        evid.append(sq)
    return _cause("wrong-axis" if vec else "index-transposition", 0.88 if vec else 0.7, evid,
                  "check which index the per-channel operand is read with (column vs row, % N vs % M)")


def _is_vector(ev: Evidence, i: int) -> bool:
    """Input i is a 1-D tensor (a per-channel operand)."""
    t = ev.spec.inputs[i]
    return isinstance(t, Tensor) and len(t.dims) == 1


def _square_passes(ev: Evidence) -> str | None:
    if ev.base is None:
        return None
    nominal = ev.base.sizes
    if len(nominal) < 2 or len(set(nominal.values())) != 1:
        return None
    value = nominal[next(iter(nominal))]
    # nearly every size that breaks the equality fails (an edge bug fails only at some of them)
    bad_dims = []
    for d, rows in ev.sizes.items():
        other = [ok for v, ok, _ in rows if v != value]
        if other and sum(not ok for ok in other) >= 0.8 * len(other):
            bad_dims.append(d)
    ok_at_nominal = all(ok for rows in ev.sizes.values() for v, ok, _ in rows if v == value)
    if bad_dims and ok_at_nominal:
        return (f"passes when the dims are equal ({nominal}), fails as soon as {', '.join(bad_dims)} differs: a "
                "dimension or stride is swapped")
    return None


@rule
def transposition(ev: Evidence) -> Cause | None:
    matches = [i for i, r in ev.transposed.items() if r.ok]
    sq = _square_passes(ev)
    swapped = [a for a in ev.arange if "transposed position" in a]
    if not (matches or sq or swapped):
        return None
    if any(r.ok and _is_vector(ev, i) for i, r in ev.ones.items()):
        return None  # wrong_axis explains it better
    evid = []
    if matches:
        names = [getattr(ev.spec.inputs[i], "name", None) or f"input {i}" for i in matches]
        evid.append(f"the output matches the reference of {', '.join(names)} transposed")
    if sq:
        evid.append(sq)
    evid += swapped[:2]
    return _cause("index-transposition", 0.9 if matches or swapped else 0.8, evid,
                  "check the strides and the order of the indices (row * stride_row + col * stride_col)")


@rule
def shared_memory_race(ev: Evidence) -> Cause | None:
    shared = [f for f in ev.findings() if f.kind.startswith("race") and f.tool == "racecheck"]
    if not shared:
        return None
    f = shared[0]
    return _cause("missing-syncthreads", 0.93, [f"racecheck: {f.message[:150]} at {f.file}:{f.line}"],
                  "put __syncthreads() between the shared-memory writes and the reads of other threads")


@rule
def divergent_barrier(ev: Evidence) -> Cause | None:
    found = [f for f in ev.findings() if f.kind == "divergent-barrier"]
    static = [f for f in ev.lint if f.kind == "divergent-barrier"]
    if not (found or static):
        return None
    f = (found or static)[0]
    return _cause("divergent-barrier", 0.9 if found else 0.6, [f"{f.tool}: {f.message[:150]} at {f.file}:{f.line}"],
                  "move __syncthreads() out of the thread-dependent branch (all threads must reach it)")


@rule
def nondeterminism(ev: Evidence) -> Cause | None:
    det = ev.repeat.determinism if ev.repeat is not None else None
    if det is None or not det.differing:
        return None
    if det.max_ulp > 64 and _shares_memory(ev):
        return _cause("missing-syncthreads", 0.82, [f"3 runs on the same inputs differ in {det.differing} elements "
                      f"by up to {det.max_ulp:.3g} ULP", "the CUDA C kernel shares memory between threads "
                      "(__shared__): a missing barrier is the usual cause"],
                      "run compute-sanitizer racecheck (kcheck sanitize --tool racecheck) for the line")
    if det.max_ulp > 64:
        return _cause("race", 0.8, [f"3 runs on the same inputs differ in {det.differing} elements by up to "
                      f"{det.max_ulp:.3g} ULP"], "run compute-sanitizer racecheck; look for a missing barrier or "
                      "atomic")
    return _cause("nondeterministic-reordering", 0.3, [f"runs differ by at most {det.max_ulp:.3g} ULP"],
                  "a reduction order that varies: not a bug if the tolerance covers it")


def _shares_memory(ev: Evidence) -> bool:
    from ..backends import uses_cuda

    return any("__shared__" in k.source for k in uses_cuda(ev.spec.kernel))


@rule
def misaligned(ev: Evidence) -> Cause | None:
    texts = ev.crashes() + [f.message for f in ev.findings() if f.kind == "misaligned"]
    hits = [t for t in texts if re.search(r"misaligned", t, re.I)]
    if not hits:
        return None
    return _cause("misaligned-access", 0.92, [hits[0][:160]], "use vector loads only on addresses aligned to their "
                  "width (check n % 4 == 0 and the row offset), else a scalar path")


@rule
def crash_oob(ev: Evidence) -> Cause | None:
    texts = [t for t in ev.crashes() if "illegal memory access" in t or "out of bounds" in t.lower()]
    if not texts:
        return None
    return _cause("edge-guard", 0.6, [texts[0][:160]], "run compute-sanitizer memcheck on the failing case for the "
                  "line (kcheck sanitize --case ...)")


@rule
def everywhere_wrong(ev: Evidence) -> Cause | None:
    """Systematic error at every size: an index or formula error (the checklist's arange step)."""
    rows = [r for rows in ev.sizes.values() for _, _, r in rows]
    # wrong values at every size tried (an exception is not a wrong value: the kernel or the Spec raised)
    if not rows or any(r.ok or r.status is not Status.FAILED for r in rows):
        return None
    evid = ["wrong at every size tried", *ev.arange[:2]]
    return _cause("index-transposition", 0.4, evid, "run on arange inputs and read which element each wrong "
                  "output came from (kcheck debug shows the first ones)")


@rule
def config_dependent(ev: Evidence) -> Cause | None:
    """Right with one launch configuration, wrong with another: the bug lives where the tiling differs."""
    if ev.minimal is None or not ev.configs:
        return None
    good = [label for label, r in ev.configs if r.ok]
    if not good:
        return None
    failing = ", ".join(f"{k}={v}" for k, v in ev.minimal.case.config) or "its config"
    evid = [f"the smallest failing case passes with {good[0]} and fails with {failing}"]
    blocks = _block_dims(ev)
    key = "missing-atomic" if blocks else "edge-guard"
    return _cause(key, 0.5, evid, "compare the two tilings: the edge or the combination of blocks that only one "
                  "of them has")


@rule
def kernel_raises(ev: Evidence) -> Cause | None:
    """The kernel (its launcher, Triton's compiler) raised a Python exception: no value to diagnose."""
    raised = [r for r in ev.failing if r.status is Status.ERROR and any("the kernel raised" in x for x in r.reasons)]
    if not raised:
        return None
    share = len(raised) / max(len(ev.failing), 1)
    first = next(x for x in raised[0].reasons if "the kernel raised" in x)
    # every failing case raised: that is the story; a few among many wrong values (a launcher that refuses the
    # past-2**31 shape, say) are a second finding, ranked below a cause that explains the values
    return _cause("kernel-raises", 0.95 if share == 1 else 0.3 + 0.5 * share,
                  [f"{len(raised)} of {len(ev.failing)} failing case(s) raised; first ({raised[0].case.id}): "
                   f"{first[:200]}"],
                  "read the exception: a launcher that cannot take this shape, a compile error, a bad argument")


def diagnose(ev: Evidence) -> list[Cause]:
    causes = [c for fn in RULES if (c := fn(ev)) is not None]
    best: dict[str, Cause] = {}
    for c in causes:  # one entry per class: the best-supported one, with the other rules' evidence added
        kept = best.get(c.key)
        if kept is None:
            best[c.key] = c
            continue
        if c.score > kept.score:
            best[c.key], c = c, kept
        best[c.key].evidence += [e for e in c.evidence if e not in best[c.key].evidence]
    return sorted(best.values(), key=lambda c: -c.score)
