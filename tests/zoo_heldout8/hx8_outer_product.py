"""Scaled outer product, as in a rank-1 update: out[i, j] = alpha * a[i] * b[j]. A 2-D grid of BLOCK_M x BLOCK_N
output tiles, both edges masked; fp32 products, stored in the input dtype; int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def outer_kernel(a_ptr, b_ptr, out_ptr, M, N, alpha, stride_a, stride_b, stride_om, stride_on,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < M
    cmask = cols < N
    a = tl.load(a_ptr + rows * stride_a, mask=rmask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols * stride_b, mask=cmask, other=0.0).to(tl.float32)
    o = alpha * a[:, None] * b[None, :]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, o.to(out_ptr.dtype.element_ty),
             mask=rmask[:, None] & cmask[None, :])


def outer(a: torch.Tensor, b: torch.Tensor, alpha: float = 0.5, BLOCK_M: int = 32, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = a.shape[0], b.shape[0]
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return out
    grid = (M // BLOCK_M, triton.cdiv(N, BLOCK_N))
    outer_kernel[grid](a, b, out, M, N, alpha, a.stride(0), b.stride(0), out.stride(0), out.stride(1),
                       BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx8_outer_product",
    kernel=outer,
    reference=lambda a, b, alpha=0.5: alpha * torch.outer(a, b),
    inputs=[kcheck.Tensor("M", name="a"), kcheck.Tensor("N", name="b")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=256)},
    params={"alpha": [0.5, -2.0]},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 16, "BLOCK_N": 16}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "tail-tile-dropped"
