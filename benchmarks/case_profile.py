"""Where a case's own time goes, function by function: the harness around the kernel, profiled.

    python benchmarks/case_profile.py [PATHS ...] [--axis large] [--top 40] [--no-large]

Runs every Spec's matrix in this process (no isolation: a benchmark of kcheck's own code, on trusted examples)
twice: once to fill the compile caches, then again under cProfile, and prints the functions with the most own time
and the kcheck functions with the most cumulative time in the second pass, with the per-case timing split (kernel,
reference, baseline, the rest). ``--axis large`` keeps only the past-2**31 cases (on a GPU: tens of GiB each).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

from kcheck._device import enable_interpreter_if_no_gpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", default=["examples"])
    ap.add_argument("--tier", default="default")
    ap.add_argument("--axis", default=None, help="only the cases of this axis (size, large, precision, ...)")
    ap.add_argument("--no-large", action="store_true")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    enable_interpreter_if_no_gpu()
    import kcheck
    from kcheck._discover import discover

    specs = [s for p in args.paths for f in discover(p) for s in f.specs]
    plans = []
    for spec in specs:
        ids = [c.id for c in kcheck.matrix(spec, tier=args.tier, large=not args.no_large)
               if c.skip is None and (args.axis is None or c.axis == args.axis)]
        if ids:
            plans.append((spec, ids))

    def run_all() -> list[kcheck.CaseResult]:
        out = []
        for spec, ids in plans:
            report = kcheck.check(spec, tier=args.tier, large=not args.no_large, cases=ids, resources=False)
            out += [c for c in report.cases if c.status is not kcheck.Status.SKIPPED]
        return out

    t = time.perf_counter()
    run_all()
    print(f"first pass (compiles): {time.perf_counter() - t:.2f} s")
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    ran = run_all()
    prof.disable()
    wall = time.perf_counter() - t
    tot = {k: sum(getattr(c.timing, k) for c in ran) for k in ("total", "kernel", "reference", "baseline")}
    rest = tot["total"] - tot["kernel"] - tot["reference"] - tot["baseline"]
    n = max(1, len(ran))
    print(f"second pass: {len(ran)} cases in {wall:.2f} s (profiled); per case: total {1e3 * tot['total'] / n:.1f} ms,"
          f" kernel {1e3 * tot['kernel'] / n:.1f}, reference {1e3 * tot['reference'] / n:.1f}, baseline "
          f"{1e3 * tot['baseline'] / n:.1f}, the rest {1e3 * rest / n:.1f}")
    for key, title in (("tottime", "own time"), ("cumulative", "cumulative, kcheck's functions")):
        s = io.StringIO()
        st = pstats.Stats(prof, stream=s).sort_stats(key)
        if key == "cumulative":
            st.print_stats("kcheck", args.top)
        else:
            st.print_stats(args.top)
        print(f"== {title}\n" + "\n".join(s.getvalue().splitlines()[6:]))


if __name__ == "__main__":
    main()
