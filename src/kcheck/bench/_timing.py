"""Timing on a CUDA GPU: device events around each call after a warm-up, the L2 cache flushed before every call by
*reading* a 256 MB buffer; or CUDA graph replay for kernels of a few microseconds.

Why a read and not ``triton.testing.do_bench``'s zeroing of the buffer: a written flush leaves the L2 cache full of
dirty lines, which the timed kernel writes back to memory as it evicts them. On an H200 that write-back made every
invocation of do_bench's loop settle into one of two values for its whole run (a 131 us kernel 130.95 or 131.9 us,
a 9 us kernel 8.47 or 9.05 us), independently from one invocation to the next: a coefficient of variation over 30
invocations of 0.25% and 3.3%. Flushing by a read (the cache is left holding clean lines, evicted for free) gave
0.032% and 0.47% on the same kernels in the same session, and times closer to the kernel's own (127.5 and 7.8 us)
(scripts/gpu/bench_flush.py; the figures are in docs/bench.md).

Graph replay (``graph=True``) captures many calls of the kernel in one CUDA graph, so the CPU's launch overhead
(several microseconds, as long as a small kernel) is not timed; the calls rotate over copies of the inputs that
together exceed twice the L2 cache, so that each call reads its inputs from memory, and the L2 cache is flushed
(by a read) before every replay. It measures the kernel as a model running under CUDA graphs sees it, not as an
eager launch.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

#: The timing methods' names, part of a baseline's key. "-readflush": the L2 cache is flushed by a read (timings
#: taken with a written flush, named plain "events" and "graph", are never compared with these).
EVENTS = "events-readflush"
GRAPH = "graph-readflush"

#: Bytes read to flush the L2 cache (as many as Triton's do_bench writes: 256 MB).
FLUSH_BYTES = 256 * 2**20


@dataclass(frozen=True)
class TimingOptions:
    """How long and how to time each case. ``rep_ms``: the target of timed runs per case (at least
    ``min_samples`` runs, at most ``max_seconds``); ``graph``: CUDA graph replay (see the module docstring)."""

    warmup_ms: float = 25.0
    rep_ms: float = 300.0
    min_samples: int = 50
    max_seconds: float = 20.0
    graph: bool = False

    @property
    def method(self) -> str:
        """The method's name, part of a baseline's key: timings of different methods are never compared."""
        return GRAPH if self.graph else EVENTS


@dataclass
class Timed:
    """What a worker measured for one case (milliseconds per call)."""

    samples_ms: list[float] = field(default_factory=list)
    method: str = EVENTS
    bytes_estimate: float | None = None
    notes: list[str] = field(default_factory=list)
    error: str | None = None


class _Flush:
    """Evicts the L2 cache by reading ``FLUSH_BYTES`` (a sum into a device scalar: nothing is written back later)."""

    def __init__(self) -> None:
        self.buf = torch.zeros(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
        self.acc = torch.empty((), dtype=torch.int64, device="cuda")

    def __call__(self) -> None:
        torch.sum(self.buf, dim=0, out=self.acc)


def estimate_ms(fn: Callable[[], Any], runs: int = 3, flush: Callable[[], None] | None = None) -> float:
    """A first estimate of one call's time (L2 cache flushed before each), after one untimed call."""
    fn()
    flush = flush or _Flush()
    torch.cuda.synchronize()
    total = 0.0
    for _ in range(runs):
        flush()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        total += start.elapsed_time(end)
    return max(total / runs, 1e-4)


def _flush_ms(flush: Callable[[], None]) -> float:
    flush()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(3):
        flush()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 3


def time_events(fn: Callable[[], Any], options: TimingOptions) -> list[float]:
    """Per-call times (ms): device events around each call, the L2 cache flushed by a read before each, after
    ``options.warmup_ms`` of untimed calls; ``options.rep_ms`` of calls and flushes, stretched so that at least
    ``options.min_samples`` calls are timed, at most ``options.max_seconds``."""
    flush = _Flush()
    est = estimate_ms(fn, flush=flush)
    per_run = est + _flush_ms(flush)
    for _ in range(max(1, int(options.warmup_ms / est))):
        fn()
    rep = min(max(options.rep_ms, options.min_samples * per_run * 1.2), options.max_seconds * 1000)
    n = max(options.min_samples, int(rep / per_run))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for s, e in zip(starts, ends, strict=True):
        flush()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return [float(s.elapsed_time(e)) for s, e in zip(starts, ends, strict=True)]


