"""Gaussian negative log-likelihood per row (torch.nn.functional.gaussian_nll_loss, full=False, reduced by the mean
over the last dimension): loss[m] = mean_n 0.5 * (log(max(var, eps)) + (x - mu)^2 / max(var, eps)).

The network predicts log-variance; the kernel takes exp and clamps the variance at eps, as torch does. Several rows
per program; the row is walked in BLOCK_N-wide chunks and the sum kept in fp32. Row offsets are int64.

Planted bug (off-by-one-mask): the column mask is cols <= N: one element past the end of each row (the next row's
first element, or past the tensor on the last row) is added to the row's sum.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-6


@triton.jit
def gaussian_nll_kernel(x_ptr, mu_ptr, lv_ptr, out_ptr, M, N, sxm, sxn, smm, smn, slm, sln, eps,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = rmask[:, None] & (cols <= N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
        mu = tl.load(mu_ptr + rows[:, None] * smm + cols[None, :] * smn, mask=mask, other=0.0).to(tl.float32)
        lv = tl.load(lv_ptr + rows[:, None] * slm + cols[None, :] * sln, mask=mask, other=0.0).to(tl.float32)
        var = tl.maximum(tl.exp(lv), eps)
        d = x - mu
        acc += tl.where(mask, 0.5 * (tl.log(var) + d * d / var), 0.0)
    loss = tl.sum(acc, axis=1) / N
    tl.store(out_ptr + rows, loss.to(out_ptr.dtype.element_ty), mask=rmask)


def gaussian_nll_rows(x, mu, logvar, BLOCK_M=4, BLOCK_N=128):
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    gaussian_nll_kernel[(triton.cdiv(M, BLOCK_M),)](
        x, mu, logvar, out, M, N, x.stride(0), x.stride(1), mu.stride(0), mu.stride(1),
        logvar.stride(0), logvar.stride(1), EPS, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(x, mu, logvar):
    var = logvar.exp().clamp(min=EPS)
    return (0.5 * (var.log() + (x - mu) ** 2 / var)).mean(-1)


spec = kcheck.Spec(
    name="hx11_gaussian_nll_rows",
    kernel=gaussian_nll_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="input"), kcheck.Tensor("M", "N", name="target"),
            kcheck.Tensor("M", "N", name="logvar", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=300)},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 128}, {"BLOCK_M": 1, "BLOCK_N": 512}],
)

BUG_CLASS = "off-by-one-mask"  # column mask <= N
