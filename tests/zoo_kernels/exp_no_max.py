"""Bug class: softmax without subtracting the row max (exp overflow).

exp(x) / sum(exp(x)) is softmax in exact arithmetic, and on randn data (|x| < 5) it matches the reference to a few
ulp. But exp overflows fp32 past x = 88.7: on large logits (randn x 100) or a large mean (1e4 + randn) the
numerator and the sum become inf and the row comes out NaN (inf / inf), or 0 where only the sum overflowed.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def softmax_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask,
                other=-float("inf")).to(tl.float32)
    p = tl.exp(x)  # BUG: should be tl.exp(x - tl.max(x, axis=1)[:, None])
    y = p / tl.sum(p, axis=1)[:, None]
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty),
             mask=mask)


def softmax(x: torch.Tensor, TILE: int = 4096) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    softmax_kernel[(triton.cdiv(M, block_m),)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0),
                                              out.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="exp_no_max",
    kernel=softmax,
    reference=lambda x: torch.softmax(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    properties=[kcheck.props.shift_invariant(0)],
)

BUG_CLASS = "exp-overflow"
