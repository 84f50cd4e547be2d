"""RMSNorm weight gradient: dw[n] = sum_m dy[m, n] * x[m, n] * rstd[m], with rstd saved by the forward pass.
A 2-D grid: each program reduces a BLOCK_M x BLOCK_N tile over its rows in fp32 and folds its partial sums into
the fp32 result."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dweight_kernel(dy_ptr, x_ptr, rstd_ptr, dw_ptr, M, N, stride_dm, stride_xm,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    dy = tl.load(dy_ptr + rows[:, None] * stride_dm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    part = tl.sum(dy * x * rstd[:, None], axis=0)
    acc = tl.load(dw_ptr + cols, mask=cmask, other=0.0)
    tl.store(dw_ptr + cols, acc + part, mask=cmask)


def rmsnorm_dweight(dy, x, rstd, BLOCK_M=32, BLOCK_N=64):
    M, N = dy.shape
    dw = torch.zeros(N, dtype=torch.float32, device=dy.device)
    if M == 0 or N == 0:
        return dw
    if dy.stride(1) != 1:
        dy = dy.contiguous()
    if x.stride(1) != 1:
        x = x.contiguous()
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    dweight_kernel[grid](dy, x, rstd, dw, M, N, dy.stride(0), x.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return dw


def inverse_rms(ctx: kcheck.CaseContext) -> torch.Tensor:
    return (ctx.rand(ctx.dims["M"], dtype=torch.float32) + 0.5).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx4_rmsnorm_dweight",
    kernel=rmsnorm_dweight,
    reference=lambda dy, x, rstd: (dy * x * rstd[:, None]).sum(0),
    inputs=[kcheck.Tensor("M", "N", name="dy"), kcheck.Tensor("M", "N", name="x"),
            kcheck.Custom(inverse_rms, name="rstd", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=128)},
    reduce=["M"],
    output_dtypes=[torch.float32],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 64, "BLOCK_N": 32}],
)

BUG_CLASS = "missing-atomic"
