"""On a GPU, a Triton Spec's small fp32 cases run once more in Triton's interpreter, in a worker that sees no GPU:
its checks find a race between programs that the GPU's schedule hides, and accesses out of bounds that land in
memory the process owns."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from debug_specs import evidence as spec_of

import kcheck
from kcheck import ReasonKind, Status
from kcheck._device import DeviceInfo
from kcheck._discover import locate
from kcheck.cases import case_from_id
from kcheck.run import CROSS_MAX_CASES, CROSS_MAX_ELEMENTS, INTERPRETER_ENV, Isolated, cross_cases, judge_cross

H200 = DeviceInfo("cuda", "NVIDIA H200", 140 * 2**30, 139 * 2**30, (9, 0), 132, False)
CPU = DeviceInfo("cpu", "CPU", 64 * 2**30, 60 * 2**30, None, 132, True)


def test_the_interpreter_cases_are_a_triton_specs_small_fp32_cases_beside_a_gpu_only():
    cases = cross_cases(spec_of.first_difference_inplace, H200)
    assert 0 < len(cases) <= CROSS_MAX_CASES, cases
    assert all(c.interpreted and c.precision == "fp32" and c.skip is None for c in cases)
    assert all(c.sizes["N"] <= CROSS_MAX_ELEMENTS for c in cases)
    assert all("interpreter" in c.id for c in cases)
    assert cross_cases(spec_of.first_difference_inplace, CPU) == []  # on a CPU every case is interpreted already
    assert cross_cases(spec_of.rolling_std_one_pass, H200) == []  # a torch kernel: no interpreter to run it in


def test_an_interpreter_case_id_names_it_and_comes_back_from_its_id():
    case = cross_cases(spec_of.first_difference_inplace, H200)[0]
    back = case_from_id(spec_of.first_difference_inplace, case.id)
    assert back.interpreted and back.id == case.id
    assert not case_from_id(spec_of.first_difference_inplace, case.id.replace(",interpreter", "")).interpreted


def _result(status: Status, *reasons: kcheck.Reason) -> kcheck.CaseResult:
    case = cross_cases(spec_of.first_difference_inplace, H200)[0]
    return kcheck.CaseResult(case, status, reasons=list(reasons))


def test_a_finding_fails_an_interpreter_case_and_anything_else_is_untrusted():
    race = kcheck.Reason("race-RW between programs 0 and 1", ReasonKind.FINDING)
    assert judge_cross(_result(Status.FAILED, race)).status is Status.FAILED
    wrong = judge_cross(_result(Status.FAILED, kcheck.Reason("output 0: 3/129 wrong", ReasonKind.MISMATCH)))
    assert wrong.status is Status.UNTRUSTED and "interpreter only" in (wrong.untrusted or ""), wrong
    raised = judge_cross(_result(Status.ERROR, kcheck.Reason("NotImplementedError", ReasonKind.KERNEL_RAISED)))
    assert raised.status is Status.UNTRUSTED
    assert judge_cross(_result(Status.PASSED)).status is Status.PASSED


def test_a_worker_asked_for_the_interpreter_that_does_not_get_it_says_so():
    """The interpreter's worker checks what it got: with Triton's interpreter off (or a GPU visible), every case
    comes back an error that says so, never a GPU run taken for an interpreted one."""
    spec = spec_of.first_difference_inplace
    ref = locate(spec)
    assert ref is not None
    case = cross_cases(spec, H200)[0]
    with Isolated(120, env={**INTERPRETER_ENV, "TRITON_INTERPRET": "0"}, fresh=True) as worker:
        res = worker.run(ref, case)
    assert res.status is Status.ERROR and "Triton's interpreter" in " ".join(res.reasons), res.reasons


@pytest.mark.skipif(torch.cuda.is_available(), reason="stands in for a GPU on a CPU: the GPU test is in test_gpu.py")
def test_beside_a_gpu_a_race_between_programs_fails_an_interpreter_case(monkeypatch):
    """The check as on a GPU (the parent's device said to be an H200; its workers run where they are): the
    interpreter's cases are added, run in the worker that sees no GPU, and the in-place difference's race fails
    one with the finding. Without them, on a GPU whose programs load before any stores, every case passed."""
    import kcheck._check as check_module

    monkeypatch.setattr(check_module, "detect", lambda: dataclasses.replace(H200, name="stand-in GPU"))
    report = kcheck.check(spec_of.first_difference_inplace, tier="quick", large=False, isolate=True)
    crossed = [c for c in report.specs[0].cases if c.case.interpreted]
    assert crossed, [c.case.id for c in report.specs[0].cases]
    failed = [c for c in crossed if c.status is Status.FAILED]
    assert failed and any(r.kind is ReasonKind.FINDING and "race" in r for c in failed for r in c.reasons), [
        (c.case.id, c.status, c.reasons) for c in crossed]


@pytest.mark.skipif(torch.cuda.is_available(), reason="stands in for a GPU on a CPU: the GPU test is in test_gpu.py")
def test_beside_a_gpu_a_correct_triton_kernel_passes_its_interpreter_cases(monkeypatch):
    import kcheck._check as check_module

    monkeypatch.setattr(check_module, "detect", lambda: H200)
    report = kcheck.check(_correct_spec(), tier="quick", large=False, isolate=True)
    crossed = [c for c in report.specs[0].cases if c.case.interpreted]
    assert crossed and all(c.status is Status.PASSED for c in crossed), [(c.case.id, c.status, c.reasons)
                                                                         for c in crossed]


def _correct_spec() -> kcheck.Spec:
    import importlib
    import sys
    from pathlib import Path

    examples = str(Path(__file__).resolve().parents[1] / "examples")
    if examples not in sys.path:
        sys.path.insert(0, examples)
    return importlib.import_module("vector_add").spec


def test_a_probe_on_the_gpu_passing_where_the_interpreter_failed_is_no_timing_or_poison():
    """The debugger probes a case that failed only in the interpreter beside the GPU on the GPU (round 22's vignette,
    H100): its repeat and its zeroed-outputs run passed there, which read as 'flaky' and 'zeroed-rescues' and
    weakened the right cause. They say the engines differ, not that timing or poison made the failure."""
    from kcheck.diagnose._observe import Facts
    from kcheck.diagnose._sweep import Evidence

    spec = spec_of.first_difference_inplace
    report = kcheck.check(spec, tier="quick", large=False)
    failing = [r for r in report.specs[0].cases if not r.ok]
    assert failing
    passed = kcheck.CaseResult(failing[0].case, Status.PASSED)
    for interpreted, seen in ((False, True), (True, False)):
        ev = Evidence(spec, report.specs[0], failing)
        ev.minimal = dataclasses.replace(failing[0], case=dataclasses.replace(failing[0].case,
                                                                               interpreted=interpreted))
        ev.repeat, ev.zeroed = passed, passed
        kinds = {o.kind for o in Facts(ev).observations}
        assert ("flaky" in kinds) is seen and ("zeroed-rescues" in kinds) is seen, (interpreted, kinds)
