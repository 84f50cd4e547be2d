"""Intermediate demand in a Leontief input-output model, for a batch of output scenarios.

d[b, i] = sum_j A[i, j] * x[b, j]: sector i's purchases needed to produce the gross outputs x[b, :] of scenario b,
with A the S x S technical-coefficient matrix (A[i, j]: input from sector i per unit output of sector j). As a
GEMM D = X @ A^T, tiled [BLOCK_B, BLOCK_I] per program over BLOCK_K-wide chunks of j, tl.dot with fp32
accumulation (IEEE fp32 products for fp32 data, no TF32).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def intermediate_demand_kernel(x_ptr, a_ptr, d_ptr, B, S, s_xb, s_xj, s_ai, s_aj, s_db, s_di,
                               BLOCK_B: tl.constexpr, BLOCK_I: tl.constexpr, BLOCK_K: tl.constexpr):
    rb = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    ri = tl.program_id(1).to(tl.int64) * BLOCK_I + tl.arange(0, BLOCK_I)
    acc = tl.zeros([BLOCK_B, BLOCK_I], dtype=tl.float32)
    for start in range(0, S, BLOCK_K):
        rk = start + tl.arange(0, BLOCK_K).to(tl.int64)
        x = tl.load(x_ptr + rb[:, None] * s_xb + rk[None, :] * s_xj,
                    mask=(rb < B)[:, None] & (rk < S)[None, :], other=0.0)
        at = tl.load(a_ptr + ri[None, :] * s_aj + rk[:, None] * s_ai,
                     mask=(rk < S)[:, None] & (ri < S)[None, :], other=0.0)  # [BLOCK_K, BLOCK_I] = A^T tile
        acc += tl.dot(x, at, input_precision="ieee")
    tl.store(d_ptr + rb[:, None] * s_db + ri[None, :] * s_di, acc.to(d_ptr.dtype.element_ty),
             mask=(rb < B)[:, None] & (ri < S)[None, :])


def intermediate_demand(x, a, BLOCK_B=32, BLOCK_I=32, BLOCK_K=32):
    B, S = x.shape
    d = torch.empty((B, S), dtype=x.dtype, device=x.device)
    if B == 0 or S == 0:
        return d
    grid = (triton.cdiv(B, BLOCK_B), triton.cdiv(S, BLOCK_I))
    intermediate_demand_kernel[grid](x, a, d, B, S, x.stride(0), x.stride(1), a.stride(0), a.stride(1),
                                     d.stride(0), d.stride(1), BLOCK_B=BLOCK_B, BLOCK_I=BLOCK_I, BLOCK_K=BLOCK_K)
    return d


def reference(x, a):
    return x @ a.T


spec = kcheck.Spec(
    name="hx35_leontief_intermediate_demand",
    kernel=intermediate_demand,
    reference=reference,
    inputs=[kcheck.Tensor("B", "S", name="gross_output"), kcheck.Tensor("S", "S", name="coefficients")],
    dims={"B": kcheck.Dim(nominal=48), "S": kcheck.Dim(nominal=96, max=512)},
    reduce=["S"],
    configs=[{"BLOCK_B": 32, "BLOCK_I": 32, "BLOCK_K": 32}, {"BLOCK_B": 16, "BLOCK_I": 64, "BLOCK_K": 16}],
    properties=[kcheck.props.linear(0)],
)
