"""What the compute-sanitizer parsers produce, and what the text and XML parsers share: the SanitizerRun type, the
status rules, the case tie (``kcheck_case_<i>`` frames) and the helpers that normalize fields (see ``_parse``)."""


from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from .._errors import KcheckError, SpecError
from .._findings import Finding, deduplicate

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
PREFIX = "========="

Frame: TypeAlias = tuple[str, str | None, int | None]
"""A host frame: (function, file or module, line). ``function`` is ``""`` where the tool gives none."""

_MAX_NOTES = 12  # distinct problem strings kept; the rest are counted
_MAX_LINE = 20_000  # longer sanitizer lines are cut before parsing (regexes stay linear on what is left)


class SanitizerOutputError(KcheckError):
    """compute-sanitizer's output could not be trusted: raised by :meth:`SanitizerRun.require_complete` only."""


@dataclass
class SanitizerRun:
    """What one compute-sanitizer run reported.

    ``findings`` are deduplicated (see :func:`~kcheck._findings.deduplicate`); ``records`` keep every record in the
    order the tool printed it, with its host frames, before deduplication.
    """

    tool: str
    findings: list[Finding] = field(default_factory=list)
    errors_reported: int | None = None  # "ERROR SUMMARY: N errors", or racecheck's "(E errors, W warnings)"
    not_printed: int = 0  # "ERROR SUMMARY: N errors were not printed"
    complete: bool = False  # a summary line was seen (text); the document was closed (XML)
    problems: list[str] = field(default_factory=list)  # why the status is unknown, and notes worth showing
    raw_records: int = 0  # records parsed, before deduplication
    records: list[tuple[Finding, list[Frame]]] = field(default_factory=list)
    warnings_reported: int | None = None  # racecheck: W in "(E errors, W warnings)"
    hazards_displayed: int | None = None  # racecheck: N in "N hazards displayed"
    untrusted: bool = False  # complete, yet not to be trusted: the sanitizer's own error, an element of unknown shape
    source_format: str = "text"  # "text" | "xml"

    @property
    def status(self) -> str:
        """``"clean"``, ``"errors"`` or ``"unknown"``; fails closed (see the module's docstring)."""
        if not self.complete or self.untrusted:
            return "unknown"
        if (
            self.findings
            or self.raw_records
            or (self.errors_reported or 0) > 0
            or (self.warnings_reported or 0) > 0
            or self.not_printed > 0
        ):
            return "errors"
        return "clean"

    @property
    def frames(self) -> list[list[Frame]]:
        """The host frames of each record, parallel to ``records``."""
        return [frames for _, frames in self.records]

    def require_complete(self) -> SanitizerRun:
        """Return self, or raise :class:`SanitizerOutputError` when the status is unknown."""
        if self.status == "unknown":
            why = "; ".join(self.problems) or "no summary was found"
            raise SanitizerOutputError(f"{self.tool} output cannot be trusted: {why}")
        return self


_CASE = re.compile(r"^kcheck_case_(\d{1,18})$")


def case_index(frames: Sequence[Frame]) -> int | None:
    """N from the first (innermost) host frame whose function is ``kcheck_case_<N>``; None if no frame is."""
    for frame in frames:
        func = frame[0] if frame else None
        if isinstance(func, str):
            m = _CASE.match(func)
            if m:
                return int(m.group(1))
    return None


# ---------------------------------------------------------------------------------------------------- shared helpers

_INT = re.compile(r"[+-]?\d[\d,]{0,40}")
_HEX = re.compile(r"0[xX][0-9a-fA-F]{1,32}")


def _int(text: str | None) -> int | None:
    """An integer as the sanitizer writes it: decimal with digit grouping ("4,000") or hexadecimal ("0x7f..")."""
    if text is None:
        return None
    s = text.strip()
    if _HEX.fullmatch(s):
        return int(s, 16)
    if _INT.fullmatch(s):
        digits = s.replace(",", "")
        if digits.lstrip("+-").isdigit():
            return int(digits)
    return None


def _xyz(text: str | None) -> tuple[int, int, int] | None:
    """``"100,0,0"`` (or ``"100, 0, 0"``) to (100, 0, 0)."""
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not all(p.isdigit() and len(p) <= 12 for p in parts):
        return None
    return (int(parts[0]), int(parts[1]), int(parts[2]))


def _space(text: str | None) -> str | None:
    """``__global__`` -> ``global``; ``__shared__`` -> ``shared``; ``__local__`` -> ``local``."""
    if not text:
        return None
    s = text.strip().strip("_").lower()
    return s or None


_OFFSET = re.compile(r"\+0[xX][0-9a-fA-F]+$")


def _kernel_name(func: str | None) -> str | None:
    """``oob_write(float *, int)+0x90`` -> ``oob_write``: the offset and the parameter list go, nothing is demangled.

    The XML form names the kernel without its parameters; the text form with them. Stripping them makes both agree.
    """
    if func is None:
        return None
    name = _OFFSET.sub("", func.strip()).strip()
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            ch = name[i]
            if ch == ")":
                depth += 1
            elif ch == "(":
                depth -= 1
                if depth == 0:
                    head = name[:i].rstrip()
                    if head and not head.endswith("operator"):
                        name = head
                    break
    return name or None


