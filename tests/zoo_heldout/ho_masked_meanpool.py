"""Attention-mask-aware mean pooling (sentence embeddings): out[b, d] = sum_t mask[b, t] * x[b, t, d] /
sum_t mask[b, t], for hidden states x (B, T, D) and a 0/1 mask (B, T). fp32 sums, output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"
GPU_ONLY = False


@triton.jit
def _masked_mean_kernel(x_ptr, m_ptr, out_ptr, B, T, D, stride_xb, stride_xt, stride_xd, stride_mb, stride_mt,
                        stride_ob, stride_od, BLOCK_B: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    d = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    b_mask = b < B
    mask = b_mask[:, None] & (d < D)[None, :]
    acc = tl.zeros([BLOCK_B, BLOCK_D], dtype=tl.float32)
    count = tl.zeros([BLOCK_B], dtype=tl.float32)
    for t in range(0, T):
        keep = tl.load(m_ptr + b * stride_mb + t * stride_mt, mask=b_mask, other=0).to(tl.float32)
        x = tl.load(x_ptr + b[:, None] * stride_xb + t * stride_xt + d[None, :] * stride_xd, mask=mask, other=0.0)
        acc += keep[:, None] * x.to(tl.float32)
        count += keep
    out = acc / count[:, None]
    tl.store(out_ptr + b[:, None] * stride_ob + d[None, :] * stride_od, out.to(out_ptr.dtype.element_ty), mask=mask)


def masked_meanpool(x: torch.Tensor, mask: torch.Tensor, BLOCK_B: int = 8, BLOCK_D: int = 128) -> torch.Tensor:
    B, T, D = x.shape
    out = torch.empty((B, D), dtype=x.dtype, device=x.device)
    if B == 0 or D == 0:
        return out
    if T == 0:
        return out.zero_()
    grid = (triton.cdiv(B, BLOCK_B), triton.cdiv(D, BLOCK_D))
    _masked_mean_kernel[grid](x, mask, out, B, T, D, x.stride(0), x.stride(1), x.stride(2), mask.stride(0),
                              mask.stride(1), out.stride(0), out.stride(1), BLOCK_B=BLOCK_B, BLOCK_D=BLOCK_D)
    return out


def reference(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.to(x.dtype).unsqueeze(-1)
    return (x * m).sum(1) / m.sum(1).clamp_min(1e-9)


spec = kcheck.Spec(
    name="ho_masked_meanpool",
    kernel=masked_meanpool,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", "D"), kcheck.Index("B", "T", high=2)],
    dims={"B": kcheck.Dim(nominal=8, real=()), "T": kcheck.Dim(nominal=128, real=(512,)),
          "D": kcheck.Dim(nominal=64, real=(384,))},
    reduce=["T"],
    configs=[{"BLOCK_B": 8, "BLOCK_D": 128}, {"BLOCK_B": 2, "BLOCK_D": 32}],
)
