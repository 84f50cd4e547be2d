"""Parallel workers: ``workers=N`` gives the report one worker gives (same cases, statuses, order), a crash costs its
case only, and the scheduling over GPUs (pinning, past-2**31 cases) does what it says, with the GPU list faked."""

from __future__ import annotations

import importlib
import os
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import torch

import kcheck
from kcheck import ReasonKind, Status
from kcheck.run import Isolated, Pool, pinning, worker_count

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

_MODULE = textwrap.dedent('''
    import os

    import torch

    import kcheck


    def wrong_at_129(x):  # a wrong answer where N = 129, right elsewhere
        out = torch.neg(x)
        if x.numel() == 129:
            out[0] += 1
        return out


    def aborts_at_129(x):  # kills its process where N = 129
        if x.numel() == 129:
            os.abort()
        return torch.neg(x)


    def pinned(x):  # right only in a worker whose environment pins it as the test asked
        if os.environ.get("CUDA_VISIBLE_DEVICES") != os.environ.get("KCHECK_TEST_PIN"):
            raise RuntimeError(f"not pinned: {os.environ.get('CUDA_VISIBLE_DEVICES')!r}")
        return torch.neg(x)


    def slow(x):  # right, a quarter of a second per case
        import time

        time.sleep(0.25)
        return torch.neg(x)


    failing = kcheck.Spec(name="failing", kernel=wrong_at_129, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                          dims={"N": kcheck.Dim(nominal=64)})
    crashing = kcheck.Spec(name="crashing", kernel=aborts_at_129, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                           dims={"N": kcheck.Dim(nominal=64)})
    slow = kcheck.Spec(name="slow", kernel=slow, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64)})
    pinning = kcheck.Spec(name="pinning", kernel=pinned, reference=torch.neg, inputs=[kcheck.Tensor("N")],
                          dims={"N": kcheck.Dim(nominal=64)})
''')


