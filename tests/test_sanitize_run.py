"""The sanitizer pass's orchestration, on a CPU, against a stand-in for compute-sanitizer.

The stand-in runs the real worker (so the cases really run and the manifest and stdout markers are real) and then
writes the XML a given scenario calls for: clean, records tied to a case by its host frame or by the stdout
markers, a crashed tool, a process that dies part-way. What is tested is kcheck's side: tying, failing closed,
resuming after a dead process. The real tool is exercised on the GPU (docs/gpu-validation.md).
"""

import dataclasses
import sys
import textwrap

import pytest

from kcheck._device import detect
from kcheck._discover import load_module
from kcheck.sanitize import edge_cases, sanitize

FAKE = r'''#!PYTHON
import os, subprocess, sys
args = sys.argv[1:]
save = args[args.index("--save") + 1]
tool = args[args.index("--tool") + 1]
prog = args[args.index(sys.executable):]
manifest = prog[3]
count_file = os.environ["FAKE_DIR"] + "/count-" + tool  # one per tool: the tools run side by side
n = int(open(count_file).read()) + 1 if os.path.exists(count_file) else 1
open(count_file, "w").write(str(n))
mode = os.environ["FAKE_MODE"]
import time
t_start = time.time()
out = subprocess.run(prog, capture_output=True, text=True)
with open(os.environ["FAKE_DIR"] + "/times", "a") as log:
    log.write(f"{tool} {t_start} {time.time()}\n")
text = out.stdout
if mode == "marker":  # a record with no host stack, printed inside case 1's markers
    race_text = ("========= Error: Race reported between Write access at race+0xa0 in k.cu:4\n"
                 "=========     and Read access at race+0xb0 in k.cu:4 [256 hazards]\n")
    text = text.replace("kcheck-sanitize-case end 1", race_text + "kcheck-sanitize-case end 1")
if mode == "marker2":  # the same race in cases 0 and 2: one XML record each, in that order
    race_text = ("========= Error: Race reported between Write access at race+0xa0 in k.cu:4\n"
                 "=========     and Read access at race+0xb0 in k.cu:4 [256 hazards]\n")
    for i in (0, 2):
        text = text.replace(f"kcheck-sanitize-case end {i}", race_text + f"kcheck-sanitize-case end {i}")
sys.stdout.write(text)
head = '<?xml version="1.0" encoding="utf-8"?>\n<ComputeSanitizerOutput>\n'
oob = """<record><kind>Precise</kind><level>Error</level>
<who><threadIdx><x>3</x><y>0</y><z>0</z></threadIdx><blockIdx><x>1</x><y>0</y><z>0</z></blockIdx></who>
<what><text>Invalid __global__ read of size 4 bytes is out of bounds</text><space>__global__</space><size>4</size>
<direction>read</direction><error>out of bounds</error><address>0x10</address></what>
<where><func>neg_kernel</func><path>/k.py</path><line>12</line><pc>0x90</pc></where>
<hostStack><frame><func>launch</func></frame><frame><func>kcheck_case_1</func><path>/w.py</path><line>5</line></frame>
</hostStack></record>
"""
race = """<record><kind>Analysis</kind><level>Error</level><what><text>Race condition</text>
<source><direction>Write</direction><where><func>race</func><path>k.cu</path><line>4</line></where></source>
<destination><direction>Read</direction><where><func>race</func><path>k.cu</path><line>4</line></where>
<count>256</count></destination></what></record>
"""
body = {"clean": "", "oob": oob, "marker": race, "marker2": race + race, "crash": oob, "die": ""}[mode]
if mode == "die" and n == 1:  # the program died in case 1: the manifest saw only case 0
    lines = open(manifest).read().splitlines()[:1]
    open(manifest, "w").write("".join(l + "\n" for l in lines))
    open(save, "w").write(head + "</ComputeSanitizerOutput>\n")
    sys.exit(139)
if mode == "crash":
    open(save, "w").write(head + body[:200])  # truncated mid-record
    sys.exit(139)
open(save, "w").write(head + body + "</ComputeSanitizerOutput>\n")
sys.exit(17 if body else 0)
'''

SPEC = """
import torch, kcheck
spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"])
"""


