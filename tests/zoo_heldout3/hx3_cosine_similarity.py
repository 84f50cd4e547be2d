"""Row-wise cosine similarity of two (M, D) tensors, as `F.cosine_similarity(a, b, dim=-1)`: out[m] = a.b / (|a| |b|).
One program per BLOCK_M rows; the three dot products in fp32 over the whole row (D <= 4096) in one tile."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def cosine_kernel(a_ptr, b_ptr, out_ptr, M, D, stride_am, stride_ad, stride_bm, stride_bd,
                  BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_D).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols[None, :] < D)
    a = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :] * stride_ad, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rows[:, None] * stride_bm + cols[None, :] * stride_bd, mask=mask, other=0.0).to(tl.float32)
    dot = tl.sum(a * b, axis=1)
    na = tl.sqrt(tl.sum(a * a, axis=1))
    nb = tl.sqrt(tl.sum(b * b, axis=1))
    tl.store(out_ptr + rows, (dot / (na * nb)).to(out_ptr.dtype.element_ty), mask=row_mask)


def cosine_similarity(a: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 8) -> torch.Tensor:
    M, D = a.shape
    out = torch.empty(M, dtype=a.dtype, device=a.device)
    if M == 0:
        return out
    block_d = triton.next_power_of_2(max(D, 1))
    cosine_kernel[(triton.cdiv(M, BLOCK_M),)](a, b, out, M, D, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                             BLOCK_M=BLOCK_M, BLOCK_D=block_d)
    return out


spec = kcheck.Spec(
    name="hx3_cosine_similarity",
    kernel=cosine_similarity,
    reference=lambda a, b: torch.nn.functional.cosine_similarity(a, b, dim=-1),
    inputs=[kcheck.Tensor("M", "D"), kcheck.Tensor("M", "D")],
    dims={"M": kcheck.Dim(nominal=512), "D": kcheck.Dim(nominal=768, max=4096)},
    reduce=["D"],
    configs=[{"BLOCK_M": 8}, {"BLOCK_M": 1}],
)

BUG_CLASS = "division-by-zero"
