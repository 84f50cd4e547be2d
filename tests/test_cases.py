"""The case matrix: sizes, real dims, precisions, patterns, large cases and skips."""

import dataclasses

import pytest
import torch

import kcheck
from kcheck._device import DeviceInfo
from kcheck.cases import CPU_MAX_ELEMENTS, make_args
from kcheck.cases._patterns import make

CPU = DeviceInfo("cpu", "CPU", 24 * 2**30, 20 * 2**30, None, 132, True)
H200 = DeviceInfo("cuda", "NVIDIA H200", 141 * 2**30, 140 * 2**30, (9, 0), 132, False)


def spec(**kw):
    args = dict(name="mm", kernel=torch.matmul, reference=torch.matmul,
                inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K", "N")], reduce=["K"],
                dtypes=["fp32", "bf16", "fp16", "fp8"])
    args.update(kw)
    return kcheck.Spec(**args)


def test_large_case_passes_int32_and_runs_only_on_a_gpu():
    cpu = [c for c in kcheck.matrix(spec(), device=CPU) if c.axis == "large"]
    gpu = [c for c in kcheck.matrix(spec(), device=H200) if c.axis == "large"]
    assert len(cpu) == len(gpu) >= 1  # the flat-element case first, then the row-start ones
    m, k = gpu[0].sizes["M"], gpu[0].sizes["K"]
    assert m * k > 2**31 or gpu[0].sizes["N"] * k > 2**31
    assert all(c.skip is None for c in gpu)
    assert all("runs on a GPU only" in c.skip for c in cpu)


def test_large_case_is_skipped_with_the_memory_it_needs_when_it_does_not_fit():
    busy = dataclasses.replace(H200, free_bytes=16 * 2**30)  # other processes hold the rest: it may fit later
    large = next(c for c in kcheck.matrix(spec(), device=busy) if c.axis == "large")
    assert large.skip.startswith("needs at least ~") and "GiB free" in large.skip
    small = dataclasses.replace(H200, free_bytes=16 * 2**30, total_bytes=16 * 2**30)  # it never will
    large = next(c for c in kcheck.matrix(spec(), device=small) if c.axis == "large")
    assert large.skip.startswith("needs at least ~") and "more than NVIDIA H200's 16.0 GiB" in large.skip


def test_fp8_runs_on_hopper_and_is_skipped_on_the_cpu():
    fp8_cpu = [c for c in kcheck.matrix(spec(), device=CPU) if c.precision == "fp8e4m3"]
    fp8_gpu = [c for c in kcheck.matrix(spec(), device=H200) if c.precision == "fp8e4m3"]
    assert fp8_cpu and all("compute capability >= 8.9 (this CPU)" in c.skip for c in fp8_cpu)
    assert fp8_gpu and all(c.skip is None for c in fp8_gpu)


def test_real_dims_shrink_the_others_to_fit_the_cpu_budget():
    s = spec()
    real = [c for c in kcheck.matrix(s, device=CPU) if c.axis == "real"]
    assert {c.sizes["K"] for c in real} >= {37, 2880, 128256}
    for c in real:
        biggest = max(c.sizes["M"] * c.sizes["K"], c.sizes["K"] * c.sizes["N"])
        assert c.skip is not None or biggest <= CPU_MAX_ELEMENTS
    vocab = next(c for c in real if c.sizes["K"] == 128256)
    # shrunk until its work (M*K*N) fits the CPU's budget as well as its largest tensor
    assert vocab.skip is None and (vocab.sizes["M"], vocab.sizes["N"]) == (1, 17)


def test_tiers_and_narrowing():
    quick = kcheck.matrix(spec(), device=CPU, tier="quick")
    default = kcheck.matrix(spec(), device=CPU)
    full = kcheck.matrix(spec(), device=CPU, tier="full")
    assert len(quick) < len(default) < len(full)
    only = kcheck.matrix(spec(), device=CPU, dtypes=["fp16"], patterns=["randn", "ones"], seeds=5)
    assert {c.precision for c in only} == {"fp16"}
    assert {c.pattern for c in only} == {"randn", "ones"}
    assert {c.seed for c in only} == set(range(5))