@pytest.fixture
def fake(tmp_path, monkeypatch):
    exe = tmp_path / "bin" / "compute-sanitizer"
    exe.parent.mkdir()
    exe.write_text(FAKE.replace("PYTHON", sys.executable))
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{exe.parent}:" + __import__("os").environ["PATH"])
    monkeypatch.setenv("FAKE_DIR", str(tmp_path))
    (tmp_path / "neg_spec.py").write_text(textwrap.dedent(SPEC))
    spec = load_module(tmp_path / "neg_spec.py").spec
    gpu = dataclasses.replace(detect(), device="cuda")
    cases = edge_cases(spec, detect())[:3]

    def run(mode, tools=("memcheck",), jobs=None):
        monkeypatch.setenv("FAKE_MODE", mode)
        for counter in tmp_path.glob("count-*"):
            counter.unlink()
        (tmp_path / "times").unlink(missing_ok=True)
        return sanitize(spec, tools=tools, cases=cases, device=gpu, jobs=jobs)

    def times():
        rows = [ln.split() for ln in (tmp_path / "times").read_text().splitlines()]
        return [(float(a), float(b)) for _, a, b in rows]

    run.times = times
    return run, [c.id for c in cases]


def test_clean_run_is_clean(fake):
    run, _ = fake
    rep = run("clean")
    assert rep.clean and rep.tools[0].status == "clean" and rep.tools[0].processes == 1


def test_a_record_is_tied_to_its_case_by_the_host_frame(fake):
    run, ids = fake
    tool = run("oob").tools[0]
    assert tool.status == "errors"
    (finding,) = tool.findings
    assert finding.cases == [ids[1]] and (finding.kernel, finding.line, finding.kind) == ("neg_kernel", 12,
                                                                                          "out-of-bounds")


def test_a_record_without_host_stack_is_tied_by_the_stdout_markers(fake):
    run, ids = fake
    tool = run("marker", tools=("racecheck",)).tools[0]
    assert tool.status == "errors" and tool.findings[0].cases == [ids[1]]


def test_the_same_race_in_two_cases_is_tied_to_both(fake):
    run, ids = fake
    tool = run("marker2", tools=("racecheck",)).tools[0]
    (finding,) = tool.findings
    assert finding.cases == [ids[0], ids[2]] and finding.count == 2


def test_a_crashed_tool_is_unknown_never_clean(fake):
    run, _ = fake
    tool = run("crash").tools[0]
    assert tool.status in ("unknown", "errors") and tool.status != "clean"
    assert any("rc=139" in p for p in tool.problems)


def test_a_process_that_dies_part_way_resumes_after_the_case_and_is_not_clean(fake):
    run, ids = fake
    tool = run("die").tools[0]
    assert tool.processes == 2
    assert tool.status == "unknown"
    assert any(f"{ids[1]} ended the sanitized process" in p for p in tool.problems)


def test_the_tools_run_side_by_side_unless_told_one_at_a_time(fake):
    run, _ = fake
    tools = ("memcheck", "racecheck", "synccheck", "initcheck")
    rep = run("clean", tools=tools)
    assert [t.tool for t in rep.tools] == list(tools) and rep.clean, [t.problems for t in rep.tools]
    spans = run.times()
    assert len(spans) == 4 and max(a for a, _ in spans) < min(b for _, b in spans)  # all four were running at once
    run("clean", tools=tools, jobs=1)
    spans = sorted(run.times())
    assert all(spans[i][1] <= spans[i + 1][0] for i in range(3))  # each began after the previous one ended


def test_jobs_must_be_positive():
    from kcheck import Spec, SpecError, Tensor

    spec = Spec(name="x", kernel=abs, reference=abs, inputs=[Tensor("N")])
    with pytest.raises(SpecError, match="jobs"):
        sanitize(spec, jobs=0)


def test_without_a_gpu_nothing_runs_and_says_why():
    from kcheck import Spec, Tensor

    spec = Spec(name="x", kernel=abs, reference=abs, inputs=[Tensor("N")])
    cpu = dataclasses.replace(detect(), device="cpu")
    rep = sanitize(spec, device=cpu)
    assert not rep.clean and "no GPU" in rep.unavailable
