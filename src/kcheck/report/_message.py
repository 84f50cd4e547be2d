"""The failure message: torch.testing.assert_close's shape, plus what only a kernel tool knows.

    softmax[M=1,N=129,fp32,randn,seed=0] FAILED
    output 0: Tensor-likes are not close!

    Mismatched elements: 1 / 129 (0.8%)
    Greatest absolute difference: 0.0123 at index (0, 128) (up to 8.8e-08 allowed)
    Greatest relative difference: 1 at index (0, 128) (up to 1e-05 allowed)
    Relative L2 error: 0.0312; greatest ULP distance: 1.7e+07 (float32)
    Where: the last column (128), in every row
    First mismatches:
      [0, 128]: 0.0 (ACTUAL), 0.0123 (DESIRED)
    Tolerance: fp32 table 1e-05; atol = rtol x rms(expected) = 1e-05 x 0.0088

    Case: M=1, N=129, precision=fp32, pattern=randn, layout=contiguous, seed=0
    Rerun: kcheck check FILE --case 'softmax[M=1,N=129,fp32,randn,seed=0]'

Users parse this text: its lines are tested one by one (tests/test_message.py).
"""

from __future__ import annotations

import math

from .._results import CaseResult, ReasonKind, Report, Status, kind_of
from ..compare import Comparison


def _num(x: float) -> str:
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return f"{x:.3g}"


def _idx(index: tuple[int, ...] | None) -> str:
    if index is None:
        return "?"
    return "(" + ", ".join(map(str, index)) + ("," if len(index) == 1 else "") + ")"


def _val(v: float) -> str:
    return repr(float(v)) if math.isfinite(v) else str(v)


def format_comparison(cmp: Comparison) -> list[str]:
    lines = [f"{cmp.output}: Tensor-likes are not close!", ""]
    if cmp.mismatches == 0 and not cmp.first:
        lines = [f"{cmp.output}: failed"]
        lines += [f"  {r}" for r in cmp.reasons]
        return lines
    tol = cmp.tolerance
    lines.append(f"Mismatched elements: {cmp.mismatches} / {cmp.numel} ({100 * cmp.mismatch_fraction:.1f}%)")
    worst_ok = cmp.worst is None or cmp.max_abs <= tol.atol + tol.rtol * abs(cmp.worst.expected)
    if worst_ok and cmp.first:
        # every mismatch is non-finite or unwritten: the finite figures would read as "no error"
        # the difference with a NaN is NaN, with an infinity infinite (not the actual value)
        at, what = _idx(cmp.first[0].index), _val(abs(cmp.first[0].actual - cmp.first[0].expected))
        lines.append(f"Greatest absolute difference: {what} at index {at} (up to {tol.atol:.2g} allowed)")
        lines.append(f"Greatest relative difference: {what} at index {at} (up to {tol.rtol:.2g} allowed)")
    else:
        lines.append(f"Greatest absolute difference: {_num(cmp.max_abs)} at index {_idx(cmp.max_abs_index)} "
                     f"(up to {tol.atol:.2g} allowed)")
        lines.append(f"Greatest relative difference: {_num(cmp.max_rel)} at index {_idx(cmp.max_rel_index)} "
                     f"(up to {tol.rtol:.2g} allowed)")
    # the L2 and ULP figures are over the elements finite in both: with NaN, Inf or unwritten elements, say so
    only = " (finite elements only)" if cmp.nan_mismatches or cmp.inf_mismatches or cmp.unwritten else ""
    lines.append(f"Relative L2 error{only}: {_num(cmp.rel_l2)}; greatest ULP distance{only}: {_num(cmp.max_ulp)} "
                 f"({cmp.dtype})")
    if cmp.unwritten:
        lines.append(f"Unwritten elements: {cmp.unwritten} (still hold the poison written before the call)")
    if cmp.nan_mismatches or cmp.inf_mismatches:
        lines.append(f"NaN in one of output and reference only: {cmp.nan_mismatches}; Inf differing: "
                     f"{cmp.inf_mismatches}")
    lines.append(f"Where: {cmp.location.text}")
    if cmp.first:
        lines.append("First mismatches:")
        for m in cmp.first:
            lines.append(f"  [{', '.join(map(str, m.index))}]: {_val(m.actual)} (ACTUAL), {_val(m.expected)} (DESIRED)")
    if cmp.baseline is not None and cmp.baseline.required and not cmp.baseline.passed:
        b = cmp.baseline
        lines.append(f"Baseline rule: max error {_num(b.kernel_max_abs)} > {b.factor:g} x {_num(b.baseline_max_abs)} "
                     f"(same-precision baseline) + {b.floor:.2g}")
    lines.append(f"Tolerance: {tol.source}")
    return lines


