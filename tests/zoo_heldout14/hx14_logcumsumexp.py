"""Row-wise logcumsumexp: out[i, j] = log(sum_{k <= j} exp(x[i, k])), as in the log-space scans of CTC / HMM
forward passes and of linear-attention normalizers.

Row-block kernel in the style of the Triton selective-scan kernels: BLOCK_M rows per program, stepping along the
row one position at a time and carrying, per row, the running sum of exp, so rows of any length work. Computed in
fp32, stored in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def logcumsumexp_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < M
    x_row = x_ptr + rows * stride_xm
    o_row = out_ptr + rows * stride_om
    s = tl.zeros([BLOCK_M], tl.float32)
    for j in range(0, N):
        x = tl.load(x_row + j * stride_xn, mask=row_ok, other=0.0).to(tl.float32)
        s = s + tl.exp(x)
        tl.store(o_row + j * stride_on, tl.log(s).to(out_ptr.dtype.element_ty), mask=row_ok)


def logcumsumexp(x: torch.Tensor, BLOCK_M: int = 64) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    logcumsumexp_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0),
                                                    out.stride(1), BLOCK_M=BLOCK_M)
    return out


spec = kcheck.Spec(
    name="hx14_logcumsumexp",
    kernel=logcumsumexp,
    reference=lambda x: torch.logcumsumexp(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N", name="x")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    configs=[{"BLOCK_M": 64}, {"BLOCK_M": 16}],
)
