"""ReLU-squared attention normalization (Primer-style "squared ReLU" in place of the softmax):
p[m, n] = relu(x[m, n])^2 / sum_n relu(x[m, :])^2, and p = 0 on a row with no positive score.

Like a softmax's max subtraction, each row is first divided by its largest positive score so that the squares
neither overflow nor underflow in fp32 (subnormal scores keep their proportions). One row per program, held in one
block; NaN is propagated.

Planted bug (division-by-zero): the row is divided by its largest positive score without the guard for rows with
none: a row with no positive score gives 0 / 0 = NaN instead of 0.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def sqrelu_probs_kernel(x_ptr, out_ptr, N, sxm, sxn, som, son, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * sxm + cols * sxn, mask=mask, other=0.0).to(tl.float32)
    r = tl.maximum(x, 0.0, propagate_nan=tl.PropagateNan.ALL)
    m = tl.max(r, axis=0)
    z = r / m
    s = tl.sum(z * z, axis=0)
    p = tl.where(s == 0, 0.0, z * z / s)
    tl.store(out_ptr + row * som + cols * son, p.to(out_ptr.dtype.element_ty), mask=mask)


def sqrelu_attn_probs(x):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        sqrelu_probs_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                                  BLOCK_N=triton.next_power_of_2(N))
    return out


def reference(x):
    r = torch.relu(x)
    m = r.amax(-1, keepdim=True)
    z = torch.where(m == 0, torch.zeros_like(r), r / m)
    s = (z * z).sum(-1, keepdim=True)
    return torch.where(s == 0, torch.zeros_like(z), z * z / s)


spec = kcheck.Spec(
    name="hx11_sqrelu_attn_probs",
    kernel=sqrelu_attn_probs,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256, max=8192, real=(37, 2880))},
    reduce=["N"],
)

BUG_CLASS = "division-by-zero"  # divide by the row max with no zero guard
