"""The terminal report of a bench run: one line per case, then what needs attention."""

from __future__ import annotations

from ._bench import NO_GPU_CASE, BenchReport, BenchStatus, CaseBench
from ._timing import EVENTS

_MARK = {BenchStatus.RECORDED: "recorded", BenchStatus.UNCHANGED: "ok", BenchStatus.REGRESSION: "REGRESSION",
         BenchStatus.SPEEDUP: "faster", BenchStatus.ERROR: "ERROR", BenchStatus.CRASHED: "CRASHED",
         BenchStatus.TIMEOUT: "TIMEOUT", BenchStatus.NOT_RUN: "not run"}


def _rate(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def format_case(c: CaseBench) -> str:
    """One line: the verdict, the median and spread, the change against the baseline, the roofline."""
    parts = [f"{_MARK[c.status]:>10}  {c.case}"]
    if c.summary is not None:
        s = c.summary
        how = f", {c.method}" if c.method != EVENTS else ""
        parts.append(f"{s.iqm_ms * 1000:.4g} us (interquartile mean; median {s.median_ms * 1000:.4g} us, cv "
                     f"{s.cv:.1%}, n={s.n}{how})")
    if c.comparison is not None:
        parts.append(f"vs {c.baseline_median_ms * 1000 if c.baseline_median_ms else float('nan'):.4g} us: "
                     + c.comparison.describe())
    r = c.roofline
    if r is not None:
        roof = []
        if r.bandwidth is not None:
            frac = f" = {r.bandwidth_fraction:.0%} of peak" if r.bandwidth_fraction is not None else ""
            roof.append(f"{_rate(r.bandwidth, 'B/s')}{frac}{' (bytes estimated)' if r.bytes_estimated else ''}")
        if r.flop_rate is not None:
            frac = f" = {r.flop_fraction:.0%} of bf16 peak" if r.flop_fraction is not None else ""
            roof.append(f"{_rate(r.flop_rate, 'FLOP/s')}{frac}")
        if roof:
            parts.append("; ".join(roof))
    line = "  ".join(parts)
    extra = ([c.reason] if c.reason else []) + c.notes + [f"baseline elsewhere: {o}" for o in c.other_environments]
    return line + "".join(f"\n{'':12}{e}" for e in extra)


def format_bench(report: BenchReport) -> str:
    """The whole report as text."""
    lines = []
    if report.environment is not None:
        lines.append(f"bench on {report.environment.describe()}; margin {report.margin:.0%}"
                     f"{' (clocks locked)' if report.clocks_locked else ''}, alpha {report.alpha:g}; baselines "
                     f"{report.baseline_path}")
    if report.peaks:
        p = report.peaks
        lines.append(f"measured peaks: copy {_rate(p.get('copy_bytes_per_s'), 'B/s')}, bf16 matmul "
                     f"{_rate(p.get('bf16_flops_per_s'), 'FLOP/s')}")
    if report.reason:
        lines.append(report.reason)
    for s in report.specs:
        lines.append(f"{s.spec}:")
        if report.environment is None:  # nothing ran: list what would be timed, without a reason per line
            lines += [f"{'not run':>10}  {c.case}" + (f" ({c.reason})" if c.reason and c.reason != NO_GPU_CASE else "")
                      for c in s.cases]
            continue
        lines += [format_case(c) for c in s.cases]
    regs, bad = report.regressions, report.failures
    recorded = sum(c.baseline_written for c in report.cases())
    faster = sum(c.status is BenchStatus.SPEEDUP for c in report.cases())
    tail = [f"{report.timed} case(s) timed", f"{len(regs)} regression(s)"]
    if faster:
        tail.append(f"{faster} speed-up(s) (--update-baseline accepts them)")
    if bad:
        tail.append(f"{len(bad)} case(s) errored, crashed or hung")
    if recorded:
        tail.append(f"{recorded} baseline(s) written")
    lines.append(", ".join(tail))
    return "\n".join(lines)
