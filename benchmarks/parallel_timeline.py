"""Where the wall time of a parallel ``kcheck check`` goes: phases, busy workers over time, the tail.

    python benchmarks/parallel_timeline.py PATHS... [-n auto] [--tier default] [--no-large] [--json OUT]

Runs what ``kcheck check PATHS -n N`` runs, in the same order (start the workers' server, import kcheck, start the
workers in the background, import the Spec files, build the matrices, run the cases on N workers with the resource
report, the static checks), with a clock on each phase. The case phase is instrumented from outside (benchmark
only: it wraps private methods to take timestamps): when each case started and ended on which worker thread, each
Spec's resource compile, each worker start. Prints:

- the phases' seconds, and the time to the first case's start (what a user waits before any work);
- case time by Spec and by axis, kernel / reference / baseline / harness split;
- how many workers were busy, second by second (idle capacity shows where the schedule, not the work, is the
  bound), and what ran during the last 25% of the case phase (the tail);
- the slowest cases.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import threading
import time
from collections import defaultdict
from typing import Any

T0 = time.perf_counter()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("-n", "--workers", default="auto")
    ap.add_argument("--tier", default="default")
    ap.add_argument("--no-large", action="store_true")
    ap.add_argument("--no-resources", action="store_true")
    ap.add_argument("--json", default=None, help="write the raw timeline here")
    ap.add_argument("--profile-matrices", action="store_true", help="print cProfile's top entries of that phase")
    args = ap.parse_args()

    from kcheck import _forkserver

    if _forkserver.gpu_device_files():
        _forkserver.start(early=True)  # as the command does, before this process imports torch
    import kcheck
    from kcheck import _check
    from kcheck._device import enable_interpreter_if_no_gpu
    from kcheck._discover import discover
    from kcheck.lint import lint_path
    from kcheck.run import Isolated

    phases: dict[str, float] = {"import kcheck": time.perf_counter() - T0}
    t = time.perf_counter()
    enable_interpreter_if_no_gpu()
    # where the CLI starts the workers (the forkserver's imports, each worker's CUDA start): before the Spec files
    _check.prestart(kcheck.Options(workers=args.workers))
    phases["start the workers (in the background)"] = time.perf_counter() - t
    t = time.perf_counter()
    specs = [s for p in args.paths for f in discover(p) if f.imported for s in f.specs]
    phases["import Spec files"] = time.perf_counter() - t
    t = time.perf_counter()
    large = not args.no_large
    prof = cProfile.Profile() if args.profile_matrices else None
    if prof:
        prof.enable()
    totals = {s.name: len(kcheck.matrix(s, tier=args.tier, large=large)) for s in specs}
    if prof:
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    phases["matrices (the CLI's progress totals)"] = time.perf_counter() - t

    lock = threading.Lock()
    cases: list[dict[str, Any]] = []
    resources: list[tuple[str, float, float, str]] = []
    starts: list[tuple[float, float]] = []
    orig_case, orig_res, orig_start = _check._Run._case, _check._Run._resources, Isolated._start

    def case(self: Any, sp: Any, c: Any, ref: Any, deadlines: Any, worker: Any = None) -> Any:
        a = time.perf_counter()
        res = orig_case(self, sp, c, ref, deadlines, worker)
        b = time.perf_counter()
        tm = res.timing
        with lock:
            cases.append({"spec": sp.name, "id": c.id, "axis": c.axis, "status": res.status.value,
                          "thread": threading.current_thread().name, "start": a - T0, "end": b - T0,
                          "kernel": tm.kernel, "reference": tm.reference, "baseline": tm.baseline,
                          "total": tm.total})
        return res

    def res_(self: Any, sp: Any, ref: Any, notes: Any, worker: Any = None) -> Any:
        a = time.perf_counter()
        out = orig_res(self, sp, ref, notes, worker)
        with lock:
            resources.append((sp.name, a - T0, time.perf_counter() - T0, threading.current_thread().name))
        return out

    def start(self: Any) -> None:
        a = time.perf_counter()
        orig_start(self)
        with lock:
            starts.append((a - T0, time.perf_counter() - T0))

    _check._Run._case, _check._Run._resources, Isolated._start = case, res_, start  # type: ignore[method-assign]
    t = time.perf_counter()
    t_check = t - T0
    report = kcheck.check(specs, tier=args.tier, large=large, workers=args.workers,
                          resources=not args.no_resources)
    phases["check (workers, cases, resources)"] = time.perf_counter() - t
    t = time.perf_counter()
    for p in args.paths:
        lint_path(p)
    phases["static checks"] = time.perf_counter() - t
    wall = time.perf_counter() - T0

    print(f"== {' '.join(args.paths)}: -n {args.workers}, {sum(totals.values())} cases, wall {wall:.1f} s, "
          f"{os.cpu_count()} CPUs")
    for name, secs in phases.items():
        print(f"  {name:42s} {secs:7.2f} s")
    if cases:
        first = min(c["start"] for c in cases)
        last = max(c["end"] for c in cases)
        print(f"  first case started at {first:.2f} s (check() called at {t_check:.2f} s); last case ended at "
              f"{last:.2f} s; {len(starts)} worker starts")
        busy = sum(c["end"] - c["start"] for c in cases)
        threads = len({c["thread"] for c in cases})
        span = last - first
        print(f"  case time {busy:.1f} s over {threads} worker threads in {span:.1f} s: "
              f"{busy / max(span * threads, 1e-9):.0%} busy")
        _by(cases, "spec")
        _by(cases, "axis")
        _busy_profile(cases, first, last)
        tail = first + 0.75 * span
        late = sorted((c for c in cases if c["end"] > tail), key=lambda c: c["start"])
        print(f"  the tail (ending after {tail:.1f} s): {len(late)} cases")
        for c in late[-12:]:
            print(f"    {c['start']:6.1f}-{c['end']:6.1f} s {c['thread']:16s} {c['spec']:22s} {c['id'][:70]}")
        print("  slowest cases (wall in worker; kernel / reference / baseline / harness)")
        for c in sorted(cases, key=lambda c: c["end"] - c["start"], reverse=True)[:15]:
            h = max(0.0, c["total"] - c["kernel"] - c["reference"] - c["baseline"])
            print(f"    {c['end'] - c['start']:6.2f} s ({c['kernel']:.2f} / {c['reference']:.2f} / "
                  f"{c['baseline']:.2f} / {h:.2f}) {c['status']:8s} {c['id'][:80]}")
    for name, a, b, thread in sorted(resources, key=lambda r: r[1] - r[2])[:6]:
        print(f"  resources {name:22s} {a:6.1f}-{b:6.1f} s ({b - a:.2f} s) {thread}")
    verdicts = {s.name: s.verdict.value for s in report.specs}
    print("  verdicts:", json.dumps(verdicts))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"phases": phases, "wall": wall, "cases": cases, "resources": resources,
                       "starts": starts, "verdicts": verdicts}, fh, indent=0)


def _by(cases: list[dict[str, Any]], key: str) -> None:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in cases:
        groups[c[key]].append(c)
    print(f"  by {key}: cases, wall s in workers (kernel / reference / baseline / harness)")
    for name, cs in sorted(groups.items(), key=lambda kv: -sum(c["end"] - c["start"] for c in kv[1]))[:16]:
        w = sum(c["end"] - c["start"] for c in cs)
        k, r, b = (sum(c[f] for c in cs) for f in ("kernel", "reference", "baseline"))
        h = sum(max(0.0, c["total"] - c["kernel"] - c["reference"] - c["baseline"]) for c in cs)
        print(f"    {name:24s} {len(cs):4d} {w:7.1f} ({k:6.1f} / {r:5.1f} / {b:5.1f} / {h:6.1f})  "
              f"max {max(c['end'] - c['start'] for c in cs):5.2f}")


def _busy_profile(cases: list[dict[str, Any]], first: float, last: float) -> None:
    step = max(1.0, (last - first) / 40)
    row = []
    x = first
    while x < last:
        overlap = sum(max(0.0, min(c["end"], x + step) - max(c["start"], x)) for c in cases)
        row.append(f"{overlap / step:.0f}")
        x += step
    print(f"  mean workers busy per {step:.1f} s from {first:.1f} s: {' '.join(row)}")


if __name__ == "__main__":
    main()
