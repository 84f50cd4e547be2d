"""The journal's host side: allocate the buffer on the kernel's device, pass it, read it back into a table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from .._errors import SpecError
from . import _layout as L
from ._summary import DEFAULT_Z, summarize

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped]

    from ._summary import JournalSummary


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


class Journal:
    """A bounded device-side log: ``capacity`` entries of {block, pid x/y/z, warp, step, value, nonfinite}.

    Pass ``*journal.args`` (the buffer and the capacity) to the kernel, which appends with
    ``kcheck.journal.log``/``log_tile`` (Triton) or ``kcheck_journal(step, value)`` (CUDA C, ``#include
    <kcheck/journal.cuh>``); then ``frame()`` is the table of what was logged and ``summary()`` what it shows.
    Appends past the capacity write nothing and are counted (``dropped``). Guard words around the buffer are checked
    when it is read (``guards_intact``). ``reset()`` empties it for another launch.
    """

    def __init__(self, capacity: int = 65536, device: str | torch.device | None = None) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) \
                or not 1 <= int(capacity) <= L.MAX_CAPACITY:
            raise SpecError("Journal(capacity)", capacity,
                            f"give the number of entries, an int from 1 to {L.MAX_CAPACITY:,} (32 bytes each)")
        try:
            dev = torch.device(device if device is not None else _default_device())
        except (RuntimeError, TypeError) as exc:
            raise SpecError("Journal(device)", device, "give the kernel's device: 'cuda', 'cuda:1' or 'cpu'") from exc
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise SpecError("Journal(device)", device, "this machine has no CUDA GPU: use 'cpu' (Triton's "
                                                       "interpreter) or leave device=None")
        self.capacity = int(capacity)
        self.device = dev
        words = L.HEADER_WORDS + self.capacity * L.ENTRY_WORDS
        # guards on both sides; the buffer starts GUARD_WORDS * 4 = 256 bytes in: entries stay 32-byte aligned
        self._storage = torch.empty(L.GUARD_WORDS * 2 + words, dtype=torch.int32, device=dev)
        self.buffer = self._storage[L.GUARD_WORDS:L.GUARD_WORDS + words]
        self._cache: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.reset()

    @property
    def args(self) -> tuple[torch.Tensor, int]:
        """The kernel's journal arguments: ``kernel[grid](..., *journal.args)``."""
        return self.buffer, self.capacity

    def reset(self) -> None:
        """Empty the journal (counter 0, every slot unwritten) and restore its guards."""
        self._storage.fill_(L.GUARD)
        self.buffer.zero_()
        self.buffer[1] = self.capacity
        self.buffer[2] = L.VERSION
        self.buffer[L.HEADER_WORDS:].view(self.capacity, L.ENTRY_WORDS)[:, L.STEP] = L.UNWRITTEN
        self._cache = None

    # -- reading ---------------------------------------------------------------------------------------------------
    def _read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(header, entries, guards) on the host; waits for the device."""
        if self._cache is None:
            if self.device.type == "cuda":
                torch.cuda.synchronize(self.device)
            host = self._storage.cpu().numpy().copy()
            g = L.GUARD_WORDS
            header = host[g:g + L.HEADER_WORDS]
            entries = host[g + L.HEADER_WORDS:g + L.HEADER_WORDS + self.capacity * L.ENTRY_WORDS]
            guards = np.concatenate([host[:g], host[-g:]])
            self._cache = (header, entries.reshape(self.capacity, L.ENTRY_WORDS), guards)
        return self._cache

    @property
    def attempted(self) -> int:
        """Appends the kernel made (kept or dropped)."""
        return int(self._read()[0][0])

    @property
    def recorded(self) -> int:
        """Entries kept: the appends that found a free slot."""
        return max(0, min(self.attempted, self.capacity))

    @property
    def dropped(self) -> int:
        """Appends that found the journal full and wrote nothing."""
        return max(0, self.attempted - self.capacity)

    @property
    def guards_intact(self) -> bool:
        """Whether the guard words around the buffer and the header's fixed words are as the host wrote them."""
        header, _, guards = self._read()
        return bool((guards == L.GUARD).all()) and int(header[1]) == self.capacity and int(header[2]) == L.VERSION \
            and bool((header[3:] == 0).all())

    def entries(self) -> np.ndarray:
        """The kept entries as an int32 array (recorded x 8 words), in the order they were appended."""
        return self._read()[1][:self.recorded]

    def frame(self) -> pd.DataFrame:
        """One row per kept entry: slot (append order), block, pid_x, pid_y, pid_z, warp (<NA> for a Triton
        program's entry), step, value (float32, as float64), nonfinite, written (False for a slot reserved by an
        append that never completed: the kernel died in between)."""
        import pandas as pd

        e = self.entries()
        written = e[:, L.STEP] != L.UNWRITTEN
        warp = pd.arrays.IntegerArray(e[:, L.WARP].astype(np.int64), e[:, L.WARP] < 0)  # masked: <NA>
        return pd.DataFrame({
            "slot": np.arange(len(e), dtype=np.int64),
            "block": e[:, L.BLOCK].astype(np.int64),
            "pid_x": e[:, L.PID_X].astype(np.int64),
            "pid_y": e[:, L.PID_Y].astype(np.int64),
            "pid_z": e[:, L.PID_Z].astype(np.int64),
            "warp": warp,
            "step": e[:, L.STEP].astype(np.int64),
            "value": np.ascontiguousarray(e[:, L.VALUE]).view(np.float32).astype(np.float64),
            "nonfinite": e[:, L.NONFINITE].astype(np.int64),
            "written": written,
        })

    def summary(self, *, outlier_z: float | None = None) -> JournalSummary:
        """Per step: count, NaN/Inf, min/median/max, robust outliers, the blocks or warps missing; and the first
        step where a NaN/Inf or an outlier appears, with where. ``outlier_z``: the robust z-score past which a value
        is an outlier (default 7: docs/journal.md says why). See ``JournalSummary``."""

        return summarize(self, outlier_z=DEFAULT_Z if outlier_z is None else outlier_z)

    def __repr__(self) -> str:
        return f"Journal(capacity={self.capacity}, device={str(self.device)!r})"

    def __getstate__(self) -> dict[str, Any]:  # a Journal travels as its contents (e.g. out of a worker)
        raise TypeError("a Journal holds device memory: send journal.summary() or journal.frame() instead")
