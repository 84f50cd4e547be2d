"""Isolation: cases run in a worker process, so a crash, a sticky CUDA error or a hang costs one case.

The worker is started once (``spawn``: never fork a process that may hold a CUDA context) and serves cases until it
dies. The parent sends (module path, Spec name, case) and waits up to ``timeout`` seconds:

- a result comes back: it is the case's result; if the worker's CUDA context is broken afterwards (an illegal
  address poisons every later CUDA call), the worker says so and exits, and the next case gets a fresh one;
- the pipe closes: the worker died (a signal, ``abort()``, a segfault in Triton's interpreter): the case is
  reported *crashed* with the signal and the last lines the worker wrote to stderr, and a new worker is started;
- nothing within ``timeout``: the worker is killed and the case reported *did not finish within T s*.

A Spec must be reachable by a worker: defined at module level in an importable file (the CLI and pytest always
have one). Each worker redirects its stderr to a file the parent reads after a crash.

Workers are started through multiprocessing's ``forkserver``
(https://docs.python.org/3/library/multiprocessing.html#contexts-and-start-methods): one server process imports
torch, Triton and kcheck once (it never touches CUDA) and forks each worker from there, so a new worker costs a
fraction of a second instead of the seconds a ``spawn`` pays re-importing torch. Each worker then takes the parent's
environment as it is at the worker's start, with the worker's own additions (``CUDA_VISIBLE_DEVICES``), before
anything initializes CUDA. After a worker dies, a warm spare is started in the background, so a Spec whose cases
crash one after another does not wait for a cold start per case. ``KCHECK_WORKER_START=spawn`` falls back to
``spawn`` (where ``forkserver`` is not available it is the default).
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from multiprocessing.connection import Connection
from typing import Any
from unittest import mock

from .. import _forkserver
from .._device import is_out_of_memory, release_memory
from .._discover import SpecRef, find_spec
from .._results import CaseResult, Reason, ReasonKind, Status
from ..backends import backends
from ..cases import Case
from ._execute import OUT_OF_MEMORY_WORDS, RunOptions

#: Set in the environment of a worker that must run Triton's interpreter with no GPU visible (``INTERPRETER_ENV``).
INTERPRETER_WORKER = "KCHECK_INTERPRETER_WORKER"
#: A worker's environment for Triton's interpreter on a machine with a GPU: the GPU hidden, the interpreter on.
INTERPRETER_ENV = {"CUDA_VISIBLE_DEVICES": "", "TRITON_INTERPRET": "1", INTERPRETER_WORKER: "1"}


def _cuda_broken() -> str | None:
    """The error of a broken CUDA context, or None when it is healthy (or there is no GPU)."""
    import torch

    if not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return None
    try:
        torch.cuda.synchronize()
        torch.zeros(1, device="cuda").add_(1).item()
    except Exception as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return None


def die_with_parent() -> None:
    """Ask Linux to kill this worker when the process that started it dies, even by SIGKILL: a killed kcheck
    leaves no worker behind. Elsewhere the worker notices the closed pipe at its next message."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(0)


def _preload_backends() -> None:
    """Every backend's ``preload`` (what a framework's first kernel in a process would load inside a case's time);
    one that fails is left to the case that needs it."""
    import torch

    gpu = torch.cuda.is_available()  # asks NVML: does not start CUDA
    for backend in backends():
        try:
            backend.preload(gpu)
        except Exception:
            pass


