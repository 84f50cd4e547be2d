"""``evaluate``: the whole evaluation of a candidate runs in a child process (``spawn``: never fork a process
that may hold a CUDA context), so a crash, a hang or an exception of the candidate is a verdict with its evidence,
not the end of the caller."""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import asdict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from .._errors import SpecError
from ..run import die_with_parent
from ._harness import Options, evaluate_paths
from ._model import Check, CheckKind, Evaluation, Outcome


def _child(conn: Connection, candidate: str, reference: str, options: dict[str, Any], stderr_path: str) -> None:
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 2)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    from .._device import enable_interpreter_if_no_gpu

    enable_interpreter_if_no_gpu()
    try:
        ev = evaluate_paths(candidate, reference, Options(**options))
        conn.send(("ok", ev))
    except SpecError as exc:
        conn.send(("usage", (exc.argument, str(exc.value), exc.fix)))
    except BaseException as exc:
        if isinstance(exc, SystemExit):
            text = f"the candidate called sys.exit({exc.code!r})"
        else:
            text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        conn.send(("error", (text, traceback.format_exc(limit=4))))


def _tail(path: str, lines: int = 4) -> str:
    try:
        with open(path, errors="replace") as fh:
            text = [ln.strip() for ln in fh.read().splitlines() if ln.strip()]
    except OSError:
        return ""
    return " | ".join(text[-lines:])


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "the process vanished"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


def _stopped(candidate: str, reference: str, summary: str, seconds: float, **evidence: Any) -> Evaluation:
    ev = Evaluation(Path(candidate).name, Path(reference).name, "child process")
    ev.checks = [Check(CheckKind.RUNS, Outcome.FAIL, summary, [evidence] if evidence else [])]
    ev.seconds = seconds
    return ev


def evaluate(candidate: str | Path, reference: str | Path, *, seeds: int = 3, trials: int = 2, timing: bool = True,
             precision: str | None = None, reduce: int | None = None, isolate: bool = True,
             timeout: float = 600.0, poison: bool = True) -> Evaluation:
    """Evaluate the candidate file against the reference problem file; return every check and one verdict.

    ``seeds`` x ``trials`` fresh input sets; ``precision`` (fp32, tf32, bf16, fp16) replaces the precision read
    from the reference's output dtype (``tf32`` accepts TF32 matmuls for an fp32 problem); ``reduce`` is the
    reduction length the tolerance widens for (default: the longest last dimension of the inputs). With
    ``isolate`` (the default) the candidate runs in a child process that is killed after ``timeout`` seconds; a
    crash, a hang or an exception is a failed ``runs`` check. ``poison=False`` leaves the allocator's free memory
    as the reference left it: only to show what an evaluation without that step lets through. A mistake of the
    caller (a missing file, a reference that declares no problem) raises ``kcheck.SpecError``."""
    for name, value in (("seeds", seeds), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise SpecError(name, value, "give an int >= 1")
    if precision is not None and precision not in ("fp32", "tf32", "bf16", "fp16", "fp64"):
        raise SpecError("precision", precision, "give fp32, tf32, bf16, fp16 or fp64")
    if reduce is not None and (isinstance(reduce, bool) or not isinstance(reduce, int) or reduce < 1):
        raise SpecError("reduce", reduce, "give the reduction length as an int >= 1")
    if not (isinstance(timeout, (int, float)) and timeout > 0):
        raise SpecError("timeout", timeout, "give a number of seconds > 0 (math.inf: no limit)")
    for name, path in (("candidate", candidate), ("reference", reference)):
        p = Path(path)
        if not p.is_file() or p.suffix != ".py":
            raise SpecError(name, str(path), "give the path of an existing .py file")
    options = Options(seeds=seeds, trials=trials, timing=timing, precision=precision, reduce=reduce, poison=poison)
    cand, ref = str(Path(candidate).resolve()), str(Path(reference).resolve())
    if not isolate:
        return evaluate_paths(cand, ref, options)
    return _isolated(cand, ref, options, timeout)


def _isolated(candidate: str, reference: str, options: Options, timeout: float) -> Evaluation:
    ctx = mp.get_context("spawn")
    fd, stderr_path = tempfile.mkstemp(prefix="kcheck-eval-", suffix=".stderr")
    os.close(fd)
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, candidate, reference, asdict(options), stderr_path), daemon=True)
    t0 = time.perf_counter()
    proc.start()
    child.close()
    try:
        limit = None if math.isinf(timeout) else timeout
        if not parent.poll(limit):
            proc.kill()
            proc.join(5)
            return _stopped(candidate, reference, f"did not finish within {timeout:g} s (a hang, or far too slow): "
                            "the process was killed", time.perf_counter() - t0, stderr=_tail(stderr_path))
        try:
            kind, payload = parent.recv()
        except (EOFError, OSError):
            proc.join(10)
            why = _exit_reason(proc.exitcode)
            return _stopped(candidate, reference, f"the process running the candidate crashed: {why}",
                            time.perf_counter() - t0, stderr=_tail(stderr_path))
        if kind == "usage":
            raise SpecError(*payload)
        if kind == "error":
            text, tb = payload
            return _stopped(candidate, reference, f"the evaluation stopped: {text}", time.perf_counter() - t0,
                            traceback=tb.strip().splitlines()[-6:])
        ev: Evaluation = payload
        return ev
    finally:
        parent.close()
        if proc.is_alive():
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join(5)
        try:
            os.unlink(stderr_path)
        except OSError:
            pass
