"""Fitted asset returns of a linear factor model (econometrics / finance): R_hat = alpha + F @ B^T.

F is [T, K] (the K factor returns of T periods), B is [S, K] (each of S assets' loadings on the K factors, one
asset per row, as a regression writes them), alpha the [S] intercepts. R_hat[t, s] = alpha[s] + sum_k F[t, k] *
B[s, k]: a tl.dot contraction over K of an F tile with a transposed tile of B, fp32 accumulator, masks on every
tail, strides honoured, int64 offsets. fp32 inputs multiply in TF32 on the GPU (tl.dot's default).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def factor_fit_kernel(f_ptr, b_ptr, a_ptr, r_ptr, T, S, K, s_ft, s_fk, s_bs, s_bk, s_a, s_rt, s_rs,
                      BLOCK_T: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_K: tl.constexpr):
    t = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    s = tl.program_id(1).to(tl.int64) * BLOCK_S + tl.arange(0, BLOCK_S)
    t_mask = t < T
    s_mask = s < S
    acc = tl.zeros((BLOCK_T, BLOCK_S), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K).to(tl.int64)
        k_mask = k < K
        f = tl.load(f_ptr + t[:, None] * s_ft + k[None, :] * s_fk, mask=t_mask[:, None] & k_mask[None, :], other=0.0)
        bt = tl.load(b_ptr + k[:, None] * s_bs + s[None, :] * s_bk, mask=k_mask[:, None] & s_mask[None, :],
                     other=0.0)
        acc = tl.dot(f, bt, acc)
    alpha = tl.load(a_ptr + s * s_a, mask=s_mask, other=0.0).to(tl.float32)
    r = acc + alpha[None, :]
    tl.store(r_ptr + t[:, None] * s_rt + s[None, :] * s_rs, r.to(r_ptr.dtype.element_ty),
             mask=t_mask[:, None] & s_mask[None, :])


def factor_model_returns(factors: torch.Tensor, loadings: torch.Tensor, alpha: torch.Tensor, BLOCK_T: int = 64,
                         BLOCK_S: int = 64, BLOCK_K: int = 16) -> torch.Tensor:
    T, K = factors.shape
    S = loadings.shape[0]
    r = torch.empty((T, S), dtype=factors.dtype, device=factors.device)
    if T == 0 or S == 0:
        return r
    grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(S, BLOCK_S))
    factor_fit_kernel[grid](factors, loadings, alpha, r, T, S, K, factors.stride(0), factors.stride(1),
                            loadings.stride(0), loadings.stride(1), alpha.stride(0), r.stride(0), r.stride(1),
                            BLOCK_T=BLOCK_T, BLOCK_S=BLOCK_S, BLOCK_K=BLOCK_K)
    return r


def reference(factors: torch.Tensor, loadings: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    return alpha[None, :] + factors @ loadings.T


spec = kcheck.Spec(
    name="hx40_factor_model_returns",
    kernel=factor_model_returns,
    reference=reference,
    inputs=[kcheck.Tensor("T", "K", name="factors"), kcheck.Tensor("S", "K", name="loadings"),
            kcheck.Tensor("S", name="alpha")],
    dims={"T": kcheck.Dim(nominal=250), "S": kcheck.Dim(nominal=96), "K": kcheck.Dim(nominal=24)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["K"],
    configs=[{"BLOCK_T": 64, "BLOCK_S": 64, "BLOCK_K": 16}, {"BLOCK_T": 32, "BLOCK_S": 16, "BLOCK_K": 32}],
)