def test_seed_cases_repeat_for_determinism_and_property_cases_are_marked():
    s = spec(properties=[kcheck.props.linear(0)])
    cases = kcheck.matrix(s, device=CPU)
    assert all(c.repeats == 1 for c in cases if c.axis == "seed" or (c.seed > 0))
    marked = [c.id for c in cases if c.properties]
    assert marked == ["mm[M=128,K=128,N=128,fp32,randn,seed=0]", "mm[M=129,K=129,N=129,fp32,randn,seed=0]"]


def test_dim_constraints_are_respected():
    s = spec(dims={"K": kcheck.Dim(nominal=64, multiple_of=16, max=256, real=())})
    ks = {c.sizes["K"] for c in kcheck.matrix(s, device=H200) if c.axis != "large"}
    assert all(k % 16 == 0 and k <= 256 for k in ks) and 0 in ks


def test_inputs_rebuild_identically_and_differ_per_slot():
    s = spec()
    case = kcheck.matrix(s, device=CPU, cases="mm[M=17,K=17,N=17,fp32,randn,seed=0]")[0]
    a1, b1 = make_args(s, case, "cpu")
    a2, _ = make_args(s, case, "cpu")
    assert torch.equal(a1, a2) and not torch.equal(a1, b1)


def test_strided_layout_gives_non_contiguous_views_with_the_same_values():
    s = spec()
    case = kcheck.matrix(s, device=CPU, cases="mm[M=129,K=129,N=129,fp32,randn,strided,seed=0]")[0]
    a, _ = make_args(s, case, "cpu")
    assert not a.is_contiguous() and a.stride() == (136, 1)


def test_patterns():
    g = torch.Generator().manual_seed(0)
    assert make("arange", (2, 3), torch.float32, "cpu", g).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert make("arange", (300,), torch.bfloat16, "cpu", g)[257].item() == 1  # wraps at 256: exact in bf16
    assert make("eye", (3, 3), torch.float16, "cpu", g).tolist() == torch.eye(3).tolist()
    big = make("large", (1000,), torch.float32, "cpu", g)
    assert big.abs().max() > 88  # exp overflows in fp32
    assert make("large", (1000,), torch.float16, "cpu", g).abs().max() > 11  # ... and in fp16
    nf = make("nonfinite", (9,), torch.float32, "cpu", g)
    assert torch.isnan(nf[3]) and nf[6] == float("inf") and nf[8] == float("-inf")
    const = make("constant", (4, 5), torch.float32, "cpu", g)
    assert (const.var(-1) == 0).all()
    lm = make("large_mean", (1000,), torch.float32, "cpu", g)
    assert 9990 < lm.mean() < 10010 and lm.std() < 2
    tiny = make("tiny", (1000,), torch.float32, "cpu", g)
    assert tiny.abs().max() < 1e-36 and (tiny.abs() < torch.finfo(torch.float32).tiny).any()


def test_a_case_is_rebuilt_from_its_id():
    """Workers (the sanitizer's, the debugger's) rebuild cases that are not in the matrix from their ids."""
    import importlib

    from kcheck.cases._matrix import case_from_id

    for name in ("gemm", "layernorm", "zoo_kernels.missing_tail_mask"):
        spec = importlib.import_module(name).spec
        for c in kcheck.matrix(spec, large=False):
            d = case_from_id(spec, c.id)
            assert (d.id, d.dims, d.precision, d.pattern, d.seed, d.layout, d.config) == (
                c.id, c.dims, c.precision, c.pattern, c.seed, c.layout, c.config)
    spec = importlib.import_module("gemm").spec
    with pytest.raises(kcheck.SpecError, match="case id"):
        case_from_id(spec, "softmax[N=3,fp32]")
