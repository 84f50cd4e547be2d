"""Verdicts that can be trusted at the level of a run: nothing that ran no case passes, a slow case is not a hang,
a kernel's exit or a bad path does not lose the run, and a stopped run leaves a valid partial report."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

import kcheck
from kcheck import Status
from kcheck._results import Verdict
from kcheck.cases import Case
from kcheck.cli import ExitCode, main
from kcheck.run._budget import Deadlines, work

NEG = """
import torch, kcheck
spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=64, real=())})
"""


def _ctrl_c_back() -> None:
    """In the child before exec: Ctrl-C's default back. A test run started in the background by a non-interactive
    shell (nohup ... &) ignores SIGINT, and an ignored signal stays ignored across exec."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


# --- a Spec that runs no case is never a pass -------------------------------------------------------------------

def _gpu_only_spec() -> kcheck.Spec:
    # fp8 needs a GPU of capability 8.9: on this CPU every case is skipped by the machine
    return kcheck.Spec(name="fp8_only", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                       dtypes=["fp8e4m3"], dims={"N": kcheck.Dim(nominal=64, real=())})


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU the fp8 cases run")
def test_a_spec_whose_cases_all_skip_is_not_run_never_passed():
    report = kcheck.check(_gpu_only_spec(), tier="quick")
    spec = report.specs[0]
    assert all(c.status is Status.SKIPPED for c in spec.cases)
    assert spec.verdict is Verdict.NOT_RUN and not spec.passed and spec.machine_only
    assert not report.passed


def test_an_empty_report_is_not_a_pass():
    assert not kcheck.Report([], "cpu").passed
    assert not kcheck.SpecReport("x", "torch", "cpu", []).passed


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU the fp8 cases run")
def test_cli_exit_codes_for_specs_that_ran_nothing(tmp_path):
    only = _write(tmp_path, "only_fp8.py", """
        import torch, kcheck
        spec = kcheck.Spec(name="fp8_only", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                           dtypes=["fp8e4m3"], dims={"N": kcheck.Dim(nominal=64, real=())})
        """)
    assert main(["check", str(only), "-q", "--tier", "quick", "--no-isolate"]) == ExitCode.UNKNOWN
    _write(tmp_path, "neg.py", NEG)
    # beside a Spec that ran and passed, a Spec this machine cannot run is listed (not passed) and the run is OK
    assert main(["check", str(tmp_path), "-q", "--tier", "quick", "--no-isolate"]) == ExitCode.OK


