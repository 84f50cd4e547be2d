"""compute-sanitizer, run right: the four tools over a Spec's small edge cases, one process per tool.

For each tool, all chosen cases run in one sanitized process (``python -m kcheck.sanitize._worker``) with:

- the caching allocators off (``PYTORCH_NO_CUDA_MEMORY_CACHING=1``; CuPy's pool in the worker), without which an
  out-of-bounds access inside a cached block is invisible to memcheck;
- ``--destroy-on-device-error kernel``, so a faulting case does not take the context (and the later cases) down;
- ``--xml --save FILE``: records are parsed into typed Findings, deduplicated by (kernel, line, kind) with counts,
  and tied to the case that caused them through the ``kcheck_case_<i>`` frame in their host backtrace.

Fail closed: a tool run is *clean* only when the sanitizer exited normally, its XML is complete and every case
reached the worker's manifest. A crash, a timeout or a truncated log is *unknown*, never clean. If the process dies
part-way, the cases after the last one the manifest saw run again in a fresh sanitized process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .._device import DeviceInfo, detect
from .._discover import locate
from .._errors import SpecError
from .._findings import Finding, deduplicate
from .._spec import Spec
from ..cases import Case, build_matrix
from ._parse import Frame, case_index, parse_text, parse_xml
from ._worker import MARK

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
ERROR_EXIT = 17


@dataclass
class ToolRun:
    tool: str
    status: str  # clean | errors | unknown
    findings: list[Finding] = field(default_factory=list)  # deduplicated, each with the cases that caused it
    outside: list[Finding] = field(default_factory=list)  # records not inside any case's kernel call
    problems: list[str] = field(default_factory=list)  # why unknown
    cases: list[str] = field(default_factory=list)
    processes: int = 0
    seconds: float = 0.0


@dataclass
class SanitizeReport:
    spec: str
    tools: list[ToolRun]
    unavailable: str | None = None  # why nothing could run (no GPU, no compute-sanitizer)

    @property
    def clean(self) -> bool:
        return self.unavailable is None and all(t.status == "clean" for t in self.tools)


def edge_cases(spec: Spec, device: DeviceInfo, limit: int = 24) -> list[Case]:
    """Small cases that reach edges: non-aligned and threshold sizes, all dims small, first precision, randn."""
    small = [
        c
        for c in build_matrix(spec, device)
        if c.skip is None
        and c.pattern == "randn"
        and c.layout == "contiguous"
        and c.axis in ("size", "config")
        and c.sizes
        and all(1 <= v <= 129 for v in c.sizes.values())
    ]

    # prefer the sizes that break edge guards: 129 and 17 first, then the thresholds
    def rank(c: Case) -> tuple[int, int]:
        odd = sum(v in (17, 33, 63, 65, 127, 129) for v in c.sizes.values())
        return (-odd, -sum(c.sizes.values()))

    return sorted(small, key=rank)[:limit]


def _sanitizer() -> str | None:
    return shutil.which("compute-sanitizer") or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer", "/opt/cuda/bin/compute-sanitizer") if os.path.exists(p)),
        None,
    )


def _run_tool(tool: str, exe: str, path: str, spec: Spec, cases: list[Case], timeout: float) -> ToolRun:
    run = ToolRun(tool, "unknown", cases=[c.id for c in cases])
    t0 = time.perf_counter()
    todo = list(range(len(cases)))
    raw: list[Finding] = []
    complete = True
    with tempfile.TemporaryDirectory(prefix="kcheck-sanitize-") as tmp:
        while todo:
            run.processes += 1
            xml, manifest = Path(tmp, f"{tool}-{run.processes}.xml"), Path(tmp, f"{tool}-{run.processes}.tsv")
            ids = [cases[i].id for i in todo]
            # racecheck stays in its default analysis mode: one record per racing pair of lines with its hazard
            # count (hazard mode printed 1e5 records for one missing barrier and took 310 s on the H200)
            cmd = [
                exe,
                "--tool",
                tool,
                "--xml",
                "--save",
                str(xml),
                "--print-limit",
                "100000",
                "--error-exitcode",
                str(ERROR_EXIT),
                "--destroy-on-device-error",
                "kernel",
                sys.executable,
                "-m",
                "kcheck.sanitize._worker",
                str(manifest),
                path,
                spec.name,
                *ids,
            ]
            env = {**os.environ, "PYTORCH_NO_CUDA_MEMORY_CACHING": "1", "PYTHONUNBUFFERED": "1"}
            try:
                proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
                rc: int | None = proc.returncode
                tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            except subprocess.TimeoutExpired:
                rc, tail = None, [f"timed out after {timeout:g} s"]
            done = _manifest(manifest)
            parsed = parse_xml(xml.read_text(errors="replace"), tool) if xml.exists() else None
            text = parse_text(proc.stdout, tool) if rc is not None and "=========" in proc.stdout else None
            if parsed is not None and text is not None:
                _enrich(parsed.records, text.records)
            if parsed is None:
                run.problems.append(f"process {run.processes}: no XML written (rc={rc}): {' | '.join(tail)}")
                complete = False
            else:
                if parsed.status == "unknown":
                    complete = False
                    run.problems += [f"process {run.processes}: {p}" for p in parsed.problems]
                segments = _segments(proc.stdout, tool) if rc is not None else {}
                for finding, frames in parsed.records:
                    idx = case_index(frames)
                    if idx is None and segments.get(_key(finding)):
                        idx = segments[_key(finding)].popleft()
                    if idx is not None and idx < len(ids):
                        finding.cases = [ids[idx]]
                    raw.append(finding)
            if rc not in (0, ERROR_EXIT):
                complete = False
                run.problems.append(
                    f"process {run.processes}: the sanitized run ended with rc={rc}: " + " | ".join(tail)
                )
            reached = len(done)
            if reached >= len(todo):
                break
            if reached == 0 and rc is None:
                run.problems.append(f"{ids[0]} did not finish under {tool}; the remaining cases were not run")
                break
            # the process died in case todo[reached]: note it and resume after it in a fresh process
            run.problems.append(f"{ids[reached]} ended the sanitized process; the cases after it ran in a new one")
            complete = False
            todo = todo[reached + 1 :]
    # what stays untied happened outside the kernel calls (input generation, torch itself)
    merged = deduplicate(raw)
    run.findings = [f for f in merged if f.cases]
    run.outside = [f for f in merged if not f.cases]
    if run.findings:
        run.status = "errors"
    elif complete:
        run.status = "clean"
    run.seconds = time.perf_counter() - t0
    return run


def _enrich(xml_records: list[tuple[Finding, list[Frame]]], text_records: list[tuple[Finding, list[Frame]]]) -> None:
    """The XML lacks the "N bytes after the nearest allocation of size S" line; take it from the text records of
    the same access (same address, thread and block) when the sanitizer also printed them."""
    extra = {(f.address, f.thread, f.block): f for f, _ in text_records if f.distance is not None}
    for f, _ in xml_records:
        t = extra.get((f.address, f.thread, f.block))
        if t is not None and f.distance is None:
            f.distance, f.allocation_size = t.distance, t.allocation_size


def _key(f: Finding) -> tuple[object, ...]:
    return (f.kind, f.line, f.kernel.split("(")[0] if f.kernel else None)


def _segments(stdout: str, tool: str) -> dict[tuple[object, ...], deque[int]]:
    """Per record key, the case indices of the text records printed between the worker's begin and end markers, in
    the order printed: the n-th XML record of a key is the n-th text record of that key."""
    out: dict[tuple[object, ...], deque[int]] = {}
    current: int | None = None
    lines: list[str] = []
    for line in stdout.splitlines():
        if line.startswith(MARK):
            _, what, idx = line.rsplit(" ", 2)
            if what == "begin":
                current, lines = int(idx), []
            elif current is not None:
                for f, _ in parse_text("\n".join(lines), tool).records:
                    out.setdefault(_key(f), deque()).append(current)
                current = None
        elif current is not None:
            lines.append(line)
    return out


def _manifest(path: Path) -> list[tuple[str, str]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            out.append((parts[1], parts[2]))
    return out


def sanitize(
    spec: Spec,
    *,
    tools: Sequence[str] = TOOLS,
    cases: Sequence[Case] | None = None,
    timeout: float = 600.0,
    device: DeviceInfo | None = None,
    jobs: int | None = None,
) -> SanitizeReport:
    """Run compute-sanitizer's tools over ``spec``'s edge cases (or ``cases``); one sanitized process per tool.

    The tools' processes run side by side (``jobs`` at a time, default all of them): each is bound by the CPU side
    of its instrumentation, so on one GPU four tools together take about the wall time of the slowest one.
    """

    for t in tools:
        if t not in TOOLS:
            raise SpecError("tools", t, f"use names from {list(TOOLS)}")
    if jobs is not None and jobs < 1:
        raise SpecError("jobs", jobs, "give a positive number of sanitized processes to run at once, or None")
    dev = device or detect()
    if not dev.is_gpu:
        return SanitizeReport(spec.name, [], "no GPU on this machine: compute-sanitizer needs one")
    exe = _sanitizer()
    if exe is None:
        return SanitizeReport(spec.name, [], "compute-sanitizer not found on PATH or in /usr/local/cuda/bin")
    ref = locate(spec)
    if ref is None:
        return SanitizeReport(
            spec.name, [], "the Spec is not defined at module level: the sanitized process cannot import it"
        )
    chosen = list(cases) if cases is not None else edge_cases(spec, dev)
    with ThreadPoolExecutor(max_workers=jobs or max(1, len(tools))) as pool:
        runs = list(pool.map(lambda t: _run_tool(t, exe, ref.path, spec, chosen, timeout), tools))
    return SanitizeReport(spec.name, runs)
