"""The bug zoo (tests/zoo_kernels): every planted bug passes a casual test and fails kcheck.

The casual test is the one a kernel's author writes first: the nominal power-of-two shape, randn data, seed 0, the
Spec's first precision, the launcher's default configuration, one ``torch.testing.assert_close`` at torch's default
tolerance. kcheck is run on a few chosen case ids (the whole matrix is benchmarks/zoo.py's job), so this file stays
fast in Triton's interpreter. CUDA C bugs can only show on a GPU: here they must import and compile for sm_90.
"""

from __future__ import annotations

import importlib
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

import kcheck
from kcheck import Status
from kcheck._device import detect, interpreter_active
from kcheck.sanitize import sanitize

ZOO = Path(__file__).resolve().parent / "zoo_kernels"

BUG_CLASSES = {
    "edge-guard", "off-by-one-mask", "tail-tile-dropped", "missing-syncthreads", "divergent-barrier", "int32-overflow",
    "uninitialized-accumulator", "exp-overflow", "low-precision-accumulation", "index-transposition", "wrong-axis",
    "missing-atomic", "cancellation", "misaligned-access", "division-by-zero", "no-op",
}

CUDA_BUGS = ["cuda_missing_sync", "cuda_divergent_barrier", "cuda_misaligned_float4"]

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on this machine")


def _module(name: str) -> Any:
    return importlib.import_module(f"zoo_kernels.{name}")


def _zoo_modules() -> list[str]:
    return sorted(p.stem for p in ZOO.glob("*.py") if p.stem != "__init__")


def _nominal(spec: kcheck.Spec) -> kcheck.Case:
    sizes = {d: spec.dim(d).nominal for d in spec.dim_names()}
    return next(c for c in kcheck.matrix(spec, large=False)
                if c.sizes == sizes and c.pattern == "randn" and c.seed == 0 and c.layout == "contiguous"
                and c.precision == spec.precisions[0].name and c.config == tuple(spec.configs[0].items()))


def _casual(spec: kcheck.Spec, extra: Callable[..., dict[str, Any]] | None = None) -> None:
    """A casual test: call the launcher itself (no poisoned outputs, no interpreter checks) and assert_close.
    ``extra(*args)`` adds keyword arguments the casual test passes (a zeroed ``out=`` buffer)."""
    from kcheck.cases import make_args, upcast

    case = _nominal(spec)
    args = make_args(spec, case, detect().device)
    out = spec.kernel(*args, **case.config_dict, **(extra(*args) if extra else {}))
    ref = spec.reference(*upcast(args))
    torch.testing.assert_close(out, ref.to(device=out.device, dtype=out.dtype))


def _check(spec: kcheck.Spec, *case_ids: str) -> dict[str, kcheck.CaseResult]:
    report = kcheck.check(spec, cases=list(case_ids))
    results = {c.id: c for c in report.cases}
    assert sorted(results) == sorted(case_ids)
    return results


def _mismatched(text: str) -> int:
    """The count in the message's "Mismatched elements: K / N" line."""
    found = re.search(r"Mismatched elements: (\d+) / \d+", text)
    assert found, text
    return int(found.group(1))


def _line_of(fn: Callable[..., Any], text: str) -> int:
    """The line of the first occurrence of ``text`` in the file that defines ``fn``."""
    lines = Path(fn.__code__.co_filename).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _fails(res: kcheck.CaseResult, *texts: str) -> str:
    text = kcheck.format_case(res)
    assert res.status is Status.FAILED, text
    for t in texts:
        assert t in text, text
    return text


# --- every module ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", _zoo_modules())
def test_every_zoo_module_names_its_bug_class(name):
    mod = _module(name)
    assert getattr(mod, "BUG_CLASS", None) in BUG_CLASSES, f"{name}: BUG_CLASS={getattr(mod, 'BUG_CLASS', None)!r}"
    assert (mod.__doc__ or "").startswith("Bug class: "), name
    assert isinstance(mod.spec, kcheck.Spec)
    assert "BUG:" in Path(mod.__file__).read_text(), f"{name}: no BUG: comment at the buggy line"


