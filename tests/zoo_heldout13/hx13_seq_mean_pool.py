"""Mean pooling over the sequence axis of [B, L, C] activations (sentence embeddings, audio frame pooling):
out[b, c] = mean_l x[b, l, c]. A 2-D grid of (batch, channel block) programs, each walking L in BLOCK_L chunks
and keeping a [BLOCK_L, BLOCK_C] running sum, reduced at the end.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def mean_pool_kernel(x_ptr, o_ptr, L, C, stride_xb, stride_xl, stride_xc, stride_ob, stride_oc,
                     BLOCK_L: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    c_mask = c < C
    acc = tl.zeros([BLOCK_L, BLOCK_C], dtype=x_ptr.dtype.element_ty)
    for start in range(0, L, BLOCK_L):
        l = start + tl.arange(0, BLOCK_L).to(tl.int64)
        mask = (l < L)[:, None] & c_mask[None, :]
        x = tl.load(x_ptr + b * stride_xb + l[:, None] * stride_xl + c[None, :] * stride_xc, mask=mask, other=0.0)
        acc += x
    mean = tl.sum(acc.to(tl.float32), axis=0) / L
    tl.store(o_ptr + b * stride_ob + c * stride_oc, mean.to(o_ptr.dtype.element_ty), mask=c_mask)


def seq_mean_pool(x: torch.Tensor, BLOCK_L: int = 16, BLOCK_C: int = 64) -> torch.Tensor:
    B, L, C = x.shape
    out = torch.empty((B, C), dtype=x.dtype, device=x.device)
    if B == 0 or C == 0:
        return out
    if L == 0:
        return out.fill_(float("nan"))
    mean_pool_kernel[(B, triton.cdiv(C, BLOCK_C))](x, out, L, C, x.stride(0), x.stride(1), x.stride(2),
                                                   out.stride(0), out.stride(1), BLOCK_L=BLOCK_L, BLOCK_C=BLOCK_C)
    return out


BUG_CLASS = "low-precision-accumulation"

spec = kcheck.Spec(
    name="hx13_seq_mean_pool",
    kernel=seq_mean_pool,
    reference=lambda x: x.mean(dim=1),
    inputs=[kcheck.Tensor("B", "L", "C", name="x")],
    dims={"B": kcheck.Dim(nominal=4, max=65535, real=()), "L": kcheck.Dim(nominal=512, min=1, real=()),
          "C": kcheck.Dim(nominal=96, real=())},
    reduce=["L"],
    configs=[{"BLOCK_L": 16, "BLOCK_C": 64}, {"BLOCK_L": 64, "BLOCK_C": 32}],
)
