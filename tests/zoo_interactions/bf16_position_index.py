"""Bug class: position indices materialized in a low precision, wrong only past 256 rows in bf16 (2048 in fp16).

Adds a learned position embedding: ``y[m, n] = x[m, n] + table[m, n]``. The kernel computes the row's position
through the input's dtype (``pos = offs_m.to(x.dtype).to(tl.int32)``) before indexing the table. fp32 holds every
row index exactly; bf16 only up to 256 (row 257 reads row 256's embedding, row 301 row 300's) and fp16 up to 2048.
A matrix that runs the low precisions only at the nominal and the 129 shapes, and large sizes only in fp32, never
sees it.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"
GPU_ONLY = False


@triton.jit
def add_position_kernel(x_ptr, t_ptr, out_ptr, M, N, sx, st, so, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(x_ptr + offs_m[:, None].to(tl.int64) * sx + offs_n[None, :], mask=mask, other=0.0)
    pos = offs_m.to(x_ptr.dtype.element_ty).to(tl.int32)  # BUG: the position passes through the input's dtype
    pos = tl.minimum(pos, M - 1)
    emb = tl.load(t_ptr + pos[:, None].to(tl.int64) * st + offs_n[None, :], mask=mask, other=0.0)
    y = x.to(tl.float32) + emb.to(tl.float32)
    tl.store(out_ptr + offs_m[:, None].to(tl.int64) * so + offs_n[None, :], y.to(x_ptr.dtype.element_ty), mask=mask)


def add_position(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if x.numel():
        block_n = triton.next_power_of_2(N)
        add_position_kernel[(triton.cdiv(M, 16),)](x, table, out, M, N, x.stride(0), table.stride(0), out.stride(0),
                                                   BLOCK_M=16, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="bf16_position_index",
    kernel=add_position,
    reference=lambda x, table: x + table,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128, real=(2880,)), "N": kcheck.Dim(nominal=64, max=512, real=(128,))},
    dtypes=["fp32", "bf16", "fp16"],
)
