"""Mean pooling over the sequence: out[d] = mean_t x[t, d] for the hidden states x [T, D] of one sequence, as a
sentence-embedding head does. One program per BLOCK_D slice of the features walks the T positions and keeps a
running sum."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def mean_pool_kernel(x_ptr, out_ptr, T, D, stride_t, stride_d, BLOCK_D: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = cols < D
    base = x_ptr + cols * stride_d
    acc = tl.zeros([BLOCK_D], dtype=x_ptr.dtype.element_ty)
    for t in range(0, T):
        acc += tl.load(base + t * stride_t, mask=mask, other=0.0)
    mean = acc.to(tl.float32) / T
    tl.store(out_ptr + cols, mean.to(out_ptr.dtype.element_ty), mask=mask)


def mean_pool(x, BLOCK_D=64):
    T, D = x.shape
    out = torch.empty(D, dtype=x.dtype, device=x.device)
    if D == 0:
        return out
    if T == 0:
        return out.fill_(float("nan"))
    mean_pool_kernel[(triton.cdiv(D, BLOCK_D),)](x, out, T, D, x.stride(0), x.stride(1), BLOCK_D=BLOCK_D)
    return out


spec = kcheck.Spec(
    name="hx4_seq_mean_pool",
    kernel=mean_pool,
    reference=lambda x: x.mean(0),
    inputs=[kcheck.Tensor("T", "D")],
    dims={"T": kcheck.Dim(nominal=256, real=(37, 2880)), "D": kcheck.Dim(nominal=128)},
    reduce=["T"],
    configs=[{"BLOCK_D": 64}, {"BLOCK_D": 32}],
)

BUG_CLASS = "low-precision-accumulation"
