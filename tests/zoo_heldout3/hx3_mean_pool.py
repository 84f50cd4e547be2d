"""Mean pooling over the sequence: out[b, d] = mean over l of x[b, l, d] for x (B, L, D), the sentence embedding of
an encoder. One program per (batch, BLOCK_D features), walking the L positions in BLOCK_L chunks; the result in the
input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def mean_pool_kernel(x_ptr, out_ptr, L, D, stride_xb, stride_xl, stride_xd, stride_ob, stride_od,
                     BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    col_mask = cols < D
    x_base = x_ptr + b * stride_xb + cols[None, :] * stride_xd
    acc = tl.zeros([BLOCK_L, BLOCK_D], dtype=out_ptr.dtype.element_ty)
    for start in range(0, L, BLOCK_L):
        pos = start + tl.arange(0, BLOCK_L).to(tl.int64)
        mask = (pos[:, None] < L) & col_mask[None, :]
        acc += tl.load(x_base + pos[:, None] * stride_xl, mask=mask, other=0.0)
    mean = tl.sum(acc, axis=0).to(tl.float32) / L
    tl.store(out_ptr + b * stride_ob + cols * stride_od, mean.to(out_ptr.dtype.element_ty), mask=col_mask)


def mean_pool(x: torch.Tensor, BLOCK_L: int = 16, BLOCK_D: int = 128) -> torch.Tensor:
    B, L, D = x.shape
    out = torch.empty((B, D), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    if L == 0:
        return out.fill_(float("nan"))
    grid = (B, triton.cdiv(D, BLOCK_D))
    mean_pool_kernel[grid](x, out, L, D, x.stride(0), x.stride(1), x.stride(2), out.stride(0), out.stride(1),
                           BLOCK_L=BLOCK_L, BLOCK_D=BLOCK_D)
    return out


spec = kcheck.Spec(
    name="hx3_mean_pool",
    kernel=mean_pool,
    reference=lambda x: x.mean(1),
    inputs=[kcheck.Tensor("B", "L", "D")],
    dims={"B": kcheck.Dim(nominal=8), "L": kcheck.Dim(nominal=512), "D": kcheck.Dim(nominal=768)},
    reduce=["L"],
    configs=[{"BLOCK_L": 16, "BLOCK_D": 128}, {"BLOCK_L": 64, "BLOCK_D": 64}],
)

BUG_CLASS = "low-precision-accumulation"
