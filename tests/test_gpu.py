"""GPU-only checks (marker ``gpu``): skipped on a machine without CUDA, run by scripts/gpu_validate.sh."""

import importlib

import pytest
import torch

import kcheck
from kcheck import Status

pytestmark = pytest.mark.gpu


def test_cases_run_on_the_gpu_and_fp8_is_available_on_hopper():
    spec = kcheck.Spec(name="add8", kernel=lambda x, y: (x.float() + y.float()).to(x.dtype),
                       reference=torch.add, inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=4096)}, dtypes=["fp8e4m3", "fp16"])
    report = kcheck.check(spec, tier="quick", large=False)
    assert report.passed, kcheck.format_report(report)
    fp8 = [c for c in report.cases if c.case.precision == "fp8e4m3" and c.case.axis != "large"]  # large: turned off
    if torch.cuda.get_device_capability() >= (8, 9):
        assert fp8 and all(c.status is Status.PASSED for c in fp8)


def test_unwritten_output_is_caught_although_fresh_gpu_memory_is_zero():
    def kernel(x):
        out = torch.empty_like(x)  # a fresh CUDA allocation often reads back zeros: poison must show it
        out[:, :-1] = x[:, :-1] * 0  # expected zeros everywhere except that nothing writes the last column
        return out

    spec = kcheck.Spec(name="z", kernel=kernel, reference=lambda x: x * 0, inputs=[kcheck.Tensor("M", "N")])
    res = kcheck.check(spec, cases="z[M=128,N=128,fp32,randn,seed=0]").cases[0]
    assert res.status is Status.FAILED and res.comparisons[0].unwritten == 128


def test_kernel_time_is_measured_after_synchronization():
    spec = kcheck.Spec(name="mm", kernel=torch.matmul, reference=torch.matmul,
                       inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K", "N")], reduce=["K"],
                       dims={d: kcheck.Dim(nominal=4096) for d in "MKN"}, dtypes=["bf16"])
    res = kcheck.check(spec, cases="mm[M=4096,K=4096,N=4096,bf16,randn,seed=1]").cases[0]
    assert res.status is Status.PASSED
    assert res.timing.kernel > 0 and res.timing.total >= res.timing.kernel


def test_triton_resources_come_from_the_kernels_compiled_for_this_gpu():
    from kcheck._resources import Resources
    from kcheck.run import spec_resources

    found = spec_resources(importlib.import_module("softmax").spec)
    assert found and all(isinstance(r, Resources) for r in found)
    r = found[0]
    major, minor = torch.cuda.get_device_capability()
    assert r.arch.startswith(f"sm_{major}{minor}") and r.registers > 0 and "ptxas" in r.source


def test_release_memory_frees_a_cycle_held_tensor_and_skips_the_collection_when_little_is_held(monkeypatch):
    import gc

    from kcheck._device import release_memory

    class Holder:
        pass

    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    gc.disable()
    try:
        small = Holder()
        small.me, small.t = small, torch.empty(2**28, dtype=torch.uint8, device="cuda")  # kept alive by the cycle
        del small
        calls: list[int] = []
        with monkeypatch.context() as m:
            m.setattr(gc, "collect", lambda *a: calls.append(1) or 0)
            release_memory()
        assert not calls and torch.cuda.memory_allocated() >= start + 2**28  # a process may keep 1 GiB
        big = Holder()
        big.me, big.t = big, torch.empty(2**31, dtype=torch.uint8, device="cuda")
        del big
        release_memory()
        assert torch.cuda.memory_allocated() <= start  # the collection ran and freed both
    finally:
        gc.enable()


def test_a_launch_past_the_grid_limit_says_which_axis_and_how_to_fix_it():
    """CUDA answers only "invalid argument" to a grid of more than 65535 blocks along y; the case's reason names the
    kernel, the grid, the axis and the limit."""
    import dataclasses

    from kcheck._device import detect
    from kcheck.run import run_case

    spec = importlib.import_module("isolation.grid_limit").spec
    case = next(c for c in kcheck.matrix(spec, dtypes=["fp32"]) if c.sizes == {"M": 2, "N": 1024})
    assert run_case(spec, case, detect()).status is Status.PASSED
    res = run_case(spec, dataclasses.replace(case, dims=(("M", 2), ("N", 33554433))), detect())
    assert res.status is Status.ERROR, res.reasons
    assert "_scale_kernel's launch grid (2, 131073, 1) has 131073 blocks along y, past CUDA's limit of 65535" \
        in res.reasons[0], res.reasons[0]


def test_a_race_the_gpus_schedule_hides_fails_its_interpreter_case_and_a_correct_kernel_passes_its_own():
    """An in-place first difference whose programs read the element the program before them overwrites: on the GPU
    the programs load before any of them stores and every case may pass; its cases run once more in Triton's
    interpreter beside the GPU, whose race check fails them. vector_add's interpreter cases pass."""
    from debug_specs import evidence as spec_of

    report = kcheck.check(spec_of.first_difference_inplace, tier="quick", large=False, isolate=True)
    cases = report.specs[0].cases
    crossed = [c for c in cases if c.case.interpreted]
    print("GPU cases:", [(c.case.id, c.status.value) for c in cases if not c.case.interpreted])
    assert crossed and any(c.status is Status.FAILED and any(r.kind is kcheck.ReasonKind.FINDING for r in c.reasons)
                           for c in crossed), [(c.case.id, c.status, c.reasons) for c in crossed]
    assert not report.passed
    ok = kcheck.check(importlib.import_module("vector_add").spec, tier="quick", large=False, isolate=True)
    mine = [c for c in ok.specs[0].cases if c.case.interpreted]
    assert mine and all(c.status is Status.PASSED for c in mine), [(c.case.id, c.status, c.reasons) for c in mine]
    assert ok.passed
