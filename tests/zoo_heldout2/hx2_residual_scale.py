"""Fused residual add and per-channel gain: y = (x + alpha * residual) * gain[col], on 2-D tiles, fp32 math.

The residual stream is made contiguous by the launcher (it usually is); x may be a strided view. int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

ALPHA = 0.5


@triton.jit
def residual_scale_kernel(x_ptr, res_ptr, gain_ptr, out_ptr, M, N, alpha, stride_xm, stride_xn, stride_g,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
    r = tl.load(res_ptr + rows[:, None] * M + cols[None, :], mask=mask, other=0.0)
    g = tl.load(gain_ptr + cols * stride_g, mask=col_mask, other=0.0)
    y = (x.to(tl.float32) + alpha * r.to(tl.float32)) * g.to(tl.float32)[None, :]
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def residual_scale(x, residual, gain, BLOCK_M=16, BLOCK_N=64):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    residual = residual.contiguous()
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    residual_scale_kernel[grid](x, residual, gain, out, M, N, ALPHA, x.stride(0), x.stride(1), gain.stride(0),
                                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx2_residual_scale",
    kernel=residual_scale,
    reference=lambda x, r, g: (x + ALPHA * r) * g,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=192)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 4, "BLOCK_N": 128}],
)

BUG_CLASS = "index-transposition"
