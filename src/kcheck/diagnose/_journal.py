"""The debugger's journal experiment: the Spec's journaled variant run on the smallest failing case, and what its
journal shows (the first step where NaN, Inf or an outlier appears, and in which block or warp) cited in the
diagnosis as an experiment and a note.

The variant is called like the kernel plus ``journal=`` (a ``kcheck.journal.Journal`` on the case's device). It
runs in a spawned worker process that imports the Spec's module again and sends back the summary (under Triton's
interpreter with its memory checks, as the case ran): a kernel may crash its process. Only a Spec not defined at
module level, which no worker can import, runs it in this process, and only on a CPU where no case crashed or hung.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import time
import traceback
from typing import TYPE_CHECKING, Any

import torch

from .._discover import SpecRef, find_spec, locate
from .._dtypes import PRECISIONS
from ..cases import call_kernel, make_args
from ._causes import Experiment

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .._device import DeviceInfo
    from .._spec import Spec
    from ..cases import Case
    from ..journal import JournalSummary
    from ._causes import Diagnosis
    from ._probe import Prober

#: Entries of the debugger's journal (2 MiB): enough for a step per tile of a small failing case.
CAPACITY = 1 << 16
#: Seconds a worker may take to import the Spec's module, run the variant and read the journal back.
WORKER_TIMEOUT = 120.0


def run_journaled(spec: Spec, case: Case, device: str, *, checks: bool = False) -> JournalSummary:
    """Call ``spec.journaled`` on the inputs of ``case`` (outputs allocated as the runner does, zeroed) and return
    its journal's summary. ``checks``: under the Triton interpreter's memory checks (a wild access is masked off)."""
    from ..journal import Journal  # Triton's: imported when a journal is asked for


    assert spec.journaled is not None
    args = make_args(spec, case, device)
    storage = PRECISIONS[case.precision].storage
    outs = [torch.zeros(tuple(case.sizes[d] if isinstance(d, str) else d for d in t.dims), dtype=t.dtype or storage,
                        device=device) for t in (spec.outputs or ())]
    journal = Journal(CAPACITY, device=device)
    guard: Any = contextlib.nullcontext()
    if checks:
        from ..interpret import checked

        guard = checked(races=False, seed=case.seed)  # bounds only: each program writes its own slots
    with guard, torch.no_grad():
        call_kernel(spec.journaled, spec, case, [*args, *outs], journal=journal)
    return journal.summary()


def _worker(conn: Connection, ref: SpecRef, case: Case, checks: bool) -> None:
    """In the spawned process: import the Spec's file, run its journaled variant, send ("ok", summary) or
    ("error", what went wrong)."""
    try:
        from .._device import enable_interpreter_if_no_gpu

        enable_interpreter_if_no_gpu()
        spec = find_spec(ref)
        conn.send(("ok", run_journaled(spec, case, "cuda" if torch.cuda.is_available() else "cpu", checks=checks)))
    except BaseException as exc:  # the kernel's or the module's fault: said, never raised in the debugger
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
        conn.send(("error", f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
                            f"{where}"))
    finally:
        conn.close()


def _in_worker(ref: SpecRef, case: Case, checks: bool, timeout: float) -> tuple[JournalSummary | None, str]:
    ctx = mp.get_context("spawn")  # never fork a process that may hold a CUDA context
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_worker, args=(child, ref, case, checks), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            return None, f"the journaled variant did not finish within {timeout:.0f} s"
        kind, payload = parent.recv()
    except EOFError:
        proc.join(5)
        return None, f"the journaled variant crashed its worker (exit {proc.exitcode})"
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent.close()
    return (payload, "") if kind == "ok" else (None, f"the journaled variant raised {payload}")


def journal_case(spec: Spec, case: Case, dev: DeviceInfo, *, isolate: bool,
                 timeout: float = WORKER_TIMEOUT) -> tuple[JournalSummary | None, str]:
    """The summary of the journaled variant on ``case``, or None and why not. It runs in a worker process whenever
    the Spec is defined at module level; otherwise in this process, unless ``isolate`` (the kernel crashed or hung)
    or ``dev`` is a GPU (a crash would poison this process's CUDA context)."""
    ref = locate(spec)
    if ref is not None:
        return _in_worker(ref, case, dev.interpreter, timeout)
    if dev.is_gpu or isolate:
        return None, ("the journaled variant was not run: the Spec is not defined at module level, so no worker "
                      "can import it, and a kernel that may crash does not run in the debugger's process")
    try:
        return run_journaled(spec, case, dev.device, checks=dev.interpreter), ""
    except Exception as exc:
        return None, f"the journaled variant raised {type(exc).__name__}: {exc}"


def describe(summary: JournalSummary) -> str:
    """The journal's findings in one line, the first NaN/Inf first."""
    return summary.headline()


def journal_experiment(spec: Spec, case: Case, dev: DeviceInfo, prober: Prober, diag: Diagnosis, *,
                       isolate: bool) -> JournalSummary | None:
    """Run the journaled variant on the smallest failing ``case`` and cite what its journal shows: an Experiment
    (axis "journal") in the prober's list and a note naming the first step where NaN/Inf or an outlier appears, and
    where. Returns the summary (None when it could not run)."""
    t0 = time.perf_counter()
    summary, why = journal_case(spec, case, dev, isolate=isolate,
                                timeout=max(30.0, min(WORKER_TIMEOUT, prober.left())))
    seconds = time.perf_counter() - t0
    if summary is None:
        prober.experiments.append(Experiment("journal", "journaled variant", case.id, False, why))
        diag.notes.append(f"journal: {why}")
        return None
    clean = summary.first_nonfinite is None and summary.first_outlier is None
    prober.experiments.append(Experiment("journal", "journaled variant", case.id, clean, describe(summary)))
    diag.notes.append(f"journal of the smallest failing case ({case.id}, {summary.recorded} entries, "
                      f"{seconds:.1f} s): {describe(summary)}")
    return summary
