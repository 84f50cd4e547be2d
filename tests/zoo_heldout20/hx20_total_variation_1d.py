"""Total variation of each row of a batch of 1-D signals: tv[b] = sum_{i < N-1} |x[b, i+1] - x[b, i]|.

Grid (B, column chunks): each program sums the differences of its BLOCK columns in fp32 and adds the partial sum
into an fp32 per-row accumulator with tl.atomic_add; the launcher casts to the input dtype. int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def tv_kernel(x_ptr, acc_ptr, N, stride_b, stride_n, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    i = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = i < N - 1
    base = x_ptr + b * stride_b
    x0 = tl.load(base + i * stride_n, mask=mask, other=0.0).to(tl.float32)
    x1 = tl.load(base + (i + 1) * stride_n, mask=mask, other=0.0).to(tl.float32)
    partial = tl.sum(tl.where(mask, tl.abs(x1 - x0), 0.0), axis=0)
    tl.store(acc_ptr + b, partial)


def total_variation(x: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    B, N = x.shape
    acc = torch.zeros(B, dtype=torch.float32, device=x.device)
    if B and N > 1:
        tv_kernel[(B, triton.cdiv(N - 1, BLOCK))](x, acc, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return acc.to(x.dtype)


def reference(x: torch.Tensor) -> torch.Tensor:
    return (x[:, 1:] - x[:, :-1]).abs().sum(-1)


spec = kcheck.Spec(
    name="total_variation_1d",
    kernel=total_variation,
    reference=reference,
    inputs=[kcheck.Tensor("B", "N")],
    dims={"B": kcheck.Dim(nominal=16, max=32, real=()), "N": kcheck.Dim(nominal=2048, real=())},
    reduce=["N"],
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

BUG_CLASS = "missing-atomic"
