"""The process isolated workers are forked from, and how to start it early.

Workers start through multiprocessing's ``forkserver``
(https://docs.python.org/3/library/multiprocessing.html#contexts-and-start-methods): one server process imports
kcheck (torch, Triton) and ``torch._dynamo`` once and forks each worker from there. This module imports nothing
heavy, so the command line can start that server before it imports torch itself: the server's imports (seconds)
then run beside this process's own instead of after them.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from typing import Any

#: What the forkserver imports once for every worker it forks: kcheck's worker (torch, Triton) and
#: ``torch._dynamo``, which an ``autograd.Function``'s first ``torch.empty`` imports (1-3 s on the H200: paid once
#: here, not by each worker, nor inside a case's time limit). A module that fails to import is skipped.
PRELOAD = ["kcheck.run._isolate", "torch._dynamo"]

#: Held while a process is started or a worker's exit code is read (see ``run._isolate``).
LOCK = threading.Lock()


def context() -> Any:
    """The multiprocessing context workers start from: ``forkserver`` preloaded with ``PRELOAD``, or ``spawn`` where
    forkserver is missing or ``KCHECK_WORKER_START=spawn`` asks for it."""
    method = os.environ.get("KCHECK_WORKER_START", "forkserver")
    if method not in ("forkserver", "spawn") or method not in mp.get_all_start_methods():
        method = "spawn"
    ctx = mp.get_context(method)
    if method == "forkserver":
        with LOCK:
            ctx.set_forkserver_preload(PRELOAD)
    return ctx


def start() -> bool:
    """Start the forkserver now, in the background (its imports run in its own process; this call returns at once);
    False where workers start with ``spawn`` or the server could not be started (the first worker then starts it,
    or says why not)."""
    if context().get_start_method() != "forkserver":
        return False
    from multiprocessing import forkserver

    try:
        forkserver.ensure_running()
    except Exception:  # an early start is only a head start
        return False
    return True
