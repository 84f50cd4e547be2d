"""The engine end to end on plain PyTorch callables (fast, no interpreter)."""

import dataclasses
import types

import pytest
import torch

import kcheck
from kcheck import Status


def _spec(kernel, reference=lambda x: 2 * x, **kw):
    kw.setdefault("inputs", [kcheck.Tensor("M", "N")])
    kw.setdefault("dims", {"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=64, real=())})
    return kcheck.Spec(name="double", kernel=kernel, reference=reference, **kw)


def _one(spec, case, **kw):
    report = kcheck.check(spec, cases=case, **kw)
    assert len(report.cases) == 1, [c.id for c in report.cases]
    return report.cases[0]


def test_a_correct_kernel_passes_every_case():
    report = kcheck.check(_spec(lambda x: x * 2), tier="quick")
    assert report.passed
    assert report.specs[0].framework == "torch"
    assert {c.status for c in report.cases} <= {Status.PASSED, Status.SKIPPED}
    assert all(c.timing.total >= c.timing.kernel for c in report.cases)


def test_the_case_matrix_has_the_seed_sizes_and_readable_ids():
    ids = [c.id for c in kcheck.matrix(_spec(lambda x: x * 2))]
    for size in (0, 1, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129):
        assert f"double[M=8,N={size},fp32,randn,seed=0]" in ids
    assert "double[M=129,N=129,bf16,large,seed=0]" in ids
    assert "double[M=129,N=129,fp32,arange,seed=0]" in ids
    assert "double[M=8,N=64,fp32,randn,seed=2]" in ids


def test_unwritten_last_column_fails_and_names_it():
    def kernel(x, out):
        out[:, :-1] = 2 * x[:, :-1]

    spec = _spec(kernel, outputs=[kcheck.Tensor("M", "N")])
    res = _one(spec, "double[M=8,N=64,fp32,randn,seed=0]")
    assert res.status is Status.FAILED
    cmp = res.comparisons[0]
    assert cmp.unwritten == 8 and "the last column (63)" in cmp.location.text


def test_kernel_allocated_outputs_are_poisoned_too():
    def kernel(x):
        out = torch.empty_like(x)
        out[:, :-1] = 2 * x[:, :-1]
        return out

    res = _one(_spec(kernel), "double[M=8,N=64,fp32,randn,seed=0]")
    assert res.status is Status.FAILED and res.comparisons[0].unwritten == 8


def test_a_kernel_that_writes_its_input_is_reported():
    def kernel(x):
        out = 2 * x
        x[0, 0] = 0.0
        return out

    res = _one(_spec(kernel), "double[M=8,N=64,fp32,randn,seed=0]")
    assert res.status is Status.FAILED
    assert res.mutated_inputs == ["input 0 (1 elements changed)"]
    spec = _spec(kernel, inputs=[kcheck.Tensor("M", "N", mutated=True)])
    assert _one(spec, "double[M=8,N=64,fp32,randn,seed=0]").status is Status.PASSED


def test_an_exception_in_the_kernel_is_a_reported_error():
    def kernel(x):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    report = kcheck.check(_spec(kernel), tier="quick")
    assert not report.passed
    res = report.cases[0]
    assert res.status is Status.ERROR and "illegal memory access" in res.reasons[0]
    assert all(c.status in (Status.ERROR, Status.SKIPPED) for c in report.cases)


def test_determinism_is_measured_and_ulp_noise_is_not_a_failure():
    def kernel(x):
        return (2 * x) * (1 + 2**-23 * torch.randint(0, 2, x.shape, device=x.device))

    res = _one(_spec(kernel), "double[M=8,N=64,fp32,randn,seed=1]")
    assert res.status is Status.PASSED
    assert res.determinism.runs == 2 and not res.determinism.identical and res.determinism.max_ulp <= 2


def test_a_result_that_varies_with_large_error_fails():
    calls = []

    def kernel(x):
        calls.append(1)
        return 2 * x + (len(calls) % 2 == 0)  # every second run is off by one

    res = _one(_spec(kernel), "double[M=8,N=64,fp32,randn,seed=1]")
    assert res.status is Status.FAILED
    assert any("varies run to run" in r for r in res.reasons)


def test_properties_run_and_a_broken_one_fails():
    spec = _spec(lambda x: x * 2, properties=[kcheck.props.linear(), kcheck.props.zero_in_zero_out()])
    res = _one(spec, "double[M=8,N=64,fp32,randn,seed=0]")
    assert [p.passed for p in res.properties] == [True, True]
    spec = _spec(lambda x: x * 2 + 1, reference=lambda x: x * 2 + 1, properties=[kcheck.props.zero_in_zero_out()])
    res = _one(spec, "double[M=8,N=64,fp32,randn,seed=0]")
    assert res.status is Status.FAILED and "zero in, zero out" in res.reasons[0]


def test_user_defined_property():
    prop = kcheck.Property("rows sum to one", lambda ctx: ctx.assert_close(
        ctx.run(*ctx.inputs)[0].double().sum(-1), torch.ones(ctx.inputs[0].shape[0], dtype=torch.float64)))
    spec = _spec(lambda x: torch.softmax(x, -1), reference=lambda x: torch.softmax(x, -1), properties=[prop],
                 reduce=["N"])
    res = _one(spec, "double[M=8,N=64,fp32,randn,seed=0]")
    assert res.properties[0].passed


def test_index_scalar_and_custom_inputs():
    def gather(table, idx, scale, bias):
        return table[idx] * scale + bias

    spec = kcheck.Spec(
        name="embed", kernel=gather, reference=gather,
        inputs=[kcheck.Tensor("V", "D"), kcheck.Index("T", high="V"), kcheck.Scalar(lambda d: 1.0 / d["D"]),
                kcheck.Custom(lambda ctx: torch.full((ctx.dims["D"],), 0.5, dtype=ctx.dtype, device=ctx.device))],
        dims={"V": kcheck.Dim(nominal=50, real=()), "D": kcheck.Dim(nominal=16, real=()),
              "T": kcheck.Dim(nominal=33, real=())})
    report = kcheck.check(spec, tier="quick")
    assert report.passed, kcheck.format_report(report)
    skipped = [c for c in report.cases if c.status is Status.SKIPPED]
    assert all("Index(high='V') is 0" in c.reasons[0] or "2**31" in c.reasons[0] or "GPU" in c.reasons[0]
               for c in skipped)


def test_index_extremes_are_always_present():
    from kcheck.cases import make_args

    spec = kcheck.Spec(name="g", kernel=lambda i: i, reference=lambda i: i, inputs=[kcheck.Index("T", high="V")],
                       dims={"T": kcheck.Dim(nominal=40), "V": kcheck.Dim(nominal=7)})
    case = kcheck.matrix(spec, cases="g[T=40,V=7,fp32,randn,seed=0]")[0]
    idx = make_args(spec, case, "cpu")[0]
    assert int(idx.min()) == 0 and int(idx.max()) == 6


def test_report_serializes_to_json():
    import json

    report = kcheck.check(_spec(lambda x: x * 2), tier="quick")
    data = json.loads(report.to_json())
    assert data["passed"] is True
    case = data["specs"][0]["cases"][0]
    assert {"case", "status", "comparisons", "timing"} <= set(case)
    assert case["case"]["id"].startswith("double[")


def test_a_large_case_leaves_no_cycle_held_tensor_behind(monkeypatch):
    """A past-2**31 case's tensors held only by a reference cycle (an autograd graph through a Function's context)
    are freed when the case ends, not at the garbage collector's leisure: the next large case needs that memory."""
    import gc
    import weakref

    import kcheck.run._execute as engine
    from kcheck import CaseResult, Status
    from kcheck._device import detect
    from kcheck.cases import build_matrix

    spec = _spec(lambda x: 2 * x)
    case = dataclasses.replace(build_matrix(spec, detect(), tier="quick")[0], axis="large")
    held: list[weakref.ref] = []

    from kcheck._device import KEEP_CACHED_BYTES

    # on a GPU the collection runs when the process holds more than it keeps cached between cases (a full collection
    # costs 0.15 s there): the cycle holds a device tensor past that
    gpu = torch.cuda.is_available()

    class Node:  # a cycle, as autograd's graph and a Function's ctx make one
        def __init__(self) -> None:
            self.me = self
            self.data = torch.empty(KEEP_CACHED_BYTES // 4 + 1024, device="cuda") if gpu else torch.zeros(1024)

    def execute(*args, **kwargs):
        node = Node()
        held.append(weakref.ref(node.data))
        return types.SimpleNamespace(node=node, timing=types.SimpleNamespace(total=0.0))

    monkeypatch.setattr(engine, "cannot_run", lambda *a: None)
    monkeypatch.setattr(engine, "execute", execute)
    monkeypatch.setattr(engine, "judge", lambda ex: CaseResult(case, Status.PASSED))
    gc.disable()
    try:
        assert engine.run_case(spec, case, detect()).status is Status.PASSED
        assert held[0]() is None, "the large case's tensor outlived the case"
    finally:
        gc.enable()


def test_running_out_of_memory_while_copying_the_inputs_is_an_out_of_memory_result_not_a_traceback(monkeypatch):
    """The snapshots that see an input change are taken between the stages ``execute`` guards; on an H200 running
    the examples with ``-n auto``, one (an int64 copy of a 2**31-element input) ran out of memory beside two other
    past-2**31 cases and the case was an error carrying a traceback, with nothing to say it was the memory, so the
    pool did not run it again alone. It is an out-of-memory result, which the pool runs again alone."""
    import kcheck.run._execute as engine
    from kcheck import ReasonKind
    from kcheck._device import detect
    from kcheck.cases import build_matrix

    spec = _spec(lambda x: 2 * x)
    case = build_matrix(spec, detect(), tier="quick")[0]

    def snapshot(t):
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 16.00 GiB.")

    monkeypatch.setattr(engine, "_snapshot", snapshot)
    res = engine.run_case(spec, case, detect())
    assert res.status in (Status.ERROR, Status.SKIPPED)
    assert ReasonKind.OUT_OF_MEMORY in [r.kind for r in res.reasons]
    assert "preparing the case ran out of device memory" in " ".join(str(r) for r in res.reasons)


def test_a_reference_that_refuses_an_empty_dimension_is_an_error_that_says_how_to_declare_it():
    """Many torch operations raise on empty tensors; the Spec's dimension admits 0, so the case is not judged (an
    error, never a pass), and the reason names the dimension and the two ways out."""

    def refuses_empty(x):
        if x.numel() == 0:
            raise RuntimeError("Non-empty 2D data tensor expected")
        return 2 * x

    res = _one(_spec(lambda x: x * 2, reference=refuses_empty), "double[M=8,N=0,fp32,randn,seed=0]")
    assert res.status is Status.ERROR
    text = " ".join(str(r) for r in res.reasons)
    assert "the reference raised" in text and "Dim(min=1) for N" in text, text


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64, torch.int8, torch.int64])
def test_the_checksum_of_a_large_input_is_the_position_weighted_sum_and_sees_a_swap_and_a_change(dtype):
    """Inputs too large to copy are fingerprinted: the sum of the elements' bits and the sum weighted by position
    (element i weighs i + 1), wrapping in int64, computed from row and column sums; it equals the element-by-element
    sums whatever the row width (a tail past the last full row included), and two elements swapped or one changed
    change it."""
    from kcheck.run._execute import _fingerprint

    torch.manual_seed(0)
    x = (torch.randn(1000) * 100).to(dtype) if dtype.is_floating_point else torch.randint(-100, 100, (1000,),
                                                                                        dtype=dtype)
    if dtype == torch.int64:
        x[::7] = 2**62 + 12345  # the weighted sum wraps
    bits = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()]
    as_int = x.view(bits).to(torch.int64)
    plain = int(as_int.sum())
    weighted = sum(int(v) * (i + 1) for i, v in enumerate(as_int.tolist()))
    weighted = (weighted + 2**63) % 2**64 - 2**63
    for width in (1, 7, 64, 999, 1000, 4096):
        for chunk in (1, 3, 1 << 14):
            assert _fingerprint(x, width=width, chunk=chunk) == (plain, weighted), (width, chunk)
    swapped, changed = x.clone(), x.clone()
    swapped[[3, 7]] = swapped[[7, 3]]
    changed[999] += 1
    ref = _fingerprint(x)
    assert _fingerprint(x.clone()) == ref
    assert _fingerprint(swapped) != ref and _fingerprint(changed) != ref


