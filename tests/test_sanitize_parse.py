"""compute-sanitizer output parsers, on real captures (tests/fixtures/compute-sanitizer, see its README.md).

Policy under test: the parsers never raise on content; what they cannot trust is status "unknown" with a problem.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kcheck._errors import SpecError
from kcheck.sanitize import SanitizerOutputError, SanitizerRun, case_index, parse, parse_text, parse_xml

FIX = Path(__file__).resolve().parent / "fixtures" / "compute-sanitizer"
TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]
TEXTS = {
    "memcheck_oob_write.txt": "memcheck",
    "memcheck_printlimit.txt": "memcheck",
    "memcheck_sticky.txt": "memcheck",
    "memcheck_clean.txt": "memcheck",
    "racecheck_analysis.txt": "racecheck",
    "racecheck_all.txt": "racecheck",
    "synccheck_divergent.txt": "synccheck",
    "initcheck_uninit.txt": "initcheck",
    "memcheck_triton_cached.txt": "memcheck",
    "memcheck_triton_nocache.txt": "memcheck",
    "racecheck_triton_rmw.txt": "racecheck",
}
XMLS = {
    "memcheck_oob_write.xml": "memcheck",
    "memcheck_triton_nocache.xml": "memcheck",
    "racecheck.xml": "racecheck",
    "synccheck.xml": "synccheck",
    "initcheck.xml": "initcheck",
}
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def load(name: str) -> str:
    return (FIX / name).read_text(encoding="utf-8")


def run(name: str) -> SanitizerRun:
    return parse(load(name), {**TEXTS, **XMLS}[name])


def sane(r: SanitizerRun) -> None:
    """What every parse must give, whatever the input."""
    assert isinstance(r, SanitizerRun)
    assert r.status in ("clean", "errors", "unknown")
    assert not any(p.startswith("internal parser error") for p in r.problems), r.problems
    assert r.raw_records == len(r.records) == len(r.frames)
    assert sum(f.count for f in r.findings) == r.raw_records
    if r.status == "unknown":
        assert r.problems
    if r.status == "clean":
        assert r.complete and not r.findings and not r.errors_reported and not r.not_printed


# ------------------------------------------------------------------------------------------------------------ memcheck


def test_memcheck_oob_write_text():
    r = run("memcheck_oob_write.txt")
    assert (r.status, r.complete, r.errors_reported, r.not_printed, r.raw_records) == ("errors", True, 29, 0, 29)
    assert r.source_format == "text"
    first, frames = r.records[0]
    assert first.tool == "memcheck" and first.kind == "out-of-bounds" and first.severity == "error"
    assert first.kernel == "oob_write" and first.file is not None and first.file.endswith("bugs.cu")
    assert first.line == 3
    assert (first.direction, first.size, first.space) == ("write", 4, "global")
    assert (first.thread, first.block) == ((100, 0, 0), (0, 0, 0))
    assert first.address == 0x7FB292800190
    assert (first.distance, first.allocation_size) == (1, 400)
    assert "out of bounds" in first.message
    assert frames == [("main", "bugs", None)]
    # thread 114 is nearer the next allocation (1,024 bytes, digit-grouped): "56 bytes before" it
    t114 = next(f for f, _ in r.records if f.thread == (114, 0, 0))
    assert (t114.distance, t114.allocation_size) == (-56, 1024)
    # 28 threads (100..127) out of bounds, then the API error of the next cudaDeviceSynchronize: 29 = the summary
    oob, api = r.findings
    assert (oob.kind, oob.count, oob.thread) == ("out-of-bounds", 28, (100, 0, 0))
    assert api.kind == "api-error" and api.kernel is None and "cudaErrorLaunchFailure" in api.message
    assert r.records[-1][1] == [("main", "bugs", None)]
    assert any("unspecified launch failure" in p for p in r.problems)


def test_memcheck_oob_write_xml():
    r = run("memcheck_oob_write.xml")
    assert (r.status, r.complete, r.errors_reported, r.not_printed, r.raw_records) == ("errors", True, None, 0, 4)
    assert r.source_format == "xml" and not r.problems
    assert [f.thread for f, _ in r.records] == [(100, 0, 0), (101, 0, 0), (102, 0, 0), (103, 0, 0)]
    f, frames = r.records[0]
    assert (f.kind, f.kernel, f.file, f.line) == ("out-of-bounds", "oob_write", "/src/bugs.cu", 3)
    assert (f.direction, f.size, f.space, f.address) == ("write", 4, "global", 0x7FB54E800190)
    assert (f.distance, f.allocation_size) == (None, None)  # the XML form carries no nearest-allocation information
    assert f.message == "Invalid __global__ write of size 4 bytes is out of bounds"
    assert frames[0] == ("cuLaunchKernel", "/usr/local/nvidia/lib64/libcuda.so.1", None)
    assert ("main", "/src/./bugs", None) in frames
    assert ("", "/lib/x86_64-linux-gnu/libc.so.6", None) in frames  # a frame without a function name
    assert len(r.findings) == 1 and r.findings[0].count == 4


def test_text_and_xml_of_the_same_run_agree():
    text, xml = run("memcheck_oob_write.txt"), run("memcheck_oob_write.xml")
    assert len(xml.records) == 4  # --print-limit 4: the first four of the text's 29
    for (t, _), (x, _) in zip(text.records[:4], xml.records, strict=True):
        fields = ("tool", "kind", "severity", "kernel", "line", "size", "direction", "space", "thread", "block")
        assert [getattr(t, a) for a in fields] == [getattr(x, a) for a in fields]
        assert x.file is not None and t.file is not None and x.file.endswith(t.file)


def test_memcheck_print_limit():
    r = run("memcheck_printlimit.txt")
    assert (r.status, r.errors_reported, r.not_printed, r.raw_records) == ("errors", 29, 26, 3)
    assert [f.thread for f, _ in r.records] == [(100, 0, 0), (101, 0, 0), (102, 0, 0)]
    assert not any("records were parsed" in p for p in r.problems)  # 29 - 26 == 3: consistent


def test_memcheck_sticky_error():
    r = run("memcheck_sticky.txt")
    assert (r.status, r.errors_reported, r.not_printed, r.raw_records) == ("errors", 35, 33, 2)
    (f,) = r.findings
    assert (f.kernel, f.file, f.line, f.kind, f.count) == ("sticky", "bugs2.cu", 5, "out-of-bounds", 2)
    assert (f.distance, f.allocation_size) == (834_665_985, 512)
    assert sum("unspecified launch failure" in p for p in r.problems) == 3  # each later CUDA call failed


def test_memcheck_clean():
    r = run("memcheck_clean.txt")
    assert (r.status, r.complete, r.errors_reported, r.findings, r.problems) == ("clean", True, 0, [], [])
    assert r.require_complete() is r


def test_memcheck_triton_cached_is_clean_the_allocator_trap():
    # An unmasked Triton load past the end, hidden by PyTorch's caching allocator: the tool says 0 errors, and the
    # parser is right to report what the tool said.
    r = run("memcheck_triton_cached.txt")
    assert (r.status, r.errors_reported, r.findings) == ("clean", 0, [])


def test_memcheck_triton_nocache_text():
    r = run("memcheck_triton_nocache.txt")
    assert (r.status, r.errors_reported, r.not_printed, r.raw_records) == ("errors", 14, 11, 3)
    (f,) = r.findings
    assert (f.kernel, f.file, f.line, f.kind) == ("add", "tri_oob.py", 5, "out-of-bounds")
    assert (f.direction, f.size, f.space) == ("read", 8, "global")
    assert (f.thread, f.block) == ((116, 0, 0), (3, 0, 0))
    assert (f.distance, f.allocation_size) == (1, 4000)  # "of size 4,000 bytes"
    frames = r.frames[0]
    assert frames[0] == ("launch", "__triton_launcher.cpython-312-x86_64-linux-gnu.so", None)
    assert frames[1] == ("", "python3", None)
    assert frames[-1] == ("<module>", "tri_oob.py", 8)
    assert ("__call__", "driver.py", 713) in frames
    assert any("target application returned an error" in p for p in r.problems)
    assert any("CUDA error: unspecified launch failure" in p for p in r.problems)  # from the Python traceback


def test_memcheck_triton_nocache_xml():
    r = run("memcheck_triton_nocache.xml")
    assert (r.status, r.complete, r.raw_records) == ("errors", True, 3)
    f = r.findings[0]
    assert (f.kernel, f.file, f.line, f.size, f.direction) == ("add", "/src/tri_oob.py", 5, 8, "read")
    assert r.frames[0][-1] == ("<module>", "/src/tri_oob.py", 8)
    assert r.frames[0][-2] == ("<lambda>", "/usr/local/lib/python3.12/site-packages/triton/runtime/jit.py", 370)


# ----------------------------------------------------------------------------------------------------------- racecheck


def test_racecheck_analysis_text():
    r = run("racecheck_analysis.txt")
    assert (r.status, r.errors_reported, r.warnings_reported, r.hazards_displayed) == ("errors", 1, 0, 1)
    (f,) = r.findings
    assert (f.tool, f.kind, f.severity, f.kernel, f.file, f.line) == (
        "racecheck",
        "race-RAW",
        "error",
        "race",
        "bugs.cu",
        4,
    )
    assert (f.hazards, f.space) == (256, "shared")
    assert f.source is not None and f.destination is not None
    assert (f.source.direction, f.source.file, f.source.line) == ("write", "bugs.cu", 4)
    assert (f.destination.direction, f.destination.file, f.destination.line) == ("read", "bugs.cu", 4)
    assert r.frames == [[]]  # analysis-mode records carry no host backtrace


def test_racecheck_xml_agrees_with_analysis_text():
    x, t = run("racecheck.xml"), run("racecheck_analysis.txt")
    assert (x.status, x.raw_records, x.errors_reported) == ("errors", 1, None)
    (f,) = x.findings
    (g,) = t.findings
    assert (f.kind, f.severity, f.kernel, f.line, f.hazards) == (g.kind, g.severity, g.kernel, g.line, g.hazards)
    assert f.file == "/src/bugs.cu" and f.message == "Race condition"
    assert f.source is not None and f.destination is not None
    assert (f.source.direction, f.source.line, f.destination.direction, f.destination.line) == ("write", 4, "read", 4)


def test_racecheck_all_hazard_records():
    r = run("racecheck_all.txt")
    assert (r.status, r.hazards_displayed, r.errors_reported, r.warnings_reported) == ("errors", 6, 9, 248)
    assert r.raw_records == 6
    assert [f.address for f, _ in r.records] == list(range(0x484, 0x48A))
    (f,) = r.findings
    assert (f.kind, f.severity, f.kernel, f.file, f.line, f.count) == ("race-RAW", "warning", "race", "bugs.cu", 4, 6)
    assert (f.space, f.block, f.address) == ("shared", (0, 0, 0), 0x484)
    assert f.source is not None and f.destination is not None
    assert (f.source.direction, f.source.thread, f.source.block, f.source.line) == ("write", (33, 0, 0), (0, 0, 0), 4)
    assert (f.destination.direction, f.destination.thread, f.destination.line) == ("read", (32, 0, 0), 4)
    assert r.records[4][0].source.thread == (34, 0, 0)  # type: ignore[union-attr]
    assert r.frames[0] == [("race(float*)", "bugs", None), ("main", "bugs", None)]


def test_racecheck_cannot_see_global_memory_races():
    r = run("racecheck_triton_rmw.txt")
    assert (r.status, r.hazards_displayed, r.errors_reported, r.warnings_reported) == ("clean", 0, 0, 0)


# ------------------------------------------------------------------------------------------------ synccheck, initcheck


def test_synccheck_divergent_barrier_text():
    r = run("synccheck_divergent.txt")
    assert (r.status, r.errors_reported, r.raw_records) == ("errors", 16, 16)
    (f,) = r.findings
    assert (f.tool, f.kind, f.kernel, f.file, f.line, f.count) == (
        "synccheck",
        "divergent-barrier",
        "divsync_intra",
        "bugs2.cu",
        3,
        16,
    )
    assert f.message == "Barrier error detected. Divergent thread(s) in warp."
    assert [g.thread for g, _ in r.records] == [(i, 0, 0) for i in range(16)]


def test_synccheck_xml():
    r = run("synccheck.xml")
    assert (r.status, r.complete, r.raw_records) == ("errors", True, 16)
    (f,) = r.findings
    assert (f.kind, f.kernel, f.file, f.line) == ("divergent-barrier", "divsync_intra", "/src/bugs2.cu", 3)
    assert f.message == "Barrier error: Divergent thread(s) in warp"
    assert [g.thread for g, _ in r.records] == [(i, 0, 0) for i in range(16)]


def test_initcheck_text():
    r = run("initcheck_uninit.txt")
    assert (r.status, r.errors_reported, r.not_printed, r.raw_records) == ("errors", 64, 60, 4)
    (f,) = r.findings
    assert (f.kind, f.kernel, f.file, f.line) == ("uninitialized", "uninit", "bugs.cu", 6)
    assert (f.direction, f.size, f.space, f.address) == ("read", 4, "global", 0x7F6DD8800000)
    assert [g.address for g, _ in r.records] == [0x7F6DD8800000 + 4 * i for i in range(4)]


def test_initcheck_xml():
    r = run("initcheck.xml")
    assert (r.status, r.raw_records) == ("errors", 4)
    (f,) = r.findings
    assert (f.kind, f.kernel, f.file, f.line) == ("uninitialized", "uninit", "/src/bugs.cu", 6)
    assert (f.direction, f.size, f.space, f.address) == ("read", 4, "global", 0x7FCE3A800000)  # from <text>


# ---------------------------------------------------------------------------------------------- fail closed, problems


@pytest.mark.parametrize("name", ["sticky_no_sanitizer.txt", "plain_triton_rmw.txt", "ncu_csv.txt"])
def test_output_without_the_sanitizer_is_unknown(name):
    r = parse_text(load(name), "memcheck")
    assert r.status == "unknown" and not r.complete
    assert r.problems[0].startswith("no ERROR SUMMARY line")
    assert any("no compute-sanitizer output" in p for p in r.problems)
    with pytest.raises(SanitizerOutputError, match="cannot be trusted"):
        r.require_complete()


def test_text_without_summary_is_unknown_but_keeps_its_records():
    text = "\n".join(line for line in load("memcheck_oob_write.txt").splitlines() if "SUMMARY" not in line)
    r = parse_text(text, "memcheck")
    assert (r.status, r.complete, r.errors_reported, r.raw_records) == ("unknown", False, None, 29)
    assert r.problems[0] == "no ERROR SUMMARY line: the tool or the program crashed, was killed, or the output was cut"
    racecheck = parse_text(load("racecheck_all.txt").replace("RACECHECK SUMMARY", "something else"), "racecheck")
    assert racecheck.status == "unknown" and racecheck.problems[0].startswith("no RACECHECK SUMMARY line")


def test_truncated_xml_mid_record_is_unknown():
    text = load("memcheck_oob_write.xml")
    third = [m.start() for m in re.finditer("<record>", text)][2]
    r = parse_xml(text[: third + 300], "memcheck")
    assert (r.status, r.complete, r.raw_records) == ("unknown", False, 2)
    assert any("ends early" in p and "inside a record" in p for p in r.problems), r.problems
    # cut between records, and just before the closing tag
    assert parse_xml(text[:third], "memcheck").status == "unknown"
    assert parse_xml(text.rstrip()[:-1], "memcheck").status == "unknown"


@pytest.mark.parametrize(
    ("xml", "problem"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ('<?xml version="1.0"?>\n', "ends early"),
        ("<ComputeSanitizerOutput>", "ends early"),
        ("<Other><record/></Other>", "root element is <Other>"),
        ("<ComputeSanitizerOutput></ComputeSanitizerOutput><x/>", "malformed"),
        ("<ComputeSanitizerOutput><record><kind>&bad;</kind></record></ComputeSanitizerOutput>", "malformed"),
        ('<!DOCTYPE a [<!ENTITY x "y">]><ComputeSanitizerOutput/>', "DOCTYPE"),
        ("<ComputeSanitizerOutput><finding/></ComputeSanitizerOutput>", "unknown element <finding>"),
    ],
)
def test_malformed_xml_is_unknown(xml, problem):
    r = parse_xml(xml, "memcheck")
    sane(r)
    assert r.status == "unknown"
    assert any(problem in p for p in r.problems), r.problems


def test_empty_complete_xml_is_clean():
    r = parse_xml(
        '<?xml version="1.0" encoding="utf-8"?>\n<ComputeSanitizerOutput>\n</ComputeSanitizerOutput>\n', "memcheck"
    )
    assert (r.status, r.complete, r.problems) == ("clean", True, [])


def test_a_tool_error_makes_a_zero_summary_unknown():
    text = "========= Error: Target application terminated before first instrumented API call\n"
    text += "========= ERROR SUMMARY: 0 errors\n"
    r = parse_text(text, "memcheck")
    assert (r.status, r.complete, r.untrusted) == ("unknown", True, True)
    assert "error of its own" in r.problems[0]


def test_program_lines_that_look_like_the_prefix_are_the_programs():
    text = "======================== test session starts ========================\n"
    text += "========= COMPUTE-SANITIZER\n=========\n========= ERROR SUMMARY: 0 errors\n"
    assert (parse_text(text, "memcheck").status, parse_text(text, "memcheck").problems) == ("clean", [])


def test_a_summary_glued_to_program_output_is_found():
    r = parse_text("========= COMPUTE-SANITIZER\nno newline at the end========= ERROR SUMMARY: 0 errors\n", "memcheck")
    assert r.status == "clean" and any("glued" in p for p in r.problems)


def test_record_shapes_not_in_the_captures():
    # Shapes from compute-sanitizer's manual, not captured here: a misaligned access inside an allocation, a hardware
    # exception (a record of a shape the parser does not know: kept, fail closed), and a leak.
    text = """========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at unaligned_kernel()+0x70 in memcheck_demo.cu:6
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f671ac00001 is misaligned
=========     and is inside the nearest allocation at 0x7f671ac00000 of size 4 bytes
=========
========= Out-of-range Shared or Local Address
=========     at ns::k<float>(float *, int)+0x30 in k.cu:7
=========     by thread (1,0,0) in block (2,0,0)
=========
========= Leaked 1,024 bytes at 0x7f671ac00200
=========
========= LEAK SUMMARY: 1024 bytes leaked in 1 allocations
========= ERROR SUMMARY: 3 errors
"""
    r = parse_text(text, "memcheck")
    sane(r)
    misaligned, hw, leak = (f for f, _ in r.records)
    assert (misaligned.kind, misaligned.kernel, misaligned.line, misaligned.distance) == (
        "misaligned",
        "unaligned_kernel",
        6,
        0,
    )
    assert (hw.kind, hw.kernel, hw.file, hw.line, hw.block) == ("invalid-address", "ns::k<float>", "k.cu", 7, (2, 0, 0))
    assert (leak.kind, leak.size, leak.address) == ("leak", 1024, 0x7F671AC00200)
    assert r.status == "errors" and any("unrecognized shape" in p for p in r.problems)


def test_parse_sniffs_the_format_and_checks_its_arguments():
    assert parse(load("racecheck.xml"), "racecheck").source_format == "xml"
    assert parse("\ufeff  " + load("racecheck.xml"), "racecheck").status == "errors"
    assert parse(load("racecheck_analysis.txt"), "racecheck").source_format == "text"
    assert parse(load("memcheck_clean.txt").encode(), "memcheck").status == "clean"  # bytes are read as UTF-8
    with pytest.raises(SpecError, match="tool"):
        parse("", "asan")
    with pytest.raises(SpecError, match="text"):
        parse(None, "memcheck")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------------- case_index


def test_case_index():
    frames = [
        ("launch", "__triton_launcher.so", None),
        ("", "python3", None),
        ("kcheck_case_7", "/tmp/kcheck_worker.py", 31),
        ("kcheck_case_3", "/tmp/kcheck_worker.py", 40),  # an outer frame: the innermost case wins
        ("<module>", "/tmp/kcheck_worker.py", 50),
    ]
    assert case_index(frames) == 7
    assert case_index([("kcheck_case_7x", None, None), ("my_kcheck_case_7", None, None)]) is None
    assert case_index([]) is None
    assert case_index(run("memcheck_triton_nocache.txt").frames[0]) is None


def test_case_index_from_parsed_host_frames():
    text = load("memcheck_triton_nocache.txt").replace("<lambda> in jit.py:370", "kcheck_case_12 in worker.py:9")
    r = parse_text(text, "memcheck")
    assert [case_index(frames) for frames in r.frames] == [12, 12, 12]
    xml = load("memcheck_triton_nocache.xml").replace("&lt;lambda&gt;", "kcheck_case_4")
    assert [case_index(frames) for frames in parse_xml(xml, "memcheck").frames] == [4, 4, 4]


# ------------------------------------------------------------------------------------------------------------- fuzz

FIXTURE_LINES = sorted({line for name in TEXTS for line in load(name).splitlines()})
_ALL = {**TEXTS, **XMLS}


@FUZZ
@given(text=st.text(max_size=2000), tool=st.sampled_from(TOOLS))
def test_fuzz_random_text_never_raises(text, tool):
    for parser in (parse, parse_text, parse_xml):
        sane(parser(text, tool))


@FUZZ
@given(
    lines=st.lists(
        st.one_of(
            st.sampled_from(FIXTURE_LINES),
            st.text(max_size=60).map(lambda s: "========= " + s),
            st.text(max_size=60).map(lambda s: "=========     " + s),
            st.text(max_size=60),
        ),
        max_size=40,
    ),
    tool=st.sampled_from(TOOLS),
)
def test_fuzz_sanitizer_like_lines_never_raise(lines, tool):
    sane(parse_text("\n".join(lines), tool))


@st.composite
def mutated_fixture(draw):
    name = draw(st.sampled_from(sorted(_ALL)))
    text = load(name)
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 200)))
        op = draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]))
        junk = draw(st.text(max_size=30)) if op in ("insert", "replace") else ""
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + junk + text[i:]
        elif op == "replace":
            text = text[:i] + junk + text[j:]
        else:
            text = text[:j] + text[i:j] + text[j:]
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return name, text


@FUZZ
@given(case=mutated_fixture())
def test_fuzz_mutated_fixtures_never_raise(case):
    name, text = case
    tool = _ALL[name]
    sane(parse(text, tool))
    sane(parse_text(text, tool))
    sane(parse_xml(text, tool))


@FUZZ
@given(name=st.sampled_from(sorted(XMLS)), data=st.data())
def test_fuzz_any_xml_cut_before_its_end_is_unknown(name, data):
    text = load(name)
    end = text.index("</ComputeSanitizerOutput>") + len("</ComputeSanitizerOutput>")
    cut = data.draw(st.integers(0, end - 1))
    r = parse_xml(text[:cut], XMLS[name])
    sane(r)
    assert r.status == "unknown"
    assert r.raw_records <= text[:cut].count("</record>")


@FUZZ
@given(name=st.sampled_from(sorted(TEXTS)), data=st.data())
def test_fuzz_any_text_cut_before_its_summary_is_unknown(name, data):
    text = load(name)
    summary = re.search(r"^========= (ERROR|RACECHECK) SUMMARY: ", text, re.MULTILINE)
    assert summary is not None
    cut = data.draw(st.integers(0, summary.end()))
    r = parse_text(text[:cut], TEXTS[name])
    sane(r)
    assert r.status == "unknown"


@FUZZ
@given(
    name=st.sampled_from(sorted(TEXTS)),
    data=st.data(),
    noise=st.lists(st.text(max_size=40).filter(lambda s: not s.startswith("=")), min_size=1, max_size=5),
)
def test_fuzz_program_output_interleaved_changes_no_record(name, data, noise):
    text = load(name)
    lines = text.splitlines()
    for line in noise:
        for part in line.splitlines() or [""]:
            if part.startswith("="):
                continue
            lines.insert(data.draw(st.integers(0, len(lines))), part)
    before, after = parse_text(text, TEXTS[name]), parse_text("\n".join(lines), TEXTS[name])
    sane(after)
    assert after.findings == before.findings
    assert (after.status, after.errors_reported, after.not_printed) == (
        before.status,
        before.errors_reported,
        before.not_printed,
    )
