"""How much time kcheck adds around the kernels and references it runs.

    python benchmarks/harness_overhead.py [PATH ...] [--tier quick|default|full]

For every Spec found, runs its matrix and splits the wall time of the cases that ran into kernel calls (all of them:
first run, determinism repeats, properties), the float64 reference, the same-precision baseline, and the rest:
input generation, poisoning, snapshots, comparison and bookkeeping (the *harness*). Prints one row per Spec and the
total. Timings of Triton kernels on the CPU are the interpreter's.
"""

from __future__ import annotations

import argparse
import sys
import time

from kcheck._device import enable_interpreter_if_no_gpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", default=["examples"])
    ap.add_argument("--tier", default="default")
    args = ap.parse_args()
    enable_interpreter_if_no_gpu()
    import kcheck
    from kcheck._discover import discover

    specs = [s for p in args.paths for f in discover(p) for s in f.specs]
    rows = []
    for spec in specs:
        t0 = time.perf_counter()
        report = kcheck.check(spec, tier=args.tier, large=False)
        wall = time.perf_counter() - t0
        ran = [c for c in report.cases if c.status is not kcheck.Status.SKIPPED]
        tot = {k: sum(getattr(c.timing, k) for c in ran) for k in ("total", "kernel", "reference", "baseline",
                                                                    "harness")}
        rows.append((spec.name, len(ran), wall, tot))
    print(f"{'spec':<16}{'cases':>6}{'wall s':>9}{'kernel s':>10}{'ref s':>8}{'base s':>8}{'harness s':>11}"
          f"{'harness %':>11}{'ms/case':>9}")
    for name, n, wall, t in rows:
        share = 100 * t["harness"] / t["total"] if t["total"] else 0.0
        print(f"{name:<16}{n:>6}{wall:>9.2f}{t['kernel']:>10.2f}{t['reference']:>8.2f}{t['baseline']:>8.2f}"
              f"{t['harness']:>11.2f}{share:>10.0f}%{1000 * t['harness'] / max(n, 1):>9.1f}")
    total = {k: sum(r[3][k] for r in rows) for k in ("total", "kernel", "harness")}
    if total["total"]:
        print(f"{'all':<16}{sum(r[1] for r in rows):>6}{sum(r[2] for r in rows):>9.2f}{total['kernel']:>10.2f}"
              f"{'':>16}{total['harness']:>11.2f}{100 * total['harness'] / total['total']:>10.0f}%")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
