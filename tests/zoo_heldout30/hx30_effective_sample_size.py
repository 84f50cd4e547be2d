"""Effective sample size of importance-sampling weights given as log-weights, one set per row:

    w_i = exp(l_i - max_j l_j),   ESS = (sum_i w_i)^2 / sum_i w_i^2

(the shift by the row's largest log-weight cancels in the ratio and keeps every exp in range). One program per row:
a first pass over BLOCK_N chunks finds the max, a second sums w and w^2 in fp32."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def ess_kernel(l_ptr, out_ptr, N, stride_lm, stride_ln, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    l_row = l_ptr + row * stride_lm
    m_lane = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        l = tl.load(l_row + cols * stride_ln, mask=cols < N, other=-float("inf")).to(tl.float32)
        m_lane = tl.maximum(m_lane, l)
    m = tl.max(m_lane, axis=0)
    s1 = tl.zeros([BLOCK_N], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        l = tl.load(l_row + cols * stride_ln, mask=cols < N, other=-float("inf")).to(tl.float32)
        w = tl.exp(l)
        s1 += w
        s2 += w * w
    a = tl.sum(s1, axis=0)
    ess = a * a / tl.sum(s2, axis=0)
    tl.store(out_ptr + row, ess.to(out_ptr.dtype.element_ty))


def effective_sample_size(logw: torch.Tensor, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = logw.shape
    out = torch.empty((M,), dtype=logw.dtype, device=logw.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    ess_kernel[(M,)](logw, out, N, logw.stride(0), logw.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(logw: torch.Tensor) -> torch.Tensor:
    w = torch.exp(logw - logw.amax(-1, keepdim=True))
    return w.sum(-1) ** 2 / (w * w).sum(-1)


spec = kcheck.Spec(
    name="hx30_effective_sample_size",
    kernel=effective_sample_size,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="log_weights")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=4096)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 256}],
)