_FILE_LINE = re.compile(r"(.*):(\d{1,9})")
_AT_OFFSET_IN = re.compile(r"\+0[xX][0-9a-fA-F]+ in ")
_LEGACY_AT = re.compile(r"0[xX][0-9a-fA-F]+ in (.+?):(\d{1,9}):(.+)")


def _location(text: str) -> tuple[str | None, str | None, int | None]:
    """``oob_write(float *, int)+0x90 in bugs.cu:3`` -> (kernel, file, line). Also the legacy cuda-memcheck form
    ``0x000000c8 in /p/k.cuh:75:void f<double>(double*, int)``, and a location without line information."""
    text = text.strip()
    legacy = _LEGACY_AT.fullmatch(text)
    if legacy:
        return _kernel_name(legacy.group(3)), legacy.group(1), int(legacy.group(2))
    m = _AT_OFFSET_IN.search(text)
    if m:
        func, where = text[: m.start()], text[m.end() :]
    else:
        func, sep, where = text.rpartition(" in ")
        if not sep:
            return _kernel_name(text), None, None
    fl = _FILE_LINE.fullmatch(where.strip())
    if fl:
        return _kernel_name(func), fl.group(1) or None, int(fl.group(2))
    return _kernel_name(func), where.strip() or None, None


def _classify(text: str | None) -> str | None:
    """A normalized kind from a tool's wording, or None when the wording says nothing known."""
    if not text:
        return None
    t = text.lower()
    if "uninitialized" in t:
        return "uninitialized"
    if "misaligned" in t:
        return "misaligned"
    if "out of bounds" in t or "out-of-bounds" in t:
        return "out-of-bounds"
    if "illegal address" in t or "out-of-range" in t or "out of range" in t or "invalid address" in t:
        return "invalid-address"
    if "program hit" in t or "api call" in t:
        return "api-error"
    if "barrier" in t:
        return "divergent-barrier" if "divergent" in t else "barrier-error"
    if "leaked" in t or "leak" in t:
        return "leak"
    if "malloc/free" in t or "double free" in t:
        return "malloc-free"
    if "illegal instruction" in t:
        return "illegal-instruction"
    if "assert" in t:
        return "device-assert"
    if "stack overflow" in t:
        return "stack-overflow"
    return None


def _race_kind(hazard_type: str | None, first: str | None, second: str | None) -> str:
    """race-RAW / race-WAR / race-WAW from the tool's hazard type, else from the two accesses' directions."""
    if hazard_type:
        m = re.search(r"\b(RAW|WAR|WAW)\b", hazard_type.upper())
        if m:
            return f"race-{m.group(1)}"
    pair = ((first or "").lower(), (second or "").lower())
    return {
        ("write", "read"): "race-RAW",
        ("read", "write"): "race-WAR",
        ("write", "write"): "race-WAW",
    }.get(pair, "race")


def _direction(text: str | None) -> str | None:
    if not text:
        return None
    t = text.strip().lower()
    return t if t in ("read", "write", "atomic") else (t or None)


class _Collector:
    """Accumulates records, counts and problems; ``finish`` builds the SanitizerRun."""

    def __init__(self, tool: str, source_format: str) -> None:
        self.tool = tool
        self.source_format = source_format
        self.records: list[tuple[Finding, list[Frame]]] = []
        self.problems: list[str] = []
        self.dropped = 0
        self.errors: int | None = None
        self.warnings: int | None = None
        self.displayed: int | None = None
        self.not_printed = 0
        self.complete = False
        self.untrusted = False

    def note(self, text: str) -> None:
        if text in self.problems:
            return
        if len(self.problems) >= _MAX_NOTES:
            self.dropped += 1
            return
        self.problems.append(text)

    def add(self, finding: Finding, frames: list[Frame]) -> None:
        self.records.append((finding, frames))

    def finish(self) -> SanitizerRun:
        problems = list(self.problems)
        if self.dropped:
            problems.append(f"... and {self.dropped} more problems like these")
        return SanitizerRun(
            tool=self.tool,
            findings=deduplicate([f for f, _ in self.records]),
            errors_reported=self.errors,
            not_printed=self.not_printed,
            complete=self.complete,
            problems=problems,
            raw_records=len(self.records),
            records=self.records,
            warnings_reported=self.warnings,
            hazards_displayed=self.displayed,
            untrusted=self.untrusted,
            source_format=self.source_format,
        )


def _check_args(text: object, tool: object) -> tuple[str, str]:
    if not isinstance(tool, str) or tool not in TOOLS:
        raise SpecError("tool", tool, f"name the compute-sanitizer tool that produced the output: one of {TOOLS}")
    if isinstance(text, (bytes, bytearray)):
        return bytes(text).decode("utf-8", errors="replace"), tool
    if not isinstance(text, str):
        raise SpecError("text", type(text).__name__, "pass the sanitizer's output as str (or bytes, read as UTF-8)")
    return text, tool


def _internal_failure(tool: str, source_format: str, exc: BaseException) -> SanitizerRun:
    return SanitizerRun(
        tool=tool,
        complete=False,
        problems=[f"internal parser error ({type(exc).__name__}: {exc}); the output was not understood"],
        source_format=source_format,
    )


