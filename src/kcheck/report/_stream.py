"""Results written as they come: a JSON report that is valid at every moment of a run.

``JsonReport(path)`` is called with the report so far after each case; it rewrites ``path`` atomically (a temporary
file in the same folder, then ``os.replace``), at most once per ``every`` seconds, and always on ``final``. A run
killed even by SIGKILL leaves the last complete version: ``"complete": false`` and the cases that had finished by
then. ``check_writable`` tells before a run whether a report can be written at all, so a bad path costs no run.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from .._errors import SpecError
from .._results import Report


def check_writable(option: str, path: str | Path) -> Path:
    """``path`` resolved, or SpecError when no file can be written there (a missing or read-only folder, a folder
    in the way)."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise SpecError(option, str(path), "give a file path, not a folder")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise SpecError(option, str(path), f"the folder {folder} does not exist; create it or write elsewhere")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".kcheck-probe-")
    except OSError as exc:
        raise SpecError(option, str(path), f"cannot write in {folder} ({exc.strerror}); write elsewhere") from None
    os.close(fd)
    os.unlink(probe)
    return target


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader (or a kill) sees the old file or the new one, never half of one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class JsonReport:
    """Writes the report to ``path`` as the run goes (see the module docstring)."""

    def __init__(self, path: Path, every: float = 1.0) -> None:
        self.path, self.every = path, every
        self._last = -float("inf")

    def __call__(self, report: Report, *, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self._last < self.every:
            return
        self._last = now
        write_atomic(self.path, json.dumps(report.to_dict(), indent=1))
