"""Inputs: boolean masks with a density and their extremes, Custom inputs that declare their dims and draw the same
values on every device, a documented CaseContext, and output shapes learned without real memory (or declared)."""

from __future__ import annotations

import dataclasses
import os
import re
import resource
import time
from pathlib import Path

import pytest
import torch

import kcheck
from kcheck import Status
from kcheck._device import DeviceInfo
from kcheck.cases import CaseContext, call_reference, make_args, tensor_shapes

CPU = DeviceInfo("cpu", "CPU", 24 * 2**30, 20 * 2**30, None, 132, True)
H200 = DeviceInfo("cuda", "NVIDIA H200", 141 * 2**30, 140 * 2**30, (9, 0), 132, False)
DOCS = Path(__file__).resolve().parents[1] / "docs"


def _masked_sum(x, m):
    return torch.where(m, x, torch.zeros((), dtype=x.dtype, device=x.device)).sum(-1)


def _mask_spec(kernel=_masked_sum, density=None, **kw):
    mask = kcheck.Tensor("M", "N", dtype=torch.bool, name="mask", **({} if density is None else {"density": density}))
    kw.setdefault("dims", {"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=128, real=())})
    return kcheck.Spec(name="masked_sum", kernel=kernel, reference=_masked_sum, reduce=["N"],
                       inputs=[kcheck.Tensor("M", "N", name="x"), mask], **kw)


def _case(spec, **changes):
    base = next(c for c in kcheck.matrix(spec, device=CPU) if c.axis == "size")
    return dataclasses.replace(base, **changes)


# --- boolean masks ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("density", [0.1, 0.5, 0.9])
def test_a_random_mask_has_the_declared_density_and_differs_per_seed(density):
    spec = _mask_spec(density=density)
    case = _case(spec, dims=(("M", 129), ("N", 129)))
    mask = make_args(spec, case, "cpu")[1]
    assert mask.dtype == torch.bool and mask.shape == (129, 129)
    assert abs(mask.float().mean().item() - density) < 0.03  # 16641 draws: the standard error is below 0.004
    again = make_args(spec, case, "cpu")[1]
    other = make_args(spec, dataclasses.replace(case, seed=1), "cpu")[1]
    assert torch.equal(mask, again) and not torch.equal(mask, other)


def test_density_zero_and_one_are_all_false_and_all_true():
    for density, want in ((0.0, False), (1.0, True)):
        mask = make_args(_mask_spec(density=density), _case(_mask_spec()), "cpu")[1]
        assert bool(mask.all()) if want else not bool(mask.any())


def test_mask_patterns_give_the_extremes():
    spec = _mask_spec()
    masks = {p: make_args(spec, _case(spec, pattern=p, dims=(("M", 5), ("N", 4))), "cpu")[1]
             for p in ("zeros", "ones", "constant", "eye", "arange", "large")}
    assert not masks["zeros"].any() and masks["ones"].all()
    rows = masks["constant"]
    assert [bool(r.all()) for r in rows] == [False, True, False, True, False]  # whole rows, both extremes
    assert [bool(r.any()) for r in rows] == [False, True, False, True, False]
    assert torch.equal(masks["eye"], torch.eye(5, 4, dtype=torch.bool))
    assert masks["arange"].view(-1).tolist() == [i % 2 == 0 for i in range(20)]
    assert 0 < masks["large"].sum() < 20  # a floating pattern's magnitude means nothing to a mask: random


def test_the_matrix_runs_a_mask_at_its_extremes_and_a_kernel_ignoring_it_fails_where_it_is_not_all_true():
    spec = _mask_spec()
    ids = {c.id for c in kcheck.matrix(spec, device=CPU)}
    assert {f"masked_sum[M=129,N=129,fp32,{p},seed=0]" for p in ("zeros", "ones", "constant")} <= ids
    assert kcheck.check(spec, tier="quick").passed
    report = kcheck.check(_mask_spec(kernel=lambda x, m: x.sum(-1)), tier="quick", dtypes=["fp32"])
    status = {c.case.pattern: c.status for c in report.cases if c.case.sizes == {"M": 129, "N": 129}}
    assert status["randn"] is Status.FAILED and status["constant"] is Status.FAILED
    assert status["ones"] is Status.PASSED  # every element True: the bug cannot show


def test_a_mask_is_not_differentiated():
    spec = _mask_spec(grad=True)
    assert spec.grad_inputs() == [0]
    res = kcheck.check(spec, cases="masked_sum[M=64,N=128,fp32,randn,seed=0]").cases[0]
    assert res.status is Status.PASSED, kcheck.format_case(res)
    assert {c.output for c in res.comparisons} == {"output 0", "grad of input 0 (x)"}


def test_mask_validation():
    with pytest.raises(kcheck.SpecError, match=r"dtype=torch\.bool"):
        kcheck.Tensor("N", density=0.5)
    with pytest.raises(kcheck.SpecError, match=r"\[0, 1\]"):
        kcheck.Tensor("N", dtype=torch.bool, density=1.5)
    with pytest.raises(kcheck.SpecError, match=r"kcheck\.Index"):
        kcheck.Spec(name="s", kernel=abs, reference=abs, inputs=[kcheck.Tensor("N", dtype=torch.int32)])
    assert kcheck.Tensor("N", dtype=torch.bool).density == 0.5


# --- Custom inputs ------------------------------------------------------------------------------------------------


def _natural(ctx):
    """Labels written the natural way: drawn with ctx.generator (on the CPU), then moved to the case's device."""
    T, V = ctx.dims["T"], ctx.dims["V"]
    return torch.randint(0, V, (T,), generator=ctx.generator).to(ctx.device)


def _helpers(ctx):
    T, V = ctx.dims["T"], ctx.dims["V"]
    return ctx.randint(0, V, (T,)), ctx.randn(T, 3), ctx.rand((2, T)), ctx.mask(T, density=0.25), ctx.randperm(T)


def _same(y, v, **modes):
    return y * 1


def _custom_spec(make=_natural, **kw):
    """The labels (a Custom) first; a [V] tensor (a Custom too) beside them so that V is a dimension."""
    return kcheck.Spec(name="labels", kernel=_same, reference=_same, dtypes=["fp32"],
                       inputs=[kcheck.Custom(make, name="labels", dims=kw.pop("custom_dims", ("T",))),
                               kcheck.Custom(lambda ctx: ctx.randn(ctx.dims["V"]), name="v", dims=("V",))],
                       dims={"T": kcheck.Dim(nominal=64, real=()), "V": kcheck.Dim(nominal=100, real=())}, **kw)


def _flat(value):
    return [value] if isinstance(value, torch.Tensor) else list(value)


def test_custom_inputs_written_the_natural_way_build_the_same_values_for_cpu_and_cuda(monkeypatch):
    spec = _custom_spec(make=lambda ctx: (_natural(ctx), *_helpers(ctx)))
    case = next(iter(kcheck.matrix(spec, device=CPU)))
    on_cpu = [t for a in make_args(spec, case, "cpu") for t in _flat(a)]

    # a CUDA path on this machine: tensors moved "to cuda" are kept (as copies), and a CUDA generator is refused,
    # as it would draw other numbers than the CPU's
    real_to, real_generator = torch.Tensor.to, torch.Generator
    moved = []

    def to(self, *args, **kwargs):
        target = kwargs.get("device", args[0] if args else None)
        if str(target) == "cuda":
            moved.append(tuple(self.shape))
            return self.clone()
        return real_to(self, *args, **kwargs)

    def generator(device="cpu"):
        assert str(device) == "cpu", "a CUDA generator draws other numbers than the CPU's"
        return real_generator(device="cpu")

    monkeypatch.setattr(torch.Tensor, "to", to)
    monkeypatch.setattr(torch, "Generator", generator)
    on_cuda = [t for a in make_args(spec, case, "cuda") for t in _flat(a)]
    monkeypatch.undo()
    assert len(moved) == len(on_cpu) == 7  # every draw went to the case's device
    assert all(torch.equal(a, b) for a, b in zip(on_cpu, on_cuda, strict=True))
    assert on_cpu[0].min() >= 0 and on_cpu[0].max() < 100 and on_cpu[0].unique().numel() > 10


def test_a_custom_drawing_on_the_device_with_the_cpu_generator_is_told_the_fix(monkeypatch):
    def device_draw(ctx):
        raise RuntimeError("Expected a 'cuda' device type for generator but found 'cpu'")  # what torch says there

    spec = _custom_spec(make=device_draw)
    case = next(iter(kcheck.matrix(spec, device=CPU)))
    with pytest.raises(kcheck.SpecError, match=r"CPU generator.*\.to\(ctx\.device\)") as err:
        make_args(spec, case, "cuda")
    assert "labels" in err.value.argument


def test_a_custom_declares_its_dims_a_dimension_only_it_uses_is_sized_and_its_shape_is_checked():
    spec = kcheck.Spec(name="k_only", kernel=lambda x, y: x * 1, reference=lambda x, y: x * 1, dtypes=["fp32"],
                       inputs=[kcheck.Tensor("N"), kcheck.Custom(lambda ctx: ctx.randint(0, 7, (ctx.dims["K"], 2)),
                                                                 dims=("K", 2))],
                       dims={"N": kcheck.Dim(nominal=8, real=()), "K": kcheck.Dim(nominal=32, real=(4000,))})
    cases = kcheck.matrix(spec, device=CPU)
    assert {c.sizes["K"] for c in cases} >= {0, 1, 17, 32, 129, 4000}
    assert tensor_shapes(spec, {"N": 8, "K": 4000})[:2] == [(8,), (4000, 2)]
    large = [c for c in kcheck.matrix(spec, device=H200) if c.axis == "large"]
    assert any(c.sizes["K"] * 2 > 2**31 for c in large)  # the Custom tensor is counted for the past-2**31 case
    assert kcheck.check(spec, tier="quick").passed

    wrong = kcheck.Spec(name="wrong", kernel=lambda y: y * 1, reference=lambda y: y * 1, dtypes=["fp32"],
                        inputs=[kcheck.Custom(lambda ctx: ctx.randn(ctx.dims["T"] + 1), dims=("T",), name="y")],
                        dims={"T": kcheck.Dim(nominal=8, real=())})
    res = kcheck.check(wrong, cases="wrong[T=8,fp32,randn,seed=0]").cases[0]
    assert res.status is Status.ERROR and "Custom(dims)" in res.reasons[0] and "(9,)" in res.reasons[0]
    with pytest.raises(kcheck.SpecError, match="tuple"):
        kcheck.Custom(lambda ctx: None, dims="T")


def test_case_context_documents_every_field_in_its_docstring_and_in_the_docs():
    fields = [f.name for f in dataclasses.fields(CaseContext)]
    assert {"dims", "dtype", "device", "generator", "params", "seed"} <= set(fields)
    doc = CaseContext.__doc__ or ""
    spec_md = (DOCS / "spec.md").read_text()
    section = spec_md[spec_md.index("## CaseContext"):]
    for name in [*fields, "randn", "rand", "randint", "randperm", "mask"]:
        assert f"``{name}``" in doc, name
        assert re.search(rf"`(ctx\.)?{name}\b", section), name


def test_a_custom_sees_the_case_modes():
    seen = []

    def make(ctx):
        seen.append(dict(ctx.params))
        return ctx.randn(ctx.dims["T"])

    # the output shapes declared: no shape inference (which builds the inputs at its probes' sizes) calls the make
    spec = _custom_spec(make=make, params={"mode": ["a", "b"]}, output_shapes=[("T",)])
    kcheck.check(spec, cases="mode=b")
    assert seen and all(s == {"mode": "b"} for s in seen)


# --- output shapes ------------------------------------------------------------------------------------------------


def _rope_like(x):
    """A reference that builds its position table with torch.arange and no device=: on the CPU, as written."""
    T, D = x.shape
    table = torch.arange(T)[:, None] * torch.arange(D)
    return x * (table.to(x.dtype) * 0.01).cos()


def _rope_like_kernel(x):
    """The kernel side, written as a kernel's launcher is: its tensors made where its input is."""
    T, D = x.shape
    table = torch.arange(T, device=x.device)[:, None] * torch.arange(D, device=x.device)
    return x * (table.to(x.dtype) * 0.01).cos()


def test_a_reference_building_a_cpu_table_does_not_allocate_while_the_matrix_is_built():
    spec = kcheck.Spec(name="table", kernel=_rope_like, reference=_rope_like, inputs=[kcheck.Tensor("T", "D")],
                       dims={"T": kcheck.Dim(nominal=64), "D": kcheck.Dim(nominal=64)})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    cases = kcheck.matrix(spec, device=H200)
    seconds = time.perf_counter() - t0
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    large = [c for c in cases if c.axis == "large"]
    assert large and all(c.skip is None for c in large)
    t, d = large[0].sizes["T"], large[0].sizes["D"]
    assert t * d > 2**31 and tensor_shapes(spec, large[0].sizes) == [(t, d), (t, d)]  # the output, known
    assert grown_mib < 512, f"the matrix build grew the process by {grown_mib:.0f} MiB"  # a real table: 16 GiB
    assert seconds < 10


def test_the_reference_runs_with_the_case_device_as_default():
    spec = kcheck.Spec(name="table", kernel=_rope_like_kernel, reference=_rope_like, inputs=[kcheck.Tensor("T", "D")],
                       dims={"T": kcheck.Dim(nominal=8, real=()), "D": kcheck.Dim(nominal=4, real=())})
    case = next(iter(kcheck.matrix(spec, device=CPU)))
    out = call_reference(spec.reference, spec, case, [torch.empty(8, 4, device="meta")], "meta")
    assert out.device.type == "meta"  # the table followed the default device: on a GPU, the GPU
    assert kcheck.check(spec, tier="quick").passed


def test_declared_output_shapes_are_used_without_calling_the_reference():
    calls = []

    def reference(x):
        calls.append(x.device.type)
        return x.sum(-1)

    spec = kcheck.Spec(name="rows", kernel=reference, reference=reference, inputs=[kcheck.Tensor("M", "N")],
                       output_shapes=[("M",)], dims={"M": kcheck.Dim(nominal=8), "N": kcheck.Dim(nominal=8)})
    assert tensor_shapes(spec, {"M": 3, "N": 5}) == [(3, 5), (3,)]
    kcheck.matrix(spec, device=H200)
    assert calls == []
    with pytest.raises(kcheck.SpecError, match="name a dimension"):
        dataclasses.replace(spec, output_shapes=[("K",)])
    with pytest.raises(kcheck.SpecError, match="tuple of dimension names"):
        dataclasses.replace(spec, output_shapes=["M"])
    with pytest.raises(kcheck.SpecError, match="declared outputs carry their shape"):
        kcheck.Spec(name="o", kernel=abs, reference=abs, inputs=[kcheck.Tensor("N")],
                    outputs=[kcheck.Tensor("N")], output_shapes=[("N",)])


def test_output_shapes_are_learned_through_custom_inputs():
    def reference(y, x):
        return torch.nn.functional.one_hot(y, x.shape[1]).double() * x

    spec = kcheck.Spec(name="onehot", kernel=reference, reference=reference, dtypes=["fp32"],
                       inputs=[kcheck.Custom(_natural), kcheck.Tensor("T", "V")],  # its dims undeclared
                       dims={"T": kcheck.Dim(nominal=64, real=()), "V": kcheck.Dim(nominal=100, real=())})
    assert tensor_shapes(spec, {"T": 37, "V": 100}) == [(37, 100), (37, 100)]  # make ran on the meta device


def test_the_padding_of_a_strided_input_holds_nan_not_recycled_memory():
    """A kernel that reads the padding (a stride assumed) must get the same wrong values at every run: garbage from
    the allocator let a stride-assumed kernel pass on a ones input laid over a freed ones input (the zeroed-output
    experiment then 'rescued' it, one debug run in ten)."""
    from kcheck.cases._inputs import _layout

    for x in (torch.ones(4, 5), torch.arange(6, dtype=torch.float16)):
        view = _layout(x, "strided")
        assert torch.equal(view, x) and view._base is not None
        flat = view._base.reshape(-1)
        inside = torch.zeros(flat.numel(), dtype=torch.bool)
        where = torch.as_strided(torch.arange(flat.numel()), view.shape, view.stride(), view.storage_offset())
        inside[where.reshape(-1)] = True
        assert bool(torch.isnan(flat[~inside].float()).all()) and not torch.isnan(flat[inside].float()).any()
    idx = _layout(torch.arange(12).reshape(3, 4), "strided")
    assert idx._base is not None and int(idx._base[:, 4:].abs().sum()) == 0


def test_learning_the_output_shapes_imports_no_dynamo():
    """Meta tensors of a composite operation (layer_norm, matmul) go through torch's Python decompositions, whose
    first call imports torch._dynamo (3-5 s of every process that builds a matrix); the probes run on small CPU
    tensors instead, a Custom input (train_cross_entropy's labels) built by its make on the CPU too. In a fresh
    process, as the CLI is."""
    import subprocess
    import sys

    code = ("import sys, kcheck; from kcheck._discover import discover\n"
            "for f in ('examples/layernorm.py', 'examples/gemm.py', 'examples/train_cross_entropy.py'):\n"
            "    (found,) = discover(f)\n"
            "    for s in found.specs: kcheck.matrix(s)\n"
            "print('torch._dynamo' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "TRITON_INTERPRET": "1"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False", out.stdout
