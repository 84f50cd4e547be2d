"""Log-likelihood of 1-D points under a Gaussian mixture with unit-variance components.

    log p(x) = logsumexp_k(logw[k] - (x - mu[k])^2 / 2) - log(2 pi) / 2

logw holds the components' log weights (as a log-softmax left them). Each program takes BLOCK_M points against all
K components (K <= BLOCK_K, one tile) and evaluates the log-sum-exp stably: shifted by the row maximum, with a
max of +-inf handled directly (a component of infinite weight gives +inf, no component gives -inf).
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"

HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


@triton.jit
def gmm_loglik_kernel(x_ptr, mu_ptr, logw_ptr, out_ptr, M, K, half_log_2pi,
                      BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    ks = tl.arange(0, BLOCK_K)
    rmask = rows < M
    kmask = ks < K
    x = tl.load(x_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    mu = tl.load(mu_ptr + ks, mask=kmask, other=0.0).to(tl.float32)
    logw = tl.load(logw_ptr + ks, mask=kmask, other=0.0).to(tl.float32)
    d = x[:, None] - mu[None, :]
    z = logw[None, :] - 0.5 * d * d
    z = tl.where(kmask[None, :], z, -float("inf"))
    m = tl.max(z, axis=1)
    shift = tl.where(tl.abs(m) < float("inf"), m, 0.0)
    s = tl.sum(tl.exp(z), axis=1)
    lse = tl.log(s)
    tl.store(out_ptr + rows, (lse - half_log_2pi).to(out_ptr.dtype.element_ty), mask=rmask)


def gmm_loglik(x, mu, logw, BLOCK_M=64):
    M, K = x.shape[0], mu.shape[0]
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_k = max(triton.next_power_of_2(K), 2)
    gmm_loglik_kernel[(triton.cdiv(M, BLOCK_M),)](x, mu, logw, out, M, K, HALF_LOG_2PI,
                                                   BLOCK_M=BLOCK_M, BLOCK_K=block_k)
    return out


def reference(x, mu, logw):
    z = logw[None, :] - 0.5 * (x[:, None] - mu[None, :]) ** 2
    return torch.logsumexp(z, dim=1) - HALF_LOG_2PI


spec = kcheck.Spec(
    name="hx22_gmm_loglik",
    kernel=gmm_loglik,
    reference=reference,
    inputs=[kcheck.Tensor("M", name="x"), kcheck.Tensor("K", name="mu"), kcheck.Tensor("K", name="logw")],
    dims={"M": kcheck.Dim(nominal=2000), "K": kcheck.Dim(nominal=16, max=64, real=())},
    reduce=["K"],
    configs=[{"BLOCK_M": 64}, {"BLOCK_M": 16}],
)
