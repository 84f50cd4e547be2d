"""Residual sum of squares per row: out[m] = sum_n (pred[m, n] - target[m, n])^2. The grid is (rows, column
chunks); each program reduces one chunk in fp32 and adds it into its row's fp32 accumulator with tl.atomic_add."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def rss_kernel(p_ptr, t_ptr, acc_ptr, N, spm, spn, stm, stn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1).to(tl.int64)
    cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = cols < N
    p = tl.load(p_ptr + row * spm + cols * spn, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + row * stm + cols * stn, mask=mask, other=0.0).to(tl.float32)
    d = p - t
    tl.store(acc_ptr + row, tl.sum(d * d, axis=0))


def residual_sum_squares(pred: torch.Tensor, target: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = pred.shape
    acc = torch.zeros((M,), dtype=torch.float32, device=pred.device)
    if M and N:
        rss_kernel[(M, triton.cdiv(N, BLOCK_N))](pred, target, acc, N, pred.stride(0), pred.stride(1),
                                                 target.stride(0), target.stride(1), BLOCK_N=BLOCK_N)
    return acc.to(pred.dtype)


def reference(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return ((pred - target) ** 2).sum(-1)


spec = kcheck.Spec(
    name="hx21_residual_sum_squares",
    kernel=residual_sum_squares,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=2048, max=8192)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 1024}],
)
BUG_CLASS = "missing-atomic"