def test_the_zoo_covers_every_bug_class():
    assert {_module(name).BUG_CLASS for name in _zoo_modules()} == BUG_CLASSES


# --- Triton bugs: a casual test passes ---------------------------------------------------------------------------


def _zeroed_out(x: torch.Tensor) -> dict[str, Any]:
    return {"out": torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)}


@pytest.mark.parametrize(("name", "extra"), [
    ("off_by_one_mask", None),
    ("tail_tile_dropped", None),
    ("uninit_accumulator", _zeroed_out),  # the author's test hands in a zeroed buffer (or gets fresh zeros)
    ("gemm_wrong_stride", None),
    ("scale_wrong_axis", None),
    ("split_sum_no_atomic", None),
    ("layernorm_naive_variance", None),
    ("l1_normalize_no_eps", None),
])
def test_a_casual_test_passes(name, extra):
    _casual(_module(name).spec, extra)


# --- Triton bugs: kcheck fails them ------------------------------------------------------------------------------


def test_off_by_one_mask_is_seen_by_the_interpreter_only_off_the_block_multiple():
    spec = _module("off_by_one_mask").spec
    nominal = "off_by_one_mask[N=4096,fp32,randn,BLOCK=1024,seed=0]"
    small_block = "off_by_one_mask[N=4096,fp32,randn,BLOCK=128,seed=0]"
    ragged = "off_by_one_mask[N=129,fp32,randn,BLOCK=1024,seed=0]"
    res = _check(spec, nominal, small_block, ragged)
    assert res[nominal].status is Status.PASSED and res[small_block].status is Status.PASSED
    if not interpreter_active():
        pytest.skip("on a GPU every value is right: only compute-sanitizer's memcheck sees the access past the end")
    text = _fails(res[ragged], "interpreter out-of-bounds read of 4 bytes in add_kernel",
                  "interpreter out-of-bounds write of 4 bytes in add_kernel", "1 bytes after tensor 'out_ptr'")
    store = _line_of(spec.kernel, "tl.store(out_ptr + offs")
    assert f"off_by_one_mask.py:{store}, program (0,0,0) lane 129: 1 bytes after tensor 'out_ptr'" in text
    assert res[ragged].comparisons[0].mismatches == 0  # the values are right: only the access past the end is wrong


def test_tail_tile_dropped_leaves_the_tail_unwritten():
    spec = _module("tail_tile_dropped").spec
    nominal = "tail_tile_dropped[N=4096,fp32,randn,BLOCK=1024,seed=0]"
    res = _check(spec, nominal, "tail_tile_dropped[N=2880,fp32,randn,BLOCK=1024,seed=0]",
                 "tail_tile_dropped[N=129,fp32,randn,BLOCK=128,seed=0]")
    assert res[nominal].status is Status.PASSED
    bad = res["tail_tile_dropped[N=2880,fp32,randn,BLOCK=1024,seed=0]"]
    _fails(bad, "Unwritten elements: 832", "tail: elements 2048..2879, past the last full block of 1024")
    assert bad.comparisons[0].unwritten == 832
    assert res["tail_tile_dropped[N=129,fp32,randn,BLOCK=128,seed=0]"].comparisons[0].unwritten == 1


def test_uninitialized_accumulator_fails_every_case_kcheck_poisons():
    spec = _module("uninit_accumulator").spec
    nominal = "uninit_accumulator[M=128,N=1024,fp32,randn,seed=0]"
    res = _check(spec, nominal, "uninit_accumulator[M=129,N=129,fp32,randn,seed=0]")
    # even the nominal case: kcheck poisons the launcher's torch.empty, and the poison flows into every sum
    for r in res.values():
        _fails(r, "NaN in one of output and reference only")
        assert r.comparisons[0].nan_mismatches == r.comparisons[0].numel


