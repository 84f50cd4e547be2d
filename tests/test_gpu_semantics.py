"""Triton's interpreter treats NaN in maximum, minimum and clamp as a GPU does (PTX max/min return the non-NaN
operand), so a kernel that drops NaN rows on a GPU does so on the CPU too."""

from __future__ import annotations

import pytest
import torch

import kcheck

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")


@triton.jit
def _max_eps(x_ptr, out_ptr, n, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, eps), mask=mask)


@triton.jit
def _min_one(x_ptr, out_ptr, n, PROPAGATE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if PROPAGATE:
        y = tl.minimum(x, 1.0, propagate_nan=tl.PropagateNan.ALL)
    else:
        y = tl.minimum(x, 1.0)
    tl.store(out_ptr + offs, y, mask=mask)


def max_eps(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    if x.numel():
        _max_eps[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), 1e-6, BLOCK=128)
    return out


def min_one(x: torch.Tensor, propagate: bool) -> torch.Tensor:
    out = torch.empty_like(x)
    _min_one[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), PROPAGATE=propagate, BLOCK=128)
    return out


# torch.fmax is the GPU's maxNum: NaN in, the other operand out
max_eps_spec = kcheck.Spec(name="max_eps", kernel=max_eps,
                           reference=lambda x: torch.fmax(x, torch.tensor(1e-6, dtype=x.dtype)),
                           inputs=[kcheck.Tensor("N")], dtypes=["fp32"], dims={"N": kcheck.Dim(nominal=256, real=())})


@pytest.mark.interpreter
def test_maximum_drops_nan_in_the_interpreter_as_on_a_gpu():
    report = kcheck.check(max_eps_spec, cases="*nonfinite*", large=False)
    assert report.cases and all(c.status is kcheck.Status.PASSED for c in report.cases), kcheck.format_report(report)


def test_minimum_matches_the_gpu_and_propagate_nan_all_still_propagates():
    from kcheck.interpret import gpu_semantics

    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.tensor([float("nan"), 3.0, -5.0, 0.5] * 32, device=device)
    with gpu_semantics():
        dropped = min_one(x, False)
        kept = min_one(x, True)
    assert dropped[:4].tolist() == [1.0, 1.0, -5.0, 0.5]  # min(NaN, 1) is 1 on a GPU
    assert torch.isnan(kept[0]) and kept[1:4].tolist() == [1.0, -5.0, 0.5]


@triton.jit
def _row_sums(x_ptr, out_ptr, K, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, K, BLOCK):  # a loop bound passed as an argument
        offs = k + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * K + offs, mask=offs < K, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, 0))


def row_sums(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
    if x.numel():
        _row_sums[(x.shape[0],)](x, out, x.shape[1], BLOCK=64)
    return out


@pytest.fixture
def triton_36_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """Triton 3.6's interpreter takes a loop bound's index as int() of a one-element 1-D array, which NumPy 2.4
    refuses; that conversion put back as triton 3.6 has it (skipped under a NumPy that still converts)."""
    import numpy as np
    from triton.runtime import interpreter

    try:
        int(np.zeros(1))
        pytest.skip("this NumPy still converts a one-element array to a scalar")
    except TypeError:
        pass
    original = interpreter._patch_lang_tensor

    def as_in_triton_36(tensor, scope):  # type: ignore[no-untyped-def]
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data))

    monkeypatch.setattr(interpreter, "_patch_lang_tensor", as_in_triton_36)


@pytest.mark.interpreter
def test_a_loop_bound_passed_as_an_argument_runs_in_triton_36s_interpreter_under_numpy_24(triton_36_index):
    """Every kernel with `for k in range(0, K, BLOCK)` raised a TypeError under triton 3.6 and NumPy 2.4 (gemm and
    sum_reduction on the H100's triton 3.6); kcheck's route runs the kernel anyway."""
    spec = kcheck.Spec(name="row_sums", kernel=row_sums, reference=lambda x: x.double().sum(1).to(x.dtype),
                       inputs=[kcheck.Tensor("M", "K")], reduce=["K"], dtypes=["fp32"],
                       dims={"M": kcheck.Dim(nominal=4, real=()), "K": kcheck.Dim(nominal=200, real=())})
    report = kcheck.check(spec, tier="quick", large=False, cases="M=4,K=200,fp32,randn")
    assert report.cases and all(c.status is kcheck.Status.PASSED for c in report.cases), kcheck.format_report(report)


@pytest.mark.interpreter
def test_a_loop_bound_passed_as_an_argument_runs_under_checked_in_triton_36s_interpreter(triton_36_index):
    """The same, through ``kcheck.interpret.checked()`` used directly around a launcher (the H100's triton 3.6 failed
    8 of tests/test_interpret.py's correct examples with the TypeError: gemm, sum_reduction, softmax, layernorm)."""
    import kcheck.interpret as ki

    x = torch.randn(4, 200, generator=torch.Generator().manual_seed(0))
    with ki.checked() as report:
        out = row_sums(x)
    assert report.ok, report.describe()
    torch.testing.assert_close(out, x.sum(1))
