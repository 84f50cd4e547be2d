"""Row scale and column shift, the affine step of a per-token quantized linear layer's epilogue:
out[m, n] = x[m, n] * scale[m] + shift[n]. A 2-D grid of BLOCK_M x BLOCK_N tiles, strided rows, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def scale_shift_kernel(x_ptr, s_ptr, t_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_s, stride_t, stride_om,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    r_ok = rows < M
    c_ok = cols < N
    mask = r_ok[:, None] & c_ok[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
    s = tl.load(s_ptr + rows * stride_s, mask=r_ok, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + cols * stride_t, mask=c_ok, other=0.0).to(tl.float32)
    y = x.to(tl.float32) * s[:, None] + t[None, :]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def row_scale_shift(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor, BLOCK_M: int = 16,
                    BLOCK_N: int = 64) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    scale_shift_kernel[grid](x, scale, shift, out, M, N, x.stride(0), x.stride(1), scale.stride(0), shift.stride(0),
                             out.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx9_row_scale_shift_ok",
    kernel=row_scale_shift,
    reference=lambda x, scale, shift: x * scale[:, None] + shift[None, :],
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", name="scale"), kcheck.Tensor("N", name="shift")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 64, "BLOCK_N": 16}],
)

BUG_CLASS = None  # the planted class (from the README's table), for benchmarks/zoo.py
