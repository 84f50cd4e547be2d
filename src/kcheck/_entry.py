"""The ``kcheck`` command's entry (and ``python -m kcheck``): starts the workers' server, then runs the command line.

A check runs its cases in workers forked from one server process that imports torch and Triton (see
``_forkserver``). Started here, before this process imports anything heavy, the server's imports (seconds) run
beside the command line's own rather than after them; the command line then finds it up.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from . import _forkserver

#: The sub-commands that run cases in workers: ``check`` (isolated by default) and ``debug`` (always).
_WORKER_COMMANDS = {"check", "debug"}


def wants_workers(argv: Sequence[str]) -> bool:
    """Whether the command line ``argv`` (without the program's name) will start workers: a ``check`` or a
    ``debug``, unless a ``check`` asks for no isolation and no workers. A guess from the words alone: a wrong
    yes costs a server that imports in the background and exits with this process, a wrong no the head start."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in _WORKER_COMMANDS or "-h" in argv or "--help" in argv:
        return False
    if command == "debug":
        return True
    workers = any(a in ("-n", "--workers") or a.startswith(("--workers=", "-n")) for a in argv)
    return workers or "--no-isolate" not in argv


def main(argv: Sequence[str] | None = None) -> int:
    if wants_workers(sys.argv[1:] if argv is None else argv) and _forkserver.gpu_device_files():
        _forkserver.start(early=True)  # without a GPU the environment changes first (Triton's interpreter)
    from .cli import main as cli_main

    return cli_main(argv)
