"""Parser of compute-sanitizer's ``=========`` text output (see ``_parse`` for the policy and status rules)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .._findings import Access, Finding
from ._records import (
    _FILE_LINE,
    _MAX_LINE,
    PREFIX,
    Frame,
    SanitizerRun,
    _check_args,
    _classify,
    _Collector,
    _direction,
    _int,
    _internal_failure,
    _location,
    _race_kind,
    _space,
    _xyz,
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
        first: Access | None = accesses[0] if accesses else None
        second: Access | None = accesses[1] if len(accesses) > 1 else None
        finding = Finding(
            tool=tool,
            kind=_race_kind(m.group(2), None, None),
            severity=m.group(1).lower(),
            message=header.rstrip(" :"),
            kernel=race_kernel,
            file=first.file if first else None,
            line=first.line if first else None,
            block=blk,
            address=_int(m.group(4)),
            space=_space(m.group(3)),
            source=first,
            destination=second,
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


