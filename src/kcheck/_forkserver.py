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


#: The exit status of a worker that ended itself because the caller's main module, which the worker imports again
#: as it starts, calls kcheck at its top level (see ``refuse_while_importing_main``).
EXIT_MAIN_REIMPORTED = 86

#: Why such a worker ended, and the fix: the words a case that no worker could run carries.
MAIN_REIMPORTED_WORDS = (
    "the worker did not start: it imports the main script again as it starts (multiprocessing's spawn and "
    "forkserver do), and that script calls kcheck at its top level, which would start workers of its own. Put the "
    "call under `if __name__ == \"__main__\":` (see 'Safe importing of main module' in "
    "https://docs.python.org/3/library/multiprocessing.html), or run the script's Specs with `kcheck check FILE`")


def refuse_while_importing_main() -> None:
    """End this process with ``EXIT_MAIN_REIMPORTED`` when it is a worker still importing the caller's main module:
    a kcheck call at that module's top level runs again there, and would start workers (or run a whole check) before
    the worker has started. multiprocessing marks this phase with ``current_process()._inheriting`` and refuses to
    start processes in it (its ``_check_not_importing_main``), with a traceback that says nothing of kcheck; the
    parent reads this status instead and says what to change."""
    if getattr(mp.current_process(), "_inheriting", False):
        os._exit(EXIT_MAIN_REIMPORTED)


def context() -> Any:
    """The multiprocessing context workers start from: ``forkserver`` preloaded with ``PRELOAD``, or ``spawn`` where
    forkserver is missing or ``KCHECK_WORKER_START=spawn`` asks for it."""
    refuse_while_importing_main()
    method = os.environ.get("KCHECK_WORKER_START", "forkserver")
    if method not in ("forkserver", "spawn") or method not in mp.get_all_start_methods():
        method = "spawn"
    ctx = mp.get_context(method)
    if method == "forkserver":
        with LOCK:
            ctx.set_forkserver_preload(PRELOAD)
    return ctx


#: The environment the server was started with, while it was started ahead of the command line's own set-up
#: (``start(early=True)``) and no worker has been asked of it yet; None otherwise.
_EARLY_ENV: dict[str, str] | None = None


def start(early: bool = False) -> bool:
    """Start the forkserver now, in the background (its imports run in its own process; this call returns at once);
    False where workers start with ``spawn`` or the server could not be started (the first worker then starts it,
    or says why not).

    ``early``: the command line starts it before it prepares the environment for the kernels' frameworks (on a
    machine without a GPU, the variables that switch on Triton's interpreter, which Triton reads as it imports). The
    next call, made once that is done and before any worker starts, stops a server started early under another
    environment and starts it again: its imports would not be the workers'."""
    global _EARLY_ENV
    if context().get_start_method() != "forkserver":
        return False
    from multiprocessing import forkserver

    env = dict(os.environ)
    try:
        if _EARLY_ENV is not None and _EARLY_ENV != env:
            stop = getattr(forkserver._forkserver, "_stop", None)
            if stop is None:  # cannot be stopped here: workers start with spawn, from the current environment
                os.environ["KCHECK_WORKER_START"] = "spawn"
                return False
            stop()
        _EARLY_ENV = env if early else None
        forkserver.ensure_running()
    except Exception:  # an early start is only a head start
        return False
    return True


def gpu_device_files() -> bool:
    """Whether this machine has NVIDIA's device files (a cheap sign of a GPU, without importing torch)."""
    return os.path.exists("/dev/nvidiactl")
