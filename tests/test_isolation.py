"""Isolation: a crash or a hang costs one case; every other result is kept and judged as it would be alone."""

import importlib
import re

import pytest

import kcheck
from kcheck import Status

#: the kernel crashes the interpreter at these sizes and never finishes at N = 63 (tests/isolation/crash_and_hang.py)
CRASH_SIZES, HANG_SIZE = (17, 33), 63


@pytest.mark.interpreter
def test_interpreter_crashes_and_a_hang_are_reported_and_nothing_else_is_lost():
    spec = importlib.import_module("isolation.crash_and_hang").spec
    # the interpreter's bounds checks would stop the wild store before it crashes: turn them off to crash for real
    isolated = kcheck.check(spec, isolate=True, timeout=5, large=False, interpreter_checks=False)
    cases = kcheck.matrix(spec, large=False)
    ids = [c.id for c in cases]
    assert [c.id for c in isolated.cases] == ids  # nothing lost, same order
    got = {c.id: c.status for c in isolated.cases}
    bad = {c.id: Status.CRASHED if c.sizes["N"] in CRASH_SIZES else Status.TIMEOUT for c in cases
           if c.sizes["N"] in (*CRASH_SIZES, HANG_SIZE)}
    assert len(bad) >= 3
    for case_id, status in bad.items():
        assert got[case_id] is status, (case_id, got[case_id])
    crashed = next(c for c in isolated.cases if c.id == "crash_and_hang[N=17,fp32,randn,seed=0]")
    assert crashed.reasons[0].startswith("crashed: killed by SIGSEGV")
    hung = next(c for c in isolated.cases if c.status is Status.TIMEOUT)
    # 5 s for a case as costly as the nominal one, scaled by the machine's load, then one retry at 4x
    assert re.match(r"did not finish within [0-9.]+ s, nor within [0-9.]+ s on a retry", hung.reasons[0])
    alone = kcheck.check(spec, large=False, cases=[i for i in ids if i not in bad], interpreter_checks=False)
    assert {c.id: c.status for c in alone.cases} == {i: s for i, s in got.items() if i not in bad}
    assert not isolated.passed and alone.passed


