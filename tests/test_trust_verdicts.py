"""Verdicts that can be trusted: malformed Specs are refused up front, and a case passes or fails for the right
reason (tolerances that cannot be NaN, output dtypes as part of the contract, a floor for all-zero outputs, in-place
kernels, ill-conditioned cases, the interpreter's own limits, a bounded matrix)."""

from __future__ import annotations

import math

import pytest
import torch

import kcheck
from kcheck import SpecError, Status
from kcheck._device import DeviceInfo
from kcheck.cases import SkipKind
from kcheck.cases._matrix import CPU_MAX_WORK, tensor_shapes, work
from kcheck.cases._sizes import fit
from kcheck.compare import Tolerance, compare, tolerance_for

try:
    import triton
    import triton.language as tl
except ImportError:  # the interpreter tests below skip
    triton = None

CPU = DeviceInfo("cpu", "CPU", 64 * 2**30, 64 * 2**30, None, 132, True)
GPU = DeviceInfo("cuda", "H200", 141 * 2**30, 140 * 2**30, (9, 0), 132, False)


def _spec(**kw):
    args = dict(name="k", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    args.update(kw)
    return kcheck.Spec(**args)


def _one(spec, case):
    report = kcheck.check(spec, cases=case)
    assert len(report.cases) == 1, [c.id for c in report.cases]
    return report.cases[0]


# -- malformed Specs: a SpecError naming the argument, never a TypeError from deep inside, never a silent pass --

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(("kw", "argument"), [
    ({"rtol": NAN}, "rtol"),
    ({"atol": NAN}, "atol"),
    ({"rtol": -1e-3}, "rtol"),
    ({"atol": -1.0}, "atol"),
    ({"rtol": INF}, "rtol"),
    ({"atol": INF}, "atol"),
    ({"rtol": "1e-3"}, "rtol"),
    ({"rtol": True}, "rtol"),
    ({"rtol": [1e-3]}, "rtol"),
    ({"rtol": {"fp32": NAN}}, "rtol['fp32']"),
    ({"atol": {"bf16": -1.0}}, "atol['bf16']"),
    ({"rtol": {"fp33": 1e-3}}, "rtol"),
    ({"rtol": {"fp8e4m3": 1e-3}}, "rtol"),  # a precision the Spec does not run: the value would never apply
    ({"baseline_factor": NAN}, "baseline_factor"),
    ({"baseline_factor": INF}, "baseline_factor"),
    ({"baseline_factor": "2"}, "baseline_factor"),
    ({"dtypes": []}, "dtypes"),
    ({"dtypes": [["fp32"]]}, "dtypes"),
    ({"dtypes": 32}, "dtypes"),
    ({"patterns": ()}, "patterns"),
    ({"layouts": ()}, "layouts"),
    ({"layouts": ["transposed"]}, "layouts"),
    ({"configs": [{"BLOCK": 64}, 32]}, "configs[1]"),
    ({"configs": {"BLOCK": 64}}, "configs"),
    ({"configs": [{"not a name": 1}]}, "configs[0]"),
    ({"seeds": 0}, "seeds"),
    ({"seeds": 2.5}, "seeds"),
    ({"inputs": kcheck.Tensor("N")}, "inputs"),
    ({"inputs": "N"}, "inputs"),
    ({"inputs": [kcheck.Tensor("N", dtype=torch.int32)]}, "inputs[0]"),
    ({"outputs": kcheck.Tensor("N")}, "outputs"),
    ({"outputs": []}, "outputs"),
    ({"dims": {"N": 5}}, "dims['N']"),
    ({"dims": [("N", kcheck.Dim())]}, "dims"),
    ({"reduce": 3}, "reduce"),
    ({"stages": [1, 2]}, "stages"),
    ({"properties": kcheck.props.linear()}, "properties"),
    ({"output_dtypes": [torch.float64], "outputs": [kcheck.Tensor("N")]}, "output_dtypes"),
    ({"output_dtypes": ["float64"]}, "output_dtypes[0]"),
    ({"output_dtypes": torch.float64}, "output_dtypes"),
])
def test_malformed_specs_raise_a_spec_error(kw, argument):
    with pytest.raises(SpecError) as info:
        _spec(**kw)
    assert info.value.argument == argument, str(info.value)


@pytest.mark.parametrize(("make", "argument"), [
    (lambda: kcheck.Index("T", high=0), "Index(high)"),
    (lambda: kcheck.Index("T", high=-3), "Index(high)"),
    (lambda: kcheck.Index("T", high=5, low=5), "Index(high)"),
    (lambda: kcheck.Index("T", high=5, low=1.5), "Index(low)"),
    (lambda: kcheck.Index("T", high="V", low=-1), "Index(low)"),
    (lambda: kcheck.Index("T", high=300, dtype=torch.uint8), "Index(high)"),
    (lambda: kcheck.Index("T", high=5, low=-1, dtype=torch.uint8), "Index(low)"),
    (lambda: kcheck.Index("T", high="not a name"), "Index(high)"),
    (lambda: kcheck.Dim(multiple_of=16, max=15), "Dim(min, max, multiple_of)"),
    (lambda: kcheck.Dim(min=5, max=7, multiple_of=4), "Dim(min, max, multiple_of)"),
    (lambda: kcheck.Dim(min=10, max=5), "Dim.max"),
    (lambda: kcheck.Dim(max="64"), "Dim.max"),
    (lambda: kcheck.Dim(sizes=[]), "Dim.sizes"),
    (lambda: kcheck.Dim(sizes=[64, -1]), "Dim.sizes"),
    (lambda: kcheck.Dim(sizes=[64, 2.5]), "Dim.sizes"),
    (lambda: kcheck.Dim(sizes=[8, 12], multiple_of=8), "Dim.sizes"),
    (lambda: kcheck.Dim(sizes=[8, 300], max=256), "Dim.sizes"),
    (lambda: kcheck.Dim(sizes=[0, 8], min=1), "Dim.sizes"),
    (lambda: kcheck.Dim(sizes=64), "Dim.sizes"),
    (lambda: kcheck.Dim(real=[4096, 1.5]), "Dim.real"),
    (lambda: kcheck.Dim(real=[-1]), "Dim.real"),
    (lambda: kcheck.Dim(nominal=300, max=256), "Dim.nominal"),
    (lambda: kcheck.Dim(nominal=8, min=16), "Dim.nominal"),
    (lambda: kcheck.Dim(nominal=0), "Dim.nominal"),
    (lambda: kcheck.Dim(nominal=64.0), "Dim.nominal"),
    (lambda: kcheck.Dim(large="no"), "Dim.large"),
    (lambda: kcheck.Scalar(NAN), "Scalar(value)"),
    (lambda: kcheck.Scalar(torch.ones(3)), "Scalar(value)"),
    (lambda: kcheck.Scalar(object()), "Scalar(value)"),
    (lambda: kcheck.Custom(3), "Custom(make)"),
    (lambda: kcheck.Tensor("N", dtype=torch.complex64), "Tensor(dtype)"),
    (lambda: kcheck.Tensor("N", mutated="yes"), "Tensor(mutated)"),
    (lambda: kcheck.Tensor("N", name=3), "Tensor(name)"),
])
def test_malformed_declarations_raise_a_spec_error(make, argument):
    with pytest.raises(SpecError) as info:
        make()
    assert info.value.argument == argument, str(info.value)


def test_a_nan_tolerance_is_refused_rather_than_passing_everything():
    with pytest.raises(SpecError, match="of nan lets every comparison pass"):
        _spec(kernel=lambda x: x + 1e3, atol=NAN)
    with pytest.raises(SpecError, match="every comparison pass"):
        _spec(rtol=INF)


def test_tolerances_keyed_by_alias_are_normalized_to_precision_names():
    spec = _spec(dtypes=["fp32", "bf16"], rtol={torch.float32: 1e-4, "bfloat16": 2e-2}, atol=0)
    assert spec.rtol == {"fp32": 1e-4, "bf16": 2e-2} and spec.atol == 0.0


def test_an_index_whose_named_high_never_exceeds_low_is_refused():
    inputs = [kcheck.Tensor("V", "D"), kcheck.Index("T", high="V", low=4)]
    with pytest.raises(SpecError) as info:
        _spec(inputs=inputs, dims={"V": kcheck.Dim(max=4)})
    assert info.value.argument == "Index(high)" and "no index value" in info.value.fix
    with pytest.raises(SpecError, match="nominal"):
        _spec(inputs=inputs, dims={"V": kcheck.Dim(nominal=3)})
    with pytest.raises(SpecError) as info:
        _spec(inputs=[kcheck.Index("T", high="V", dtype=torch.int8)], dims={"V": kcheck.Dim(nominal=1000)})
    assert info.value.argument == "Index(dtype)"
    _spec(inputs=inputs, dims={"V": kcheck.Dim(nominal=8)})  # V = 0..4 cases are skipped, the rest run


def test_an_index_case_past_its_dtype_is_a_spec_skip_not_an_error():
    spec = kcheck.Spec(name="g", kernel=lambda t, i: t[i.long()], reference=lambda t, i: t[i.long()],
                       inputs=[kcheck.Tensor("V"), kcheck.Index("T", high="V", dtype=torch.int8)],
                       dims={"V": kcheck.Dim(nominal=64, real=()), "T": kcheck.Dim(nominal=16, real=())},
                       dtypes=["fp32"])
    res = _one(spec, "g[V=129,T=16,fp32,randn,seed=0]")
    assert res.status is Status.SKIPPED and res.skip_kind is SkipKind.SPEC
    assert "do not fit int8" in res.reasons[0]


@pytest.mark.parametrize("constraints", [
    {"min": 5, "max": 9, "multiple_of": 4},
    {"min": 3, "multiple_of": 16},
    {"max": 100, "multiple_of": 48},
    {"min": 1, "max": 1},
    {"sizes": [16, 32], "multiple_of": 16, "max": 40},
])
def test_fit_never_leaves_the_constraints(constraints):
    dim = kcheck.Dim(**constraints)
    for size in [0, 1, 2, 5, 7, 8, 17, 33, 99, 129, 2880, 128256, 2**31 + 1]:
        f = fit(dim, size)
        assert dim.allows(f), (dim, size, f)
    assert dim.allows(dim.nominal)


def test_the_default_nominal_follows_the_constraints():
    assert kcheck.Dim(max=64).nominal == 64
    assert kcheck.Dim(min=200, multiple_of=64).nominal == 256


# -- the output dtype is part of the contract ----------------------------------------------------------------------

def _dtype_spec(kernel, **kw):
    return kcheck.Spec(name="scale", kernel=kernel, reference=lambda x: 2 * x, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32", "bf16"], **kw)


def test_an_output_in_another_dtype_than_the_precision_fails():
    res = _one(_dtype_spec(lambda x: 2 * x.double()), "scale[N=64,fp32,randn,seed=0]")
    assert res.status is Status.FAILED
    assert ("output 0: dtype float64, expected float32 (the case's precision fp32); declare "
            "output_dtypes=[torch.float64] if that is intended") in res.reasons
    res = _one(_dtype_spec(lambda x: 2 * x.float()), "scale[N=64,bf16,randn,seed=0]")
    assert res.status is Status.FAILED and "dtype float32, expected bfloat16" in res.reasons[0]
    assert _one(_dtype_spec(lambda x: 2 * x), "scale[N=64,fp32,randn,seed=0]").status is Status.PASSED


def test_a_declared_output_dtype_is_the_one_expected():
    spec = _dtype_spec(lambda x: 2 * x.float(), output_dtypes=[torch.float32])
    assert _one(spec, "scale[N=64,bf16,randn,seed=0]").status is Status.PASSED
    res = _one(spec, "scale[N=64,fp32,randn,seed=0]")
    assert res.status is Status.PASSED
    res = _one(_dtype_spec(lambda x: 2 * x, output_dtypes=[torch.float32]), "scale[N=64,bf16,randn,seed=0]")
    assert res.status is Status.FAILED and "declared in output_dtypes[0]" in res.reasons[0]


def test_an_integer_reference_output_has_no_dtype_to_keep():
    spec = kcheck.Spec(name="amax", kernel=lambda x: x.argmax(-1).to(torch.int32), reference=lambda x: x.argmax(-1),
                       inputs=[kcheck.Tensor("M", "N")], dtypes=["fp32"],
                       dims={"M": kcheck.Dim(nominal=4, real=()), "N": kcheck.Dim(nominal=64, real=())})
    assert _one(spec, "amax[M=4,N=64,fp32,randn,seed=0]").status is Status.PASSED


# -- an output that is exactly zero is judged at the inputs' scale ----------------------------------------------------

def _zero_spec(noise):
    def kernel(x):
        gen = torch.Generator().manual_seed(1)
        return (x - x) + (noise * torch.randn(x.shape, generator=gen)).to(device=x.device, dtype=x.dtype)

    return kcheck.Spec(name="zero", kernel=kernel, reference=lambda x: x - x, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32", "bf16"])


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_rounding_noise_on_an_all_zero_output_passes(precision):
    res = _one(_zero_spec(1e-7), f"zero[N=64,{precision},randn,seed=0]")
    assert res.status is Status.PASSED, res.reasons
    assert "rms(inputs)" in res.comparisons[0].tolerance.source


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_a_real_error_on_an_all_zero_output_still_fails(precision):
    res = _one(_zero_spec(1e-1), f"zero[N=64,{precision},randn,seed=0]")
    assert res.status is Status.FAILED
    res = _one(_zero_spec(1e-2), "zero[N=64,fp32,randn,seed=0]")
    assert res.status is Status.FAILED


def test_a_nonzero_output_keeps_its_own_scale():
    tol = tolerance_for("fp32", torch.float32, 1, 1e-3, input_scale=100.0)
    assert tol.atol == pytest.approx(1e-5 * 1e-3)
    tol = tolerance_for("fp32", torch.float32, 1, 0.0, input_scale=lambda: 2.0)
    assert tol.atol == pytest.approx(2e-5) and "exactly zero" in tol.source


def _radius_spec(offset):
    """A distance R * |x - y| with R = 6371 (a great circle's km): on 'ones' data every pair coincides and the
    whole expected output is 0. The kernel's fp32 rounding of the angle (1e-7 rad) times R is 6e-4 km there, which
    is rounding of this output's scale (thousands of km), not of the inputs' (1)."""
    radius = 6371.0

    def kernel(x, y):
        gen = torch.Generator().manual_seed(3)
        noise = 1e-7 * torch.rand(x.shape, generator=gen).to(device=x.device, dtype=x.dtype)
        return radius * ((x - y).abs() + noise) + offset

    return kcheck.Spec(name="dist", kernel=kernel, reference=lambda x, y: radius * (x - y).abs(),
                       inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"])


def test_an_all_zero_output_is_judged_at_its_own_scale_on_typical_data():
    res = _one(_radius_spec(0.0), "dist[N=64,fp32,ones,seed=0]")
    assert res.status is Status.PASSED, res.reasons
    assert "randn" in res.comparisons[0].tolerance.source


def test_an_error_at_the_outputs_scale_on_an_all_zero_output_still_fails():
    # 1 km on points that coincide: 1e-4 of the output's typical scale, ten times the fp32 table's 1e-5
    res = _one(_radius_spec(1.0), "dist[N=64,fp32,ones,seed=0]")
    assert res.status is Status.FAILED


def test_an_output_zero_on_typical_data_too_keeps_the_inputs_scale():
    spec = _zero_spec(1e-2)  # x - x is zero on every data: randn inputs give no scale of their own
    res = _one(spec, "zero[N=129,fp32,ones,seed=0]")
    assert res.status is Status.FAILED
    assert "rms(inputs)" in res.comparisons[0].tolerance.source


def _copies_scratch(x, out):
    out.copy_(torch.empty_like(out))  # a scratch buffer the launcher never fills, copied into the output


def test_a_launchers_own_scratch_comes_poisoned_when_the_spec_passes_its_outputs_in():
    """A launcher that adds into a buffer of its own from torch.empty, then copies it into the output the Spec passes
    in: that buffer held whatever the allocator gave (zeros or stale values, by size and by run), so the bug showed
    or not by chance. It comes poisoned, as it does for a launcher that returns its outputs: every element of the
    copy is kcheck's poison, found as never written."""
    spec = kcheck.Spec(name="scratch", kernel=_copies_scratch, reference=lambda x: x * 0,
                       inputs=[kcheck.Tensor("N")], outputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"])
    res = _one(spec, "scratch[N=64,fp32,randn,seed=0]")
    assert res.status is Status.FAILED
    assert res.comparisons[0].unwritten == 64, res.comparisons[0]


def _writes_into_first(u, v):
    u.copy_(u + 2 * v)  # a wrong result, written over an input the Spec does not declare mutated, and returned
    return u


def test_an_output_that_is_an_input_the_kernel_overwrote_is_no_no_op():
    """A launcher that writes its result into an input and returns it: the output is that input's tensor, and the
    no-op guard compared it with the live input (the kernel's own values) and called it "exactly input 0
    unchanged" (a wave-equation step of round 26, H200: no-op 0.97 for a race). The guard now sees a changed input
    as it was before the call; the change itself is reported."""
    spec = kcheck.Spec(name="into_first", kernel=_writes_into_first, reference=lambda u, v: u + v,
                       inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"])
    res = _one(spec, "into_first[N=64,fp32,randn,seed=0]")
    assert res.status is Status.FAILED and res.mutated_inputs
    assert res.noop is None, res.noop


class _SquaredDistance(torch.autograd.Function):
    """R * (x - y)^2 whose backward adds ``offset`` (a constant error) and 1e-7 x R of noise (fp32 rounding of a
    term of R's scale) to the gradient."""

    @staticmethod
    def forward(ctx, x, y, offset):
        ctx.save_for_backward(x, y)
        ctx.offset = offset
        return 6371.0 * (x - y) ** 2

    @staticmethod
    def backward(ctx, up):
        x, y = ctx.saved_tensors
        gen = torch.Generator().manual_seed(5)
        noise = (1e-7 * 6371.0 * torch.rand(x.shape, generator=gen)).to(device=x.device, dtype=x.dtype)
        gx = 2 * 6371.0 * (x - y) * up + noise + ctx.offset
        return gx, -gx, None


def _distance_grad_spec(offset):
    return kcheck.Spec(name="sqdist", kernel=lambda x, y: _SquaredDistance.apply(x, y, offset),
                       reference=lambda x, y: 6371.0 * (x - y) ** 2, inputs=[kcheck.Tensor("N"), kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"], grad=True)


def test_an_all_zero_gradient_is_judged_at_its_own_scale_on_typical_data():
    """On 'ones' data x = y, so the whole gradient 2 R (x - y) is exactly 0; the backward's rounding of a term of
    R's scale (6e-4) is above rtol x rms(inputs, upstream). As for an output, the gradient's scale on randn inputs
    of the case judges it; an error of 1e-4 of that scale still fails."""
    res = _one(_distance_grad_spec(0.0), "sqdist[N=129,fp32,ones,seed=0]")
    assert res.status is Status.PASSED, res.reasons
    assert any("randn" in c.tolerance.source for c in res.comparisons if c.output.startswith("grad"))
    res = _one(_distance_grad_spec(2.0), "sqdist[N=129,fp32,ones,seed=0]")
    assert res.status is Status.FAILED


# -- in-place kernels ---------------------------------------------------------------------------------------------

def _inplace(kernel, reference):
    return kcheck.Spec(name="inplace", kernel=kernel, reference=reference,
                       inputs=[kcheck.Tensor("N", mutated=True)], dims={"N": kcheck.Dim(nominal=256, real=())},
                       dtypes=["fp32"])


def test_a_correct_in_place_kernel_is_deterministic_and_passes():
    res = _one(_inplace(lambda x: x.clamp_(min=0), torch.relu), "inplace[N=256,fp32,randn,seed=1]")
    assert res.status is Status.PASSED, res.reasons
    assert res.noop is None and res.determinism is not None and res.determinism.identical
    assert not res.mutated_inputs


def test_an_in_place_kernel_is_not_taken_for_its_own_input():
    res = _one(_inplace(lambda x: x.mul_(0.7), lambda x: 0.7 * x), "inplace[N=256,fp32,randn,seed=1]")
    assert res.status is Status.PASSED, res.reasons
    assert res.noop is None and not any("input 0" in w for w in res.weak)


def test_an_in_place_kernel_that_does_nothing_still_fails():
    res = _one(_inplace(lambda x: x, torch.relu), "inplace[N=256,fp32,randn,seed=1]")
    assert res.status is Status.FAILED and res.comparisons[0].mismatches > 0


def test_the_noop_guard_still_catches_an_in_place_no_op_on_a_weak_check():
    res = _one(_inplace(lambda x: x, lambda x: x * (1 + 1e-7)), "inplace[N=256,fp32,randn,seed=0]")
    assert res.status is Status.FAILED and res.noop == "output 0 is exactly input 0 unchanged"


# -- ill-conditioned cases: the framework's own fp32 result misses the table ------------------------------------------

def _layer_norm(x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5)


def _naive_layer_norm(x, w, b):  # E[x^2] - E[x]^2: cancels catastrophically for a large mean
    m = x.mean(-1, keepdim=True)
    v = (x * x).mean(-1, keepdim=True) - m * m
    return (x - m) / torch.sqrt(v.clamp_min(0) + 1e-5) * w + b


def _ln_spec(kernel):
    return kcheck.Spec(name="ln", kernel=kernel, reference=_layer_norm, reduce=["N"], dtypes=["fp32"],
                       inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn"),
                               kcheck.Tensor("N", pattern="randn")],
                       dims={"M": kcheck.Dim(nominal=8, real=()), "N": kcheck.Dim(nominal=256, real=())})


def test_a_kernel_as_good_as_the_framework_on_an_ill_conditioned_case_passes_with_a_warning():
    res = _one(_ln_spec(_layer_norm), "ln[M=129,N=129,fp32,large_mean,seed=0]")
    assert res.status is Status.PASSED, res.reasons
    b = res.comparisons[0].baseline
    assert b.forgave and b.baseline_mismatches > 0
    assert any("ill-conditioned case" in w for w in res.warnings)


def test_a_kernel_far_worse_than_the_framework_on_an_ill_conditioned_case_fails():
    res = _one(_ln_spec(_naive_layer_norm), "ln[M=129,N=129,fp32,large_mean,seed=0]")
    assert res.status is Status.FAILED and not res.comparisons[0].baseline.forgave


def test_compare_forgives_through_a_copy_of_the_frozen_baseline_check():
    e = torch.linspace(-1, 1, 1000, dtype=torch.float64)
    baseline = (e + 1e-3).float()  # the framework's own result misses the tolerance everywhere
    kernel = (e + 1.5e-3).float()  # within 2x of it
    cmp = compare("o", kernel, e, Tolerance(1e-5, 1e-5, "t"), baseline=baseline, baseline_required=False)
    assert cmp.passed and cmp.baseline.forgave
    worse = (e + 1e-2).float()
    cmp = compare("o", worse, e, Tolerance(1e-5, 1e-5, "t"), baseline=baseline, baseline_required=False)
    assert not cmp.passed and not cmp.baseline.forgave


# -- the reference's output shapes: learned once, bounded, never computed for real --------------------------------

def _counting_spec(reference, inputs=None, dims=None):
    return kcheck.Spec(name="shapes", kernel=reference, reference=reference,
                       inputs=inputs or [kcheck.Tensor("S", "D")], dims=dims or {})


def test_a_reference_that_allocates_real_memory_is_called_a_bounded_number_of_times():
    seen: list[int] = []

    def reference(x):  # a cos/sin table built on the CPU, proportional to S
        s = x.shape[0]
        seen.append(s)
        if s > 2**20:  # what an unbounded matrix would allocate here (16 GiB at the large case): refuse instead
            raise MemoryError(f"S={s}")
        pos = torch.arange(s, device="cpu", dtype=torch.float64)
        return x * torch.cos(pos)[:, None].to(x.device)

    spec = _counting_spec(reference)
    for device in (CPU, GPU):
        kcheck.matrix(spec, device=device)
    assert len(seen) <= 3 and max(seen) <= 2**10, seen


def test_a_shape_rule_is_learned_from_three_probes():
    calls: list[int] = []

    def reference(a, b):
        calls.append(1)
        return torch.cat([a @ b, a @ b]), (a @ b).reshape(-1), a.sum()

    spec = kcheck.Spec(name="mm", kernel=reference, reference=reference,
                       inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K", "N")])
    cases = kcheck.matrix(spec, device=GPU)
    assert len(calls) == 3
    assert tensor_shapes(spec, {"M": 3, "K": 1000, "N": 7}) == [(3, 1000), (1000, 7), (6, 7), (21,), ()]
    large = next(c for c in cases if c.axis == "large")
    assert max(math.prod(s) for s in tensor_shapes(spec, large.sizes)) > 2**31


def test_without_a_rule_each_set_of_sizes_is_inferred_once_and_the_calls_are_bounded():
    from kcheck.cases import _shapes

    calls: list[tuple[int, ...]] = []

    def reference(x):
        calls.append(tuple(x.shape))
        return x[: x.shape[0] // 2]  # N // 2: no product rule fits

    spec = _counting_spec(reference, inputs=[kcheck.Tensor("N")])
    kcheck.matrix(spec, device=GPU)
    assert len(calls) <= 3 + _shapes.MAX_CALLS
    n = len(calls)
    kcheck.matrix(spec, device=GPU)
    assert len(calls) == n  # memoized: the second matrix asks nothing


# -- the CPU bounds a case's work, not only its largest tensor --------------------------------------------------

def _gemm_spec(**dims):
    return kcheck.Spec(name="mm", kernel=torch.matmul, reference=torch.matmul, reduce=["K"], dtypes=["fp32"],
                       inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K", "N")], dims=dims)


def test_real_sizes_shrink_the_other_dimensions_to_the_cpu_work_budget():
    cases = kcheck.matrix(_gemm_spec(), device=CPU)
    for c in cases:
        if c.skip is None:
            assert work(c.sizes) <= CPU_MAX_WORK, c.id
    vocab = next(c for c in cases if c.axis == "real" and c.sizes["K"] == 128256)
    assert vocab.skip is None and vocab.sizes["M"] * vocab.sizes["N"] <= CPU_MAX_WORK // 128256
    gpu = next(c for c in kcheck.matrix(_gemm_spec(), device=GPU) if c.axis == "real" and c.sizes["K"] == 128256)
    assert gpu.sizes["M"] == gpu.sizes["N"] == 128  # a GPU runs it whole


def test_a_case_whose_work_cannot_shrink_runs_on_a_gpu_only():
    def reference(a, b, c):  # small tensors, but the work is A*B*C
        return a.sum() * b.sum() * c.sum()

    spec = kcheck.Spec(name="abc", kernel=reference, reference=reference, dtypes=["fp32"],
                       inputs=[kcheck.Tensor("A"), kcheck.Tensor("B"), kcheck.Tensor("C")],
                       dims={"A": kcheck.Dim(min=512, nominal=512), "B": kcheck.Dim(min=512, nominal=512)})
    cases = kcheck.matrix(spec, device=CPU)
    vocab = next(c for c in cases if c.axis == "real" and c.sizes["C"] == 128256)
    assert vocab.skip is not None and "work 512*512*128256" in vocab.skip and vocab.skip_kind is SkipKind.DEVICE
    nominal = next(c for c in cases if c.id.startswith("abc[A=512,B=512,C=128,fp32"))
    assert nominal.skip is None  # four times the Spec's own nominal work is always within the budget


# -- errors of Triton's interpreter itself are not the kernel's -------------------------------------------------

if triton is not None:
    @triton.jit
    def _add_eps_kernel(x_ptr, out_ptr, eps, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < N
        x = tl.load(x_ptr + offs, mask=mask)
        e = eps.to(tl.float32)  # a tl.tensor on a GPU, a Python float in the interpreter
        tl.store(out_ptr + offs, x + e, mask=mask)

    @triton.jit
    def _bad_arange_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
        offs = tl.arange(0, 100)  # not a power of 2: the GPU compiler refuses it too
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < N), mask=offs < N)


def _add_eps(x):
    out = torch.empty_like(x)
    _add_eps_kernel[(triton.cdiv(x.numel(), 64),)](x, out, 1e-3, x.numel(), BLOCK=64)
    return out


def _bad_arange(x):
    out = torch.empty_like(x)
    _bad_arange_kernel[(1,)](x, out, x.numel(), BLOCK=64)
    return out


def _eps_spec(kernel):
    return kcheck.Spec(name="eps", kernel=kernel, reference=lambda x: x + 1e-3, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["fp32"])


@pytest.mark.interpreter
@pytest.mark.skipif(triton is None, reason="needs triton")
def test_a_construct_the_interpreter_cannot_run_is_untrusted_not_blamed_on_the_kernel():
    import inspect

    res = _one(_eps_spec(_add_eps), "eps[N=64,fp32,randn,seed=0]")
    assert res.status is Status.UNTRUSTED, res.reasons
    lines, first = inspect.getsourcelines(_add_eps_kernel.fn)
    line = first + next(i for i, text in enumerate(lines) if "eps.to(" in text)
    assert "scalar argument is a Python float" in res.untrusted and "AttributeError" in res.untrusted
    assert f"{__file__}:{line}" in res.untrusted
    assert f"(at {__file__}:{line})" in res.reasons[0]  # the kernel's line, not triton's
    assert res.ok


@pytest.mark.interpreter
@pytest.mark.skipif(triton is None, reason="needs triton")
def test_a_kernel_error_that_the_gpu_compiler_also_raises_stays_an_error():
    res = _one(_eps_spec(_bad_arange), "eps[N=64,fp32,randn,seed=0]")
    assert res.status is Status.ERROR and res.untrusted is None
    assert "power of 2" in res.reasons[0]


@pytest.mark.interpreter
@pytest.mark.skipif(triton is None, reason="needs triton")
def test_a_bf16_case_whose_kernel_raises_is_an_error_not_untrusted():
    """The interpreter computes bf16 wrongly, so a bf16 case's wrong values are not blamed on the kernel; an
    exception the kernel raises (the GPU compiler refuses a non-power-of-2 arange too) is, in every precision."""
    spec = kcheck.Spec(name="eps", kernel=_bad_arange, reference=lambda x: x + 1e-3, inputs=[kcheck.Tensor("N")],
                       dims={"N": kcheck.Dim(nominal=64, real=())}, dtypes=["bf16"])
    res = _one(spec, "eps[N=64,bf16,randn,seed=0]")
    assert res.status is Status.ERROR and res.untrusted is None, (res.status, res.untrusted)
    assert "power of 2" in res.reasons[0]
