"""Per-row kurtosis of activations (outlier statistics): out[m] = m4 / (m2 + eps)**2, with m2 and m4 the second and
fourth moments of row m about its mean (population), eps = 1e-5.

One program per row. Pass 1 reads the row in BLOCK_N chunks and sums x and x**2, giving the mean and
m2 = mean(x**2) - mean**2; pass 2 sums (x - mean)**4. fp32 throughout, the result in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-5


@triton.jit
def kurtosis_kernel(x_ptr, out_ptr, N, stride_m, stride_n, EPS_: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * stride_m
    s1 = tl.zeros([BLOCK_N], dtype=tl.float32)
    s2 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        x = tl.load(base + cols * stride_n, mask=cols < N, other=0.0).to(tl.float32)
        s1 += x
        s2 += x * x
    mean = tl.sum(s1, axis=0) / N
    m2 = tl.sum(s2, axis=0) / N - mean * mean
    c4 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(base + cols * stride_n, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean, 0.0)
        d2 = d * d
        c4 += d2 * d2
    m4 = tl.sum(c4, axis=0) / N
    v = m2 + EPS_
    tl.store(out_ptr + row, (m4 / (v * v)).to(out_ptr.dtype.element_ty))


def row_kurtosis(x: torch.Tensor, BLOCK_N: int = 1024) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M:
        kurtosis_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), EPS_=EPS,
                              BLOCK_N=min(BLOCK_N, triton.next_power_of_2(N)))
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    d = x - x.mean(-1, keepdim=True)
    return d.pow(4).mean(-1) / (d.pow(2).mean(-1) + EPS) ** 2


spec = kcheck.Spec(
    name="hx10_row_kurtosis",
    kernel=row_kurtosis,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=2048, min=1)},
    reduce=["N"],
    configs=[{"BLOCK_N": 1024}, {"BLOCK_N": 256}],
)

BUG_CLASS = "cancellation"