def _serve(conn: Connection, stderr_path: str, env: Mapping[str, str] | None = None, preload: bool = False) -> None:
    """Worker main loop (runs in the child). ``preload``: preload the backends before saying it is ready (the
    workers a check starts ahead of need; a replacement after a death, or its spare, starts without: a kernel that
    crashes every case must not pay it per case)."""
    die_with_parent()
    if env is not None:  # the parent's environment now (a forkserver's is the one of its own start), plus pinning
        os.environ.clear()
        os.environ.update(env)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C in the terminal is the parent's to handle
    loading = threading.Thread(target=_preload_backends, daemon=True, name="kcheck-preload") if preload else None
    if loading is not None:
        loading.start()  # beside the device start below; over before "ready", so no case's time limit counts it
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 2)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    from .._device import detect
    from ._execute import run_case

    device = detect()
    if loading is not None:
        loading.join()
    if os.environ.get(INTERPRETER_WORKER) and (device.is_gpu or not device.interpreter):
        conn.send(("ready", None))  # asked for Triton's interpreter without a GPU, and did not get it: say so
        while (msg := _recv(conn)) is not None:
            conn.send(("error", f"this worker was to run Triton's interpreter with no GPU visible, and found "
                                f"{device.describe()}"))
        return
    conn.send(("ready", None))  # the case's time limit starts once the worker is up, not while it imports
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        if msg[0] == "resources":
            conn.send(_resources(msg[1]))
            continue
        _, ref, case, options = msg
        failed: tuple[str, str] | None = None
        try:
            spec = find_spec(ref)
        except Exception as exc:  # the Spec's home, not the case: nothing of the kernel ran
            conn.send(("nospec", _not_importable(ref, exc)))
            continue
        try:
            result = run_case(spec, case, device, options)
        except Exception as exc:
            failed = ("oom" if is_out_of_memory(exc) else "error", traceback.format_exc(limit=3))
        except SystemExit as exc:  # the kernel called sys.exit(): a fault of the case, not the end of the worker
            failed = ("error", f"the kernel called sys.exit({exc.code!r})")
        if failed is not None:  # past the except block: the exception being handled, and its frames holding the
            if failed[0] == "oom":  # case's tensors, are gone only here
                release_memory()
            conn.send(failed)
            continue
        broken = _cuda_broken()
        if broken:
            result.status = Status.CRASHED
            result.reasons.insert(0, Reason(f"crashed: {broken}", ReasonKind.CRASHED))
            conn.send(("result", result))
            return  # the context is poisoned: every later CUDA call would fail; a fresh worker takes over
        conn.send(("result", result))


def _not_importable(ref: SpecRef, exc: Exception) -> str:
    """Why a worker found no Spec at ``ref``, and the fix."""
    if isinstance(exc, LookupError):
        return (f"the worker imported {ref.path} and found no Spec named {ref.name!r} at its top level (a Spec "
                "assigned under `if __name__ == \"__main__\":` or inside a function exists only in the process that "
                "ran that code); define the Spec at module level, or import it from the module that does")
    return f"the worker could not import {ref.path}: {type(exc).__name__}: {exc}"


def _recv(conn: Connection) -> Any:
    """The next message, or None when the parent is gone or says stop."""
    try:
        return conn.recv()
    except EOFError:
        return None


#: Seconds a new worker may take to import torch, Triton and kcheck (several on a loaded machine) before it is
#: called dead. Not part of any case's time limit.
STARTUP_LIMIT = 300.0
#: Seconds before a worker that did not start is tried again.
RESTART_PAUSE = 1.0


class _NoWorker(Exception):
    """A new worker died or did not come up."""


def _resources(ref: SpecRef) -> tuple[str, Any]:
    """The resource report of a Spec's kernels, learned in the worker (it launches the kernel once)."""
    from ._resources import spec_resources

    try:
        return "result", spec_resources(find_spec(ref))
    except Exception as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    except SystemExit as exc:
        return "error", f"the kernel called sys.exit({exc.code!r})"


def _exitcode(proc: Any) -> int | None:
    """``proc.exitcode``, read under the lock that process starts take. A forkserver child's status is one message
    on a pipe, read by whichever thread polls first: ``Process.start()`` polls every finished child of this process
    (multiprocessing's ``_cleanup``), and a thread polling the same child at that moment reads nothing and takes
    exit code 255 ("the worker exited with status 255" for a case that died by SIGABRT)."""
    with _forkserver.LOCK:
        return proc.exitcode  # type: ignore[no-any-return]


def _alive(proc: Any) -> bool:
    return _exitcode(proc) is None


def _join(proc: Any, seconds: float) -> None:
    """``proc.join(seconds)`` by polling ``_exitcode``, never holding the lock while it waits."""
    deadline = time.monotonic() + seconds
    while _alive(proc) and time.monotonic() < deadline:
        time.sleep(0.005)


