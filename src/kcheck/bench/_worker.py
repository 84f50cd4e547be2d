"""Where kernels are timed: a worker process (``spawn``: never fork a process that may hold a CUDA context), so a
crash, a sticky CUDA error or a hang of the user's kernel costs its case, not the run. The worker imports the Spec's
module itself (by file and Spec name), times the cases the parent sends one at a time, and measures the GPU's peaks.
``InProcess`` does the same in the caller's process, for a Spec that cannot be re-imported (built in a function).
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

import torch

from .._discover import SpecRef
from .._spec import Spec
from ..cases import Case, call_kernel, make_args, output_buffers
from ..run import die_with_parent
from ._timing import EVENTS, Timed, TimingOptions, measure_peaks, time_events, time_graph

#: Seconds a new worker may take to import torch, Triton and the Spec's module.
STARTUP_LIMIT = 300.0


#: Where the worker finds the Spec: kcheck's discovery reference (the module's file and the Spec's name).
SpecSource = SpecRef


def _short(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {tb[-1].filename}:{tb[-1].lineno}" if tb else ""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}{where}"


def _nbytes(values: Any) -> int:
    if isinstance(values, torch.Tensor):
        return values.numel() * values.element_size()
    if isinstance(values, (list, tuple)):
        return sum(_nbytes(v) for v in values)
    return 0


def time_case(spec: Spec, case: Case, options: TimingOptions) -> Timed:
    """Time one case on the current CUDA device (see ``_timing``). A kernel that raises is the result's ``error``."""
    out = Timed(method=options.method)
    try:
        args = make_args(spec, case, "cuda")
        declared = spec.outputs

        def make_call(inputs: Sequence[Any]) -> Any:
            if declared is not None:
                bufs = output_buffers(spec, case, "cuda")
                return lambda: call_kernel(spec.kernel, spec, case, [*inputs, *bufs])
            return lambda: call_kernel(spec.kernel, spec, case, inputs)

        call = make_call(args)
        ret = call()
        torch.cuda.synchronize()
        written = _nbytes(output_buffers(spec, case, "meta")) if declared is not None else _nbytes(ret)
        out.bytes_estimate = float(_nbytes(list(args)) + written)
        del ret
        if options.graph:
            try:
                out.samples_ms, note = time_graph(make_call, args, options)
                out.notes.append(note)
                return out
            except Exception as exc:  # a kernel that synchronizes or allocates cannot be captured
                torch.cuda.synchronize()
                out.method = EVENTS
                out.notes.append(f"CUDA graph capture failed ({_short(exc)}): timed by events instead")
        out.samples_ms = time_events(call, options)
    except Exception as exc:
        out.error = _short(exc)
    return out


def _cuda_broken() -> str | None:
    try:
        torch.cuda.synchronize()
        torch.zeros(1, device="cuda").add_(1).item()
    except Exception as exc:
        return _short(exc)
    return None


def _serve(conn: Connection, stderr_path: str, source: SpecSource) -> None:
    """The worker's main loop (in the child)."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 2)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    try:
        from ._cli import load_spec

        spec = load_spec(source.path, source.name)
    except BaseException as exc:
        conn.send(("failed", _short(exc)))
        return
    conn.send(("ready", None))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        try:
            if msg[0] == "peaks":
                conn.send(("peaks", measure_peaks()))
                continue
            _, case, options = msg
            result = time_case(spec, case, options)
        except SystemExit as exc:
            result = Timed(error=f"the kernel called sys.exit({exc.code!r})")
        except Exception as exc:
            conn.send(("error", _short(exc)))
            continue
        broken = _cuda_broken()
        if broken:
            result.error = f"crashed: the CUDA context is broken: {broken}"
            conn.send(("timed", result))
            return
        conn.send(("timed", result))


class WorkerFailure(Exception):
    """The worker could not start or died; ``status`` is 'crashed' or 'timeout'."""

    def __init__(self, status: str, message: str) -> None:
        self.status = status
        super().__init__(message)


class Worker:
    """A worker process timing one Spec's cases; replaced whenever it dies or hangs."""

    def __init__(self, source: SpecSource, timeout: float = 300.0) -> None:
        self.source, self.timeout = source, timeout
        self._ctx = mp.get_context("spawn")
        self._proc: Any = None
        self._conn: Connection | None = None
        self._stderr = ""

    def _start(self) -> Connection:
        self._stop()
        fd, self._stderr = tempfile.mkstemp(prefix="kcheck-bench-", suffix=".stderr")
        os.close(fd)
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_serve, args=(child, self._stderr, self.source), daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent
        try:
            kind, payload = parent.recv() if parent.poll(STARTUP_LIMIT) else ("failed", "it did not start in time")
        except (EOFError, OSError):
            kind, payload = "failed", self._died()
        if kind != "ready":
            self._stop(kill=True)
            raise WorkerFailure("crashed", f"the timing worker could not load {self.source.name} from "
                                           f"{self.source.path}: {payload}")
        return parent

    def _died(self) -> str:
        proc = self._proc
        if proc is not None:
            proc.join(5)
        code = None if proc is None else proc.exitcode
        if code is None:
            why = "the worker vanished"
        elif code < 0:
            try:
                why = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                why = f"killed by signal {-code}"
        else:
            why = f"the worker exited with status {code}"
        tail = self._stderr_tail()
        return why + (f"; stderr: {tail}" if tail else "")

    def _stderr_tail(self, lines: int = 3) -> str:
        try:
            with open(self._stderr, errors="replace") as fh:
                text = [ln.strip() for ln in fh.read().splitlines() if ln.strip()]
        except OSError:
            return ""
        return " | ".join(text[-lines:])

    def _stop(self, kill: bool = False) -> None:
        proc, self._proc = self._proc, None
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                pass
            self._conn.close()
            self._conn = None
        if proc is not None:
            if kill and proc.is_alive():
                proc.kill()
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join(5)
        if self._stderr:
            try:
                os.unlink(self._stderr)
            except OSError:
                pass
            self._stderr = ""

    def _request(self, msg: tuple[Any, ...], what: str) -> Any:
        conn = self._conn if self._proc is not None and self._proc.is_alive() and self._conn else self._start()
        conn.send(msg)
        limit = None if math.isinf(self.timeout) else self.timeout
        if not conn.poll(limit):
            self._stop(kill=True)
            raise WorkerFailure("timeout", f"{what} did not finish within {self.timeout:g} s (the worker was killed)")
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError):
            why = self._died()
            self._stop()
            raise WorkerFailure("crashed", f"crashed while {what}: {why}") from None
        if kind == "error":
            raise WorkerFailure("crashed", f"the worker failed while {what}: {payload}")
        if isinstance(payload, Timed) and payload.error and payload.error.startswith("crashed:"):
            self._stop()
        return payload

    def time(self, case: Case, options: TimingOptions) -> Timed:
        return self._request(("case", case, options), f"timing {case.id}")  # type: ignore[no-any-return]

    def peaks(self) -> dict[str, float]:
        return self._request(("peaks",), "measuring the GPU's peaks")  # type: ignore[no-any-return]

    def close(self) -> None:
        self._stop()


class InProcess:
    """Times in the caller's process: for a Spec that cannot be re-imported, or when asked (``isolate=False``)."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec

    def time(self, case: Case, options: TimingOptions) -> Timed:
        return time_case(self.spec, case, options)

    def peaks(self) -> dict[str, float]:
        return measure_peaks()

    def close(self) -> None:
        pass
