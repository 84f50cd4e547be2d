"""The GPU journal: a bounded device-side log a kernel writes and kcheck reads back, instead of printf.

printf from 100,000 threads drowns what it shows; the journal keeps one entry per Triton program or per CUDA warp,
{block, pid x/y/z, warp, step, value, nonfinite}, appended through one atomic add on a counter into a buffer of
fixed capacity (an append past it writes nothing and is counted), and the host turns it into a table and a summary:
per step, NaN and Inf, robust outliers, the blocks or warps that never got there, and the first step where
something went wrong, with where.

Triton::

    from kcheck.journal import Journal, log

    @triton.jit
    def kernel(x_ptr, out_ptr, n, journal, journal_cap, BLOCK: tl.constexpr):
        ...
        log(journal, journal_cap, 1, tl.sum(x))      # step 1: one entry per program

    j = Journal(4096)
    kernel[grid](x, out, n, *j.args, BLOCK=128)
    print(j.summary())          # j.frame(): a pandas DataFrame of the entries

CUDA C: ``#include <kcheck/journal.cuh>`` (kcheck's nvcc build finds it), declare the kernel's last parameters
``KCHECK_JOURNAL_PARAMS`` and call ``kcheck_journal(step, value)``; launch with ``*j.args``. See docs/journal.md.
"""

from __future__ import annotations

from pathlib import Path

from .._device import enable_interpreter_if_no_gpu
from ._host import Journal
from ._layout import ENTRY_WORDS, FIELDS, HEADER_WORDS, MAX_CAPACITY
from ._summary import Anomaly, JournalSummary, Place, StepSummary, robust_z

#: The folder to put on nvcc's include path for ``#include <kcheck/journal.cuh>`` (kcheck's own build adds it).
INCLUDE_DIR = Path(__file__).resolve().parent / "include"

enable_interpreter_if_no_gpu()  # the helpers below are decorated now: Triton reads TRITON_INTERPRET at decoration
try:
    from ._triton import log, log_tile
except ImportError:  # no Triton: the CUDA C side and the host side still work
    pass

__all__ = ["ENTRY_WORDS", "FIELDS", "HEADER_WORDS", "INCLUDE_DIR", "MAX_CAPACITY", "Anomaly", "Journal",
           "JournalSummary", "Place", "StepSummary", "log", "log_tile", "robust_z"]
