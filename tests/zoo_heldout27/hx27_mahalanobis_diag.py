"""Mahalanobis distance under a diagonal covariance (statistics / anomaly scoring):

d[m] = sqrt(sum_n (x[m, n] - mu[n])^2 / var[n])

BLOCK_M rows per program, a loop over the feature chunks, fp32 accumulation, int64 row offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'tail-tile-dropped'


@triton.jit
def mahalanobis_kernel(x_ptr, mu_ptr, var_ptr, out_ptr, M, N, s_xm, s_xn, s_mu, s_var,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, N // BLOCK_N):
        cols = k * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        mu = tl.load(mu_ptr + cols * s_mu, mask=col_mask, other=0.0).to(tl.float32)
        var = tl.load(var_ptr + cols * s_var, mask=col_mask, other=1.0).to(tl.float32)
        d = tl.where(mask, x - mu[None, :], 0.0)
        acc += d * d / var[None, :]
    dist = tl.sqrt(tl.sum(acc, axis=1))
    tl.store(out_ptr + rows, dist.to(out_ptr.dtype.element_ty), mask=row_mask)


def mahalanobis_diag(x: torch.Tensor, mu: torch.Tensor, var: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_m = 8
    mahalanobis_kernel[(triton.cdiv(M, block_m),)](x, mu, var, out, M, N, x.stride(0), x.stride(1), mu.stride(0),
                                                   var.stride(0), BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor, mu: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
    return ((x - mu).pow(2) / var).sum(-1).sqrt()


def variances(ctx):
    return (0.25 + 2.0 * ctx.rand(ctx.dims["N"])).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx27_mahalanobis_diag",
    kernel=mahalanobis_diag,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="mu"),
            kcheck.Custom(variances, name="var", dims=("N",))],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=300, real=())},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)
