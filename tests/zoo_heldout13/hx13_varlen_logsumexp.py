"""Log-sum-exp over the valid prefix of each row of a padded batch (variable-length sequences):
out[m] = log(sum_{j < length[m]} exp(x[m, j])). One program per row, the row read in BLOCK_N-wide chunks with an
online max and rescaled sum in fp32. Every row has at least one valid entry; inputs are finite
scores (no NaN or Inf).
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def varlen_lse_kernel(x_ptr, len_ptr, out_ptr, N, stride_xm, stride_xn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    length = tl.load(len_ptr + row)
    x_row = x_ptr + row * stride_xm
    m_run = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    s_run = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        valid = cols <= length
        x = tl.load(x_row + cols * stride_xn, mask=valid, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_run, x)
        dead = m_new == -float("inf")
        s_run = tl.where(dead, 0.0, s_run * tl.exp(m_run - m_new) + tl.exp(x - m_new))
        m_run = m_new
    m = tl.max(m_run, axis=0)
    s = tl.sum(tl.where(m_run == -float("inf"), 0.0, s_run * tl.exp(m_run - m)), axis=0)
    tl.store(out_ptr + row, (m + tl.log(s)).to(out_ptr.dtype.element_ty))


def varlen_logsumexp(x: torch.Tensor, lengths: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    varlen_lse_kernel[(M,)](x, lengths, out, N, x.stride(0), x.stride(1), BLOCK_N=BLOCK_N)
    return out


def lengths(ctx: kcheck.CaseContext) -> torch.Tensor:
    M, N = ctx.dims["M"], ctx.dims["N"]
    if N == 0:
        return torch.zeros((M,), dtype=torch.int64, device=ctx.device)
    ln = ctx.randint(1, N + 1, (M,))
    if M > 0:
        ln[0] = N
    if M > 1:
        ln[1] = 1
    return ln


def reference(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    N = x.shape[-1]
    keep = torch.arange(N, device=x.device)[None, :] < lengths[:, None]
    return torch.logsumexp(x.masked_fill(~keep, -float("inf")), dim=-1)


BUG_CLASS = "off-by-one-mask"

spec = kcheck.Spec(
    name="hx13_varlen_logsumexp",
    kernel=varlen_logsumexp,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Custom(lengths, name="lengths", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=300, min=1, real=(2880,))},
    reduce=["N"],
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
