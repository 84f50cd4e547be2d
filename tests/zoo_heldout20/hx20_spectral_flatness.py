"""Spectral flatness (Wiener entropy) per row of a power spectrum:

    p = x^2 + eps,   flatness = exp(mean(log p)) / mean(p)

One program per row, looping over the row in BLOCK_N chunks, fp32 accumulators, int64 row offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-10


@triton.jit
def spectral_flatness_kernel(x_ptr, out_ptr, N, stride_m, stride_n, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * stride_m
    log_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    lin_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols <= N
        x = tl.load(base + cols.to(tl.int64) * stride_n, mask=mask, other=0.0).to(tl.float32)
        p = x * x + eps
        log_acc += tl.where(mask, tl.log(p), 0.0)
        lin_acc += tl.where(mask, p, 0.0)
    geo = tl.exp(tl.sum(log_acc, axis=0) / N)
    arith = tl.sum(lin_acc, axis=0) / N
    tl.store(out_ptr + row, (geo / arith).to(out_ptr.dtype.element_ty))


def spectral_flatness(x: torch.Tensor, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    spectral_flatness_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), EPS, BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    p = x * x + EPS
    return torch.exp(torch.log(p).mean(-1)) / p.mean(-1)


spec = kcheck.Spec(
    name="spectral_flatness",
    kernel=spectral_flatness,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, max=32, real=()), "N": kcheck.Dim(nominal=1024, real=(2880,))},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 64}],
)

BUG_CLASS = "off-by-one-mask"