def test_the_checksum_of_a_large_input_copies_at_most_a_chunk_of_it_into_int64():
    """torch sums an int32 tensor into int64 by making an int64 copy of it first: over a whole 2**31-element input
    that is 16 GiB, which ran an H200 out of memory beside other cases. The checksum sums a chunk of rows at a time,
    so its largest allocation is one chunk's copy, not the input's."""
    from torch.profiler import ProfilerActivity, profile

    from kcheck.run._execute import _fingerprint

    x = torch.randint(-100, 100, (1 << 22,), dtype=torch.int32)  # 4 Mi elements: a full int64 copy is 32 MiB
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        _fingerprint(x, width=1 << 6)  # 65536 rows of 64, summed 16384 rows at a time
    largest = max(e.cpu_memory_usage for e in prof.events())
    assert 0 < largest <= (1 << 14) * (1 << 6) * 8, largest  # one chunk's int64 copy: 8 MiB


def test_a_broken_cuda_context_in_the_callers_process_is_an_environment_problem_not_a_traceback(monkeypatch):
    # a kernel the caller launched in its own process trapped: every later CUDA call raises (torch.AcceleratorError,
    # a RuntimeError); kcheck says so and how to get out of it
    import kcheck
    from kcheck._device import detect

    def broken(*_a):
        raise RuntimeError("CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously ...")

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", broken)
    with pytest.raises(kcheck.EnvironmentProblem, match=r"context is broken.*device-side assert.*fresh process"):
        detect()
