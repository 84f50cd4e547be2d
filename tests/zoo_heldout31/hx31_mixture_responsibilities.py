"""E-step of a mixture model: responsibilities r[n, k] = pi_k p(x_n | k) / sum_j pi_j p(x_n | j), from the
per-component log-likelihoods L[n, k] and the log mixing weights log_pi[k]. Computed in log space and normalised
per sample with the row maximum subtracted before exponentiating (fp32), several samples per program, the K
components in one block; int64 row offsets, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def responsibilities_kernel(l_ptr, lp_ptr, out_ptr, N, K, s_ln, s_lk, s_p, s_on, s_ok,
                            BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    ks = tl.arange(0, BLOCK_K).to(tl.int64)
    k_mask = ks < K
    mask = (rows < N)[:, None] & k_mask[None, :]
    ll = tl.load(l_ptr + rows[:, None] * s_ln + ks[None, :] * s_lk, mask=mask, other=-float("inf")).to(tl.float32)
    lp = tl.load(lp_ptr + ks * s_p, mask=k_mask, other=0.0).to(tl.float32)
    z = ll + lp[None, :]
    zmax = tl.max(z, axis=1)
    e = tl.exp(z)
    e = tl.where(mask, e, 0.0)
    r = e / tl.sum(e, axis=1)[:, None]
    tl.store(out_ptr + rows[:, None] * s_on + ks[None, :] * s_ok, r.to(out_ptr.dtype.element_ty), mask=mask)


def responsibilities(loglik: torch.Tensor, log_pi: torch.Tensor, TILE: int = 2048) -> torch.Tensor:
    N, K = loglik.shape
    out = torch.empty((N, K), dtype=loglik.dtype, device=loglik.device)
    if N == 0 or K == 0:
        return out
    block_k = triton.next_power_of_2(K)
    block_n = max(1, min(TILE // block_k, triton.next_power_of_2(N)))
    responsibilities_kernel[(triton.cdiv(N, block_n),)](
        loglik, log_pi, out, N, K, loglik.stride(0), loglik.stride(1), log_pi.stride(0), out.stride(0),
        out.stride(1), BLOCK_N=block_n, BLOCK_K=block_k)
    return out


def reference(loglik: torch.Tensor, log_pi: torch.Tensor) -> torch.Tensor:
    return torch.softmax(loglik + log_pi, dim=-1)


spec = kcheck.Spec(
    name="hx31_mixture_responsibilities",
    kernel=responsibilities,
    reference=reference,
    inputs=[kcheck.Tensor("N", "K", name="loglik"), kcheck.Tensor("K", name="log_pi")],
    dims={"N": kcheck.Dim(nominal=128), "K": kcheck.Dim(nominal=24, max=1024, real=(8, 64))},
    reduce=["K"],
    configs=[{"TILE": 2048}, {"TILE": 256}],
)
