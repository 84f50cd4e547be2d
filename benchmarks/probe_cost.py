"""What each kind of debugger probe costs: ``kcheck.debug`` on small kernels with one planted bug each, every
probe timed by its axis (size, padding, ends, transpose, decide, ...; the seeds experiment's runs as
``decide/seeds``).

    python benchmarks/probe_cost.py [SPEC_NAME ...]     (default: the evidence kernels of tests/debug_specs)

Prints, per Spec, the debugger's experiment seconds and the share of each axis; then the totals. Each probe runs in
an isolated worker (on a CPU under Triton's interpreter); benchmarks/probe_isolation.py measures what that costs.
"""

from __future__ import annotations

import importlib
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

DEFAULT = ["row_mean_one_past", "row_mean_one_short", "row_sum_tail_skipped", "tile_ids_swapped",
           "relpos_table_transposed", "flip_inplace_race", "stride_square_only", "cumsum_no_carry",
           "soft_clip_rare_branch", "transpose_pairs_inplace"]


def main(argv: list[str]) -> int:
    import kcheck
    from kcheck.diagnose import _probe, debug

    kcheck.enable_interpreter_if_no_gpu()
    evidence = importlib.import_module("debug_specs.evidence")
    names = argv or DEFAULT
    spent: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    plain_run = _probe.Prober.run

    def timed(self: _probe.Prober, case, axis, label, variant=None, options=None):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        try:
            return plain_run(self, case, axis, label, variant, options)
        finally:
            # the seeds experiment's runs apart from the other deciding experiments'
            key = "decide/seeds" if axis == "decide" and " with seed " in label else axis
            spent[key] += time.perf_counter() - t0
            counts[key] += 1

    _probe.Prober.run = timed  # type: ignore[method-assign]
    total: dict[str, float] = defaultdict(float)
    ncount: dict[str, int] = defaultdict(int)
    for name in names:
        spec = getattr(evidence, name)
        spent.clear()
        counts.clear()
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            diag = debug(spec, budget=60, out_dir=tmp, repro=False, maps=False)
            wall = time.perf_counter() - t0
        probes = sum(spent.values())
        top = diag.top.key if diag.top else "-"
        parts = ", ".join(f"{a} {s:.1f} s ({counts[a]})" for a, s in sorted(spent.items(), key=lambda kv: -kv[1]))
        print(f"{name}: top {top}; debug {wall:.1f} s, probes {probes:.1f} s: {parts}")
        for a, s in spent.items():
            total[a] += s
            ncount[a] += counts[a]
    whole = sum(total.values())
    print("\nall Specs, probe seconds by axis:")
    for a, s in sorted(total.items(), key=lambda kv: -kv[1]):
        print(f"  {a:10s} {s:7.1f} s  {100 * s / max(whole, 1e-9):5.1f}%  ({ncount[a]} probes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
