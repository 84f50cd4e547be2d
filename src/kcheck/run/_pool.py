"""Parallel workers: the cases of a check spread over N isolated workers, on one machine and over its GPUs.

Each worker is an :class:`~kcheck.run.Isolated` (a crash or a hang costs its case; the dead worker is replaced,
from a warm spare once one has died, while the others go on) driven by one thread of the parent, which only waits
on the worker's pipe. Cases are handed out one at a time from a shared queue, so a slow case never holds back the
others; the caller gets ``("start", i)`` and ``("done", i, result)`` events as they happen and puts the results back
in order itself.

On a machine with GPUs the workers form one group per GPU: worker ``w`` is pinned to GPU ``w mod G`` through
``CUDA_VISIBLE_DEVICES`` in its environment, set before anything in the worker initializes CUDA. A past-2**31 case
(tens of GiB) goes to the GPU with the most free memory at the moment it is handed out, and each GPU runs at most one
such case at a time; the other workers of that GPU go on with small cases.

Workers sharing a GPU also share its memory: a case that ran out of device memory while other workers of its GPU
were busy is run again alone once they are idle (the GPU's other workers take nothing new meanwhile), so its
verdict is the one a single worker would give; an out-of-memory result of a case that ran alone stands.

With cold compile caches most of a case's time is the JIT compile of its kernel variant, and workers that take the
next cases in order all compile the same variant at once (each its own copy: Triton's disk cache is written by the
first to finish). So a worker takes, in order of preference, the next case whose compile key it has already built,
else the next case whose key no worker has started, else the next case: the variants are compiled once each, in
parallel, and a worker stays on the variants it holds.
"""

from __future__ import annotations

import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ._isolate import Isolated

T = TypeVar("T")

#: Workers per GPU for ``workers="auto"``: several share one GPU, so the workers' compiles (CPU, one core each)
#: overlap each other and the launches (GPU); capped by the CPU count (a small case's GPU time is far below its
#: compile time, so a worker per core keeps the cores busy; each worker's CUDA context costs about 0.5 GiB).
PER_GPU = 16


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as names for ``CUDA_VISIBLE_DEVICES``: the entries of the parent's own
    ``CUDA_VISIBLE_DEVICES`` when it is set (so pinning stays inside it), else the indices ``0..count-1``."""
    import torch

    if not torch.cuda.is_available():
        return []
    count = torch.cuda.device_count()
    given = os.environ.get("CUDA_VISIBLE_DEVICES")
    if given:
        names = [g.strip() for g in given.split(",") if g.strip()]
        return names[:count]
    return [str(i) for i in range(count)]


def worker_count(setting: int | str, cases: int, gpus: Sequence[str], cpus: int | None = None) -> int:
    """How many workers to start: ``setting`` (an int, or "auto": the CPU count on a CPU machine, ``PER_GPU`` per
    GPU on a GPU machine, at most the CPU count), never more than the cases to run and never less than 1."""
    cpus = cpus or os.cpu_count() or 1
    if setting == "auto":
        n = min(cpus, PER_GPU * len(gpus)) if gpus else cpus
    else:
        n = int(setting)
    return max(1, min(n, cases))


def pinning(workers: int, gpus: Sequence[str]) -> list[dict[str, str]]:
    """The environment additions of each worker: ``CUDA_VISIBLE_DEVICES`` of GPU ``w mod G`` (nothing without
    GPUs)."""
    if not gpus:
        return [{} for _ in range(workers)]
    return [{"CUDA_VISIBLE_DEVICES": gpus[w % len(gpus)]} for w in range(workers)]


def free_memory(gpu: int) -> int:
    """Free bytes on the parent's GPU ``gpu`` (an index as the parent sees them)."""
    import torch

    free, _ = torch.cuda.mem_get_info(gpu)
    return int(free)


@dataclass
class _Worker:
    isolated: Isolated
    group: int  # index into the GPU list; 0 without GPUs
    built: set[Hashable] = field(default_factory=set)  # compile keys of the cases this worker ran


