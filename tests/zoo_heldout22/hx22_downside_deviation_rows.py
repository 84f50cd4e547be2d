"""Downside deviation of each asset's returns (the denominator of the Sortino ratio), minimum acceptable return 0.

    dd[m] = sqrt(mean_n min(r[m, n], 0)^2)

Only losses count; a NaN return propagates. One program per asset walks its return history in BLOCK_N-wide
chunks, squares the losses in fp32, and adds each chunk's sum to a running fp32 total.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def downside_dev_kernel(r_ptr, out_ptr, N, srm, srn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    r_row = r_ptr + row * srm
    total = 0.0
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        r = tl.load(r_row + cols * srn, mask=cols < N, other=0.0)
        loss = tl.where(r > 0.0, 0.0, r)
        total += tl.sum(loss * loss, axis=0)
    dd = tl.sqrt(total / N)
    tl.store(out_ptr + row, dd.to(out_ptr.dtype.element_ty))


def downside_deviation(returns, BLOCK_N=1024):
    M, N = returns.shape
    if N == 0:
        return torch.full((M,), float("nan"), dtype=returns.dtype, device=returns.device)
    out = torch.empty((M,), dtype=returns.dtype, device=returns.device)
    if M:
        downside_dev_kernel[(M,)](returns, out, N, returns.stride(0), returns.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(returns):
    loss = torch.where(returns > 0, torch.zeros_like(returns), returns)
    return torch.sqrt((loss * loss).mean(-1))


spec = kcheck.Spec(
    name="hx22_downside_deviation_rows",
    kernel=downside_deviation,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="returns")],
    dims={"M": kcheck.Dim(nominal=32, max=64, real=()), "N": kcheck.Dim(nominal=4096, real=(2520, 98280))},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 256}],
)
