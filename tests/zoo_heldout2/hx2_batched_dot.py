"""Batched dot products: out[b] = sum_k x[b, k] * y[b, k] (per-pair scores of a retrieval or a contrastive loss).
BLOCK_B rows per program, a loop over K in BLOCK_K chunks, one lane-wise accumulator reduced at the end."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def batched_dot_kernel(x_ptr, y_ptr, out_ptr, B, K, stride_xb, stride_xk, stride_yb, stride_yk,
                       BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_B + tl.arange(0, BLOCK_B).to(tl.int64)
    row_mask = rows < B
    acc = tl.zeros([BLOCK_B, BLOCK_K], dtype=out_ptr.dtype.element_ty)
    for start in range(0, K, BLOCK_K):
        ks = start + tl.arange(0, BLOCK_K).to(tl.int64)
        mask = row_mask[:, None] & (ks < K)[None, :]
        x = tl.load(x_ptr + rows[:, None] * stride_xb + ks[None, :] * stride_xk, mask=mask, other=0.0)
        y = tl.load(y_ptr + rows[:, None] * stride_yb + ks[None, :] * stride_yk, mask=mask, other=0.0)
        acc += x * y
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=row_mask)


def batched_dot(x, y, BLOCK_B=4, BLOCK_K=256):
    B, K = x.shape
    out = torch.empty(B, dtype=x.dtype, device=x.device)
    if B == 0:
        return out
    if K == 0:
        return out.zero_()
    batched_dot_kernel[(triton.cdiv(B, BLOCK_B),)](x, y, out, B, K, x.stride(0), x.stride(1), y.stride(0),
                                                   y.stride(1), BLOCK_B=BLOCK_B, BLOCK_K=BLOCK_K)
    return out


spec = kcheck.Spec(
    name="hx2_batched_dot",
    kernel=batched_dot,
    reference=lambda x, y: (x * y).sum(-1),
    inputs=[kcheck.Tensor("B", "K"), kcheck.Tensor("B", "K")],
    dims={"B": kcheck.Dim(nominal=32, real=()), "K": kcheck.Dim(nominal=2048)},
    reduce=["K"],
    configs=[{"BLOCK_B": 4, "BLOCK_K": 256}, {"BLOCK_B": 2, "BLOCK_K": 64}],
)

BUG_CLASS = "low-precision-accumulation"
