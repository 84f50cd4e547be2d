"""Findings: memory and synchronization errors found by a tool, shaped like compute-sanitizer's records.

One type for every source (compute-sanitizer's four tools, kcheck's checks in Triton's interpreter), so that reports
and diagnosis treat them alike. A Finding is deduplicated by (tool, kind, kernel, file, line) with a count.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Access:
    """One side of a race: who touched the address, where in the source."""

    thread: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    file: str | None = None
    line: int | None = None
    direction: str | None = None  # "read" | "write"


@dataclass
class Finding:
    tool: str  # memcheck | racecheck | synccheck | initcheck | interpreter
    # out-of-bounds | misaligned | race-RAW | race-WAR | race-WAW (racecheck, shared memory) | race-WW | race-RW
    # (interpreter, global memory between programs) | divergent-barrier | uninitialized | ...
    kind: str
    severity: str  # error | warning
    message: str  # the tool's own one-line description
    kernel: str | None = None
    file: str | None = None
    line: int | None = None
    thread: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None  # CUDA block; in the interpreter, the Triton program id
    lane: tuple[int, ...] | None = None  # interpreter: the first bad lane (index within the program's block)
    tensor: str | None = None  # interpreter: the kernel argument the access came nearest to (or raced on)
    address: int | None = None
    size: int | None = None  # bytes accessed
    direction: str | None = None  # read | write | atomic
    space: str | None = None  # global | shared | local
    distance: int | None = None  # bytes after (positive) or before (negative) the nearest allocation
    allocation_size: int | None = None
    farthest: int | None = None  # merged records: the largest distance among them (None: only ``distance`` known)
    source: Access | None = None  # races: the first access
    destination: Access | None = None  # races: the second access
    hazards: int | None = None  # races: hazard count the tool reports
    count: int = 1  # how many raw records this deduplicated finding stands for
    cases: list[str] = field(default_factory=list)  # ids of the cases that produced it

    @property
    def key(self) -> tuple[object, ...]:
        return (self.tool, self.kind, self.kernel, self.file, self.line)

    def where(self) -> str:
        loc = f"{self.file}:{self.line}" if self.file else "unknown location"
        return f"{self.kernel or '?'} at {loc}"

    def describe(self) -> str:
        """One line: ``memcheck out-of-bounds read of 4 bytes in add_kernel at k.py:12, thread (3,0,0) block (7,0,0):
        1 bytes after an allocation of 4000 bytes (x3)``."""
        parts = [f"{self.tool} {self.kind}"]
        if self.direction and self.size:
            parts.append(f"{self.direction} of {self.size} bytes")
        parts.append(f"in {self.where()}")
        who = []
        if self.thread:
            who.append("thread ({},{},{})".format(*self.thread))
        if self.block:
            who.append(("program ({},{},{})" if self.tool == "interpreter" else "block ({},{},{})").format(*self.block))
        if self.lane is not None:
            who.append("lane " + ",".join(map(str, self.lane)))
        text = " ".join(parts) + (", " + " ".join(who) if who else "")
        if self.distance is not None and self.allocation_size is not None:
            side = "after" if self.distance >= 0 else "before"
            what = f"tensor '{self.tensor}'" if self.tensor else "an allocation"
            text += f": {abs(self.distance)} bytes {side} {what} of {self.allocation_size} bytes"
        if self.source is not None and self.destination is not None:
            text += f"; {_access(self.source)} vs {_access(self.destination)}"
        if self.hazards:
            text += f" ({self.hazards} hazards)"
        if self.count > 1:
            text += f" (x{self.count})"
        return text


def _access(a: Access) -> str:
    where = f"line {a.line}" if a.line is not None else "?"
    who = "program ({},{},{})".format(*a.block) if a.block else ""
    return " ".join(x for x in (a.direction, "at", where, "by" if who else "", who) if x)


def deduplicate(findings: list[Finding]) -> list[Finding]:
    """Merge findings with the same (tool, kind, kernel, file, line): counts add up, cases are united, and
    ``farthest`` keeps the largest distance from the allocation among the records (one element past the end, or
    many); ``distance`` stays the first record's."""
    merged: dict[tuple[object, ...], Finding] = {}
    for f in findings:
        old = merged.get(f.key)
        if old is None:
            merged[f.key] = Finding(**{**f.__dict__, "cases": list(f.cases)})
            continue
        old.count += f.count
        far = f.farthest if f.farthest is not None else f.distance
        now = old.farthest if old.farthest is not None else old.distance
        if far is not None and (now is None or abs(far) > abs(now)):
            old.farthest = far
        if f.hazards:
            old.hazards = (old.hazards or 0) + f.hazards
        for c in f.cases:
            if c not in old.cases:
                old.cases.append(c)
    return list(merged.values())
