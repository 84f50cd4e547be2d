"""What running the debugger's probes in a worker process costs against running them in the debugger's own
process: ``kcheck.debug`` on small kernels with one planted bug each, both ways, alternating so that a machine's
changing load falls on both.

    python benchmarks/probe_isolation.py [--rounds N] [SPEC_NAME ...]   (default: three evidence kernels)

Prints each run's wall time, experiments and top cause, then the total per way. The matrix runs in workers both
ways (the debugger always isolates it); only the probes move. Probes in the caller's process are what the debugger
did on a CPU before: a crashing probe ended the caller. A CPU measure: on a GPU the probes always run in a worker.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

DEFAULT = ["batch_gain_masked", "permute_wrong_layout", "batch_gain_wrong_axis"]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("names", nargs="*", default=DEFAULT)
    args = ap.parse_args(argv)
    import kcheck
    import kcheck.diagnose as diagnose
    from kcheck.diagnose._probe import Prober

    kcheck.enable_interpreter_if_no_gpu()
    evidence = importlib.import_module("debug_specs.evidence")

    class InProcess(Prober):
        def __init__(self, *a, **k):  # type: ignore[no-untyped-def]
            k["isolate"] = False
            super().__init__(*a, **k)

    totals = {"worker": 0.0, "in-process": 0.0}
    for rnd in range(args.rounds):
        ways = ["worker", "in-process"] if rnd % 2 == 0 else ["in-process", "worker"]
        for way in ways:
            diagnose.Prober = InProcess if way == "in-process" else Prober  # type: ignore[misc]
            for name in args.names:
                with tempfile.TemporaryDirectory() as tmp:
                    t0 = time.perf_counter()
                    diag = kcheck.debug(getattr(evidence, name), budget=30, out_dir=tmp, repro=False, maps=False)
                    wall = time.perf_counter() - t0
                totals[way] += wall
                top = diag.top.key if diag.top is not None else None
                print(f"round {rnd} {way:10s} {name:28s} {wall:6.1f} s  {len(diag.experiments):3d} experiments  {top}")
    diagnose.Prober = Prober  # type: ignore[misc]
    for way, t in totals.items():
        print(f"{way:10s} total {t:7.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
