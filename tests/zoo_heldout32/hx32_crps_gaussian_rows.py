"""Mean continuous ranked probability score (CRPS) of Gaussian forecasts, per row: a forecaster issues N(mu, sigma^2)
for each of N observations y, and its score (lower is better, in the units of y) is the mean over the row of the
closed form (Gneiting and Raftery 2007)::

    z = (y - mu) / sigma,   CRPS = sigma (z erf(z / sqrt 2) + 2 phi(z) - 1 / sqrt(pi))

(z (2 Phi(z) - 1) written with erf directly, which does not cancel near z = 0). sigma, the forecast spread, is a mode.
One program per row loops over the row in BLOCK_N-wide chunks with a per-lane fp32 running sum; strides honoured,
int64 row offsets; the mean is returned in the input dtype.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"


@triton.jit
def crps_kernel(y_ptr, mu_ptr, out_ptr, N, sigma, s_ym, s_yn, s_mm, s_mn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    y_row = y_ptr + row * s_ym
    mu_row = mu_ptr + row * s_mm
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    inv_sigma = 1.0 / sigma
    n_chunks = N // BLOCK_N
    for c in range(0, n_chunks):
        cols = c * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        y = tl.load(y_row + cols * s_yn, mask=mask, other=0.0).to(tl.float32)
        mu = tl.load(mu_row + cols * s_mn, mask=mask, other=0.0).to(tl.float32)
        z = (y - mu) * inv_sigma
        pdf = 0.3989422804014327 * tl.exp(-0.5 * z * z)
        score = z * tl.math.erf(z * 0.7071067811865476) + 2.0 * pdf - 0.5641895835477563
        acc += tl.where(mask, score, 0.0)
    mean = sigma * tl.sum(acc, axis=0) / N
    tl.store(out_ptr + row, mean.to(out_ptr.dtype.element_ty))


def crps_gaussian(y: torch.Tensor, mu: torch.Tensor, sigma: float = 1.0, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = y.shape
    out = torch.empty((M,), dtype=y.dtype, device=y.device)
    if M == 0 or N == 0:
        return out.fill_(float("nan"))  # the mean over no observation
    crps_kernel[(M,)](y, mu, out, N, float(sigma), y.stride(0), y.stride(1), mu.stride(0), mu.stride(1),
                      BLOCK_N=BLOCK_N)
    return out


def reference(y: torch.Tensor, mu: torch.Tensor, sigma: float = 1.0) -> torch.Tensor:
    z = (y - mu) / sigma
    pdf = torch.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    cdf = torch.special.ndtr(z)
    return (sigma * (z * (2.0 * cdf - 1.0) + 2.0 * pdf - 1.0 / math.sqrt(math.pi))).mean(-1)


spec = kcheck.Spec(
    name="hx32_crps_gaussian_rows",
    kernel=crps_gaussian,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="y"), kcheck.Tensor("M", "N", name="mu")],
    dims={"M": kcheck.Dim(nominal=32, real=()), "N": kcheck.Dim(nominal=1000, real=(2880,))},
    reduce=["N"],
    params={"sigma": [1.0, 0.25]},
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
