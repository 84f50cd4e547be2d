"""What ``kcheck bench`` adds to the timing itself, on the CPU: a baseline update under the file lock (read, merge,
atomic write) as the baseline file grows, the same with 8 processes updating one file at once, and the verdict
(the rank test and the Hodges-Lehmann interval) on samples of the sizes a GPU run produces.

    python benchmarks/bench_overhead.py [--entries 200]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from kcheck.bench import Entry, Environment, Store, compare

ENV = Environment("NVIDIA H200", "560.35.03", "2.11.0", "3.6.0")


def _entry(i: int, rng: np.random.Generator, n: int = 2000) -> Entry:
    x = np.exp(rng.normal(np.log(0.1), 0.02, n))
    return Entry.of("spec", f"spec[N={i},fp32,randn,seed=0]", ENV, "events", x, float(np.median(x)), 0.02)


def update_cost(entries: int) -> list[tuple[int, float]]:
    """Milliseconds per locked update as the file grows to ``entries`` entries (2000 timings each, 500 kept)."""
    rng = np.random.default_rng(0)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "b.json")
        for i in range(entries):
            t0 = time.perf_counter()
            store.update([_entry(i, rng)])
            dt = (time.perf_counter() - t0) * 1000
            if i + 1 in (1, 10, 50, 100, 200, 500, 1000) or i + 1 == entries:
                out.append((i + 1, dt))
        size = (Path(tmp) / "b.json").stat().st_size
    print(f"file of {entries} entries x 500 kept timings: {size / 2**20:.1f} MiB")
    return out


def _writer(path: str, worker: int, updates: int, barrier: object, times: object) -> None:
    rng = np.random.default_rng(worker)
    store = Store(path)
    barrier.wait()  # type: ignore[attr-defined]
    for i in range(updates):
        t0 = time.perf_counter()
        store.update([_entry(worker * 1000 + i, rng, 200)])
        times.put((time.perf_counter() - t0) * 1000)  # type: ignore[attr-defined]


def concurrent_cost(workers: int = 8, updates: int = 50) -> tuple[float, float, float]:
    """Wall seconds for ``workers`` processes x ``updates`` updates of one file, and the median and 95th percentile
    of one update's latency (waiting for the lock included)."""
    ctx = mp.get_context("fork")
    with tempfile.TemporaryDirectory() as tmp:
        barrier, times = ctx.Barrier(workers), ctx.Queue()
        procs = [ctx.Process(target=_writer, args=(str(Path(tmp) / "b.json"), w, updates, barrier, times))
                 for w in range(workers)]
        t0 = time.perf_counter()
        for p in procs:
            p.start()
        lat = [times.get() for _ in range(workers * updates)]
        for p in procs:
            p.join()
        wall = time.perf_counter() - t0
        assert len(Store(Path(tmp) / "b.json").entries()) == workers * updates
    return wall, statistics.median(lat), float(np.quantile(lat, 0.95))


def verdict_cost() -> list[tuple[int, float]]:
    rng = np.random.default_rng(1)
    out = []
    for n in (100, 1000, 3000):
        a, b = np.exp(rng.normal(0, 0.02, n)), np.exp(rng.normal(0, 0.02, n))
        compare(a, b)
        t0 = time.perf_counter()
        for _ in range(5):
            compare(a, b)
        out.append((n, (time.perf_counter() - t0) / 5 * 1000))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=200)
    args = ap.parse_args()
    for n, ms in update_cost(args.entries):
        print(f"baseline update under the lock, file of {n:4d} entries: {ms:7.2f} ms")
    wall, med, p95 = concurrent_cost()
    print(f"8 processes x 50 updates of one file: {wall:.2f} s wall; one update {med:.1f} ms median, {p95:.1f} ms "
          "p95 (lock wait included); every entry present")
    for n, ms in verdict_cost():
        print(f"verdict (rank tests + Hodges-Lehmann interval), {n:4d} vs {n:4d} samples: {ms:6.1f} ms")


if __name__ == "__main__":
    main()
