"""Scatter-add of rows, `base.index_add(0, index, src)`: out[index[i], :] += src[i, :]. The output is accumulated in
an fp32 copy of base with atomic adds (several source rows may share a destination), then cast back to base's dtype.
Tiles of BLOCK_D columns by as many source rows as fit in about TILE elements; int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def scatter_add_kernel(src_ptr, idx_ptr, acc_ptr, T, D, stride_sm, stride_sd, stride_a,
                       BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    row_mask = rows < T
    mask = row_mask[:, None] & (cols[None, :] < D)
    dst = tl.load(idx_ptr + rows, mask=row_mask, other=0).to(tl.int64)
    v = tl.load(src_ptr + rows[:, None] * stride_sm + cols[None, :] * stride_sd, mask=mask, other=0.0)
    tl.atomic_add(acc_ptr + dst[:, None] * stride_a + cols[None, :], v.to(tl.float32), mask=mask)


def scatter_add(base: torch.Tensor, index: torch.Tensor, src: torch.Tensor, BLOCK_D: int = 128,
                TILE: int = 4096) -> torch.Tensor:
    acc = base.to(torch.float32, copy=True).contiguous()
    T, D = src.shape
    if T and D:
        block_d = min(BLOCK_D, triton.next_power_of_2(D))
        block_t = max(1, min(TILE // block_d, triton.next_power_of_2(T)))
        grid = (triton.cdiv(T, block_t), triton.cdiv(D, block_d))
        scatter_add_kernel[grid](src, index, acc, T, D, src.stride(0), src.stride(1), acc.stride(0),
                                 BLOCK_T=block_t, BLOCK_D=block_d)
    return acc.to(base.dtype)


spec = kcheck.Spec(
    name="hx3_scatter_add_ok",
    kernel=scatter_add,
    reference=lambda base, index, src: base.index_add(0, index, src),
    inputs=[kcheck.Tensor("V", "D", name="base"), kcheck.Index("T", high="V", name="index"),
            kcheck.Tensor("T", "D", name="src")],
    dims={"V": kcheck.Dim(nominal=64), "T": kcheck.Dim(nominal=512), "D": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_D": 128}, {"BLOCK_D": 64}],
)

BUG_CLASS = None