class Pool(Generic[T]):
    """N isolated workers (see the module docstring). ``gpus`` are the GPUs to pin workers to (``visible_gpus()``;
    empty on a CPU machine); ``free(g)`` says the free bytes of the ``g``-th of them (default: ``free_memory``)."""

    def __init__(self, workers: int, timeout: float, gpus: Sequence[str] = (),
                 free: Callable[[int], int] | None = None) -> None:
        self.gpus = list(gpus)
        self.free = free or free_memory
        envs = pinning(workers, self.gpus)
        self.workers = [_Worker(Isolated(timeout, env=env), w % max(1, len(self.gpus)))
                        for w, env in enumerate(envs)]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # --- scheduling -------------------------------------------------------------------------------------------

    def _take(self, worker: _Worker) -> int:
        """Remove and return the pending task ``worker`` should run next (see the module docstring)."""
        fresh = None
        for pos, i in enumerate(self._pending):
            k = self._keys[i]
            if k in worker.built:
                break
            if fresh is None and k not in self._started:
                fresh = pos
        else:
            pos = 0 if fresh is None else fresh
        i = self._pending[pos]
        del self._pending[pos]
        k = self._keys[i]
        worker.built.add(k)
        self._started.add(k)
        return i

    def _next(self, worker: _Worker) -> int | None:
        """The next task for ``worker`` (called under the condition's lock), None when there is none left for it;
        waits while its GPU's large case runs and another is queued for it, and while a case of its GPU waits to
        run alone."""
        group = worker.group
        while not self._stop.is_set():
            if self._waiting_alone[group]:
                self._cond.wait()
                continue
            if self._large[group] and not self._busy[group]:
                self._busy[group] = True
                return self._large[group].popleft()
            while self._pending:
                i = self._take(worker)
                if not (self.gpus and self._is_large(self._tasks[i])):
                    return i
                target = self._place()
                self._large[target].append(i)
                if target == group and not self._busy[group]:
                    self._busy[group] = True
                    return self._large[group].popleft()
            if not self._large[group]:
                return None
            self._cond.wait()  # a large case of this GPU is queued behind the one running
        return None

    def _place(self) -> int:
        """The GPU group for a past-2**31 case: the most free memory among the GPUs not running one, else among
        all."""
        idle = [g for g in range(len(self.gpus)) if not self._busy[g] and not self._large[g]] or list(
            range(len(self.gpus)))
        try:
            return max(idle, key=self.free)
        except Exception:  # the driver cannot say: spread them round
            return min(idle, key=lambda g: len(self._large[g]))

    def _serve(self, worker: _Worker, run: Callable[[Isolated, T], Any], events: queue.Queue[Any]) -> None:
        try:
            while True:
                with self._cond:
                    i = self._next(worker)
                if i is None:
                    return
                events.put(("start", i, None))
                try:
                    result = self._run_one(worker, i, run)
                except BaseException as exc:  # a bug in kcheck: the parent re-raises it
                    events.put(("error", i, exc))
                    return
                events.put(("done", i, result))
        finally:
            events.put(("exit", None, None))

    def _run_one(self, worker: _Worker, i: int, run: Callable[[Isolated, T], Any]) -> Any:
        """Run task ``i`` on ``worker``; on a GPU, run it again alone when it ran out of memory beside others."""
        group, alone = worker.group, False
        while True:
            with self._cond:
                self._running[group] += 1
            try:
                result = run(worker.isolated, self._tasks[i])
            finally:
                with self._cond:
                    self._running[group] -= 1
                    if self.gpus and self._is_large(self._tasks[i]) and not alone:
                        self._busy[group] = False
                    if alone:
                        self._alone_now[group] = False
                    self._cond.notify_all()
            if alone or not self.gpus or not self._out_of_memory(result):
                return result
            with self._cond:  # wait for the GPU's other workers to finish, taking nothing new, then go alone
                self._waiting_alone[group] += 1
                while (self._running[group] or self._alone_now[group]) and not self._stop.is_set():
                    self._cond.wait()
                self._waiting_alone[group] -= 1
                if self._stop.is_set():
                    return result
                self._alone_now[group] = alone = True
                self._reruns += 1

    # --- running ----------------------------------------------------------------------------------------------

    def run(self, tasks: Sequence[T], run: Callable[[Isolated, T], Any],
            is_large: Callable[[T], bool] = lambda t: False,
            key: Callable[[T], Hashable] = lambda t: None,
            out_of_memory: Callable[[Any], bool] = lambda result: False) -> Iterator[tuple[str, int, Any]]:
        """Run ``run(worker, task)`` for every task on the workers; yield ``("start", i, None)`` when task ``i``
        starts and ``("done", i, result)`` when it ends, as they happen. ``key(task)``: its compile key (tasks of
        one key are kept on the workers that built it); ``out_of_memory(result)``: whether a result says the
        device ran out of memory (on a GPU the task then runs again alone). An exception raised by ``run`` is
        raised here; closing the iterator early (Ctrl-C) stops the workers."""
        self._tasks, self._is_large, self._out_of_memory = list(tasks), is_large, out_of_memory
        self._keys = [key(t) for t in self._tasks]  # once: a worker's pick scans the pending tasks' keys
        self._started: set[Hashable] = set()
        self._pending: deque[int] = deque(range(len(self._tasks)))
        groups = max(1, len(self.gpus))
        self._large: list[deque[int]] = [deque() for _ in range(groups)]
        self._busy = [False] * groups
        self._running = [0] * groups  # tasks in progress per GPU group
        self._waiting_alone = [0] * groups  # tasks of the group waiting to run again alone
        self._alone_now = [False] * groups  # a task of the group is running alone
        self._reruns = 0  # tasks run again alone after running out of memory
        self._cond = threading.Condition()
        events: queue.Queue[Any] = queue.Queue()
        self._threads = [threading.Thread(target=self._serve, args=(w, run, events), daemon=True,
                                          name=f"kcheck-worker-{k}") for k, w in enumerate(self.workers)]
        for t in self._threads:
            t.start()
        running = len(self._threads)
        try:
            while running:
                kind, i, payload = events.get()
                if kind == "exit":
                    running -= 1
                elif kind == "error":
                    raise payload
                else:
                    yield kind, i, payload
        finally:
            self.stop()

    def stop(self) -> None:
        """Hand out no more tasks and wait for the running ones (killed by closing their workers if needed)."""
        self._stop.set()
        if hasattr(self, "_cond"):
            with self._cond:
                self._cond.notify_all()
        if any(t.is_alive() for t in self._threads):
            for w in self.workers:  # a thread waiting on a case: killing its worker ends the wait
                w.isolated.interrupt()
        for t in self._threads:
            t.join(10)

    def close(self) -> None:
        self.stop()
        for w in self.workers:
            w.isolated.close()

    def __enter__(self) -> Pool[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["PER_GPU", "Pool", "free_memory", "pinning", "visible_gpus", "worker_count"]
