"""Soft cluster assignment of Deep Embedded Clustering (Xie et al.): a Student's t kernel between embeddings
z[N, D] and centroids mu[K, D], normalized over the clusters,

    t[i, j] = (1 + |z_i - mu_j|^2 / alpha)^(-(alpha + 1) / 2),     q[i, j] = t[i, j] / sum_j' t[i, j']

with the degrees of freedom alpha as a mode. One program per BLOCK_N embeddings: a first pass over the centroids in
BLOCK_K chunks sums the kernel values, a second pass recomputes and writes them divided by the sum. Distances are
accumulated over BLOCK_D-wide slices of the embedding in [BLOCK_N, BLOCK_K, BLOCK_D] tiles, in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def _student_t(z_ptr, mu_ptr, rows, row_ok, k, k_ok, D, alpha, s_zn, s_zd, s_mk, s_md,
               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_D: tl.constexpr):
    d2 = tl.zeros([BLOCK_N, BLOCK_K], dtype=tl.float32)
    for d0 in range(0, D, BLOCK_D):
        d = d0 + tl.arange(0, BLOCK_D).to(tl.int64)
        d_ok = d < D
        zt = tl.load(z_ptr + rows[:, None] * s_zn + d[None, :] * s_zd, mask=row_ok[:, None] & d_ok[None, :],
                     other=0.0).to(tl.float32)
        mt = tl.load(mu_ptr + k[:, None] * s_mk + d[None, :] * s_md, mask=k_ok[:, None] & d_ok[None, :],
                     other=0.0).to(tl.float32)
        diff = zt[:, None, :] - mt[None, :, :]
        d2 += tl.sum(diff * diff, axis=2)
    t = tl.exp2(-0.5 * (alpha + 1.0) * tl.log2(1.0 + d2 / alpha))
    return tl.where(k_ok[None, :], t, 0.0)


@triton.jit
def dec_assign_kernel(z_ptr, mu_ptr, q_ptr, N, K, D, alpha, s_zn, s_zd, s_mk, s_md, s_qn, s_qk,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    row_ok = rows < N
    total = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K).to(tl.int64)
        t = _student_t(z_ptr, mu_ptr, rows, row_ok, k, k < K, D, alpha, s_zn, s_zd, s_mk, s_md,
                       BLOCK_N, BLOCK_K, BLOCK_D)
        total += tl.sum(t, axis=1)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K).to(tl.int64)
        k_ok = k < K
        t = _student_t(z_ptr, mu_ptr, rows, row_ok, k, k_ok, D, alpha, s_zn, s_zd, s_mk, s_md,
                       BLOCK_N, BLOCK_K, BLOCK_D)
        q = t / total[:, None]
        tl.store(q_ptr + rows[:, None] * s_qn + k[None, :] * s_qk, q.to(q_ptr.dtype.element_ty),
                 mask=row_ok[:, None] & k_ok[None, :])


def dec_soft_assign(z: torch.Tensor, mu: torch.Tensor, alpha: float = 1.0, BLOCK_N: int = 16) -> torch.Tensor:
    N, D = z.shape
    K = mu.shape[0]
    q = torch.empty((N, K), dtype=z.dtype, device=z.device)
    if q.numel() == 0:
        return q
    block_k = min(K, 16)
    block_d = min(triton.next_power_of_2(max(D, 1)), 32)
    dec_assign_kernel[(triton.cdiv(N, BLOCK_N),)](z, mu, q, N, K, D, alpha, z.stride(0), z.stride(1),
                                                  mu.stride(0), mu.stride(1), q.stride(0), q.stride(1),
                                                  BLOCK_N=BLOCK_N, BLOCK_K=block_k, BLOCK_D=block_d)
    return q


def reference(z: torch.Tensor, mu: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    d2 = (z[:, None, :] - mu[None, :, :]).pow(2).sum(-1)
    t = (1.0 + d2 / alpha).pow(-(alpha + 1.0) / 2.0)
    return t / t.sum(-1, keepdim=True)


spec = kcheck.Spec(
    name="hx26_dec_soft_assign",
    kernel=dec_soft_assign,
    reference=reference,
    inputs=[kcheck.Tensor("N", "D", name="z"), kcheck.Tensor("K", "D", name="centroids")],
    dims={"N": kcheck.Dim(nominal=256), "K": kcheck.Dim(nominal=10, max=256), "D": kcheck.Dim(nominal=64)},
    reduce=["D"],
    params={"alpha": [1.0, 2.0]},
    configs=[{"BLOCK_N": 16}, {"BLOCK_N": 8}],
)
