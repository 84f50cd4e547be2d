"""Baselines: a JSON file of timings keyed by Spec, case, environment and timing method, shared by processes.

Every update is a read-modify-write under a ``filelock.FileLock`` on ``<file>.lock``, and the new file replaces the
old one atomically (written beside it, flushed, ``os.replace``d), so several pytest-xdist workers updating one
file at once lose no entry, and a reader (or a kill) sees the old file or the new one, never half of one.

File format (``"format": "kcheck-bench/1"``)::

    {"format": "kcheck-bench/1",
     "entries": {"<spec>|<case id>|<environment key>|<method>": {
         "spec": "softmax", "case": "softmax[M=128,N=4096,fp32,randn,seed=0]", "method": "events",
         "environment": {"gpu": "NVIDIA H200", "driver": "560.35.03", "torch": "2.11.0", "triton": "3.6.0"},
         "samples_ns": [12210, 12290, ...], "median_ms": 0.0123, "cv": 0.02, "n": 500, "clocks_locked": false,
         "recorded_at": "2026-01-01T00:00:00+00:00"}}}

``peaks.json`` beside it caches each environment's measured peaks (device copy bandwidth, bf16 matmul rate).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from .._errors import EnvironmentProblem, SpecError
from ..report import write_atomic
from ._env import Environment
from ._stats import reduce_sample

FORMAT = "kcheck-bench/1"
#: Timings kept per baseline entry (evenly spaced quantiles of the sample when it is larger): enough for the rank
#: test to tell a 15% slowdown from a 10% margin, few enough that a file of hundreds of entries updates in
#: milliseconds. Stored as integer nanoseconds (JSON writes integers several times faster than floats).
STORED_SAMPLES = 500
#: Seconds a process waits for another's lock on the file before it gives up with an error.
LOCK_TIMEOUT = 120.0
DEFAULT_PATH = Path(".kcheck-bench") / "baselines.json"


def entry_key(spec: str, case: str, env: Environment, method: str) -> str:
    return f"{spec}|{case}|{env.key}|{method}"


@dataclass
class Entry:
    """One baseline: a case's timings in one environment, by one method."""

    spec: str
    case: str
    environment: Environment
    method: str
    samples_ms: list[float]
    median_ms: float
    cv: float
    clocks_locked: bool = False
    recorded_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))

    @property
    def key(self) -> str:
        return entry_key(self.spec, self.case, self.environment, self.method)

    def to_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "case": self.case, "method": self.method, "environment": self.environment.to_dict(),
                "samples_ns": [max(1, round(v * 1e6)) for v in self.samples_ms],
                "median_ms": self.median_ms, "cv": self.cv, "n": len(self.samples_ms),
                "clocks_locked": self.clocks_locked, "recorded_at": self.recorded_at}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entry:
        return cls(str(data["spec"]), str(data["case"]), Environment.from_dict(data["environment"]),
                   str(data.get("method", "events")), [v / 1e6 for v in data["samples_ns"]],
                   float(data["median_ms"]), float(data.get("cv", 0.0)), bool(data.get("clocks_locked", False)),
                   str(data.get("recorded_at", "")))

    @classmethod
    def of(cls, spec: str, case: str, env: Environment, method: str, samples_ms: Iterable[float], median_ms: float,
           cv: float, clocks_locked: bool = False) -> Entry:
        kept = [float(v) for v in reduce_sample(list(samples_ms), STORED_SAMPLES)]
        return cls(spec, case, env, method, kept, median_ms, cv, clocks_locked)


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {"format": FORMAT, "entries": {}}
    try:
        data = json.loads(path.read_text() or "{}")
    except (OSError, json.JSONDecodeError) as exc:
        raise EnvironmentProblem(f"the baseline file {path} cannot be read as JSON ({exc}); fix or remove it "
                                 "(the next run records new baselines)") from exc
    if not isinstance(data, dict) or not isinstance(data.get("entries", {}), dict):
        raise EnvironmentProblem(f"{path} is not a kcheck bench file (no 'entries' object); fix or remove it")
    if data.get("format", FORMAT) != FORMAT:
        raise EnvironmentProblem(f"{path} has format {data.get('format')!r}; this kcheck reads {FORMAT!r}")
    data.setdefault("format", FORMAT)
    data.setdefault("entries", {})
    return data


def _dumps(data: dict[str, Any]) -> str:
    """The file's text: one line per entry (readable, diffable), keys sorted."""
    entries = data["entries"]
    body = ",\n".join(f" {json.dumps(k)}: {json.dumps(entries[k], sort_keys=True)}" for k in sorted(entries))
    rest = {k: v for k, v in data.items() if k != "entries"}
    head = json.dumps(rest, sort_keys=True)[1:-1]
    return "{" + head + (", " if head else "") + '"entries": {\n' + body + "\n}}\n"


class Store:
    """A baseline file (created with its folder on first write). Reads are snapshots; ``update`` merges."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path if path is not None else DEFAULT_PATH).expanduser()
        if self.path.is_dir():
            raise SpecError("baseline", str(path), "give a file path such as .kcheck-bench/baselines.json")
        self.peaks_path = self.path.with_name("peaks.json")

    def _lock(self, path: Path) -> FileLock:
        path.parent.mkdir(parents=True, exist_ok=True)
        return FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT)

    def _locked(self, path: Path, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        try:
            with self._lock(path):
                data = _read(path)
                change(data)
                write_atomic(path, _dumps(data))
                return data
        except Timeout as exc:
            raise EnvironmentProblem(f"another process held the lock {exc.lock_file} for {LOCK_TIMEOUT:g} s; if "
                                     "none is running, remove the lock file") from exc
        except OSError as exc:
            raise SpecError("baseline", str(path), f"cannot write there ({exc.strerror}); give another path") from exc

    def entries(self) -> dict[str, Entry]:
        return {k: Entry.from_dict(v) for k, v in _read(self.path)["entries"].items()}

    def lookup(self, spec: str, case: str, env: Environment, method: str) -> tuple[Entry | None, list[Entry]]:
        """The baseline of this case in this environment by this method, and those of the same case recorded
        elsewhere (another GPU, driver, version or method: never compared, but reported)."""
        key = entry_key(spec, case, env, method)
        raw = _read(self.path)["entries"]
        same_case = {k: Entry.from_dict(v) for k, v in raw.items() if v.get("spec") == spec and v.get("case") == case}
        return same_case.pop(key, None), list(same_case.values())

    def update(self, entries: Iterable[Entry]) -> None:
        """Add or replace ``entries`` (one locked read-modify-write)."""
        new = {e.key: e.to_dict() for e in entries}
        if new:
            self._locked(self.path, lambda data: data["entries"].update(new))

    def peaks(self, env: Environment) -> dict[str, float] | None:
        """This environment's cached peaks, or None."""
        if not self.peaks_path.exists():
            return None
        got = _read(self.peaks_path)["entries"].get(env.key)
        return {k: float(v) for k, v in got["peaks"].items()} if isinstance(got, dict) else None

    def save_peaks(self, env: Environment, peaks: dict[str, float]) -> None:
        record = {"environment": env.to_dict(), "peaks": peaks,
                  "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        self._locked(self.peaks_path, lambda data: data["entries"].__setitem__(env.key, record))
