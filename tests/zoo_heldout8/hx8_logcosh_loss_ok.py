"""Log-cosh regression loss averaged per row: out[m] = mean_n log(cosh(x[m, n] - y[m, n])), evaluated stably as
|d| + log(1 + exp(-2|d|)) - log(2) so that large residuals do not overflow cosh. One program per row, BLOCK_N
chunks, fp32 per-lane accumulator, stored in the input dtype."""

import math

import torch
import triton
import triton.language as tl

import kcheck

LOG2 = math.log(2.0)


@triton.jit
def logcosh_rows_kernel(x_ptr, y_ptr, out_ptr, N, log2, stride_xm, stride_xn, stride_ym, stride_yn,
                        BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + row * stride_ym + cols * stride_yn, mask=mask, other=0.0).to(tl.float32)
        a = tl.abs(x - y)
        v = a + tl.log(1.0 + tl.exp(-2.0 * a)) - log2
        acc += tl.where(mask, v, 0.0)
    tl.store(out_ptr + row, (tl.sum(acc, axis=0) / N).to(out_ptr.dtype.element_ty))


def logcosh_rows(x: torch.Tensor, y: torch.Tensor, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    logcosh_rows_kernel[(M,)](x, y, out, N, LOG2, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                              BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    d = (x - y).abs()
    return (d + torch.log1p(torch.exp(-2.0 * d)) - math.log(2.0)).mean(-1)


spec = kcheck.Spec(
    name="hx8_logcosh_loss_ok",
    kernel=logcosh_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, min=1)},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 64}],
)

BUG_CLASS = None