@pytest.fixture
def specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A module of small Specs, importable by the workers (a file on sys.path)."""
    name = f"parallel_specs_{os.getpid()}_{abs(hash(str(tmp_path))) % 10**6}"
    (tmp_path / f"{name}.py").write_text(_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    yield module
    sys.modules.pop(name, None)


def _shape(report: kcheck.Report) -> list[tuple[str, list[tuple[str, Status]]]]:
    return [(s.name, [(c.case.id, c.status) for c in s.cases]) for s in report.specs]


@pytest.mark.interpreter
def test_two_workers_give_the_report_one_worker_gives(specs, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    vector_add = importlib.import_module("vector_add").spec
    chosen = [vector_add, specs.failing]
    one = kcheck.check(chosen, tier="quick", large=False, isolate=True)
    seen: list[tuple[str, str, bool]] = []
    lives: list[int] = []
    two = kcheck.check(chosen, tier="quick", large=False, workers=2,
                       progress=lambda sp, case, res: seen.append((sp.name, case.id, res is None)),
                       live=lambda report: lives.append(sum(len(s.cases) for s in report.specs)))
    assert _shape(two) == _shape(one)
    assert [s.warnings for s in two.specs] == [s.warnings for s in one.specs]
    assert not two.specs[1].passed and two.specs[0].passed
    assert any(c.status is Status.FAILED for c in two.specs[1].cases)
    # every case announced before its result, results in the original order, live() after each one
    done = [(name, case) for name, case, before in seen if not before]
    assert done == [(s.name, c.case.id) for s in one.specs for c in s.cases]
    assert {(n, c) for n, c, before in seen if before} == set(done)
    assert lives == list(range(1, len(done) + 1))
    assert two.complete


def test_a_crash_in_one_worker_loses_no_other_case(specs):
    cases = kcheck.matrix(specs.crashing, tier="quick", large=False)
    report = kcheck.check(specs.crashing, tier="quick", large=False, workers=2, timeout=120)
    assert [c.case.id for c in report.cases] == [c.id for c in cases]
    crashed = [c for c in report.cases if c.status is Status.CRASHED]
    assert crashed and all(c.case.sizes["N"] == 129 for c in crashed)
    other_reasons = [c.reasons[0] for c in crashed if "SIGABRT" not in c.reasons[0]]
    assert not other_reasons, other_reasons
    others = [c for c in report.cases if c.case.sizes["N"] != 129 and c.case.skip is None]
    assert others and all(c.status is Status.PASSED for c in others)


def test_ctrl_c_keeps_the_finished_cases_and_leaves_no_worker(specs, tmp_path: Path):
    """SIGINT while two workers run: Interrupted carries the cases that finished, in order, and every worker is
    gone when check returns."""
    import signal
    import subprocess

    code = textwrap.dedent(f'''
        import os, sys
        sys.path.insert(0, {str(tmp_path)!r})
        import multiprocessing as mp
        import kcheck
        from {specs.__name__} import slow

        def progress(spec, case, res):
            if res is not None:
                print("result", flush=True)

        try:
            kcheck.check(slow, tier="quick", large=False, workers=2, progress=progress)
            print("finished")
        except kcheck.Interrupted as exc:
            ids = [c.case.id for c in exc.report.cases]
            every = [c.id for c in kcheck.matrix(slow, tier="quick", large=False)]
            print("interrupted", exc.reason, len(ids), ids == every[:len(ids)], exc.report.complete)
            print("children", [p.pid for p in mp.active_children()])
    ''')
    # Ctrl-C's default back in the child: a run started in the background by a shell (nohup ... &) ignores SIGINT,
    # and an ignored signal stays ignored across exec
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "result"
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    lines = out.strip().splitlines()
    head = next(ln for ln in lines if ln.startswith("interrupted")).split()
    assert head[1] == "SIGINT" and int(head[2]) >= 1 and head[3] == "True" and head[4] == "False"
    assert next(ln for ln in lines if ln.startswith("children")) == "children []"


@pytest.mark.slow
@pytest.mark.interpreter
def test_crashes_and_a_hang_in_parallel_are_what_one_worker_reports():
    """The time limits still scale per case with two workers: the hung case is retried once, then a timeout."""
    spec = importlib.import_module("isolation.crash_and_hang").spec
    report = kcheck.check(spec, workers=2, timeout=5, large=False, interpreter_checks=False)
    assert [c.case.id for c in report.cases] == [c.id for c in kcheck.matrix(spec, large=False)]
    bad = {c.case.sizes["N"]: c for c in report.cases if c.status not in (Status.PASSED, Status.SKIPPED)}
    assert set(bad) == {17, 33, 63}
    assert all(c.status is Status.CRASHED for c in report.cases if c.case.sizes["N"] in (17, 33))
    assert bad[63].status is Status.TIMEOUT and "nor within" in bad[63].reasons[0]


def test_a_worker_gets_its_pinning_in_its_environment(specs, monkeypatch: pytest.MonkeyPatch):
    from kcheck._discover import locate

    monkeypatch.setenv("KCHECK_TEST_PIN", "3")  # the parent's environment at the worker's start goes with it
    case = kcheck.matrix(specs.pinning, tier="quick", large=False)[0]
    ref = locate(specs.pinning)
    assert ref is not None
    with Isolated(60, env={"CUDA_VISIBLE_DEVICES": "3"}) as pinned:
        assert pinned.run(ref, case).status is Status.PASSED
    with Isolated(60, env={"CUDA_VISIBLE_DEVICES": "5"}) as other:
        assert other.run(ref, case).status is not Status.PASSED


def test_a_spare_takes_over_after_a_crash(specs):
    """After the first death a warm spare is started, so the next crash does not wait for a cold start."""
    from kcheck._discover import locate

    ref = locate(specs.crashing)
    assert ref is not None
    crash = next(c for c in kcheck.matrix(specs.crashing, tier="quick", large=False) if c.sizes["N"] == 129)
    with Isolated(60) as iso:
        statuses = [iso.run(ref, crash).status for _ in range(3)]
        assert statuses == [Status.CRASHED] * 3
        assert iso.deaths == 3
        # the first start; after the first death a replacement and a spare; after the second the spare takes over
        # and the next spare starts (without spares: one start per case, 3)
        assert iso.started == 4


def test_a_spec_no_worker_can_import_runs_in_process_in_its_turn(specs):
    import torch

    local = kcheck.Spec(name="local", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    report = kcheck.check([specs.failing, local], tier="quick", large=False, workers=2)
    assert [s.name for s in report.specs] == ["failing", "local"]
    assert report.specs[1].passed and not report.specs[0].passed
    assert report.specs[1].warnings[0].startswith("not isolated: the Spec is not defined at module level")
    assert [c.case.id for c in report.specs[1].cases] == [c.id for c in kcheck.matrix(local, tier="quick",
                                                                                          large=False)]


def test_worker_count():
    assert worker_count(2, cases=10, gpus=[]) == 2
    assert worker_count(8, cases=3, gpus=[]) == 3  # never more workers than cases
    assert worker_count("auto", cases=100, gpus=[], cpus=6) == 6
    assert worker_count("auto", cases=100, gpus=["0", "1"], cpus=64) == 32  # 16 per GPU
    assert worker_count("auto", cases=100, gpus=["0", "1"], cpus=6) == 6  # at most the CPU count
    assert worker_count("auto", cases=0, gpus=[]) == 1


def test_pinning_puts_one_group_per_gpu():
    assert pinning(5, ["2", "3"]) == [{"CUDA_VISIBLE_DEVICES": g} for g in ("2", "3", "2", "3", "2")]
    assert pinning(2, []) == [{}, {}]


def test_large_cases_go_where_the_memory_is_one_at_a_time_per_gpu():
    """Fake GPUs: the run function records which GPU group ran which task; no worker process starts."""
    free = {0: 10, 1: 50}
    pool: Pool[int] = Pool(4, 60, gpus=["0", "1"], free=lambda g: free[g])
    group = {id(w.isolated): w.gpu for w in pool.workers}
    lock = threading.Lock()
    running = {0: 0, 1: 0}
    most = {0: 0, 1: 0}
    ran: dict[int, int] = {}
    gate = threading.Event()

    def run(worker: Isolated, task: int) -> int:
        g = group[id(worker)]
        with lock:
            ran[task] = g
            if task >= 100:
                running[g] += 1
                most[g] = max(most[g], running[g])
        gate.wait(0.05)
        with lock:
            if task >= 100:
                running[g] -= 1
        return task

    tasks = [100, 1, 2, 101, 3, 4, 102, 5]
    with pool:
        events = list(pool.run(tasks, run, is_large=lambda t: t >= 100))
    assert sorted(p for kind, _, p in events if kind == "done") == sorted(tasks)
    assert ran[100] == 1  # the first large case goes to the GPU with the most free memory
    assert most[0] <= 1 and most[1] <= 1  # never two large cases at once on one GPU
    assert set(ran) == set(tasks)


def test_large_cases_with_an_estimate_run_side_by_side_while_they_fit_and_go_first():
    """One fake GPU with 100 GiB free and 4 workers (budget 100 GiB less 3 reserves = 94 GiB): three
    past-2**31 cases of 40 GiB each run two at a time, never three; one without an estimate runs with no other
    large one beside it; and every large case starts before any small one (they are the longest)."""
    from kcheck.run._pool import SMALL_RESERVE

    gib = 2**30
    pool: Pool[int] = Pool(4, 60, gpus=["0"], free=lambda g: 100 * gib)
    assert 100 * gib - 3 * SMALL_RESERVE >= 80 * gib > 100 * gib - 3 * SMALL_RESERVE - 40 * gib
    lock = threading.Lock()
    running: list[int] = []
    together: list[list[int]] = []
    order: list[int] = []

    def run(worker: Isolated, task: int) -> int:
        with lock:
            order.append(task)
            if task >= 100:
                running.append(task)
                together.append(sorted(running))
        time.sleep(0.1 if task >= 100 else 0.01)
        with lock:
            if task >= 100:
                running.remove(task)
        return task

    tasks = [1, 2, 100, 3, 101, 4, 102, 5, 103, 6]
    with pool:
        done = [p for kind, _, p in pool.run(tasks, run, is_large=lambda t: t >= 100,
                                             need=lambda t: None if t == 103 else 40 * gib) if kind == "done"]
    assert sorted(done) == sorted(tasks)
    assert max(len(t) for t in together) == 2  # two of 40 GiB fit, three do not
    assert all(t == [103] for t in together if 103 in t)  # no estimate: alone among the large ones
    assert order.index(100) < order.index(1) and order.index(101) < order.index(1)


def test_a_spec_stays_on_the_workers_that_touched_it():
    """Three groups (Specs) of eight tasks, each of its own compile key, on three workers: each worker stays on one
    group (a first touch paid once per Spec, not once per worker) and the three groups run side by side."""
    pool: Pool[str] = Pool(3, 60)
    lock = threading.Lock()
    touched: dict[int, set[str]] = {}

    def run(worker: Isolated, task: str) -> str:
        with lock:
            touched.setdefault(id(worker), set()).add(task[0])
        time.sleep(0.02)
        return task

    tasks = [f"{g}{k}" for g in "abc" for k in range(8)]
    with pool:
        done = [p for kind, _, p in pool.run(tasks, run, key=lambda t: t, group=lambda t: t[0]) if kind == "done"]
    assert sorted(done) == tasks
    assert sorted(len(groups) for groups in touched.values()) == [1, 1, 1], touched


def test_a_worker_without_a_spec_takes_the_one_with_the_most_work_left_per_worker():
    """Group a has twelve tasks, b one: the second worker joins a (11 pending for one worker beats 1 for none), so
    a is shared from the start and b runs last; with a third group as large as a, it would have taken that."""
    pool: Pool[str] = Pool(2, 60)
    lock = threading.Lock()
    ran: list[tuple[int, str]] = []

    def run(worker: Isolated, task: str) -> str:
        with lock:
            ran.append((id(worker), task))
        time.sleep(0.02)
        return task

    tasks = [f"a{k:02d}" for k in range(12)] + ["b00"]
    with pool:
        list(pool.run(tasks, run, key=lambda t: t, group=lambda t: t[0]))
    assert len({w for w, _ in ran[:2]}) == 2 and all(t.startswith("a") for _, t in ran[:2])
    assert ran[-1][1] == "b00"


def test_a_case_out_of_memory_beside_others_runs_again_alone():
    """Fake GPU: task 7 runs out of memory while others run; it runs again with no other task of its GPU running,
    and its second result is the one reported. A task out of memory when alone is reported as it is."""
    pool: Pool[int] = Pool(4, 60, gpus=["0"], free=lambda g: 100)
    lock = threading.Lock()
    running = [0]
    runs: dict[int, list[int]] = {}

    def run(worker: Isolated, task: int) -> tuple[int, str]:
        with lock:
            running[0] += 1
            others = running[0] - 1
            runs.setdefault(task, []).append(others)
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        if task == 7 and others:
            return task, "oom"
        if task == 9:
            return task, "oom"  # out of memory even alone
        return task, "ok"

    tasks = list(range(12))
    with pool:
        done = {i: p for kind, i, p in pool.run(tasks, run, out_of_memory=lambda r: r[1] == "oom")
                if kind == "done"}
    assert sorted(done) == tasks
    assert done[7] == (7, "ok") and runs[7][-1] == 0 and len(runs[7]) == 2
    assert done[9] == (9, "oom") and runs[9][-1] == 0 and len(runs[9]) <= 2
    assert pool._reruns >= 1
    assert all(len(runs[t]) == 1 for t in tasks if t not in (7, 9))


def test_out_of_memory_is_told_apart_from_other_errors():
    from kcheck._device import is_out_of_memory

    oom = torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 16.00 GiB")
    assert is_out_of_memory(oom)
    try:
        try:
            raise oom
        except Exception as inner:
            raise RuntimeError("the kernel raised") from inner
    except RuntimeError as outer:
        assert is_out_of_memory(outer)
    assert not is_out_of_memory(RuntimeError("CUDA error: an illegal memory access"))
    assert not is_out_of_memory(None)


def test_a_case_whose_kernel_runs_out_of_memory_says_so_as_data():
    def kernel(x):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 16.00 GiB")

    spec = kcheck.Spec(name="oom", kernel=kernel, reference=lambda x: x, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=8, real=())})
    res = kcheck.check(spec, cases="N=8", dtypes=["fp32"], isolate=False).specs[0].cases[0]
    assert res.status is Status.ERROR
    assert res.reasons_of(ReasonKind.KERNEL_RAISED) and res.reasons_of(ReasonKind.OUT_OF_MEMORY)


def test_a_past_2_31_case_out_of_memory_is_not_run_rather_than_a_failure_of_the_kernel():
    """The large case is sized to the memory free when the matrix is built; a reference that needs more, or another
    process on the GPU, can still take it (a correct held-out kernel was failed so on the H200). Not a verdict: the
    case is skipped for the device, and keeps the out-of-memory reason the pool reruns it by."""
    import dataclasses

    from kcheck._device import detect
    from kcheck.cases import SkipKind
    from kcheck.run import execute, judge

    def reference(x):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 GiB")

    spec = kcheck.Spec(name="oom_ref", kernel=lambda x: x.clone(), reference=reference, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=8, real=())})
    case = kcheck.matrix(spec, cases="N=8", dtypes=["fp32"])[0]
    large = judge(execute(spec, dataclasses.replace(case, axis="large"), detect()))
    assert large.status is Status.SKIPPED and large.skip_kind is SkipKind.DEVICE
    assert large.reasons_of(ReasonKind.OUT_OF_MEMORY) and "ran out of memory" in large.reasons[0]
    small = judge(execute(spec, case, detect()))
    assert small.status is Status.ERROR and small.reasons_of(ReasonKind.REFERENCE_RAISED)


def test_a_case_sized_to_the_memory_that_finds_it_taken_is_not_run_rather_than_an_error():
    """The longest-reduction and largest-size cases are sized, like the past-2**31 one, to the memory free when the
    matrix is built; another process on the GPU can take it since (the tuned zoo's 16 processes on one H200 erred
    a correct fp16 kernel's 128256 x 65536 case so, its reference's float64 copy out of memory). Not run for the
    device, with the out-of-memory reason; a case of a fixed size still errs."""
    import dataclasses

    from kcheck._device import detect
    from kcheck.cases import SkipKind
    from kcheck.run import execute, judge

    def reference(x):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 62.62 GiB")

    spec = kcheck.Spec(name="oom_big", kernel=lambda x: x.clone(), reference=reference, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=8, real=())})
    case = kcheck.matrix(spec, cases="N=8", dtypes=["fp32"])[0]
    for axis in ("big", "long"):
        res = judge(execute(spec, dataclasses.replace(case, axis=axis), detect()))
        assert res.status is Status.SKIPPED and res.skip_kind is SkipKind.DEVICE, axis
        assert res.reasons_of(ReasonKind.OUT_OF_MEMORY) and "this case needs a GPU with more free memory" in \
            res.reasons[0], axis
    assert judge(execute(spec, dataclasses.replace(case, axis="size"), detect())).status is Status.ERROR


def test_each_kernel_variant_is_built_by_one_worker_when_there_are_enough_variants():
    """Cases in spec order, three variants of three cases each, three workers: each worker takes a variant no one
    has started, then keeps to it, so each variant is compiled once, not by every worker at once."""
    pool: Pool[str] = Pool(3, 60)
    barrier = threading.Barrier(3, timeout=30)
    first: set[int] = set()
    lock = threading.Lock()
    built: dict[str, set[int]] = {}

    def run(worker: Isolated, task: str) -> str:
        with lock:
            built.setdefault(task[0], set()).add(id(worker))
            wait = id(worker) not in first
            first.add(id(worker))
        if wait:  # every worker has made its first pick before any goes on
            barrier.wait()
        time.sleep(0.2)  # a compile: the workers run side by side
        return task

    tasks = ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"]
    with pool:
        done = [p for kind, _, p in pool.run(tasks, run, key=lambda t: t[0]) if kind == "done"]
    assert sorted(done) == tasks
    assert all(len(workers) == 1 for workers in built.values()), built
    assert len(set().union(*built.values())) == 3


def test_pool_passes_a_bug_of_the_run_function_on():
    pool: Pool[int] = Pool(2, 60)

    def run(worker: Isolated, task: int) -> int:
        raise ValueError(f"bug at {task}")

    with pool, pytest.raises(ValueError, match="bug at"):
        list(pool.run([1, 2, 3], run))


def test_workers_from_a_command_line_string():
    assert kcheck.Options(workers="3").workers == 3
    assert kcheck.Options(workers="auto").workers == "auto"


def test_xdist_worker_pins_to_a_gpu():
    from kcheck.pytest_plugin import xdist_gpu

    assert xdist_gpu("gw0", ["0", "1"]) == "0"
    assert xdist_gpu("gw3", ["0", "1"]) == "1"
    assert xdist_gpu("gw2", ["4", "5", "6"]) == "6"
    assert xdist_gpu(None, ["0", "1"]) is None  # not under xdist
    assert xdist_gpu("gw1", ["0"]) is None  # one GPU: nothing to spread
    assert xdist_gpu("master", ["0", "1"]) is None


def test_an_xdist_worker_pins_itself_before_cuda_starts(monkeypatch: pytest.MonkeyPatch):
    """Faked GPUs: worker gw3 of an xdist run on a machine whose parent sees GPUs 4,5 is pinned to GPU 5."""
    import torch

    from kcheck import pytest_plugin

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,5")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    pytest_plugin._pin_xdist_worker()
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "5"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,5")
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)  # too late: left as it is
    pytest_plugin._pin_xdist_worker()
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "4,5"


def test_running_out_of_memory_while_judging_is_a_device_skip_for_a_large_case_and_an_error_for_another(monkeypatch):
    """Out of memory in the comparison (not in the kernel): on the H200 a past-2**31 case's judging beside other
    processes raised out of run_case and its worker reported "could not run the case". A large case is then not
    run for this device (as when its inputs or reference ran out); another case errs with the out-of-memory kind
    (a pool runs it again alone); nothing raises."""
    import dataclasses

    from kcheck._device import detect
    from kcheck.cases import SkipKind
    from kcheck.run import _execute, run_case

    def compare(*args, **kwargs):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setattr(_execute, "compare", compare)
    # the test's own GPU may be shared (pytest -n beside it): other processes' memory would excuse every case
    monkeypatch.setattr(_execute, "held_by_others", lambda: 0)
    spec = kcheck.Spec(name="oom_judge", kernel=lambda x: x.neg(), reference=torch.neg, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=8, real=())})
    case = kcheck.matrix(spec, cases="N=8", dtypes=["fp32"])[0]
    small = run_case(spec, case, detect())
    assert small.status is Status.ERROR and small.reasons_of(ReasonKind.OUT_OF_MEMORY)
    large = run_case(spec, dataclasses.replace(case, axis="large"), detect())
    assert large.status is Status.SKIPPED and large.skip_kind is SkipKind.DEVICE
    assert large.reasons_of(ReasonKind.OUT_OF_MEMORY) and "ran out of memory" in large.reasons[0]


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")  # a worker thread that dies
def test_a_large_case_waits_for_a_finished_case_of_its_spec_while_other_work_is_left():
    """A past-2**31 case of Spec A is handed out only once a case of A has finished (its first case pays the
    module's load and the kernel's compile, which a large case would pay inside the chain that only one or two can
    run at a time), while the workers have other cases to run; a Spec of large cases only runs too."""
    gib = 2**30
    pool: Pool[str] = Pool(2, 60, gpus=["0"], free=lambda g: 100 * gib)
    lock = threading.Lock()
    log: list[tuple[str, str]] = []

    def run(worker: Isolated, task: str) -> str:
        with lock:
            log.append(("start", task))
        time.sleep(0.2 if task == "a1" else 0.02)
        with lock:
            log.append(("end", task))
        return task

    tasks = ["A-large", "a1", "a2", "b1", "b2", "b3", "b4", "C-large"]
    with pool:
        done = [p for kind, _, p in pool.run(tasks, run, is_large=lambda t: "large" in t, group=lambda t: t[0].lower(),
                                             need=lambda t: 10 * gib) if kind == "done"]
    assert sorted(done) == sorted(tasks)
    first_a_end = min(log.index(("end", t)) for t in ("a1", "a2"))
    assert log.index(("start", "A-large")) > first_a_end, log
    assert log.index(("start", "C-large")) < log.index(("end", "b4")), log  # no small case of C: it goes first


def test_a_case_near_the_device_s_capacity_that_finds_the_memory_taken_is_not_run_whatever_its_axis(monkeypatch):
    """A real size beside a long row (a 128256-row vocabulary x 65536, fp16) is admitted by the matrix only as the
    memory free at its building allows, like the sized axes: the tuned zoo's 16 processes on one H200 erred a
    correct kernel's such case (axis "real") out of memory. A case whose estimated peak is a quarter of the device
    or more is not run for the device when it runs out; a small case of the same axis still errs."""
    import dataclasses

    from kcheck._device import DeviceInfo
    from kcheck.cases import SkipKind, case_bytes
    from kcheck.run import _execute, execute, judge

    monkeypatch.setattr(_execute, "held_by_others", lambda: 0)  # the GPU may be shared by other test processes

    def reference(x):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 62.62 GiB")

    spec = kcheck.Spec(name="oom_real", kernel=lambda x: x.clone(), reference=reference,
                       inputs=[kcheck.Tensor("M", "N")],
                       dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=8, real=())})
    case = dataclasses.replace(kcheck.matrix(spec, cases="M=8,N=8", dtypes=["fp32"])[0], axis="real")
    cpu = DeviceInfo("cpu", "CPU", 1 << 34, 1 << 34, None, 132, False)
    near = DeviceInfo("cpu", "CPU", 2 * case_bytes(spec, case), 1 << 34, None, 132, False)
    res = judge(execute(spec, case, near))
    assert res.status is Status.SKIPPED and res.skip_kind is SkipKind.DEVICE, res.reasons
    assert res.reasons_of(ReasonKind.OUT_OF_MEMORY) and "this case needs a GPU with more free memory" in res.reasons[0]
    assert judge(execute(spec, case, cpu)).status is Status.ERROR


def test_a_case_that_runs_out_of_memory_while_other_processes_hold_the_gpu_is_not_run(monkeypatch):
    """A correct held-out kernel's small case (96 x 128256 fp16) erred on the H200 when 24 zoo processes held the GPU
    (94 MiB asked, 60 MiB free): the memory was the other processes', not the kernel's. With a quarter of the device
    or more held by others when it runs out, the case is not run for the device; with the GPU to itself it errs."""
    import dataclasses

    from kcheck._device import DeviceInfo
    from kcheck.cases import SkipKind
    from kcheck.run import _execute, execute, judge

    def reference(x):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 94.00 MiB")

    spec = kcheck.Spec(name="oom_busy", kernel=lambda x: x.clone(), reference=reference, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=8, real=())})
    case = dataclasses.replace(kcheck.matrix(spec, cases="N=8", dtypes=["fp32"])[0], axis="real")
    gpu = DeviceInfo("cpu", "GPU", 140 * 2**30, 1 << 34, None, 132, False)
    monkeypatch.setattr(_execute, "held_by_others", lambda: 120 * 2**30)
    res = judge(execute(spec, case, gpu))
    assert res.status is Status.SKIPPED and res.skip_kind is SkipKind.DEVICE, res.reasons
    assert "other processes held 120.0 GiB of its 140 GiB" in res.reasons[0]
    assert res.reasons_of(ReasonKind.OUT_OF_MEMORY)
    monkeypatch.setattr(_execute, "held_by_others", lambda: 0)
    assert judge(execute(spec, case, gpu)).status is Status.ERROR


def test_giving_memory_back_on_a_broken_cuda_context_does_not_lose_the_case(monkeypatch):
    """After a kernel's illegal address every CUDA call raises; the memory housekeeping at a case's end raised too,
    and the worker reported "could not run the case" with kcheck's traceback instead of the case (a held-out index
    transposition on the H200, diagnosed from that traceback). The housekeeping now gives up quietly: the worker's
    own check of the context reports the crash."""
    from kcheck import _device

    def broken(*args, **kwargs):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    for name in ("memory_reserved", "memory_allocated", "empty_cache", "mem_get_info"):
        monkeypatch.setattr(torch.cuda, name, broken)
    _device.release_if_holding()
    _device.release_memory()
    assert _device.held_by_others() == 0


_HOLDER = textwrap.dedent('''
    import sys, time
    from kcheck.run import large_case_turn
    with large_case_turn("0"):
        print("held", flush=True)
        time.sleep(float(sys.argv[1]))
''')


def _hold_in_another_process(tmp_path: Path, seconds: float):
    import subprocess

    env = {**os.environ, "KCHECK_LOCK_DIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(seconds)], env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_past_2_31_cases_of_two_processes_take_turns_on_a_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Two kcheck processes (xdist workers, parallel scripts) do not see each other's past-2**31 cases, and two such
    cases on one GPU leave each other too little memory. A process waits for the GPU's lock file while another holds
    it; another GPU's lock is free."""
    from kcheck.run import large_case_turn

    monkeypatch.setenv("KCHECK_LOCK_DIR", str(tmp_path))
    proc = _hold_in_another_process(tmp_path, 2.0)
    t0 = time.perf_counter()
    with large_case_turn("0") as waited:
        entered = time.perf_counter() - t0
    proc.wait(10)
    assert entered >= 1.0 and waited[0] >= 1.0, (entered, waited)
    with large_case_turn("1") as waited:  # another GPU's lock is free
        assert waited[0] < 1.0