class _Prestarted:
    """Workers started ahead of need (``warm_up``), waiting to be adopted by the first ``Isolated`` whose worker
    would have the same environment; the rest are stopped by ``discard_prestarted``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ready: list[_Process] = []
        self.thread: threading.Thread | None = None
        self.asked: set[tuple[tuple[str, str], ...]] = set()

    def start(self, ctx: Any, envs: Sequence[Mapping[str, str]]) -> None:
        new = [dict(e) for e in envs if _key(e) not in self.asked]
        if not new:
            return
        self.asked.update(_key(e) for e in new)

        previous = self.thread

        def run() -> None:
            if previous is not None:
                previous.join()
            for env in new:
                try:
                    proc = _Process(ctx, env, preload=True)
                except Exception:  # no forkserver: the pool starts its own workers as usual
                    return
                with self.lock:
                    self.ready.append(proc)

        self.thread = threading.Thread(target=run, daemon=True, name="kcheck-prestart")
        self.thread.start()

    def adopt(self, env: Mapping[str, str]) -> _Process | None:
        thread = self.thread
        if thread is not None:
            thread.join()  # the forks it waits on are the ones this worker would wait on itself
        full = dict(os.environ)
        full.update(env)
        with self.lock:
            for k, proc in enumerate(self.ready):
                if proc.env == full and _alive(proc.proc):
                    return self.ready.pop(k)
        return None

    def discard(self) -> None:
        if self.thread is not None:
            self.thread.join()
        with self.lock:
            left, self.ready = self.ready, []
            self.asked.clear()
        for proc in left:
            _discard(proc)


def _key(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(env.items()))


_PRESTARTED = _Prestarted()


def warm_up(envs: Sequence[Mapping[str, str]] = ()) -> None:
    """Start the forkserver now, in the background (it imports torch, Triton and kcheck: seconds), so that it is
    up when the first worker is asked for, and with ``envs`` one worker per entry (each entry is added to the
    environment, as ``Isolated(env=...)`` does), started by a background thread as soon as the forkserver is up: a
    worker initializes CUDA while the caller goes on (discovery, the matrices). An ``Isolated`` adopts a started
    worker whose environment is the one it would give its own (the caller's environment at its start included), so
    set the environment first; ``discard_prestarted`` stops the ones not adopted. Nothing to do with ``spawn``."""
    if _forkserver.start():  # else the first worker starts it as before (or says why not)
        _PRESTARTED.start(_forkserver.context(), envs)


def discard_prestarted() -> None:
    """Stop the workers ``warm_up`` started that no ``Isolated`` adopted."""
    _PRESTARTED.discard()


class _Process:
    """A started worker: its process, the parent's end of its pipe, the file its stderr goes to and the
    environment it was given; ``preload``: it preloads the backends before it says it is ready."""

    def __init__(self, ctx: Any, env: Mapping[str, str] | None, preload: bool = False) -> None:
        _forkserver.refuse_while_importing_main()
        fd, self.stderr = tempfile.mkstemp(prefix="kcheck-worker-", suffix=".stderr")
        os.close(fd)
        parent, child = ctx.Pipe()
        full = dict(os.environ)
        full.update(env or {})
        self.env = full
        self.proc = ctx.Process(target=_serve, args=(child, self.stderr, full, preload), daemon=True)
        with _forkserver.LOCK:  # several pool threads may start workers at once; the forkserver starts once
            if ctx.get_start_method() == "spawn":
                # a spawned worker imports torch and Triton before ``_serve`` runs, and Triton reads
                # TRITON_INTERPRET as it imports: the worker's own variables must be there at its start
                with mock.patch.dict(os.environ, env or {}):
                    self.proc.start()
            else:
                self.proc.start()
        child.close()
        self.conn: Connection = parent


class Isolated:
    """A worker process that runs cases one at a time; replaced whenever it dies or hangs.

    ``env`` is added to the worker's environment (a pool pins each worker to a GPU with ``CUDA_VISIBLE_DEVICES``);
    ``spare`` keeps a warm worker started in the background once a worker has died, so the next crash costs little.
    """

    def __init__(self, timeout: float = 60.0, *, env: Mapping[str, str] | None = None, spare: bool = True,
                 fresh: bool = False) -> None:
        self.timeout = timeout
        self.env = dict(env or {})
        self.spare = spare
        # ``fresh``: each worker imports torch and Triton itself, under ``env`` (``spawn``), instead of inheriting
        # the forkserver's imports, made under this process's environment
        self._ctx = mp.get_context("spawn") if fresh else _forkserver.context()
        self._fresh = fresh
        self._proc: Any = None
        self._conn: Connection | None = None
        self._stderr = ""
        self._refused = ""  # why no worker can start here (the main script calls kcheck at its top level), or ""
        self._spare: _Process | None = None
        self.started = 0  # workers started, for the report's figures
        self.deaths = 0  # workers that died or were killed
        self._closing = False

    def _start(self) -> None:
        self._forget_stderr()
        spare, self._spare = self._spare, None
        if spare is not None and not _alive(spare.proc):
            _discard(spare)
            spare = None
        fresh = spare or (None if self._fresh else _PRESTARTED.adopt(self.env)) or _Process(self._ctx, self.env)
        self._proc, self._conn, self._stderr = fresh.proc, fresh.conn, fresh.stderr
        if spare is None:
            self.started += 1
        if self.spare and self.deaths:
            self._spare = _Process(self._ctx, self.env)
            self.started += 1

    def _stop(self, kill: bool = False) -> int | None:
        """Stop the worker (killed when ``kill`` or when it does not exit within 5 s) and return its exit code."""
        proc, self._proc = self._proc, None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if proc is None:
            return None
        if not self._closing:
            self.deaths += 1
        if kill and _alive(proc):
            proc.kill()
        _join(proc, 5)
        if _alive(proc):  # busy in a kernel that ignores the closed pipe
            proc.kill()
            _join(proc, 5)
        return _exitcode(proc)

    def _forget_stderr(self) -> None:
        if self._stderr:
            try:
                os.unlink(self._stderr)
            except OSError:
                pass
            self._stderr = ""

    def _stderr_tail(self, lines: int = 3) -> str:
        try:
            with open(self._stderr, errors="replace") as fh:
                text = [ln.strip() for ln in fh.read().splitlines() if ln.strip()]
        except OSError:
            return ""
        return " | ".join(text[-lines:])

    def _ready(self) -> Connection:
        """A running worker's connection, starting one (and waiting until it has imported what it needs) if none
        runs. Raises _NoWorker when a new worker dies or does not come up within ``STARTUP_LIMIT`` seconds."""
        if self._proc is not None and _alive(self._proc):
            assert self._conn is not None
            return self._conn
        if self._refused:
            raise _NoWorker(self._refused)
        self._stop()
        self._start()
        assert self._conn is not None
        conn = self._conn
        try:
            up = conn.poll(STARTUP_LIMIT) and conn.recv()[0] == "ready"
        except (EOFError, OSError):
            up = False
        if not up:
            code = self._stop(kill=True)
            if code == _forkserver.EXIT_MAIN_REIMPORTED:
                self._refused = _forkserver.MAIN_REIMPORTED_WORDS
                raise _NoWorker(self._refused)
            tail = self._stderr_tail()
            raise _NoWorker(f"the worker did not start: {_exit_reason(code)}" + (f"; stderr: {tail}" if tail else ""))
        return conn

    def run(self, ref: SpecRef, case: Case, options: RunOptions | None = None,
            timeout: float | None = None) -> CaseResult:
        """Run one case in the worker; ``timeout`` (default: the worker's) bounds it, ``math.inf`` waits forever."""
        limit = self.timeout if timeout is None else timeout
        t0 = time.perf_counter()
        try:
            conn = self._ready()
        except _NoWorker:
            if self._refused:  # every worker would import the same main script: no second try, for no case
                return _synthetic(case, Status.ERROR, f"not run: {self._refused}; the kernel never ran", t0,
                                  ReasonKind.NO_WORKER)
            # a worker dies before it runs anything of the user's (its CUDA start out of memory beside a large case
            # of another worker, say): one more try, then a case no worker could run, not a crash of the kernel
            time.sleep(RESTART_PAUSE)
            try:
                conn = self._ready()
            except _NoWorker as exc:
                return _synthetic(case, Status.ERROR, f"not run: no worker could start, twice ({exc}); the kernel "
                                  "never ran", t0, ReasonKind.NO_WORKER)
        t0 = time.perf_counter()
        conn.send(("case", ref, case, options))
        if not conn.poll(_poll_timeout(limit)):
            self._stop(kill=True)
            return _synthetic(case, Status.TIMEOUT, f"did not finish within {limit:.3g} s (the worker was killed; "
                                                      "the other cases ran in a fresh one)", t0)
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError):
            code = self._stop()
            why = _exit_reason(code)
            tail = self._stderr_tail()
            return _synthetic(case, Status.CRASHED, f"crashed: {why}" + (f"; stderr: {tail}" if tail else ""), t0)
        if kind == "nospec":
            return _synthetic(case, Status.ERROR, f"not run: {payload}; the kernel never ran", t0,
                              ReasonKind.NOT_IMPORTABLE)
        if kind in ("error", "oom"):
            res = _synthetic(case, Status.ERROR, f"the worker could not run the case: {payload.strip()}", t0)
            if kind == "oom":
                res.reasons.append(Reason(OUT_OF_MEMORY_WORDS, ReasonKind.OUT_OF_MEMORY))
            return res
        if payload.status is Status.CRASHED:
            self._stop()
        return payload

    def resources(self, ref: SpecRef, timeout: float | None = None) -> list[Any]:
        """The Spec's resource report, learned in the worker: the interpreted launch it needs runs the user's kernel,
        which must not run unchecked in kcheck's own process. Raises RuntimeError with the reason when it fails."""
        limit = self.timeout if timeout is None else timeout
        try:
            conn = self._ready()
        except _NoWorker as exc:
            raise RuntimeError(str(exc)) from None
        conn.send(("resources", ref))
        if not conn.poll(_poll_timeout(limit)):
            self._stop(kill=True)
            raise RuntimeError(f"the launch that learns the kernels did not finish within {limit:.3g} s")
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError):
            code = self._stop()
            tail = self._stderr_tail()
            raise RuntimeError(f"the worker crashed: {_exit_reason(code)}"
                               + (f"; stderr: {tail}" if tail else "")) from None
        if kind == "error":
            raise RuntimeError(str(payload))
        return list(payload)

    def interrupt(self) -> None:
        """Kill the running worker from another thread: the thread waiting on its case sees it die (Ctrl-C)."""
        self._closing = True
        proc = self._proc
        if proc is not None and _alive(proc):
            proc.kill()

    def close(self) -> None:
        self._closing = True
        if self._spare is not None:
            _discard(self._spare)
            self._spare = None
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                pass
        self._stop()
        self._forget_stderr()

    def __enter__(self) -> Isolated:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _discard(worker: _Process) -> None:
    """Stop a spare that never ran a case."""
    worker.conn.close()
    if _alive(worker.proc):
        worker.proc.kill()
    _join(worker.proc, 5)
    try:
        os.unlink(worker.stderr)
    except OSError:
        pass


def _poll_timeout(limit: float) -> float | None:
    """A limit for ``Connection.poll``: None (wait forever) for inf and for limits past what poll() accepts (its
    milliseconds must fit a C int: about 24 days)."""
    return None if math.isinf(limit) or limit > 1e6 else limit


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "the worker vanished"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name} (signal {-code})"
    return f"the worker exited with status {code}"


_KINDS = {Status.CRASHED: ReasonKind.CRASHED, Status.TIMEOUT: ReasonKind.TIMEOUT, Status.ERROR: ReasonKind.WORKER}


def _synthetic(case: Case, status: Status, reason: str, t0: float, kind: ReasonKind | None = None) -> CaseResult:
    res = CaseResult(case, status, reasons=[Reason(reason, kind or _KINDS[status])])
    res.timing.total = time.perf_counter() - t0
    return res
