"""Row logsumexp: out[m] = log(sum_n exp(x[m, n])), the normalizer of a log-softmax over a vocabulary. One program
per row, walking it in BLOCK_N chunks with an fp32 running sum; the result in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def logsumexp_kernel(x_ptr, out_ptr, N, stride_m, stride_n, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_m
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * stride_n, mask=mask, other=-float("inf")).to(tl.float32)
        acc += tl.exp(x)
    tl.store(out_ptr + row, tl.log(tl.sum(acc, axis=0)).to(out_ptr.dtype.element_ty))


def logsumexp(x: torch.Tensor, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(max(N, 1)))
    logsumexp_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK_N=block_n)
    return out


spec = kcheck.Spec(
    name="hx3_logsumexp",
    kernel=logsumexp,
    reference=lambda x: torch.logsumexp(x, dim=-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=4096)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 256}],
)

BUG_CLASS = "exp-overflow"
