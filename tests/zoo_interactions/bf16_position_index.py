"""Bug class: position indices materialized in a low precision, wrong only in bf16 past 256 rows.

A rotary-style scaling ``y[m, n] = x[m, n] * cos(m * theta_n)``. The kernel turns the row index into the input's
dtype before the angle is computed (``pos = offs_m.to(x.dtype)``). fp32 and fp16 hold every position below 2049
exactly, bf16 only up to 256: row 257 becomes 256, row 301 becomes 300, and the cosine of a position off by one is
wrong in its first digit. A matrix that runs bf16 only at the nominal and the 129 shapes never sees it.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"
GPU_ONLY = False


@triton.jit
def rotary_scale_kernel(x_ptr, out_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    ptrs = offs_m[:, None].to(tl.int64) * stride + offs_n[None, :]
    x = tl.load(x_ptr + ptrs, mask=mask, other=0.0)
    pos = offs_m.to(x_ptr.dtype.element_ty).to(tl.float32)  # BUG: the position passes through the input's dtype
    theta = tl.exp(-(offs_n.to(tl.float32) / N) * 9.210340371976184)  # 10000 ** (-n / N)
    y = x.to(tl.float32) * tl.cos(pos[:, None] * theta[None, :])
    tl.store(out_ptr + ptrs, y.to(x_ptr.dtype.element_ty), mask=mask)


def rotary_scale(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty_like(x)
    if x.numel():
        block_n = triton.next_power_of_2(N)
        rotary_scale_kernel[(triton.cdiv(M, 16),)](x, out, M, N, x.stride(0), BLOCK_M=16, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    pos = torch.arange(M, dtype=torch.float64, device=x.device)
    theta = 10000.0 ** (-torch.arange(N, dtype=torch.float64, device=x.device) / N)
    return (x.to(torch.float64) * torch.cos(pos[:, None] * theta[None, :])).to(x.dtype)


spec = kcheck.Spec(
    name="bf16_position_index",
    kernel=rotary_scale,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=64, max=1024, real=(128,))},
    dtypes=["fp32", "bf16"],
)
