"""Per-row negative log-likelihood of a Laplace distribution (robust regression, L1-type likelihoods).

out[m] = mean_n |x[m, n] - mu[m, n]| / b + log(2 b), with the scale b a mode. One program per row, looping over
the row in chunks of BLOCK_N with an fp32 accumulator; row offsets in int64.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def laplace_nll_kernel(x_ptr, mu_ptr, out_ptr, N, stride_xm, stride_xn, stride_mm, stride_mn, inv_b, log_2b,
                       BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    n_chunks = N // BLOCK_N
    for c in range(n_chunks):
        cols = c * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        mu = tl.load(mu_ptr + row * stride_mm + cols * stride_mn, mask=mask, other=0.0).to(tl.float32)
        acc += tl.abs(x - mu)
    nll = tl.sum(acc, axis=0) * inv_b / N + log_2b
    tl.store(out_ptr + row, nll.to(out_ptr.dtype.element_ty))


def laplace_nll_rows(x, mu, scale=1.0, BLOCK_N=128):
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M:
        laplace_nll_kernel[(M,)](x, mu, out, N, x.stride(0), x.stride(1), mu.stride(0), mu.stride(1),
                                 1.0 / scale, math.log(2.0 * scale), BLOCK_N=BLOCK_N)
    return out


def reference(x, mu, scale=1.0):
    return (x - mu).abs().mean(-1) / scale + math.log(2.0 * scale)


spec = kcheck.Spec(
    name="hx17_laplace_nll_rows",
    kernel=laplace_nll_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="mu")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=512, min=1)},
    params={"scale": [1.0, 0.5]},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 64}],
)
