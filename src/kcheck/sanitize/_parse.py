"""Parsers for compute-sanitizer's output: the ``=========`` text and the ``--xml --save FILE`` document.

Both give a :class:`SanitizerRun`: the records as kcheck :class:`~kcheck._findings.Finding`s (each with its host
backtrace, so that a caller can tie a record to the test case that launched the kernel), the counts the tool reported,
and a status that fails closed.

Policy for malformed input: the parsers never raise because of the *content* they are given. Garbage, a truncated
file, a log without a summary line, a document with a DOCTYPE: each gives a ``SanitizerRun`` whose status is
``"unknown"`` and whose ``problems`` say why; whatever complete records came before the damage are still returned.
(A bug in the parser itself is caught too and reported the same way, as a problem starting with "internal parser
error".) Exceptions are kept for the caller's mistakes: a ``tool`` that is not one of the four tools, or a ``text``
that is neither ``str`` nor ``bytes``, raise :class:`~kcheck._errors.SpecError`. A caller that prefers an exception to
an unknown status calls :meth:`SanitizerRun.require_complete`, which raises :class:`SanitizerOutputError`.

Status, fail closed:

- ``"unknown"``: no summary line was seen (text), or the document is not a complete ``ComputeSanitizerOutput``
  (XML), or the sanitizer reported an error of its own, or the XML holds an element other than ``<record>``
  (``untrusted``). Never ``"clean"`` without positive evidence.
- ``"errors"``: at least one record, or a summary that counts errors (or racecheck warnings), or errors not printed.
- ``"clean"``: a complete output that reports 0 errors and holds no record.

The XML form has no summary: a well-formed document closed by ``</ComputeSanitizerOutput>`` counts as complete, and
``errors_reported`` stays ``None`` (records dropped by ``--print-limit`` are invisible in it). It also has no "nearest
allocation" information, so ``distance`` and ``allocation_size`` are set from the text form only.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from .._errors import KcheckError, SpecError
from .._findings import Access, Finding, deduplicate

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


# ------------------------------------------------------------------------------------------------------------- text

_ERR_NOT_PRINTED = re.compile(r"ERROR SUMMARY: (\d[\d,]{0,20}) errors? (?:was|were) not printed")
_ERR_SUMMARY = re.compile(r"ERROR SUMMARY: (\d[\d,]{0,20}) errors?\s*$")
_RACE_SUMMARY = re.compile(
    r"RACECHECK SUMMARY: (\d[\d,]{0,20}) hazards? displayed \((\d[\d,]{0,20}) errors?, (\d[\d,]{0,20}) warnings?\)"
)
_LEAK_SUMMARY = re.compile(r"LEAK SUMMARY:")

# record headers
_MEM_HEADER = re.compile(r"Invalid (\S+) (?:(read|write|atomic) )?of size (\d[\d,]{0,20})(?: bytes?)?")
_UNINIT_HEADER = re.compile(r"Uninitialized (\S+) memory (?:(read|write|access) )?of size (\d[\d,]{0,20})(?: bytes?)?")
_RACE_ANALYSIS = re.compile(r"(Error|Warning): Race reported between (\w+) access at (.+)")
_RACE_HAZARD = re.compile(
    r"(Error|Warning): (?:\([^)]*\) )?Potential (\w+) hazard detected at (\S+) (0[xX][0-9a-fA-F]+)"
    r"(?: in block \(([^)]*)\))?"
)
_BARRIER = re.compile(r"Barrier error")
_API = re.compile(r"Program hit (\w+)")
_LEAK = re.compile(r"Leaked (\d[\d,]{0,20}) bytes? at (0[xX][0-9a-fA-F]+)")

# record details
_D_AT = re.compile(r"at (.+)")
_D_BY = re.compile(r"by thread \(([^)]*)\) in block \(([^)]*)\)")
_D_ACCESS = re.compile(r"(?:Access to|Address) (0[xX][0-9a-fA-F]+)(?: (?:is|was) (.+?))?\.?")
_D_NEAREST = re.compile(
    r"and is (?:(\d[\d,]{0,20}) bytes? (after|before)|(inside)) the nearest allocation at (0[xX][0-9a-fA-F]+)"
    r" of size (\d[\d,]{0,20}) bytes?"
)
_D_FRAME = re.compile(r"Host Frame:(.*)")
_D_RACE_AND = re.compile(r"and (\w+) access at (.+?)(?: \[(\d[\d,]{0,20}) hazards?\])?")
_D_RACE_THREAD = re.compile(r"(\w+) Thread \(([^)]*)\) at (.+)")
_D_OTHER = re.compile(r"(Saved host backtrace|Current Value|Device Frame)")
_DETAIL_STARTS = (_D_AT, _D_BY, _D_ACCESS, _D_NEAREST, _D_FRAME, _D_RACE_AND, _D_RACE_THREAD, _D_OTHER)

_FRAME_PC = re.compile(r"(.*?) ?\[(0[xX][0-9a-fA-F]+)\] in (.*)")

# messages of the sanitizer that are not records
_NOTE_ONLY = (
    ("Target application returned an error", "the target application returned an error (nonzero exit status)"),
    ("Error: process didn't terminate successfully", "the target process did not terminate successfully"),
)
_TOOL_FAILURE = re.compile(r"(Error|Internal Sanitizer Error|Fatal|Internal error)\b", re.IGNORECASE)

_CUDA_ERROR_IN_OUTPUT = re.compile(
    r"CUDA error|CUDA_ERROR_[A-Z_]+|illegal memory access|unspecified launch failure|misaligned address"
    r"|device-side assert triggered|illegal instruction was encountered"
)


def _frame_from_text(rest: str) -> Frame:
    """``main [0x8d63] in bugs``, `` [0x18218f] in python3`` or ``__call__ in driver.py:713``."""
    rest = rest.strip()
    m = _FRAME_PC.fullmatch(rest)
    if m:
        return (m.group(1).strip(), m.group(3).strip() or None, None)
    func, sep, where = rest.rpartition(" in ")
    if sep:
        fl = _FILE_LINE.fullmatch(where.strip())
        if fl:
            return (func.strip(), fl.group(1) or None, int(fl.group(2)))
        return (func.strip(), where.strip() or None, None)
    return (rest, None, None)


def _sanitizer_content(line: str, prefix: str) -> str | None:
    """The text after the prefix when ``line`` is the sanitizer's; None for the program's own lines."""
    if line.startswith(prefix):
        rest = line[len(prefix) :]
        if rest == "" or rest[0] in " \t":
            return rest
    return None


@dataclass
class _Block:
    header: str
    details: list[str] = field(default_factory=list)


def _is_detail(stripped: str) -> bool:
    return any(p.match(stripped) for p in _DETAIL_STARTS)


def parse_text(text: str | bytes, tool: str, *, prefix: str = PREFIX) -> SanitizerRun:
    """Parse compute-sanitizer's text output (stdout or ``--log-file``), mixed with the program's own output.

    Lines that do not start with ``prefix`` followed by a space (or nothing) are the program's: they are ignored,
    except that a CUDA error they show is kept as a note in ``problems``. Never raises on content (see module doc).
    """
    text, tool = _check_args(text, tool)
    try:
        return _parse_text(text, tool, prefix)
    except Exception as exc:  # a parser bug must not turn into a crash of the caller, nor into "clean"
        return _internal_failure(tool, "text", exc)


def _parse_text(text: str, tool: str, prefix: str) -> SanitizerRun:
    col = _Collector(tool, "text")
    block: _Block | None = None
    saw_sanitizer = False
    summaries = 0
    records_after_summary = False
    cuda_notes = 0

    def flush() -> None:
        nonlocal block, records_after_summary
        if block is not None:
            before = len(col.records)
            _text_block(block, col)
            if summaries and len(col.records) > before:
                records_after_summary = True
        block = None

    for raw_line in text.splitlines():
        line = raw_line[:_MAX_LINE]
        content = _sanitizer_content(line, prefix)
        if content is None:
            glued = line.find(prefix + " ")
            tail = line[glued + len(prefix) :] if glued > 0 else ""
            if glued > 0 and "SUMMARY:" in tail:
                col.note("a sanitizer summary line was glued to the program's output on the same line")
                content = tail
            else:
                if cuda_notes < 3 and _CUDA_ERROR_IN_OUTPUT.search(line):
                    cuda_notes += 1
                    col.note(f"the program's output shows a CUDA error: {line.strip()[:200]!r}")
                continue
        saw_sanitizer = True
        stripped = content.strip()
        if not stripped:
            flush()
            continue
        indent = len(content) - len(content.lstrip())
        if block is not None and (indent >= 2 or _is_detail(stripped)):
            block.details.append(stripped)
            continue
        if indent >= 2 or _D_FRAME.match(stripped) or _D_OTHER.match(stripped):
            continue  # a detail without its header (the output was cut at the start): nothing to attach it to
        flush()
        m = _ERR_NOT_PRINTED.match(stripped)
        if m:
            col.not_printed += _int(m.group(1)) or 0
            continue
        m = _ERR_SUMMARY.match(stripped)
        if m:
            summaries += 1
            col.errors = (col.errors or 0) + (_int(m.group(1)) or 0)
            col.complete = True
            if tool == "racecheck":
                col.note("an ERROR SUMMARY line in racecheck output (racecheck prints RACECHECK SUMMARY)")
            continue
        m = _RACE_SUMMARY.match(stripped)
        if m:
            summaries += 1
            col.displayed = (col.displayed or 0) + (_int(m.group(1)) or 0)
            col.errors = (col.errors or 0) + (_int(m.group(2)) or 0)
            col.warnings = (col.warnings or 0) + (_int(m.group(3)) or 0)
            col.complete = True
            if tool != "racecheck":
                col.note(f"a RACECHECK SUMMARY line in output parsed as {tool}")
            continue
        if _LEAK_SUMMARY.match(stripped) or stripped == "COMPUTE-SANITIZER":
            continue
        block = _Block(stripped)
    flush()

    if not saw_sanitizer:
        col.note(f"no compute-sanitizer output (no line starts with {prefix!r}): was the program run under it?")
    if not col.complete:
        col.problems.insert(
            0,
            "no ERROR SUMMARY line: the tool or the program crashed, was killed, or the output was cut"
            if tool != "racecheck"
            else "no RACECHECK SUMMARY line: the tool or the program crashed, was killed, or the output was cut",
        )
    if summaries > 1:
        col.note(f"{summaries} summary lines (several processes?): their counts were added up")
    if records_after_summary:
        col.note("records came after a summary line (several processes, or interleaved logs)")
    n = len(col.records)
    if col.complete and tool == "racecheck" and col.displayed is not None and n != col.displayed:
        col.note(f"RACECHECK SUMMARY says {col.displayed} hazards displayed but {n} records were parsed")
    elif col.complete and tool != "racecheck" and col.errors is not None and n != col.errors - col.not_printed:
        col.note(f"ERROR SUMMARY says {col.errors} errors ({col.not_printed} not printed) but {n} records were parsed")
    return col.finish()


def _text_block(block: _Block, col: _Collector) -> None:
    """One header with its detail lines: a record (added to ``col``) or a message of the tool (a note)."""
    tool, header = col.tool, block.header
    frames: list[Frame] = []
    loc: tuple[str | None, str | None, int | None] = (None, None, None)
    thread = blk = None
    address = distance = allocation_size = None
    reason: str | None = None
    reason_line: str | None = None
    race_and: re.Match[str] | None = None
    race_threads: list[re.Match[str]] = []
    has_record_detail = False
    for d in block.details:
        if m := _D_FRAME.match(d):
            frames.append(_frame_from_text(m.group(1)))
            has_record_detail = True
        elif m := _D_BY.match(d):
            thread, blk = _xyz(m.group(1)), _xyz(m.group(2))
            has_record_detail = True
        elif m := _D_NEAREST.match(d):
            base_size = _int(m.group(5))
            if m.group(3):
                distance = 0
            else:
                dist = _int(m.group(1))
                distance = None if dist is None else (dist if m.group(2) == "after" else -dist)
            allocation_size = base_size
        elif m := _D_RACE_AND.fullmatch(d):
            race_and = m
            has_record_detail = True
        elif m := _D_RACE_THREAD.fullmatch(d):
            race_threads.append(m)
            has_record_detail = True
        elif m := _D_AT.fullmatch(d):
            if loc == (None, None, None):
                loc = _location(m.group(1))
            has_record_detail = True
        elif m := _D_ACCESS.fullmatch(d):
            address = _int(m.group(1))
            reason = m.group(2)
            reason_line = d
    kernel, file, line = loc

    if m := _MEM_HEADER.match(header):
        kind = _classify(reason) or _classify(header) or "invalid-address"
        finding = Finding(
            tool=tool,
            kind=kind,
            severity="error",
            message=f"{header}: {reason_line}" if reason_line else header,
            kernel=kernel,
            file=file,
            line=line,
            thread=thread,
            block=blk,
            address=address,
            size=_int(m.group(3)),
            direction=_direction(m.group(2)),
            space=_space(m.group(1)),
            distance=distance,
            allocation_size=allocation_size,
        )
    elif m := _UNINIT_HEADER.match(header):
        direction = _direction(m.group(2))
        finding = Finding(
            tool=tool,
            kind="uninitialized",
            severity="error",
            message=header,
            kernel=kernel,
            file=file,
            line=line,
            thread=thread,
            block=blk,
            address=address,
            size=_int(m.group(3)),
            direction=direction if direction != "access" else None,
            space=_space(m.group(1)),
        )
    elif m := _RACE_ANALYSIS.fullmatch(header):
        k1, f1, l1 = _location(m.group(3))
        source = Access(file=f1, line=l1, direction=_direction(m.group(2)))
        destination = None
        hazards = None
        if race_and is not None:
            _, f2, l2 = _location(race_and.group(2))
            destination = Access(file=f2, line=l2, direction=_direction(race_and.group(1)))
            hazards = _int(race_and.group(3))
        finding = Finding(
            tool=tool,
            kind=_race_kind(None, source.direction, destination.direction if destination else None),
            severity=m.group(1).lower(),
            message=f"{header} {race_and.group(0)}" if race_and else header,
            kernel=k1,
            file=f1,
            line=l1,
            space="shared",
            source=source,
            destination=destination,
            hazards=hazards,
        )
    elif m := _RACE_HAZARD.match(header):
        blk = _xyz(m.group(5)) if m.group(5) else None
        accesses: list[Access] = []
        race_kernel = None
        for t in race_threads[:2]:
            k, f, ln = _location(t.group(3))
            race_kernel = race_kernel or k
            accesses.append(
                Access(thread=_xyz(t.group(2)), block=blk, file=f, line=ln, direction=_direction(t.group(1)))
            )
        source = accesses[0] if accesses else None
        destination = accesses[1] if len(accesses) > 1 else None
        finding = Finding(
            tool=tool,
            kind=_race_kind(m.group(2), None, None),
            severity=m.group(1).lower(),
            message=header.rstrip(" :"),
            kernel=race_kernel,
            file=source.file if source else None,
            line=source.line if source else None,
            block=blk,
            address=_int(m.group(4)),
            space=_space(m.group(3)),
            source=source,
            destination=destination,
        )
    elif _BARRIER.match(header):
        finding = Finding(
            tool=tool,
            kind="divergent-barrier" if "divergent" in header.lower() else "barrier-error",
            severity="error",
            message=header,
            kernel=kernel,
            file=file,
            line=line,
            thread=thread,
            block=blk,
        )
    elif _API.match(header):
        finding = Finding(tool=tool, kind="api-error", severity="error", message=header)
    elif m := _LEAK.match(header):
        finding = Finding(
            tool=tool, kind="leak", severity="error", message=header, size=_int(m.group(1)), address=_int(m.group(2))
        )
    elif has_record_detail or kernel is not None:
        # A record of a shape this parser does not know: kept (fail closed), with what could be read from it.
        finding = Finding(
            tool=tool,
            kind=_classify(header) or "unknown",
            severity="warning" if header.lower().startswith("warning") else "error",
            message=header,
            kernel=kernel,
            file=file,
            line=line,
            thread=thread,
            block=blk,
            address=address,
        )
        col.note(f"a record of an unrecognized shape: {header[:200]!r}")
    else:
        for start, note in _NOTE_ONLY:
            if header.startswith(start):
                col.note(note)
                return
        if _TOOL_FAILURE.match(header):
            col.untrusted = True
            col.note(f"the sanitizer reported an error of its own: {header[:200]!r}")
        else:
            col.note(f"an unrecognized sanitizer line: {header[:200]!r}")
        return
    col.add(finding, frames)


# -------------------------------------------------------------------------------------------------------------- XML

_ROOT = "ComputeSanitizerOutput"


def parse_xml(text: str | bytes, tool: str) -> SanitizerRun:
    """Parse the document of ``compute-sanitizer --xml --save FILE``.

    Records are read one by one as the document streams in, so a document cut short (the sanitizer was killed) still
    yields its complete records, with status ``"unknown"`` and a problem saying where it broke. A DOCTYPE or an entity
    declaration is refused (the sanitizer writes neither). Never raises on content (see module doc).
    """
    text, tool = _check_args(text, tool)
    try:
        return _parse_xml(text, tool)
    except Exception as exc:  # a parser bug must not turn into a crash of the caller, nor into "clean"
        return _internal_failure(tool, "xml", exc)


def _parse_xml(text: str, tool: str) -> SanitizerRun:
    col = _Collector(tool, "xml")
    body = text.lstrip("\ufeff \t\r\n")
    if not body:
        col.note("the XML output is empty: the sanitizer did not write it, or died before it did")
        return col.finish()
    if "<!DOCTYPE" in body or "<!ENTITY" in body:
        col.note("the XML has a DOCTYPE or an entity declaration, which compute-sanitizer never writes: refused")
        return col.finish()

    parser = ET.XMLPullParser(events=("start", "end"))
    depth = 0
    closed = False
    root_ok = False
    in_record = False
    root: ET.Element | None = None

    def consume(events: Iterator[tuple[str, ET.Element]]) -> None:
        nonlocal depth, closed, root_ok, in_record, root
        for event, elem in events:
            if event == "start":
                depth += 1
                if depth == 1:
                    root = elem
                    root_ok = elem.tag == _ROOT
                    if not root_ok:
                        col.note(f"the XML's root element is <{str(elem.tag)[:80]}>, not <{_ROOT}>")
                elif depth == 2 and elem.tag == "record":
                    in_record = True
                elif depth == 2:
                    col.untrusted = True  # a newer format? fail closed rather than call a run clean
                    col.note(f"an unknown element <{str(elem.tag)[:80]}> in <{_ROOT}>: the output is not understood")
            else:
                if depth == 2 and elem.tag == "record":
                    in_record = False
                    col.add(*_xml_record(elem, tool))
                    if root is not None:
                        root.remove(elem)  # keep memory flat on long outputs
                elif depth == 1:
                    closed = True
                depth -= 1

    data = body.encode("utf-8", errors="replace")
    error: str | None = None
    try:
        for chunk in data.splitlines(keepends=True):
            parser.feed(chunk)
            consume(parser.read_events())
    except (ET.ParseError, ValueError, LookupError) as exc:
        error = f"the XML is malformed ({exc})"
    if error is None:
        try:
            parser.close()
            consume(parser.read_events())
        except (ET.ParseError, ValueError, LookupError) as exc:
            error = f"the XML ends early ({exc}): the sanitizer was killed, or the file was cut"
    if error is not None:
        where = " inside a record, which is lost" if in_record else ""
        col.note(f"{error}{where}; {len(col.records)} complete records before it were read")
    col.complete = error is None and closed and root_ok
    if error is None and not closed:
        col.note(f"the XML has no closing </{_ROOT}>")
    return col.finish()


def _child_text(elem: ET.Element | None, path: str) -> str | None:
    if elem is None:
        return None
    node = elem.find(path)
    if node is None or node.text is None:
        return None
    s = node.text.strip()
    return s or None


def _xml_xyz(elem: ET.Element | None, path: str) -> tuple[int, int, int] | None:
    if elem is None:
        return None
    node = elem.find(path)
    if node is None:
        return None
    x, y, z = (_int(_child_text(node, axis)) for axis in ("x", "y", "z"))
    if x is None or y is None or z is None or min(x, y, z) < 0:
        return None
    return (x, y, z)


def _xml_where(elem: ET.Element | None) -> tuple[str | None, str | None, int | None]:
    if elem is None:
        return (None, None, None)
    return (_kernel_name(_child_text(elem, "func")), _child_text(elem, "path"), _int(_child_text(elem, "line")))


def _xml_access(elem: ET.Element | None) -> tuple[Access | None, str | None]:
    """A racecheck ``source``/``destination`` element: the Access, and the kernel named in its ``where``."""
    if elem is None:
        return None, None
    kernel, file, line = _xml_where(elem.find("where"))
    thread = _xml_xyz(elem, "who/threadIdx") or _xml_xyz(elem, "threadIdx")
    block = _xml_xyz(elem, "who/blockIdx") or _xml_xyz(elem, "blockIdx")
    access = Access(
        thread=thread, block=block, file=file, line=line, direction=_direction(_child_text(elem, "direction"))
    )
    return access, kernel


def _xml_record(rec: ET.Element, tool: str) -> tuple[Finding, list[Frame]]:
    kind_tag = (_child_text(rec, "kind") or "").lower()
    level = (_child_text(rec, "level") or "error").lower()
    severity = "warning" if level.startswith("warn") else "error"
    thread = _xml_xyz(rec, "who/threadIdx")
    block = _xml_xyz(rec, "who/blockIdx")
    what = rec.find("what")
    text = _child_text(what, "text") or _child_text(rec, "kind") or "record"
    kernel, file, line = _xml_where(rec.find("where"))
    frames: list[Frame] = []
    for fr in rec.findall("hostStack/frame"):
        frames.append(
            (
                _child_text(fr, "func") or "",
                _child_text(fr, "path") or _child_text(fr, "module"),
                _int(_child_text(fr, "line")),
            )
        )

    src_elem = what.find("source") if what is not None else None
    dst_elem = what.find("destination") if what is not None else None
    if src_elem is not None or dst_elem is not None:
        source, k1 = _xml_access(src_elem)
        destination, k2 = _xml_access(dst_elem)
        hazards = (
            _int(_child_text(dst_elem, "count"))
            or _int(_child_text(src_elem, "count"))
            or _int(_child_text(what, "count"))
        )
        hazard_type = _child_text(what, "type") or _child_text(what, "hazardType")
        finding = Finding(
            tool=tool,
            kind=_race_kind(
                hazard_type or text,
                source.direction if source else None,
                destination.direction if destination else None,
            ),
            severity=severity,
            message=text,
            kernel=kernel or k1 or k2,
            file=file or (source.file if source else None),
            line=line if line is not None else (source.line if source else None),
            thread=thread,
            block=block,
            address=_int(_child_text(what, "address")),
            space=_space(_child_text(what, "space")) or "shared",
            source=source,
            destination=destination,
            hazards=hazards,
        )
        return finding, frames

    if kind_tag == "synccheck" or tool == "synccheck" or _BARRIER.match(text):
        detail = _child_text(what, "type")
        message = f"{text}: {detail}" if detail else text
        finding = Finding(
            tool=tool,
            kind="divergent-barrier" if "divergent" in message.lower() else "barrier-error",
            severity=severity,
            message=message,
            kernel=kernel,
            file=file,
            line=line,
            thread=thread,
            block=block,
        )
        return finding, frames

    mem = _MEM_HEADER.match(text)
    uninit = _UNINIT_HEADER.match(text)
    header = mem or uninit
    error_text = _child_text(what, "error")
    if kind_tag == "initcheck" or uninit is not None:
        kind = "uninitialized"
    else:
        kind = _classify(error_text) or _classify(text) or ("invalid-address" if mem else "unknown")
    direction = _direction(_child_text(what, "direction")) or (_direction(header.group(2)) if header else None)
    finding = Finding(
        tool=tool,
        kind=kind,
        severity=severity,
        message=text,
        kernel=kernel,
        file=file,
        line=line,
        thread=thread,
        block=block,
        address=_int(_child_text(what, "address")),
        size=_int(_child_text(what, "size")) or (_int(header.group(3)) if header else None),
        direction=direction if direction != "access" else None,
        space=_space(_child_text(what, "space")) or (_space(header.group(1)) if header else None),
    )
    return finding, frames


# ------------------------------------------------------------------------------------------------------------ sniff


def parse(text: str | bytes, tool: str) -> SanitizerRun:
    """Parse either form: a text starting with ``<?xml`` or ``<ComputeSanitizerOutput`` is XML, anything else text."""
    text, tool = _check_args(text, tool)
    head = text.lstrip("\ufeff \t\r\n")[:200]
    if head.startswith("<?xml") or head.startswith(f"<{_ROOT}"):
        return parse_xml(text, tool)
    return parse_text(text, tool)