def input_copies(args: Sequence[Any], free_bytes: int, l2: int) -> int:
    """How many copies of ``args`` graph replay rotates over: enough to pass twice the L2 cache (at most 64), within
    a quarter of the free memory."""
    nbytes = sum(a.numel() * a.element_size() for a in args if isinstance(a, torch.Tensor))
    if nbytes == 0:
        return 1
    want = min(64, math.ceil(2 * l2 / nbytes))
    return max(1, min(want, free_bytes // 4 // nbytes))


def l2_bytes() -> int:
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return int(getattr(props, "L2_cache_size", 50 * 2**20))


def _clone(a: Any) -> Any:
    if isinstance(a, torch.Tensor):
        out = torch.empty_strided(a.shape, a.stride(), dtype=a.dtype, device=a.device)
        return out.copy_(a)
    return a


def time_graph(make_call: Callable[[Sequence[Any]], Callable[[], Any]], args: Sequence[Any],
               options: TimingOptions) -> tuple[list[float], str]:
    """Per-call times (ms) from CUDA graph replays of many calls rotating over copies of ``args``."""
    free, _ = torch.cuda.mem_get_info()
    k = input_copies(args, free, l2_bytes())
    sets = [list(args)] + [[_clone(a) for a in args] for _ in range(k - 1)]
    calls = [make_call(s) for s in sets]
    flush = _Flush()
    est = estimate_ms(calls[0], flush=flush)
    per_graph = max(k, min(1000, int(2.0 / est)))  # about 2 ms of kernel time per replay
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for c in calls:
            c()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(per_graph):
            calls[i % k]()
    torch.cuda.synchronize()
    deadline = time.perf_counter() + options.warmup_ms / 1000
    while time.perf_counter() < deadline:
        graph.replay()
        torch.cuda.synchronize()
    n = max(options.min_samples, int(options.rep_ms / (est * per_graph + 0.1)))
    n = min(n, max(options.min_samples, int(options.max_seconds * 1000 / (est * per_graph + 0.1))))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for s, e in zip(starts, ends, strict=True):
        flush()
        s.record()
        graph.replay()
        e.record()
    torch.cuda.synchronize()
    note = f"CUDA graph of {per_graph} calls rotating over {k} copies of the inputs, {n} replays"
    return [s.elapsed_time(e) / per_graph for s, e in zip(starts, ends, strict=True)], note


def measure_peaks(copy_bytes: int = 2**30, matmul_n: int = 8192) -> dict[str, float]:
    """This GPU's measured peaks: a device-to-device copy's bandwidth (bytes read + written per second) and a
    bf16 matmul's rate (FLOP/s), each the median of ``time_events``' runs."""
    free, _ = torch.cuda.mem_get_info()
    nbytes = min(copy_bytes, free // 8)
    src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda").normal_()
    dst = torch.empty_like(src)
    opts = TimingOptions(rep_ms=200.0, min_samples=20)
    copy_ms = float(torch.tensor(time_events(lambda: dst.copy_(src), opts)).median())
    src = dst = torch.empty(0, device="cuda")  # free the copy's buffers before the matmul's
    n = matmul_n
    while 3 * n * n * 2 > free // 4 and n > 1024:
        n //= 2
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    mm_ms = float(torch.tensor(time_events(lambda: torch.matmul(a, b, out=c), opts)).median())
    return {"copy_bytes_per_s": 2 * (nbytes // 4) * 4 / (copy_ms / 1000), "bf16_flops_per_s": 2 * n**3 / (mm_ms / 1000),
            "copy_bytes": float(2 * (nbytes // 4) * 4), "matmul_n": float(n)}