def test_past_2_31_cases_of_one_process_share_its_turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The pool budgets one process's large cases among themselves: a second case of the same process enters while
    the first holds the GPU's lock, and the lock is free for others once both have left."""
    import kcheck.run._gpu_lock as gpu_lock
    from kcheck.run import large_case_turn

    monkeypatch.setenv("KCHECK_LOCK_DIR", str(tmp_path))
    monkeypatch.setattr(gpu_lock, "_holds", {})
    inside = threading.Event()
    both = threading.Event()

    def second() -> None:
        with large_case_turn("0"):
            both.set()

    with large_case_turn("0"):
        inside.set()
        t = threading.Thread(target=second)
        t.start()
        assert both.wait(5), "the second case of the same process waited for its own process's lock"
        t.join(5)
    from filelock import FileLock

    other = FileLock(str(tmp_path / "large-gpu-0.lock"), timeout=0.1)
    other.acquire()  # the process let go of it: another holder gets it at once
    other.release()


def test_a_gpu_case_past_2_31_waits_for_another_process_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Through check's one route for a case: on a GPU a past-2**31 case waits while another process holds the GPU's
    lock, and its result carries how long it waited; a small case does not wait."""
    import dataclasses

    from kcheck import _check
    from kcheck._device import DeviceInfo
    from kcheck._results import CaseResult
    from kcheck.run import Deadlines, RunOptions

    monkeypatch.setenv("KCHECK_LOCK_DIR", str(tmp_path))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    spec = kcheck.Spec(name="big", kernel=lambda x: x.clone(), reference=lambda x: x, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=8, real=())})
    small = kcheck.matrix(spec, cases="N=8", dtypes=["fp32"])[0]
    large = dataclasses.replace(small, axis="large", skip=None)
    gpu = DeviceInfo("cuda", "GPU", 80 * 2**30, 80 * 2**30, (9, 0), 132, False)
    run = _check._Run(gpu, RunOptions(), None, 60.0, None, None)
    monkeypatch.setattr(_check._Run, "_run_case",
                        lambda self, sp, case, ref, deadlines, worker: CaseResult(case, Status.PASSED))
    proc = _hold_in_another_process(tmp_path, 2.0)
    t0 = time.perf_counter()
    quick = run._case(spec, small, None, Deadlines(60.0))
    assert time.perf_counter() - t0 < 1.0 and not quick.warnings
    res = run._case(spec, large, None, Deadlines(60.0))
    proc.wait(10)
    assert any("waited" in w and "past-2**31" in w and "GPU 0" in w for w in res.warnings), res.warnings