def test_gemm_wrong_stride_is_right_on_square_shapes_only():
    spec = _module("gemm_wrong_stride").spec
    cfg = "BLOCK_M=128,BLOCK_N=128,BLOCK_K=32,seed=0"
    nominal = f"gemm_wrong_stride[M=128,K=128,N=128,fp32,randn,{cfg}]"
    square = f"gemm_wrong_stride[M=129,K=129,N=129,fp32,randn,{cfg}]"
    wide = f"gemm_wrong_stride[M=128,K=64,N=128,fp32,randn,{cfg}]"  # N > K
    narrow = f"gemm_wrong_stride[M=128,K=128,N=64,fp32,randn,{cfg}]"  # N < K
    res = _check(spec, nominal, square, wide, narrow)
    assert res[nominal].status is Status.PASSED and res[square].status is Status.PASSED
    _fails(res[wide], "Mismatched elements: 16384 / 16384")
    text = _fails(res[narrow], "Mismatched elements: 8192 / 8192")
    if interpreter_active():  # N < K: B is read with pitch K, past its end
        assert "interpreter out-of-bounds read of 4 bytes in gemm_kernel" in text and "'b_ptr'" in text


def test_scale_wrong_axis_is_right_on_square_shapes_only():
    spec = _module("scale_wrong_axis").spec
    nominal = "scale_wrong_axis[M=256,N=256,fp32,randn,seed=0]"
    square = "scale_wrong_axis[M=129,N=129,fp32,randn,seed=0]"
    tall = "scale_wrong_axis[M=256,N=128,fp32,randn,seed=0]"
    wide = "scale_wrong_axis[M=128,N=256,fp32,randn,seed=0]"
    res = _check(spec, nominal, square, tall, wide)
    assert res[nominal].status is Status.PASSED and res[square].status is Status.PASSED
    # half the elements are scaled by another column's factor; one whose input is near zero can still fall inside
    # the tolerance (the H200's randn had one such element in the wide case), so the count is bounded, not exact
    text = _fails(res[wide], "columns 128..255")
    assert 16000 <= _mismatched(text) <= 16384, text
    text = _fails(res[tall])
    assert 16000 <= _mismatched(text) <= 16384, text
    if interpreter_active():  # M > N: offs % M reaches past the end of the scale
        assert "interpreter out-of-bounds read of 4 bytes in scale_cols_kernel" in text and "'s_ptr'" in text


def test_split_sum_without_atomics_fails_with_several_blocks_per_row():
    spec = _module("split_sum_no_atomic").spec
    nominal = "split_sum_no_atomic[M=128,N=1024,fp32,randn,BLOCK_N=1024,seed=0]"
    odd = "split_sum_no_atomic[M=129,N=129,fp32,randn,BLOCK_N=1024,seed=0]"
    long = "split_sum_no_atomic[M=128,N=2880,fp32,randn,BLOCK_N=1024,seed=0]"
    small_block = "split_sum_no_atomic[M=128,N=1024,fp32,randn,BLOCK_N=256,seed=0]"
    res = _check(spec, nominal, odd, long, small_block)
    assert res[nominal].status is Status.PASSED and res[odd].status is Status.PASSED  # one block per row
    for case_id in (long, small_block):
        text = _fails(res[case_id], "Mismatched elements: 128 / 128")
        if interpreter_active():
            assert "interpreter race-WW write of 4 bytes in split_row_sum_kernel" in text


def test_naive_variance_cancels_on_a_large_mean():
    spec = _module("layernorm_naive_variance").spec
    nominal = "layernorm_naive_variance[M=128,N=1024,fp32,randn,seed=0]"
    odd = "layernorm_naive_variance[M=129,N=129,fp32,randn,seed=0]"
    large_mean = "layernorm_naive_variance[M=129,N=129,fp32,large_mean,seed=0]"
    res = _check(spec, nominal, odd, large_mean)
    assert res[nominal].status is Status.PASSED and res[odd].status is Status.PASSED
    _fails(res[large_mean], "Where: everywhere")
    assert res[large_mean].comparisons[0].mismatches > 0.9 * 129 * 129


def test_l1_normalize_without_eps_gives_nan_on_zero_rows():
    spec = _module("l1_normalize_no_eps").spec
    nominal = "l1_normalize_no_eps[M=128,N=1024,fp32,randn,seed=0]"
    odd = "l1_normalize_no_eps[M=129,N=129,fp32,randn,seed=0]"
    zeros = "l1_normalize_no_eps[M=129,N=129,fp32,zeros,seed=0]"
    tiny = "l1_normalize_no_eps[M=129,N=129,fp32,tiny,seed=0]"
    res = _check(spec, nominal, odd, zeros, tiny)
    assert res[nominal].status is Status.PASSED and res[odd].status is Status.PASSED
    _fails(res[zeros], "NaN in one of output and reference only: 16641")
    _fails(res[tiny], "Mismatched elements: 16641 / 16641")  # sum(|x|) < eps: the reference divides by eps


