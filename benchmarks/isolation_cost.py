"""What isolation costs: the same Specs run in-process and in a worker process.

    python benchmarks/isolation_cost.py [PATH ...] [--tier quick|default|full]

Prints wall seconds both ways, the difference per case, and the worker's start-up (spawn + imports), measured by
running a one-case check in a fresh worker.
"""

from __future__ import annotations

import argparse
import time

from kcheck._device import enable_interpreter_if_no_gpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", default=["examples"])
    ap.add_argument("--tier", default="quick")
    args = ap.parse_args()
    enable_interpreter_if_no_gpu()
    import kcheck
    from kcheck._discover import discover

    specs = [s for p in args.paths for f in discover(p) for s in f.specs]
    n = sum(len(kcheck.matrix(s, tier=args.tier, large=False)) for s in specs)
    kcheck.check(specs, tier=args.tier, large=False)  # warm caches (Triton, imports) for a fair comparison
    t0 = time.perf_counter()
    kcheck.check(specs, tier=args.tier, large=False)
    plain = time.perf_counter() - t0
    t0 = time.perf_counter()
    kcheck.check(specs, tier=args.tier, large=False, isolate=True)
    isolated = time.perf_counter() - t0
    first = kcheck.matrix(specs[0], tier=args.tier, large=False)[0].id
    t0 = time.perf_counter()
    kcheck.check(specs[0], cases=first, isolate=True)
    one = time.perf_counter() - t0
    print(f"cases {n}: in-process {plain:.2f} s, isolated {isolated:.2f} s, difference {isolated - plain:.2f} s "
          f"({1000 * (isolated - plain) / n:.1f} ms per case, worker start included)")
    print(f"one case in a fresh worker: {one:.2f} s (worker spawn, imports of torch/triton and the Spec's module)")


if __name__ == "__main__":
    main()
