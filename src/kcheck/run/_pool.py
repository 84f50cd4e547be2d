"""Parallel workers: the cases of a check spread over N isolated workers, on one machine and over its GPUs.

Each worker is an :class:`~kcheck.run.Isolated` (a crash or a hang costs its case; the dead worker is replaced,
from a warm spare once one has died, while the others go on) driven by one thread of the parent, which only waits
on the worker's pipe. Tasks are handed out one at a time, so a slow case never holds back the others; the caller
gets ``("start", i)`` and ``("done", i, result)`` events as they happen and puts the results back in order itself.

**What a worker takes next.** A worker pays twice for work it has not done before: once per *group* (a Spec: the
first case of a Spec in a process imports its framework, loads its kernels, learns the reference's shapes; seconds
on a GPU machine for a CUDA C or a training Spec) and once per *compile key* (the JIT compile of a kernel variant,
most of a small case's time with cold caches). Handing cases out in order made every worker pay every Spec's first
touch and compile the same variant at once. So a worker takes, in order of preference:

1. the next task of a group it has touched whose compile key it built;
2. the next task of a group it has touched whose key no worker has started;
3. the next task of a group it has touched;
4. a task of the group with the most pending tasks per worker already on it (the key no worker has started first):
   a worker whose Specs are done joins the one with the most work left per hand, so a Spec is spread over as few
   workers as keep every worker busy, and the tail is shared.

On a machine with GPUs the workers form one group per GPU: worker ``w`` is pinned to GPU ``w mod G`` through
``CUDA_VISIBLE_DEVICES`` in its environment, set before anything in the worker initializes CUDA. Past-2**31 cases
(tens of GiB each, the longest cases) are handed out before any other, as the memory allows, once a case of their
Spec has finished (its module loaded and its kernel compiled: on the H200 a CUDA C Spec's first case in a fresh
worker took 2-4 s, paid inside the chain of large cases that only one or two can run at a time; when no other task
is left they go anyway). Each carries an estimate of its peak bytes, and a GPU runs such cases side by side while
their estimates fit in what it had free when the pool started (less a reserve for its other workers); a case with
no estimate runs alone among them. A worker takes one only if its GPU has the most room among those it fits on;
its GPU's other workers go on with small cases meanwhile.

Workers sharing a GPU also share its memory: a case that ran out of device memory while other workers of its GPU
were busy is run again alone once they are idle (the GPU's other workers take nothing new meanwhile), so its
verdict is the one a single worker would give; an out-of-memory result of a case that ran alone stands.
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
#: Bytes kept free, per worker of a GPU, beside its past-2**31 cases: a CUDA context (~0.5 GiB) and what a worker
#: may keep cached after a small case (it gives back more than 1 GiB).
SMALL_RESERVE = 2 * 2**30


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
    gpu: int  # index into the GPU list; 0 without GPUs
    built: set[Hashable] = field(default_factory=set)  # compile keys of the cases this worker ran
    touched: list[Hashable] = field(default_factory=list)  # groups (Specs) it has run a task of, first first


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

    def _pick(self, worker: _Worker, queue_: deque[int]) -> int:
        """The position in ``queue_`` of the task ``worker`` prefers there: its built key, else a key no worker
        started, else the first."""
        fresh = None
        for pos, i in enumerate(queue_):
            k = self._keys[i]
            if k in worker.built:
                return pos
            if fresh is None and k not in self._started:
                fresh = pos
        return 0 if fresh is None else fresh

    def _take_small(self, worker: _Worker) -> int | None:
        """Remove and return the pending task ``worker`` should run next (see the module docstring), None when none
        is left."""
        # a group of past-2**31 cases only has no queue here
        own = [(g, self._pick(worker, self._pending[g])) for g in worker.touched if self._pending.get(g)]
        if own:
            keys = [self._keys[self._pending[g][pos]] for g, pos in own]
            for (g, pos), k in zip(own, keys, strict=True):  # 1. a built key in a touched group
                if k in worker.built:
                    return self._pop(worker, g, pos)
            for (g, pos), k in zip(own, keys, strict=True):  # 2. a fresh key in a touched group
                if k not in self._started:
                    return self._pop(worker, g, pos)
            return self._pop(worker, own[0][0], 0)  # 3.
        live = [g for g, q in self._pending.items() if q]
        if not live:
            return None
        g = max(live, key=lambda g: len(self._pending[g]) / (1 + self._hands.get(g, 0)))  # 4.; ties: the earliest group
        return self._pop(worker, g, self._pick(worker, self._pending[g]))

    def _pop(self, worker: _Worker, g: Hashable, pos: int) -> int:
        q = self._pending[g]
        i = q[pos]
        del q[pos]
        self._claim(worker, i)
        return i

    def _claim(self, worker: _Worker, i: int) -> None:
        k, g = self._keys[i], self._groups[i]
        worker.built.add(k)
        self._started.add(k)
        if g not in worker.touched:
            worker.touched.append(g)
            self._hands[g] = self._hands.get(g, 0) + 1

    def _room(self, gpu: int) -> float:
        """Bytes a past-2**31 case may still take on ``gpu``: its budget less the estimates of those running; 0
        while one without an estimate runs."""
        if self._unsized[gpu]:
            return 0.0
        return self._budget[gpu] - self._held[gpu]

    def _fits(self, gpu: int, need: int | None) -> bool:
        if not self._large_on[gpu]:
            return True  # alone among the large ones: it may still run out, and then it says so
        return need is not None and need <= self._room(gpu)

    def _take_large(self, worker: _Worker) -> int | None:
        """A pending past-2**31 case for ``worker``'s GPU, if one fits there and no GPU it fits on has more room."""
        g = worker.gpu
        small_left = any(self._pending.values())
        for pos, i in enumerate(self._large_pending):
            need = self._need[i]
            if not self._fits(g, need):
                continue
            grp = self._groups[i]
            if small_left and grp is not None and grp not in self._finished and self._pending.get(grp):
                continue  # its Spec's first case compiles elsewhere: this worker runs small cases meanwhile
            fitting = [h for h in range(len(self.gpus)) if self._fits(h, need)]
            if any(self._score(h) > self._score(g) for h in fitting):
                return None  # another GPU has more room for it: one of its workers takes it
            del self._large_pending[pos]
            self._large_on[g] += 1
            if need is None:
                self._unsized[g] += 1
            else:
                self._held[g] += need
            self._claim(worker, i)
            return i
        return None

    def _score(self, gpu: int) -> tuple[bool, float]:
        """How much room ``gpu`` has for the next past-2**31 case (the most wins): a GPU running none first (its
        room is then its whole budget)."""
        return (not self._large_on[gpu], self._room(gpu))

    def _next(self, worker: _Worker) -> int | None:
        """The next task for ``worker`` (called under the condition's lock), None when there is none left for it;
        waits while a case of its GPU waits to run alone, and while a past-2**31 case is left that only its GPU
        may take later."""
        gpu = worker.gpu
        while not self._stop.is_set():
            if self._waiting_alone[gpu]:
                self._cond.wait()
                continue
            if self.gpus and self._large_pending:
                i = self._take_large(worker)
                if i is not None:
                    return i
            i = self._take_small(worker)
            if i is not None:
                return i
            if not self._large_pending:
                return None
            self._cond.wait()  # past-2**31 cases wait for room: one may come to this worker
        return None

    def _release(self, worker: _Worker, i: int) -> None:
        """A past-2**31 case has ended: its memory goes back to its GPU's budget."""
        g = worker.gpu
        self._large_on[g] -= 1
        need = self._need[i]
        if need is None:
            self._unsized[g] -= 1
        else:
            self._held[g] -= need

    def _budget_of(self, gpu: int) -> float:
        """Bytes the past-2**31 cases of ``gpu`` may hold at once: what it has free now, less a reserve for its
        other workers (their contexts and the small cases' memory); the estimates carry their own margin."""
        try:
            free = float(self.free(gpu))
        except Exception:  # the driver cannot say: they run one at a time
            return 0.0
        others = sum(1 for w in self.workers if w.gpu == gpu) - 1
        return free - others * SMALL_RESERVE

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
        gpu, alone = worker.gpu, False
        while True:
            with self._cond:
                self._running[gpu] += 1
            try:
                result = run(worker.isolated, self._tasks[i])
            finally:
                with self._cond:
                    self._running[gpu] -= 1
                    self._finished.add(self._groups[i])  # its group's first touch is paid (the notify below)
                    if i in self._large_set and not alone:
                        self._release(worker, i)
                    if alone:
                        self._alone_now[gpu] = False
                    self._cond.notify_all()
            if alone or not self.gpus or not self._out_of_memory(result):
                return result
            with self._cond:  # wait for the GPU's other workers to finish, taking nothing new, then go alone
                self._waiting_alone[gpu] += 1
                while (self._running[gpu] or self._alone_now[gpu]) and not self._stop.is_set():
                    self._cond.wait()
                self._waiting_alone[gpu] -= 1
                if self._stop.is_set():
                    return result
                self._alone_now[gpu] = alone = True
                self._reruns += 1

    # --- running ----------------------------------------------------------------------------------------------

    def run(self, tasks: Sequence[T], run: Callable[[Isolated, T], Any],
            is_large: Callable[[T], bool] = lambda t: False,
            key: Callable[[T], Hashable] = lambda t: None,
            out_of_memory: Callable[[Any], bool] = lambda result: False,
            group: Callable[[T], Hashable] = lambda t: None,
            need: Callable[[T], int | None] = lambda t: None) -> Iterator[tuple[str, int, Any]]:
        """Run ``run(worker, task)`` for every task on the workers; yield ``("start", i, None)`` when task ``i``
        starts and ``("done", i, result)`` when it ends, as they happen. ``key(task)``: its compile key and
        ``group(task)`` its group (a Spec), which keep tasks on the workers that have paid for them (see the module
        docstring); ``is_large(task)``: a past-2**31 case, ``need(task)`` its estimated peak bytes (None: unknown, it
        runs alone among the large ones); ``out_of_memory(result)``: whether a result says the device ran out of
        memory (on a GPU the task then runs again alone). An exception raised by ``run`` is raised here; closing the
        iterator early (Ctrl-C) stops the workers."""
        self._tasks, self._out_of_memory = list(tasks), out_of_memory
        self._keys = [key(t) for t in self._tasks]  # once: a worker's pick scans the pending tasks' keys
        self._groups = [group(t) for t in self._tasks]
        large = [bool(self.gpus) and is_large(t) for t in self._tasks]
        self._large_set = {i for i, flag in enumerate(large) if flag}
        self._need = {i: need(self._tasks[i]) for i in self._large_set}
        self._large_pending: deque[int] = deque(sorted(self._large_set))
        self._pending: dict[Hashable, deque[int]] = {}
        for i, flag in enumerate(large):
            if not flag:
                self._pending.setdefault(self._groups[i], deque()).append(i)
        self._started: set[Hashable] = set()
        self._finished: set[Hashable] = set()  # groups with a finished task: their first touch is paid
        self._hands: dict[Hashable, int] = {}  # workers that have touched each group
        gpus = max(1, len(self.gpus))
        self._budget = [self._budget_of(g) for g in range(gpus)] if self.gpus and self._large_set else [0.0] * gpus
        self._held = [0.0] * gpus  # estimated bytes of the past-2**31 cases running per GPU
        self._large_on = [0] * gpus  # past-2**31 cases running per GPU
        self._unsized = [0] * gpus  # of which without an estimate
        self._running = [0] * gpus  # tasks in progress per GPU
        self._waiting_alone = [0] * gpus  # tasks of the GPU waiting to run again alone
        self._alone_now = [False] * gpus  # a task of the GPU is running alone
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
