"""Mean pooling over the sequence axis: out[b, :] = mean_l x[b, l, :], as a sentence-embedding head does.

Programs tile (batch, BLOCK_D feature columns); each walks its sequence one position at a time, a contiguous run of
BLOCK_D features per step, so every load is a coalesced row segment. The running sum stays in registers and is
divided by L at the end; the result comes back in the input dtype. int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def mean_pool_kernel(x_ptr, out_ptr, L, D, stride_xb, stride_xl, stride_xd, stride_ob, stride_od,
                     BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D).to(tl.int64)
    mask = cols < D
    base = x_ptr + b * stride_xb + cols * stride_xd
    acc = tl.zeros([BLOCK_D], dtype=out_ptr.dtype.element_ty)
    for pos in range(0, L):
        acc += tl.load(base + pos * stride_xl, mask=mask, other=0.0)
    mean = acc.to(tl.float32) / L
    tl.store(out_ptr + b * stride_ob + cols * stride_od, mean.to(out_ptr.dtype.element_ty), mask=mask)


def mean_pool(x: torch.Tensor, BLOCK_D: int = 128) -> torch.Tensor:
    B, L, D = x.shape
    out = torch.empty((B, D), dtype=x.dtype, device=x.device)
    if B == 0 or D == 0:
        return out
    if L == 0:
        return out.fill_(float("nan"))  # the mean of nothing
    block_d = min(BLOCK_D, triton.next_power_of_2(D))
    mean_pool_kernel[(B, triton.cdiv(D, block_d))](x, out, L, D, x.stride(0), x.stride(1), x.stride(2),
                                                   out.stride(0), out.stride(1), BLOCK_D=block_d)
    return out


spec = kcheck.Spec(
    name="hx5_sequence_mean_pool",
    kernel=mean_pool,
    reference=lambda x: x.mean(dim=1),
    inputs=[kcheck.Tensor("B", "L", "D")],
    # grid axis 1 holds the feature blocks (at most 65535): D stays out of the past-2**31 case
    dims={"B": kcheck.Dim(nominal=16), "L": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=512, large=False)},
    reduce=["L"],
    configs=[{"BLOCK_D": 128}, {"BLOCK_D": 32}],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "low-precision-accumulation"