# --- CUDA C bugs: GPU only; here they import and compile ---------------------------------------------------------


@pytest.mark.parametrize("name", CUDA_BUGS)
def test_cuda_bug_imports_and_is_skipped_without_a_gpu(name):
    from kcheck.backends import framework

    mod = _module(name)
    assert mod.BUG_CLASS in BUG_CLASSES and framework(mod.spec.kernel) == "cuda"
    if detect().is_gpu:
        pytest.skip("on a GPU the cases run (and compute-sanitizer is what shows these bugs)")
    report = kcheck.check(mod.spec, cases=_nominal(mod.spec).id)
    assert all(c.status is Status.SKIPPED for c in report.cases)


@needs_nvcc
@pytest.mark.parametrize("name", CUDA_BUGS)
def test_cuda_bug_compiles_for_sm90(name):
    mod = _module(name)
    (kernel,) = [v for v in vars(mod).values() if isinstance(v, kcheck.CudaKernel)]
    (res,) = kernel.resources(90)
    assert res.arch.startswith("sm_90") and res.kernel == kernel.name and res.registers > 0
    assert res.spill_stores == 0 and res.spill_loads == 0


# --- the whole matrix (slow tier): the bug is found, and only off the casual test's case -------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["off_by_one_mask", "tail_tile_dropped", "uninit_accumulator", "gemm_wrong_stride",
                                  "scale_wrong_axis", "split_sum_no_atomic", "layernorm_naive_variance",
                                  "l1_normalize_no_eps"])
def test_the_default_matrix_finds_the_bug(name):
    spec = _module(name).spec
    # the API runs cases in the caller's process unless told to isolate them: on a GPU a planted out-of-bounds store
    # (gemm_wrong_stride) broke this test process's CUDA context, and every later test of the worker with it
    report = kcheck.check(spec, large=False, isolate=torch.cuda.is_available())
    nominal = next(c for c in report.cases if c.id == _nominal(spec).id)
    if name == "off_by_one_mask" and not interpreter_active():  # right values on a GPU: compute-sanitizer sees it
        assert report.passed, kcheck.format_report(report)
        rep = sanitize(spec, tools=["memcheck"], timeout=300)
        if rep.unavailable:
            pytest.skip(rep.unavailable)
        memcheck = rep.tools[0]
        assert any(f.kind == "out-of-bounds" for f in memcheck.findings), memcheck.problems
        return
    assert not report.passed
    # every case fails for the uninitialized accumulator (kcheck poisons the output); the others pass the nominal one
    assert nominal.status is (Status.FAILED if name == "uninit_accumulator" else Status.PASSED)


def test_the_round_15_reglu_control_stores_nothing_once_m_times_n_passes_int32():
    """Held-out round 15's ReGLU "control" (its writer meant it correct) was flagged on the H200 by its past-2**31
    case, every output never written: its mask ``offs < M * N`` multiplies two int32 arguments, and past 2**31 the
    product wraps negative, so no lane stores. kcheck's flag was right. Shown here with tiny tensors (the mask is
    false everywhere, so nothing is read either)."""
    reglu = importlib.import_module("zoo_heldout15.hx15_reglu_ok")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    a, b = torch.randn(1, 1024, device=device), torch.randn(1, 1024, device=device)
    out = torch.full((1024,), -7.0, device=device)
    reglu.reglu_fwd_kernel[(1,)](a, b, out, 1, 1024, 0, 1, 0, 1, BLOCK=1024)  # M * N = 1024: written
    assert torch.equal(out, torch.relu(a[0]) * b[0])
    out.fill_(-7.0)
    reglu.reglu_fwd_kernel[(1,)](a, b, out, 65536, 32769, 0, 1, 0, 1, BLOCK=1024)  # M * N = 2**31 + 65536
    assert bool((out == -7.0).all())