def test_two_different_specs_with_one_name_are_refused():
    a = kcheck.Spec(name="same", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    b = kcheck.Spec(name="same", kernel=torch.abs, reference=torch.abs, inputs=[kcheck.Tensor("N")])
    with pytest.raises(kcheck.SpecError, match="name='same'"):
        kcheck.check([a, b], tier="quick")
    assert kcheck.check([a, a], tier="quick").passed  # the same Spec twice is checked once


# --- a kernel's sys.exit(), bad paths, bad command lines ---------------------------------------------------------

EXITS = """
import sys, torch, kcheck
def leave(x):
    sys.exit(0)
spec = kcheck.Spec(name="exits", kernel=leave, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dims={"N": kcheck.Dim(nominal=64, real=())})
"""


@pytest.mark.parametrize("where", [["--no-isolate"], ["--case", "*N=64,fp32,randn,seed=0*"]],
                         ids=["in-process", "in-the-worker"])
def test_a_kernel_calling_sys_exit_errs_its_case(tmp_path, capsys, where):
    path = _write(tmp_path, "exits.py", EXITS)
    assert main(["check", str(path), "-q", "--tier", "quick", *where]) == ExitCode.FAILED
    out = capsys.readouterr().out
    assert "sys.exit(0)" in out and "FAILED" in out


@pytest.mark.parametrize("option", ["--json", "--html"])
def test_an_unwritable_report_path_is_refused_before_the_run(tmp_path, capsys, option):
    path = _write(tmp_path, "neg.py", NEG)
    t0 = time.perf_counter()
    assert main(["check", str(path), option, str(tmp_path / "missing" / "r.out")]) == ExitCode.USAGE
    assert option in capsys.readouterr().err
    assert main(["check", str(path), option, str(tmp_path)]) == ExitCode.USAGE  # a folder in the way
    assert time.perf_counter() - t0 < 5  # refused before any case ran


@pytest.mark.parametrize("argv", [["check"], ["nope"], ["check", "x.py", "--tier", "huge"], [],
                                  ["check", "x.py", "--timeout", "soon"], ["lint"]])
def test_a_bad_command_line_exits_4(argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == ExitCode.USAGE


@pytest.mark.parametrize("value", ["inf", "1e9", "5e6"])
def test_timeout_inf_means_no_limit(tmp_path, value):
    path = _write(tmp_path, "neg.py", NEG)
    assert main(["check", str(path), "-q", "--tier", "quick", "--timeout", value,
                 "--case", "*N=64,fp32,randn,seed=0*"]) == ExitCode.OK


@pytest.mark.parametrize("value", [0, -1, math.nan, "60", True])
def test_timeout_must_be_a_positive_number(value):
    spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    with pytest.raises(kcheck.SpecError, match="timeout"):
        kcheck.check(spec, timeout=value)


# --- time limits: slow is not hung ---------------------------------------------------------------------------------

def _case(**dims: int) -> Case:
    return Case("s", tuple(dims.items()), "fp32")


def test_work_is_the_product_of_the_named_sizes():
    assert work(_case(M=17, N=17, K=128256)) == 17 * 17 * 128256
    assert work(_case(N=0)) == 1


def test_limits_scale_with_the_work_of_finished_cases(monkeypatch):
    monkeypatch.setattr("kcheck.run._budget.load_factor", lambda: 1.0)
    d = Deadlines(timeout=10.0)
    assert d.limit(_case(M=128, N=128, K=128)) == 10.0  # nothing finished: the base limit
    d.record(_case(M=128, N=128, K=128), 2.0)
    # 8x the work of the nominal case, which took 2 s: 4 x 16 s
    assert d.limit(_case(M=128, N=128, K=1024)) == pytest.approx(4 * 2.0 * 8)
    # 18x: too far to extrapolate a time that may be mostly fixed cost; the base limit (and the retry) hold
    assert d.limit(_case(M=17, N=17, K=128256)) == 10.0
    assert d.limit(_case(M=1, N=1, K=1)) == 10.0  # never below the base
    assert d.retry_limit(10.0) == 40.0
    d.hung = True
    assert d.retry_limit(10.0) is None


def test_a_loaded_machine_widens_the_limit(monkeypatch):
    monkeypatch.setattr(os, "getloadavg", lambda: (4.0 * (os.cpu_count() or 1), 0.0, 0.0))
    assert Deadlines(timeout=10.0).limit(_case(N=5)) == pytest.approx(40.0)


SLOW_AND_HUNG = """
import time, torch, kcheck

def sometimes_slow(x):
    n = x.numel()
    if n == 200:
        time.sleep(2.5)        # slow: passes a 1.5 s limit, finishes within the retry's 6 s
    if n in (31, 32):
        while True:            # hung
            time.sleep(0.05)
    return -x

spec = kcheck.Spec(name="slow_and_hung", kernel=sometimes_slow, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dtypes=["fp32"], patterns=["randn"], layouts=["contiguous"], seeds=1,
                   dims={"N": kcheck.Dim(nominal=1, sizes=(200, 31, 32), real=())})
"""
# The passing case is N=1: at least NEAR (16) times smaller than the others, so no limit is learned from its time
# and each case's limit is the 1.5 s given. With N=64 beside them, a loaded machine's slow first case predicted
# the 2.5 s case within its limit (4 x 0.3 s x 200/64), and the retry this test is about never came.


def test_a_slow_case_is_retried_and_passes_and_a_hang_is_still_a_hang(tmp_path, monkeypatch):
    monkeypatch.setattr("kcheck.run._budget.load_factor", lambda: 1.0)
    monkeypatch.syspath_prepend(str(tmp_path))
    _write(tmp_path, "slow_and_hung_spec.py", SLOW_AND_HUNG)
    import slow_and_hung_spec  # type: ignore[import-not-found]

    cases = [c.id for c in kcheck.matrix(slow_and_hung_spec.spec, large=False) if c.sizes["N"] in (1, 200, 31, 32)]
    report = kcheck.check(slow_and_hung_spec.spec, isolate=True, timeout=1.5, large=False, cases=cases)
    got = {c.case.sizes["N"]: c for c in report.cases}
    assert [c.case.sizes["N"] for c in report.cases] == [1, 200, 31, 32]
    assert got[200].status is Status.PASSED
    assert any(w.startswith("slow, not hung") for w in got[200].warnings)
    assert got[31].status is Status.TIMEOUT
    assert "nor within 6 s on a retry" in got[31].reasons[0]
    assert got[32].status is Status.TIMEOUT  # a hang confirmed: the next one is not retried
    assert got[32].reasons[0].startswith("did not finish within 1.5 s (")
    assert got[1].status is Status.PASSED


# --- the user's kernel never runs in kcheck's own process when isolated -----------------------------------------

PID_SPEC = """
import os, torch, kcheck

LOG = os.environ["KCHECK_TEST_PID_LOG"]

def neg(x):
    with open(LOG, "a") as fh:
        fh.write(f"{os.getpid()}\\n")
    return -x

spec = kcheck.Spec(name="pid_logger", kernel=neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dtypes=["fp32"], dims={"N": kcheck.Dim(nominal=64, real=())})
"""


def test_isolated_check_never_calls_the_kernel_in_kcheck_s_process(tmp_path, monkeypatch):
    log = tmp_path / "pids.txt"
    monkeypatch.setenv("KCHECK_TEST_PID_LOG", str(log))
    monkeypatch.syspath_prepend(str(tmp_path))
    _write(tmp_path, "pid_logger_spec.py", PID_SPEC)
    import pid_logger_spec  # type: ignore[import-not-found]

    report = kcheck.check(pid_logger_spec.spec, isolate=True, tier="quick", large=False, resources=True)
    assert report.passed
    pids = {int(p) for p in log.read_text().split()}
    assert pids and os.getpid() not in pids


def test_crashed_workers_leave_no_stderr_files(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.syspath_prepend(str(tmp_path))
    _write(tmp_path, "aborts_spec.py", """
        import os, torch, kcheck
        def dies(x):
            if x.numel() == 17:
                os.abort()
            return -x
        spec = kcheck.Spec(name="aborts", kernel=dies, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                           dtypes=["fp32"], patterns=["randn"], layouts=["contiguous"], seeds=1,
                           dims={"N": kcheck.Dim(nominal=64, sizes=(17, 64), real=())})
        """)
    import aborts_spec  # type: ignore[import-not-found]

    report = kcheck.check(aborts_spec.spec, isolate=True, large=False)
    assert Status.CRASHED in {c.status for c in report.cases}
    assert not list(tmp_path.glob("kcheck-worker-*"))


# --- results as they come; a stopped run leaves a valid partial report and no process ---------------------------

MANY_SLOW = """
import time, torch, kcheck

def slow_neg(x):
    time.sleep(0.4)
    return -x

spec = kcheck.Spec(name="many_slow", kernel=slow_neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                   dtypes=["fp32"], patterns=["randn"], layouts=["contiguous"], seeds=1,
                   dims={"N": kcheck.Dim(nominal=64, sizes=tuple(range(1, 200)), real=())})
"""


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            env = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker.encode() in env:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to find leftover processes")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_run_leaves_a_valid_partial_json_and_no_process(tmp_path, sig):
    path = _write(tmp_path, "many_slow.py", MANY_SLOW)
    out = tmp_path / "report.json"
    marker = f"KCHECK_TEST_MARK_{os.getpid()}_{sig.name}"
    env = {**os.environ, marker: "1"}
    proc = subprocess.Popen([sys.executable, "-m", "kcheck.cli", "check", str(path), "--json", str(out), "-q",
                             "--no-large", "--no-resources"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_ctrl_c_back)
    deadline = time.monotonic() + 90
    done = 0
    while time.monotonic() < deadline and done < 3:
        time.sleep(0.3)
        if out.exists():
            done = sum(len(s["cases"]) for s in json.loads(out.read_text())["specs"])
    assert done >= 3, proc.stdout.read().decode() if proc.stdout else ""
    os.kill(proc.pid, sig)  # the parent only, as `kill PID` or a CI cancel does
    code = proc.wait(30)
    data = json.loads(out.read_text())
    assert data["complete"] is False and data["passed"] is False
    names = [c["case"]["id"] for s in data["specs"] for c in s["cases"]]
    assert len(names) >= done and all(n.startswith("many_slow[") for n in names)
    if sig is not signal.SIGKILL:
        assert code == 128 + sig
        assert data["interrupted"] == sig.name
    for _ in range(50):  # the worker dies with its parent (at once, or at its next message)
        if not _processes_with(marker):
            break
        time.sleep(0.1)
    assert _processes_with(marker) == []


def test_progress_shows_in_a_log_and_quiet_keeps_only_what_did_not_pass(tmp_path):
    path = _write(tmp_path, "bad_tail.py", """
        import torch, kcheck
        def neg(x):
            y = -x
            if y.numel() > 64:
                y[-1:] = 0
            return y
        spec = kcheck.Spec(name="bad_tail", kernel=neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                           dims={"N": kcheck.Dim(nominal=64, real=())})
        """)
    cmd = [sys.executable, "-m", "kcheck.cli", "check", str(path), "--no-isolate", "--no-large", "--tier", "quick"]
    log = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    assert "bad_tail: " in log and " cases, " in log  # progress lines without a terminal
    assert "failed bad_tail[N=129" in log
    quiet = subprocess.run([*cmd, "-q"], capture_output=True, text=True, timeout=120).stdout
    assert " cases, " not in quiet and "failed bad_tail[N=129" in quiet


@pytest.mark.parametrize("kwargs", [dict(cases=5), dict(cases=[]), dict(progress=3), dict(live="x"), dict(dtypes=5),
                                    dict(large="no"), dict(isolate=1), dict(resources=None), dict(tier=None),
                                    dict(seeds="2"), dict(order="sideways")])
def test_wrong_check_arguments_are_spec_errors(kwargs):
    spec = kcheck.Spec(name="neg", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    with pytest.raises(kcheck.SpecError):
        kcheck.check(spec, **kwargs)


@pytest.mark.parametrize("spec", [5, "neg", None, [5]])
def test_check_refuses_what_is_not_a_spec(spec):
    with pytest.raises(kcheck.SpecError):
        kcheck.check(spec)


def test_the_cli_says_which_files_it_imported_and_why_others_were_not(tmp_path, capsys):
    _write(tmp_path, "neg_spec.py", NEG)
    (tmp_path / "setup.py").write_text("import kcheck\nraise SystemExit('setup.py must not run')\n")
    (tmp_path / "helpers.py").write_text("X = 1\n")
    assert main(["check", str(tmp_path), "-q", "--tier", "quick", "--no-isolate", "--no-large"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert f"imported 1 file(s): {tmp_path / 'neg_spec.py'}" in out
    assert main(["check", str(tmp_path), "-q", "--spec", "none"]) == ExitCode.NO_SPECS
    assert "skipped 2 .py file(s) that cannot hold a Spec" in capsys.readouterr().out


def test_a_file_that_blocks_at_import_is_reported_not_waited_on(tmp_path, capsys):
    _write(tmp_path, "blocks.py", "import time, kcheck\nwhile True:\n    time.sleep(0.05)\n")
    _write(tmp_path, "neg_spec.py", NEG)
    t0 = time.perf_counter()
    code = main(["check", str(tmp_path), "-q", "--tier", "quick", "--no-isolate", "--import-timeout", "1"])
    assert code == ExitCode.NO_SPECS and time.perf_counter() - t0 < 30
    assert "import did not finish within 1 s" in " ".join(capsys.readouterr().out.split())  # rich wraps lines


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU the fp8 cases run")
def test_cases_turned_off_by_the_caller_do_not_make_a_gpu_only_spec_look_impossible(tmp_path):
    _write(tmp_path, "only_fp8.py", """
        import torch, kcheck
        spec = kcheck.Spec(name="fp8_only", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                           dtypes=["fp8e4m3"], dims={"N": kcheck.Dim(nominal=64, real=())})
        """)
    _write(tmp_path, "neg.py", NEG)
    # --no-large skips the large case by option, the others by the machine: still 'not run here', exit 0 beside a pass
    assert main(["check", str(tmp_path), "-q", "--tier", "quick", "--no-isolate", "--no-large"]) == ExitCode.OK