def test_a_spec_built_in_a_function_runs_in_process_with_a_note():
    import torch

    spec = kcheck.Spec(name="local", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    report = kcheck.check(spec, isolate=True, tier="quick")
    assert report.passed
    assert report.specs[0].warnings[0].startswith("not isolated: the Spec is not defined at module level")


def test_timeout_must_be_positive():
    import pytest
    import torch

    spec = kcheck.Spec(name="local", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    with pytest.raises(kcheck.SpecError, match="timeout=0"):
        kcheck.check(spec, timeout=0)


@pytest.mark.interpreter
def test_with_interpreter_checks_the_wild_store_is_a_finding_not_a_crash():
    spec = importlib.import_module("isolation.crash_and_hang").spec
    res = kcheck.check(spec, cases="crash_and_hang[N=17,fp32,randn,seed=0]").cases[0]
    assert res.status is Status.FAILED
    assert res.findings and res.findings[0].kind == "out-of-bounds" and res.findings[0].direction == "write"


def test_a_worker_started_ahead_is_adopted_by_the_isolated_worker_whose_environment_it_has():
    """``warm_up(envs)`` starts workers while the caller builds its matrices; an ``Isolated`` takes one whose
    environment is the one it would give its own worker, another environment never gets it, and the workers left
    over are stopped."""
    from kcheck.run import Isolated, discard_prestarted, warm_up
    from kcheck.run._isolate import _PRESTARTED

    warm_up([{"KCHECK_TEST_AHEAD": "a"}, {"KCHECK_TEST_AHEAD": "b"}])
    assert _PRESTARTED.thread is not None
    _PRESTARTED.thread.join()
    ahead = {p.env["KCHECK_TEST_AHEAD"]: p.proc.pid for p in _PRESTARTED.ready}
    assert set(ahead) == {"a", "b"}
    other = Isolated(60, env={"KCHECK_TEST_AHEAD": "c"})
    mine = Isolated(60, env={"KCHECK_TEST_AHEAD": "b"})
    try:
        other._ready()
        mine._ready()
        assert mine._proc.pid == ahead["b"] and other._proc.pid not in ahead.values()
    finally:
        other.close()
        mine.close()
        left = [p.proc for p in _PRESTARTED.ready]
        discard_prestarted()
    assert [p.pid for p in left] == [ahead["a"]] and not any(p.is_alive() for p in left)


def test_a_forkserver_that_cannot_start_early_costs_the_head_start_only(monkeypatch):
    """``warm_up`` is a head start: when the forkserver cannot be started there, it returns, and the first worker
    starts it as before (or says why not) instead of ``check()`` failing before its matrices."""
    from multiprocessing import forkserver

    from kcheck.run import warm_up

    def refuse() -> None:
        raise OSError("no room for a socket")

    monkeypatch.setattr(forkserver, "ensure_running", refuse)
    warm_up([{"KCHECK_TEST_AHEAD": "x"}])  # no exception


def test_a_launch_past_cudas_grid_limit_is_named():
    """A 2-D Triton grid with more than 65535 blocks along y fails to launch on a GPU with only "invalid argument"
    (three held-out controls, one with a planted bug, erred so on the H200 at their past-2**31 size). The launches
    a case makes are recorded on a GPU, and the launch past the limit is named with the fix. Here the launch itself
    fails for want of a GPU: what matters is what was recorded before it."""
    import torch
    import triton
    import triton.language as tl
    from triton.runtime.jit import JITFunction

    from kcheck._device import DeviceInfo
    from kcheck.backends import LaunchLog, by_name

    def copy_rows(x_ptr, BLOCK: tl.constexpr):
        pass

    kernel = JITFunction(copy_rows)  # compiled, not interpreted: what a GPU runs
    gpu = DeviceInfo("cuda", "a GPU", 2**34, 2**34, (9, 0), 132, False)
    with by_name("triton").launches(gpu) as log:
        try:
            kernel[(8, triton.cdiv(33554433, 256))](torch.empty(4), BLOCK=256)
        except Exception:  # no GPU here (a CPU tensor on one): the launch fails after it was recorded
            pass
    problem = log.past_grid_limit()
    assert problem is not None and problem.startswith("copy_rows's launch grid (8, 131073, 1) has 131073 blocks along "
                                                      "y, past CUDA's limit of 65535 (put the longest axis"), problem
    cpu = DeviceInfo("cpu", "cpu", 2**34, 2**34, None, 132, True)
    with by_name("triton").launches(cpu) as log:  # the interpreter takes any grid: nothing recorded
        pass
    assert log.launches == [] and LaunchLog().past_grid_limit() is None
    fits = LaunchLog()
    fits.launches.append(("k", lambda: (2**31 - 1, 65535, 65535)))
    assert fits.past_grid_limit() is None


def test_a_fresh_worker_preloads_every_backend_and_ignores_a_failing_one(monkeypatch):
    from kcheck.run import _isolate

    calls = []

    class Fake:
        def __init__(self, name, fails):
            self.name, self.fails = name, fails

        def preload(self, gpu):
            calls.append((self.name, gpu))
            if self.fails:
                raise RuntimeError("no driver here")

    monkeypatch.setattr(_isolate, "backends", lambda: (Fake("a", True), Fake("b", False)))
    _isolate._preload_backends()
    assert [name for name, _ in calls] == ["a", "b"]


def test_a_worker_that_does_not_start_is_tried_again_and_never_blamed_on_the_kernel(monkeypatch):
    """A worker can die before it runs anything of the user's (on a GPU, its CUDA start out of memory while another
    worker's past-2**31 case holds the device). It is tried once more; a second failure is a case no worker could
    run (ERROR of kind NO_WORKER), not a crash of the kernel, and the debugger leaves it out of its evidence."""
    from kcheck import ReasonKind
    from kcheck._discover import locate
    from kcheck.run import Isolated, _isolate

    spec = importlib.import_module("isolation.crash_and_hang").spec
    case = next(c for c in kcheck.matrix(spec, large=False) if c.sizes["N"] == 1)
    ref = locate(spec)
    assert ref is not None
    monkeypatch.setattr(_isolate, "RESTART_PAUSE", 0.0)
    ready = _isolate.Isolated._ready
    calls = []

    def fails_first(self):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 1:
            raise _isolate._NoWorker("the worker did not start: exit status 1")
        return ready(self)

    monkeypatch.setattr(_isolate.Isolated, "_ready", fails_first)
    w = Isolated(60)
    try:
        res = w.run(ref, case)
    finally:
        w.close()
    assert res.status is Status.PASSED and len(calls) == 2, res.reasons  # the second start ran the case

    def never(self):  # type: ignore[no-untyped-def]
        raise _isolate._NoWorker("the worker did not start: exit status 1")

    monkeypatch.setattr(_isolate.Isolated, "_ready", never)
    w = Isolated(60)
    try:
        res = w.run(ref, case)
    finally:
        w.close()
    assert res.status is Status.ERROR and res.reasons_of(ReasonKind.NO_WORKER), res.reasons
    assert not res.reasons_of(ReasonKind.CRASHED)


def _run_script(tmp_path, body: str) -> tuple[int, list[str], str]:
    """Run ``body`` as a main script that can import the examples: its exit code, CASE lines and stderr."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    script = tmp_path / "script.py"
    script.write_text(f"import os, sys\nsys.path.insert(0, {str(root / 'examples')!r})\n" + body)
    env = {k: v for k, v in os.environ.items() if k != "KCHECK_WORKER_START"}  # the default, forkserver
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, env=env,
                         cwd=tmp_path)
    return out.returncode, [ln for ln in out.stdout.splitlines() if ln.startswith("CASE")], out.stderr


def test_a_script_that_calls_kcheck_at_its_top_level_gets_the_fix_not_a_bootstrapping_traceback(tmp_path):
    """A worker starts by importing the main script again (forkserver and spawn do), so a script whose top level calls
    kcheck.check with no `if __name__ == "__main__":` guard runs that call again in the worker. Before, each case
    tried two workers that died of multiprocessing's bootstrapping RuntimeError ("the worker exited with status 1",
    110 s for vector_add's quick tier); now the worker ends itself at once, and every case says what to change,
    after one start."""
    rc, lines, err = _run_script(tmp_path, (
        "import kcheck, vector_add\n"
        "rep = kcheck.check(vector_add.spec, tier='quick', isolate=True, cases=['N=1,', 'N=129,fp32,randn'])\n"
        "for r in rep.specs[0].cases:\n"
        "    print('CASE', r.status.value, r.reasons[0] if r.reasons else '')\n"))
    assert rc == 0 and len(lines) >= 2, (lines, err[-2000:])
    assert all(ln.startswith("CASE error") and 'if __name__ == "__main__":' in ln for ln in lines), lines
    assert "bootstrapping phase" not in err, err[-2000:]


def test_a_spec_a_script_takes_from_its_module_runs_in_workers_that_import_that_module(tmp_path):
    """A script holding another module's Spec in a variable under its main guard holds it at its top level too (and
    multiprocessing names the script ``__mp_main__`` as well as ``__main__``). Before, the workers imported the
    script, where the guarded block does not run, and every case ended "LookupError: no Spec named ...": the Spec's
    home is now the module that defines it."""
    rc, lines, err = _run_script(tmp_path, (
        "import kcheck, vector_add\n"
        "if __name__ == '__main__':\n"
        "    spec = getattr(vector_add, 'spec')\n"
        "    rep = kcheck.check(spec, tier='quick', isolate=True, cases=['N=1,', 'N=129,fp32,randn'])\n"
        "    for r in rep.specs[0].cases:\n"
        "        print('CASE', r.status.value, r.reasons[0] if r.reasons else '')\n"))
    assert rc == 0 and len(lines) >= 2, (lines, err[-2000:])
    assert all(ln.startswith("CASE passed") for ln in lines), lines


def test_a_spec_defined_under_the_main_guard_is_not_run_nor_debugged_in_the_callers_process(tmp_path):
    """A Spec built under the main guard exists only in the script's process: no worker can import it. Each case
    says so, with the fix, and is not a failure of the kernel; the debugger says nothing ran. Before, the cases were
    plain errors ("the worker could not run the case: LookupError"), the debugger took them for failures, and as
    none had crashed it probed the kernel in the script's own process: this kernel's abort ended the script."""
    rc, lines, err = _run_script(tmp_path, (
        "import kcheck, torch\n"
        "def dies(x):\n"
        "    os.abort()\n"
        "if __name__ == '__main__':\n"
        "    spec = kcheck.Spec(name='dies', kernel=dies, reference=torch.neg, inputs=[kcheck.Tensor('N')])\n"
        "    rep = kcheck.check(spec, tier='quick', isolate=True)\n"
        "    for r in rep.specs[0].cases[:3]:\n"
        "        print('CASE', r.status.value, r.never_ran, r.reasons[0] if r.reasons else '')\n"
        "    diag = kcheck.debug(spec, budget=20, repro=False, maps=False)\n"
        "    print('CASE debug', diag.not_run)\n"))
    assert rc == 0 and len(lines) == 4, (rc, lines, err[-2000:])
    assert all(ln.startswith("CASE error True") and "found no Spec named 'dies'" in ln
               and "define the Spec at module level" in ln for ln in lines[:3]), lines
    assert lines[3].startswith("CASE debug error: not run: the worker imported"), lines[3]
