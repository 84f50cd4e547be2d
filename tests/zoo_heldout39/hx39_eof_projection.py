"""Projection of anomaly fields onto empirical orthogonal functions (oceanography / climate: principal-component
time series of, e.g., sea-surface temperature anomalies).

X[t, s] holds the (area-weighted) anomaly of map t at grid point s; E[s, k] the k-th EOF pattern. The
principal-component amplitudes are

    PC[t, k] = sum_s X[t, s] * E[s, k]

a contraction computed with tl.dot: BLOCK_T x BLOCK_K output tiles (all the retained modes in one or a few
tiles), the S grid points in BLOCK_S steps, an fp32 accumulator; fp32 operands multiply in IEEE fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def eof_kernel(x_ptr, e_ptr, pc_ptr, T, S, K, s_xt, s_xs, s_es, s_ek, s_pt, s_pk,
               BLOCK_T: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_S: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T).to(tl.int64)
    modes = tl.program_id(1).to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    rs = tl.arange(0, BLOCK_S).to(tl.int64)
    acc = tl.zeros([BLOCK_T, BLOCK_K], dtype=tl.float32)
    for s0 in range(0, S, BLOCK_S):
        ss = s0 + rs
        x = tl.load(x_ptr + rows[:, None] * s_xt + ss[None, :] * s_xs,
                    mask=(rows < T)[:, None] & (ss < S)[None, :], other=0.0)
        e = tl.load(e_ptr + ss[:, None] * s_es + modes[None, :] * s_ek,
                    mask=(ss < S)[:, None] & (modes < K)[None, :], other=0.0).to(tl.float32)
        acc = tl.dot(x, e, acc, input_precision="ieee")
    tl.store(pc_ptr + rows[:, None] * s_pt + modes[None, :] * s_pk, acc.to(pc_ptr.dtype.element_ty),
             mask=(rows < T)[:, None] & (modes < K)[None, :])


def eof_projection(x: torch.Tensor, e: torch.Tensor, BLOCK_T: int = 32, BLOCK_S: int = 64) -> torch.Tensor:
    T, S = x.shape
    K = e.shape[1]
    pc = torch.empty((T, K), dtype=x.dtype, device=x.device)
    if T == 0 or K == 0:
        return pc
    if S == 0:
        return pc.zero_()
    block_k = min(64, max(16, triton.next_power_of_2(K)))
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(K, block_k))
    eof_kernel[grid](x, e, pc, T, S, K, x.stride(0), x.stride(1), e.stride(0), e.stride(1), pc.stride(0),
                     pc.stride(1), BLOCK_T=BLOCK_T, BLOCK_K=block_k, BLOCK_S=BLOCK_S)
    return pc


spec = kcheck.Spec(
    name="hx39_eof_projection",
    kernel=eof_projection,
    reference=torch.matmul,
    inputs=[kcheck.Tensor("T", "S", name="anomalies"), kcheck.Tensor("S", "K", name="eofs")],
    dims={"T": kcheck.Dim(nominal=120), "S": kcheck.Dim(nominal=600), "K": kcheck.Dim(nominal=10, max=200)},
    reduce=["S"],
    configs=[{"BLOCK_T": 32, "BLOCK_S": 64}, {"BLOCK_T": 16, "BLOCK_S": 16}],
)
