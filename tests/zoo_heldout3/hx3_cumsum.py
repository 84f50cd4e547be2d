"""Inclusive prefix sum along the last dimension, `torch.cumsum(x, dim=-1)`, for rows up to 8192 long: BLOCK_M rows
per program, each row loaded whole into one tile and scanned with tl.cumsum in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] <= N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
    y = tl.cumsum(x.to(tl.float32), axis=1)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty),
             mask=mask)


def cumsum(x: torch.Tensor, TILE: int = 8192) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    cumsum_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                              BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx3_cumsum",
    kernel=cumsum,
    reference=lambda x: torch.cumsum(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, max=8192)},
    reduce=["N"],
    configs=[{"TILE": 8192}, {"TILE": 1024}],
    properties=[kcheck.props.linear()],
)

BUG_CLASS = "off-by-one-mask"
