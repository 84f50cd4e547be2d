"""Which part of an events-timed loop sets the run-to-run mode of a GPU timing.

bench_spread.py showed that an events loop with the L2 cache flushed before each call (``triton.testing.do_bench``'s,
and kcheck's) reports one of two values per invocation (an H200: a 9 us kernel 8.47 or 9.05 us, a 131 us kernel
130.95 or 131.9 us), the same through a whole invocation and independent from one invocation to the next, while
CUDA graph replay did not. This times the same kernels ``RUNS`` times with loops that differ in one thing each:

- ``fresh``: a new 256 MB flush buffer per invocation, zeroed before each call (do_bench's loop);
- ``kept``: one flush buffer for every invocation (is the mode the flush buffer's address?);
- ``rotate4``: four flush buffers per invocation, the call after each flush of the next one;
- ``readflush``: a new flush buffer per invocation, *read* (summed) before each call instead of written, so the
  cache holds no dirty lines for the kernel to write back;
- ``outkept``: ``fresh``, with the kernel writing into one output for every invocation (is it the output's address?).

Usage: python scripts/gpu/bench_flush.py OUT_DIR [--runs 30]; writes OUT_DIR/bench_flush.json, prints a table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

FLUSH = 256 * 2**20


def _iqm(x: np.ndarray) -> float:
    q1, q3 = np.quantile(x, [0.25, 0.75])
    return float(x[(x >= q1) & (x <= q3)].mean())


def loop(fn: Callable[[], Any], flushes: list[Any], flush_op: Callable[[Any], Any], rep_ms: float = 300.0,
         warmup_ms: float = 25.0) -> np.ndarray:
    import torch

    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(5):
        flush_op(flushes[0])
        fn()
    e.record()
    torch.cuda.synchronize()
    est = s.elapsed_time(e) / 5
    for _ in range(max(1, int(warmup_ms / est))):
        fn()
    n = max(50, int(rep_ms / est))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for i in range(n):
        flush_op(flushes[i % len(flushes)])
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return np.array([a.elapsed_time(b) for a, b in zip(starts, ends, strict=True)])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import bench_kernels as bk
    import torch
    import triton

    if not torch.cuda.is_available():
        print("no GPU: nothing timed")
        return 0
    zero = lambda b: b.zero_()  # noqa: E731
    acc = torch.empty((), dtype=torch.int64, device="cuda")
    read = lambda b: torch.sum(b, dim=0, out=acc)  # noqa: E731
    kept = torch.empty(FLUSH // 4, dtype=torch.int32, device="cuda")
    data: dict[str, Any] = {"device": torch.cuda.get_device_name(), "runs": args.runs}
    t0 = time.perf_counter()
    for name, n in (("big", bk.BIG), ("small", bk.SMALL)):
        x = torch.randn(n, device="cuda")
        y_kept = torch.empty_like(x)
        grid = (triton.cdiv(n, 1024),)
        fn = lambda x=x: bk.scale(x)  # noqa: E731
        fn_out = lambda x=x, y=y_kept, g=grid, m=n: bk.scale_kernel[g](x, y, m, BLOCK=1024)  # noqa: E731
        rounds: dict[str, list[float]] = {k: [] for k in ("fresh", "kept", "rotate4", "readflush", "outkept")}
        for _ in range(args.runs):
            for k in rounds:
                if k == "kept":
                    v = loop(fn, [kept], zero)
                elif k == "rotate4":
                    bufs = [torch.empty(FLUSH // 4, dtype=torch.int32, device="cuda") for _ in range(4)]
                    v = loop(fn, bufs, zero)
                    del bufs
                elif k == "readflush":
                    v = loop(fn, [torch.zeros(FLUSH // 4, dtype=torch.int32, device="cuda")], read)
                elif k == "outkept":
                    v = loop(fn_out, [torch.empty(FLUSH // 4, dtype=torch.int32, device="cuda")], zero)
                else:
                    v = loop(fn, [torch.empty(FLUSH // 4, dtype=torch.int32, device="cuda")], zero)
                rounds[k].append(_iqm(v))
        data[name] = rounds
        print(f"\n{name} (N={n}), {args.runs} invocations each, {time.perf_counter() - t0:.0f} s")
        print("| loop | IQM, median over invocations (us) | CV over invocations | min..max (us) |")
        print("|---|---|---|---|")
        for k, v in rounds.items():
            a = np.array(v) * 1000
            print(f"| {k} | {np.median(a):.3f} | {a.std(ddof=1) / a.mean():.3%} | {a.min():.3f}..{a.max():.3f} |")
        del x, y_kept
        torch.cuda.empty_cache()
    (out / "bench_flush.json").write_text(json.dumps(data))
    print(f"\nbench_flush took {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
