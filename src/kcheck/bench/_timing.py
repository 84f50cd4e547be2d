"""Timing on a CUDA GPU: ``triton.testing.do_bench`` (warm-up, the L2 cache flushed before every run, device
events) with a sample large enough for a rank test, or CUDA graph replay for kernels of a few microseconds.

Graph replay (``graph=True``) captures many calls of the kernel in one CUDA graph, so the CPU's launch overhead
(several microseconds, as long as a small kernel) is not timed; the calls rotate over copies of the inputs that
together exceed twice the L2 cache, so that each call reads its inputs from memory, and the L2 cache is flushed
before every replay. It measures the kernel as a model running under CUDA graphs sees it, not as an eager launch.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

#: Bytes written to flush the L2 cache when ``triton.testing.do_bench`` cannot be used (as Triton does: 256 MB).
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
        return "graph" if self.graph else "events"


@dataclass
class Timed:
    """What a worker measured for one case (milliseconds per call)."""

    samples_ms: list[float] = field(default_factory=list)
    method: str = "events"
    bytes_estimate: float | None = None
    notes: list[str] = field(default_factory=list)
    error: str | None = None


def _flush_buffer() -> torch.Tensor:
    return torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")


def estimate_ms(fn: Callable[[], Any], runs: int = 3) -> float:
    """A first estimate of one call's time (L2 cache flushed before each), after one untimed call."""
    fn()
    flush = _flush_buffer()
    torch.cuda.synchronize()
    total = 0.0
    for _ in range(runs):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        total += start.elapsed_time(end)
    return max(total / runs, 1e-4)


def _events_loop(fn: Callable[[], Any], warmup_ms: float, n: int) -> list[float]:
    """The same loop as ``triton.testing.do_bench`` for a Triton without ``return_mode='all'``."""
    flush = _flush_buffer()
    est = estimate_ms(fn)
    for _ in range(max(1, int(warmup_ms / est))):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for s, e in zip(starts, ends, strict=True):
        flush.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends, strict=True)]


def time_events(fn: Callable[[], Any], options: TimingOptions) -> list[float]:
    """Per-call times (ms) by ``triton.testing.do_bench``, its repetition time stretched so that at least
    ``options.min_samples`` runs are timed (a flush of the L2 cache takes about as long as a small kernel, and
    do_bench counts it in its estimate)."""
    est = estimate_ms(fn)
    flush_ms = 0.1  # writing 256 MB at ~3 TB/s, counted by do_bench in its per-run estimate
    rep = min(max(options.rep_ms, options.min_samples * (est + flush_ms) * 1.2), options.max_seconds * 1000)
    try:
        import triton.testing  # type: ignore[import-untyped]

        times = triton.testing.do_bench(fn, warmup=options.warmup_ms, rep=rep, return_mode="all")
    except (ImportError, AssertionError, TypeError):  # no Triton, or one without return_mode="all"
        times = _events_loop(fn, options.warmup_ms, max(options.min_samples, int(rep / (est + flush_ms))))
    return [float(t) for t in times]


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
    est = estimate_ms(calls[0])
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
    flush = _flush_buffer()
    deadline = time.perf_counter() + options.warmup_ms / 1000
    while time.perf_counter() < deadline:
        graph.replay()
        torch.cuda.synchronize()
    n = max(options.min_samples, int(options.rep_ms / (est * per_graph + 0.1)))
    n = min(n, max(options.min_samples, int(options.max_seconds * 1000 / (est * per_graph + 0.1))))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for s, e in zip(starts, ends, strict=True):
        flush.zero_()
        s.record()
        graph.replay()
        e.record()
    torch.cuda.synchronize()
    note = f"CUDA graph of {per_graph} calls rotating over {k} copies of the inputs, {n} replays"
    return [s.elapsed_time(e) / per_graph for s, e in zip(starts, ends, strict=True)], note


def measure_peaks(copy_bytes: int = 2**30, matmul_n: int = 8192) -> dict[str, float]:
    """This GPU's measured peaks: a device-to-device copy's bandwidth (bytes read + written per second) and a
    bf16 matmul's rate (FLOP/s), each the median of ``triton.testing.do_bench``'s runs (or of event timings)."""
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