def _case_line(res: CaseResult) -> str:
    c = res.case
    parts = [f"{k}={v}" for k, v in c.dims]
    parts += [f"precision={c.precision}", f"pattern={c.pattern}", f"layout={c.layout}", f"seed={c.seed}"]
    if c.config:
        parts.append("config={" + ", ".join(f"{k}: {v}" for k, v in c.config) + "}")
    if c.params:
        parts.append("params={" + ", ".join(f"{k}: {v!r}" for k, v in c.params) + "}")
    return "Case: " + ", ".join(parts)


def format_case(res: CaseResult, source: str | None = None) -> str:
    """The full message for one case result (any status)."""
    head = f"{res.id} {res.status.value.upper()}"
    lines = [head]
    if res.status is Status.SKIPPED:
        return f"{head}: {'; '.join(res.reasons)}"
    for cmp in res.comparisons:
        if not cmp.passed:
            if cmp.mismatches or cmp.first:
                lines += format_comparison(cmp)
            else:
                lines += [f"{cmp.output}: " + "; ".join(cmp.reasons)]
            lines.append("")
    other = [r for r in res.reasons if kind_of(r) is not ReasonKind.MISMATCH]  # mismatches are shown above
    if res.noop:
        lines.append(f"No-op guard: {res.noop}; this check's tolerance cannot tell it from the reference")
    for r in other:
        lines.append(r)
    if res.untrusted:
        lines.append(f"Untrusted: {res.untrusted}")
    for w in res.warnings:
        if kind_of(w) is not ReasonKind.UNTRUSTED:  # said on the "Untrusted:" line
            lines.append(f"Warning: {w}")
    if lines[-1] != "":
        lines.append("")
    lines.append(_case_line(res))
    for note in res.case.notes:
        lines.append(f"Note: {note}")
    lines.append(f"Rerun: kcheck check {source or 'FILE'} --case '{res.id}'")
    return "\n".join(lines)


def format_report(report: Report, source: str | None = None, *, limit: int = 5) -> str:
    """Plain-text summary: one line per Spec, then the messages of the first ``limit`` failures of each."""
    out = []
    for s in report.specs:
        counts = ", ".join(f"{s.count(st)} {st.value}" for st in Status if s.count(st))
        out.append(f"{s.name}: {s.verdict.value.upper()} ({counts}) on {s.device} in {s.seconds:.1f} s")
        for w in s.warnings:
            out.append(f"  warning: {w}")
    for s in report.specs:
        for res in s.failures[:limit]:
            out += ["", format_case(res, source)]
        if len(s.failures) > limit:
            out.append(f"... and {len(s.failures) - limit} more failing cases of {s.name} (see the JSON report)")
    return "\n".join(out)


def summarize_case(res: CaseResult) -> str:
    """One line of what went wrong in a case (or "passed"): the debugger's experiments, the HTML report's tables."""
    if res.status is Status.PASSED:
        return "passed"
    if res.status in (Status.CRASHED, Status.TIMEOUT, Status.ERROR, Status.SKIPPED):
        first = (res.reasons or [""])[0].removeprefix(f"{res.status.value}: ")  # not "crashed: crashed: ..."
        return f"{res.status.value}: {first[:140]}"
    parts = []
    for c in res.comparisons:
        if c.passed:
            continue
        bits = [f"{c.mismatches}/{c.numel} wrong"]
        if c.unwritten:
            bits.append(f"{c.unwritten} unwritten")
        if c.nan_mismatches or c.inf_mismatches:
            bits.append(f"{c.nan_mismatches} NaN, {c.inf_mismatches} Inf")
        if c.mismatches:
            bits.append(f"max error {c.max_abs:.3g}")
        if c.location.kind not in ("none",):
            bits.append(c.location.text)
        parts.append(f"{c.output}: " + ", ".join(bits))
    if res.noop:
        parts.append(f"no-op: {res.noop}")
    if res.findings:
        parts.append(f"{len(res.findings)} interpreter finding(s): {res.findings[0].kind}")
    if res.determinism is not None and res.determinism.differing:
        parts.append(f"runs differ in {res.determinism.differing} elements (max {res.determinism.max_ulp:.3g} ULP)")
    return "; ".join(parts) or "; ".join(res.reasons)[:160] or res.status.value
