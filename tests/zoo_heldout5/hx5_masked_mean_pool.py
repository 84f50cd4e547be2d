"""Attention-mask mean pooling (sentence embeddings): out[b, :] = sum_l mask[b, l] x[b, l, :] / sum_l mask[b, l],
x of shape [B, L, D], mask a boolean [B, L] (padding positions False).

Programs tile (batch, BLOCK_D features) and walk the sequence BLOCK_L positions at a time, summing the masked
rows and the count of valid positions in fp32. Output in the input dtype; int64 offsets; any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def masked_mean_kernel(x_ptr, m_ptr, out_ptr, L, D, stride_xb, stride_xl, stride_xd, stride_mb, stride_ml,
                       stride_ob, stride_od, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D).to(tl.int64)
    col_mask = cols < D
    acc = tl.zeros([BLOCK_L, BLOCK_D], dtype=tl.float32)
    count = tl.zeros([BLOCK_L], dtype=tl.float32)
    for start in range(0, L, BLOCK_L):
        pos = start + tl.arange(0, BLOCK_L).to(tl.int64)
        pos_mask = pos < L
        keep = tl.load(m_ptr + b * stride_mb + pos * stride_ml, mask=pos_mask, other=0).to(tl.int1)
        tile_mask = (pos_mask & keep)[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + b * stride_xb + pos[:, None] * stride_xl + cols[None, :] * stride_xd,
                    mask=tile_mask, other=0.0)
        acc += x.to(tl.float32)
        count += keep.to(tl.float32)
    mean = tl.sum(acc, axis=0) / tl.sum(count, axis=0)
    tl.store(out_ptr + b * stride_ob + cols * stride_od, mean.to(out_ptr.dtype.element_ty), mask=col_mask)


def masked_mean_pool(x: torch.Tensor, mask: torch.Tensor, BLOCK_L: int = 32, BLOCK_D: int = 128) -> torch.Tensor:
    B, L, D = x.shape
    out = torch.empty((B, D), dtype=x.dtype, device=x.device)
    if B == 0 or D == 0:
        return out
    if L == 0:
        return out.zero_()
    block_d = min(BLOCK_D, triton.next_power_of_2(D))
    masked_mean_kernel[(B, triton.cdiv(D, block_d))](
        x, mask, out, L, D, x.stride(0), x.stride(1), x.stride(2), mask.stride(0), mask.stride(1),
        out.stride(0), out.stride(1), BLOCK_L=BLOCK_L, BLOCK_D=block_d)
    return out


def reference(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    keep = mask[:, :, None]
    total = torch.where(keep, x, torch.zeros((), dtype=x.dtype)).sum(dim=1)  # padding values take no part
    count = keep.to(x.dtype).sum(dim=1).clamp(min=1.0)  # a sequence with no valid position pools to zeros
    return total / count


spec = kcheck.Spec(
    name="hx5_masked_mean_pool",
    kernel=masked_mean_pool,
    reference=reference,
    inputs=[kcheck.Tensor("B", "L", "D", name="x"), kcheck.Tensor("B", "L", dtype=torch.bool, density=0.7,
                                                                  name="mask")],
    # grid axis 1 holds the feature blocks (at most 65535): D stays out of the past-2**31 case
    dims={"B": kcheck.Dim(nominal=8), "L": kcheck.Dim(nominal=128), "D": kcheck.Dim(nominal=256, large=False)},
    reduce=["L"],
    configs=[{"BLOCK_L": 32, "BLOCK_D": 128}, {"BLOCK_L": 8, "BLOCK_D": 32}],
)

BUG_CLASS = "division-by-zero"
