"""The journal's Triton helpers: ``log`` (a scalar per program) and ``log_tile`` (a tile per program).

They are ``@triton.jit`` functions a kernel calls with the journal's two arguments (``Journal.args``: the buffer and
its capacity): one append per program through one ``tl.atomic_add`` on the counter (a scalar atomic, performed
once per program), then one 8-word store masked by ``slot < capacity`` at an address clamped into the buffer, so
an append past the capacity writes nothing and is only counted. They run on a GPU and in Triton's interpreter
(``TRITON_INTERPRET=1``, set before this module is imported: ``kcheck.enable_interpreter_if_no_gpu()``).
"""

from __future__ import annotations

import triton  # type: ignore[import-untyped]
import triton.language as tl  # type: ignore[import-untyped]


@triton.jit
def _append(journal, capacity, step, value, nonfinite):
    slot = tl.atomic_add(journal, 1)  # word 0 of the header: the counter
    safe = tl.minimum(tl.maximum(slot, 0), capacity - 1).to(tl.int64)
    ok = (slot >= 0) & (slot < capacity)
    pid0 = tl.program_id(0)
    pid1 = tl.program_id(1)
    pid2 = tl.program_id(2)
    block = pid0 + tl.num_programs(0) * (pid1 + tl.num_programs(1) * pid2)
    bits = value.to(tl.float32).to(tl.int32, bitcast=True)
    word = tl.arange(0, 8)
    # the entry's fields in order: block, pid x/y/z, warp (-1: the whole program), step, value bits, nonfinite
    entry = tl.where(word == 0, block, tl.where(word == 1, pid0, tl.where(word == 2, pid1, tl.where(
        word == 3, pid2, tl.where(word == 4, -1, tl.where(word == 5, step, tl.where(word == 6, bits, nonfinite)))))))
    tl.store(journal + 8 + safe * 8 + word, entry, mask=(word < 8) & ok)


@triton.jit
def log(journal, capacity, step, value):
    """Append (step, value) for this program: ``value`` is a scalar (``tl.sum(x)``, a loaded element, ...),
    stored as float32; the entry's ``nonfinite`` is 1 when it is NaN or Inf."""
    v = value.to(tl.float32)
    nonfinite = ((v != v) | (tl.abs(v) == float("inf"))).to(tl.int32)
    _append(journal, capacity, step, v, nonfinite)


@triton.jit
def log_tile(journal, capacity, step, tile):
    """Append (step, largest magnitude of ``tile``) for this program: the value is NaN when some element is NaN
    (a GPU's ``tl.max`` drops NaN, so it is counted apart), and ``nonfinite`` counts the NaN and Inf elements.
    Mask the tile's padding first (``tl.where(mask, x, 0.0)``)."""
    x = tile.to(tl.float32)
    nan = tl.sum((x != x).to(tl.int32))  # axis None: over every axis of the tile
    inf = tl.sum((tl.abs(x) == float("inf")).to(tl.int32))
    top = tl.max(tl.where(x != x, 0.0, tl.abs(x)))
    v = tl.where(nan > 0, float("nan"), top)
    _append(journal, capacity, step, v, nan + inf)
