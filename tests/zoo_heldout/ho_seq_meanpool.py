"""Mean pooling over the sequence: out[b, d] = mean_t x[b, t, d], for x of shape (B, T, D).

Programs own (BLOCK_B batches, BLOCK_D features) and walk the sequence one position at a time, so each load is a
contiguous run of features; the output is in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"
GPU_ONLY = False


@triton.jit
def _meanpool_kernel(x_ptr, out_ptr, B, T, D, stride_xb, stride_xt, stride_xd, stride_ob, stride_od,
                     BLOCK_B: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    d = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = (b < B)[:, None] & (d < D)[None, :]
    base = x_ptr + b[:, None] * stride_xb + d[None, :] * stride_xd
    acc = tl.zeros([BLOCK_B, BLOCK_D], dtype=x_ptr.dtype.element_ty)
    for t in range(0, T):
        acc += tl.load(base + t * stride_xt, mask=mask, other=0.0)
    mean = acc.to(tl.float32) / T
    tl.store(out_ptr + b[:, None] * stride_ob + d[None, :] * stride_od, mean.to(out_ptr.dtype.element_ty), mask=mask)


def seq_meanpool(x: torch.Tensor, BLOCK_B: int = 8, BLOCK_D: int = 128) -> torch.Tensor:
    B, T, D = x.shape
    out = torch.empty((B, D), dtype=x.dtype, device=x.device)
    if B == 0 or D == 0:
        return out
    if T == 0:
        return out.fill_(float("nan"))
    grid = (triton.cdiv(B, BLOCK_B), triton.cdiv(D, BLOCK_D))
    _meanpool_kernel[grid](x, out, B, T, D, x.stride(0), x.stride(1), x.stride(2), out.stride(0), out.stride(1),
                           BLOCK_B=BLOCK_B, BLOCK_D=BLOCK_D)
    return out


spec = kcheck.Spec(
    name="ho_seq_meanpool",
    kernel=seq_meanpool,
    reference=lambda x: x.mean(dim=1),
    inputs=[kcheck.Tensor("B", "T", "D")],
    dims={"B": kcheck.Dim(nominal=4, real=()), "T": kcheck.Dim(nominal=512, real=(2880,)),
          "D": kcheck.Dim(nominal=64, real=(128,))},
    reduce=["T"],
    configs=[{"BLOCK_B": 8, "BLOCK_D": 128}, {"BLOCK_B": 1, "BLOCK_D": 32}],
)
