"""Where the run-to-run spread of a GPU timing comes from: the raw samples of several timing methods, interleaved.

For the two kernels of bench_kernels.py (a >= 50 us and a few-microsecond scale), ``RUNS`` rounds; each round times
the kernel with kcheck's events loop (``kcheck.bench.time_events``, the code ``kcheck bench`` runs), with plain
``triton.testing.do_bench`` (its default 100 ms, and stretched to kcheck's 300 ms), and with kcheck's CUDA graph
replay, and keeps every sample with the round's start time. Each summary statistic (mean, median, interquartile
mean, ...) can then be scored on the same data: the coefficient of variation of its 30 values, and whether the
values fall into modes that last a whole round.

Usage: python scripts/gpu/bench_spread.py OUT_DIR [--runs 30]. Writes OUT_DIR/bench_spread.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _stats(x: np.ndarray) -> dict[str, float]:
    q1, med, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    mid = x[(x >= q1) & (x <= q3)]
    lo, hi = np.quantile(x, [0.1, 0.9])
    trim = x[(x >= lo) & (x <= hi)]
    return {"mean": float(x.mean()), "median": float(med), "iqm": float(mid.mean()), "trim10": float(trim.mean()),
            "p10": float(lo), "min": float(x.min()), "n": float(x.size)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import bench_kernels as bk
    import torch
    import triton.testing

    from kcheck.bench import TimingOptions
    from kcheck.bench._timing import time_events, time_graph

    if not torch.cuda.is_available():
        print("no GPU: nothing timed")
        return 0
    opts = TimingOptions()
    gopts = TimingOptions(graph=True)
    data: dict[str, object] = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                               "triton": triton.__version__, "runs": args.runs}
    t0 = time.perf_counter()
    for name, n in (("big", bk.BIG), ("small", bk.SMALL)):
        x = torch.randn(n, device="cuda")
        fn = lambda x=x: bk.scale(x)  # noqa: E731
        methods: dict[str, list[dict[str, object]]] = {"kcheck": [], "do_bench": [], "do_bench_300": [],
                                                        "graph": []}
        for _ in range(args.runs):
            for m in methods:
                start = time.perf_counter() - t0
                if m == "kcheck":
                    s = time_events(fn, opts)
                elif m == "do_bench":
                    s = triton.testing.do_bench(fn, return_mode="all")
                elif m == "do_bench_300":
                    s = triton.testing.do_bench(fn, rep=300, return_mode="all")
                else:
                    s, _ = time_graph(lambda a: (lambda: bk.scale(a[0])), [x], gopts)
                arr = np.asarray(s, dtype=float)
                methods[m].append({"t": start, "stats": _stats(arr), "samples": [round(v, 6) for v in arr]})
        data[name] = methods
        print(f"\n{name} (N={n}), {args.runs} rounds, {time.perf_counter() - t0:.0f} s")
        print("| method | stat | median of rounds (us) | CV over rounds | min..max (us) |")
        print("|---|---|---|---|---|")
        for m, rounds in methods.items():
            for st in ("mean", "median", "iqm", "trim10", "p10", "min"):
                v = np.array([r["stats"][st] for r in rounds])  # type: ignore[index]
                print(f"| {m} | {st} | {np.median(v) * 1000:.3f} | {v.std(ddof=1) / v.mean():.3%} | "
                      f"{v.min() * 1000:.3f}..{v.max() * 1000:.3f} |")
            ns = [r["stats"]["n"] for r in rounds]  # type: ignore[index]
            print(f"| {m} | samples per round | {np.median(ns):.0f} | | |")
        del x
        torch.cuda.empty_cache()
    (out / "bench_spread.json").write_text(json.dumps(data))
    print(f"\nbench_spread took {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
