"""KL divergence of a VAE's diagonal Gaussian posterior from the standard normal prior, per sample:

    kl[m] = -0.5 * sum_z (1 + lv - mu^2 - exp(lv)),   lv = clamp(logvar, -30, 20)

(the clamp as in Stable Diffusion's DiagonalGaussianDistribution). Row blocks: each program takes BLOCK_M samples and
walks the latent in BLOCK_Z-wide chunks, accumulating in fp32; the KL is returned in fp32 whatever the inputs' dtype
(it reaches 1e10 with clamped log-variances, past fp16's range). Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def gaussian_kl_kernel(mu_ptr, lv_ptr, out_ptr, M, Z, s_mm, s_mz, s_lm, s_lz,
                       BLOCK_M: tl.constexpr, BLOCK_Z: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_ok = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_Z], dtype=tl.float32)
    for start in range(0, Z, BLOCK_Z):
        cols = start + tl.arange(0, BLOCK_Z).to(tl.int64)
        mask = row_ok[:, None] & (cols < Z)[None, :]
        mu = tl.load(mu_ptr + rows[:, None] * s_mm + cols[None, :] * s_mz, mask=mask, other=0.0).to(tl.float32)
        lv = tl.load(lv_ptr + rows[:, None] * s_lm + cols[None, :] * s_lz, mask=mask, other=0.0).to(tl.float32)
        lv = tl.where(lv < -30.0, -30.0, tl.where(lv > 20.0, 20.0, lv))
        # exp(lv) - 1 - lv: a series near 0, where the direct form cancels
        series = lv * lv * (0.5 + lv * (1.0 / 6.0 + lv * (1.0 / 24.0 + lv * (1.0 / 120.0))))
        excess = tl.where(tl.abs(lv) < 0.125, series, tl.exp(lv) - 1.0 - lv)
        acc += tl.where(mask, mu * mu + excess, 0.0)
    tl.store(out_ptr + rows, 0.5 * tl.sum(acc, axis=1), mask=row_ok)


def gaussian_kl(mu, logvar, BLOCK_M=4, BLOCK_Z=64):
    M, Z = mu.shape
    out = torch.empty((M,), dtype=torch.float32, device=mu.device)
    if M == 0:
        return out
    gaussian_kl_kernel[(triton.cdiv(M, BLOCK_M),)](mu, logvar, out, M, Z, mu.stride(0), mu.stride(1),
                                                  logvar.stride(0), logvar.stride(1), BLOCK_M=BLOCK_M,
                                                  BLOCK_Z=BLOCK_Z)
    return out


def reference(mu, logvar):
    lv = logvar.clamp(-30.0, 20.0)
    return -0.5 * (1.0 + lv - mu.pow(2) - lv.exp()).sum(-1)


spec = kcheck.Spec(
    name="hx15_gaussian_kl_ok",
    kernel=gaussian_kl,
    reference=reference,
    inputs=[kcheck.Tensor("M", "Z", name="mu"), kcheck.Tensor("M", "Z", name="logvar")],
    dims={"M": kcheck.Dim(nominal=32), "Z": kcheck.Dim(nominal=256, real=(4096,))},
    reduce=["Z"],
    output_dtypes=[torch.float32],
    configs=[{"BLOCK_M": 4, "BLOCK_Z": 64}, {"BLOCK_M": 1, "BLOCK_Z": 256}],
)
