"""Bollinger bands of a batch of price windows: the middle band is the window's mean, the bands k population
standard deviations above and below it,

    mu = mean(p),   sigma = sqrt(mean((p - mu)^2)),   upper = mu + k * sigma,   lower = mu - k * sigma

One program per BLOCK_M windows reads each window once, in BLOCK_N-wide chunks, and accumulates the first two
moments of the shifted prices d = p - p[0] in fp32 (shifted data: the moments of d do not cancel when the prices
sit far from zero, as they do); mu = p[0] + mean(d), sigma^2 = mean(d^2) - mean(d)^2. Strides honoured, int64
offsets. Returns (upper, lower).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def bollinger_kernel(p_ptr, up_ptr, lo_ptr, M, N, k, s_pm, s_pn, s_u, s_l,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    base = p_ptr + rows[:, None] * s_pm
    shift = tl.zeros([BLOCK_M, 1], dtype=tl.float32)
    s1 = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        p = tl.load(base + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, p - shift, 0.0)
        s1 += d
        s2 += d * d
    m1 = tl.sum(s1, axis=1) / N
    var = tl.sum(s2, axis=1) / N - m1 * m1
    var = tl.where(var < 0.0, 0.0, var)
    mu = tl.sum(shift, axis=1) + m1
    sigma = tl.sqrt(var)
    tl.store(up_ptr + rows * s_u, (mu + k * sigma).to(up_ptr.dtype.element_ty), mask=row_mask)
    tl.store(lo_ptr + rows * s_l, (mu - k * sigma).to(lo_ptr.dtype.element_ty), mask=row_mask)


def bollinger_bands(p: torch.Tensor, k: float = 2.0, BLOCK_N: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = p.shape
    upper = torch.empty((M,), dtype=p.dtype, device=p.device)
    lower = torch.empty((M,), dtype=p.dtype, device=p.device)
    if M:
        block_m = 8
        bollinger_kernel[(triton.cdiv(M, block_m),)](p, upper, lower, M, N, k, p.stride(0), p.stride(1),
                                                     upper.stride(0), lower.stride(0),
                                                     BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return upper, lower


def reference(p: torch.Tensor, k: float = 2.0) -> tuple[torch.Tensor, torch.Tensor]:
    mu = p.mean(-1)
    sigma = p.var(-1, unbiased=False).sqrt()
    return mu + k * sigma, mu - k * sigma


spec = kcheck.Spec(
    name="bollinger_bands",
    kernel=bollinger_bands,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="prices")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=390, min=1)},
    reduce=["N"],
    params={"k": [2.0, 2.5]},
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
