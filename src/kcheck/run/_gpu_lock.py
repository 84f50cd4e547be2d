"""Past-2**31 cases of different kcheck processes take turns on a GPU.

A past-2**31 case holds tens of GiB (a 2**31-element fp32 input and output, the float64 reference's result and the
comparison's temporaries). Within one check the worker pool runs such cases side by side only as their estimates
fit (``_pool``). Processes do not see each other's estimates: under ``pytest -n 8`` (kcheck's plugin in each xdist
worker) or a script that checks Specs in parallel processes, two such cases on one GPU leave each other too little
memory, and both are reported "not run: out of memory" though either alone would have run.

So a process runs its past-2**31 cases on a GPU only while it holds that GPU's lock file
(``<tmp>/kcheck-locks/large-gpu-<name>.lock``; ``KCHECK_LOCK_DIR`` moves it), an OS lock that a process that dies
releases. Cases of the same process share the hold (the pool budgets them among themselves); another process waits
for its turn, and the case's result says how long it waited. GPUs are named as ``CUDA_VISIBLE_DEVICES`` names them to
the process (an index, or a UUID): processes that number the same GPU differently do not see each other.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock

#: How often a waiting process looks at the lock again (seconds).
POLL = 0.5


def lock_dir() -> Path:
    """Where the lock files live: ``KCHECK_LOCK_DIR``, else ``<tmp>/kcheck-locks``."""
    return Path(os.environ.get("KCHECK_LOCK_DIR") or Path(tempfile.gettempdir()) / "kcheck-locks")


def _file_lock(path: Path) -> FileLock:
    try:  # acquired by one thread, perhaps released by another (the last of the process's large cases)
        return FileLock(str(path), thread_local=False)
    except TypeError:  # filelock before 3.11 has no thread_local and is not thread-local
        return FileLock(str(path))


@dataclass
class _Hold:
    """This process's hold on one GPU's lock: how many of its cases share it, and whether one is acquiring it."""

    lock: FileLock
    count: int = 0
    acquiring: bool = False
    cond: threading.Condition = field(default_factory=threading.Condition)


_holds: dict[str, _Hold] = {}
_holds_lock = threading.Lock()


def current_gpu(env: dict[str, str] | None = None) -> str:
    """The GPU a process with environment ``env`` (default: this one) runs on: the first entry of its
    ``CUDA_VISIBLE_DEVICES``, else "0"."""
    given = (env if env is not None else os.environ).get("CUDA_VISIBLE_DEVICES", "")
    first = given.split(",")[0].strip()
    return first or "0"


def _hold(gpu: str) -> _Hold:
    d = lock_dir()
    path = d / f"large-gpu-{re.sub(r'[^A-Za-z0-9_.-]', '_', gpu)}.lock"
    with _holds_lock:
        if str(path) not in _holds:
            d.mkdir(parents=True, exist_ok=True)
            _holds[str(path)] = _Hold(_file_lock(path))
        return _holds[str(path)]


@contextmanager
def large_case_turn(gpu: str) -> Iterator[list[float]]:
    """Run a past-2**31 case on ``gpu`` inside this: it waits while another process runs its own there. Yields a
    one-item list that holds the seconds waited once the turn has come."""
    hold = _hold(gpu)
    waited = [0.0]
    t0 = time.perf_counter()
    with hold.cond:
        while hold.acquiring:  # another thread of this process is waiting for the file: wait with it
            hold.cond.wait()
        first = hold.count == 0
        hold.count += 1
        if first:
            hold.acquiring = True
    if first:
        try:
            hold.lock.acquire(poll_interval=POLL)
        except BaseException:  # Ctrl-C while waiting: give the slot back
            with hold.cond:
                hold.count -= 1
                hold.acquiring = False
                hold.cond.notify_all()
            raise
        with hold.cond:
            hold.acquiring = False
            hold.cond.notify_all()
    waited[0] = time.perf_counter() - t0
    try:
        yield waited
    finally:
        with hold.cond:
            hold.count -= 1
            if hold.count == 0:
                hold.lock.release()
