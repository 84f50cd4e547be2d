"""Parser of compute-sanitizer's ``--xml --save FILE`` document (see ``_parse`` for the policy and status rules)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

from .._findings import Access, Finding
from ._records import (
    Frame,
    SanitizerRun,
    _check_args,
    _classify,
    _Collector,
    _direction,
    _int,
    _internal_failure,
    _kernel_name,
    _race_kind,
    _space,
)
from ._text import _BARRIER, _MEM_HEADER, _UNINIT_HEADER

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

    parser: ET.XMLPullParser = ET.XMLPullParser(events=("start", "end"))
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
            consume(parser.read_events())  # type: ignore[arg-type]  # events=("start", "end"): (str, Element)
    except (ET.ParseError, ValueError, LookupError) as exc:
        error = f"the XML is malformed ({exc})"
    if error is None:
        try:
            parser.close()
            consume(parser.read_events())  # type: ignore[arg-type]
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


