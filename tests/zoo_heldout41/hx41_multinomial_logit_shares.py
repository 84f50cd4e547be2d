"""Market shares of a multinomial logit demand model (econometrics, BLP-style), with an outside good of utility 0:

    s[m, j] = exp(u[m, j]) / (1 + sum_k exp(u[m, k]))

for M markets of N products. Computed stably: with c = max(0, max_k u[m, k]),
s = exp(u - c) / (exp(-c) + sum_k exp(u_k - c)). One program per BLOCK_M markets, each market's products in one
block (N <= 4096), fp32 math, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "exp-overflow"


@triton.jit
def logit_shares_kernel(u_ptr, s_ptr, M, N, s_um, s_un, s_sm, s_sn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    u = tl.load(u_ptr + rows[:, None] * s_um + cols[None, :] * s_un, mask=mask, other=-float("inf"))
    u = u.to(tl.float32)
    c = tl.minimum(tl.max(u, axis=1), 0.0)
    e = tl.where(mask, tl.exp(u - c[:, None]), 0.0)
    denom = tl.exp(-c) + tl.sum(e, axis=1)
    s = e / denom[:, None]
    tl.store(s_ptr + rows[:, None] * s_sm + cols[None, :] * s_sn, s.to(s_ptr.dtype.element_ty), mask=mask)


def logit_shares(u, TILE=2048):
    M, N = u.shape
    s = torch.empty((M, N), dtype=u.dtype, device=u.device)
    if M == 0 or N == 0:
        return s
    block_n = triton.next_power_of_2(N)
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    logit_shares_kernel[(triton.cdiv(M, block_m),)](u, s, M, N, u.stride(0), u.stride(1), s.stride(0),
                                                    s.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return s


def reference(u):
    full = torch.cat([torch.zeros_like(u[:, :1]), u], dim=1)
    return torch.softmax(full, dim=1)[:, 1:]


spec = kcheck.Spec(
    name="multinomial_logit_shares",
    kernel=logit_shares,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="utilities")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=40, max=4096, real=())},
    reduce=["N"],
    configs=[{"TILE": 2048}, {"TILE": 256}],
)
