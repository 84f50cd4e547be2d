"""Finance: factor exposures of a book of portfolios, E = W @ L, with W[P, A] the portfolio weights over A assets
and L[A, K] the assets' factor loadings. Tiled over [BLOCK_P, BLOCK_K] outputs, the asset dimension reduced in
BLOCK_A chunks with tl.dot (IEEE fp32 for fp32 inputs, fp32 accumulation), zero-filled edges, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def exposure_kernel(w_ptr, l_ptr, e_ptr, P, A, K, s_wp, s_wa, s_la, s_lk, s_ep, s_ek,
                    BLOCK_P: tl.constexpr, BLOCK_A: tl.constexpr, BLOCK_K: tl.constexpr, IEEE: tl.constexpr):
    pid_p = tl.program_id(0).to(tl.int64)
    pid_k = tl.program_id(1).to(tl.int64)
    p = pid_p * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    acc = tl.zeros([BLOCK_P, BLOCK_K], dtype=tl.float32)
    for start in range(0, A, BLOCK_A):
        a = start + tl.arange(0, BLOCK_A).to(tl.int64)
        w = tl.load(w_ptr + p[:, None] * s_wp + a[None, :] * s_wa, mask=(p < P)[:, None] & (a < A)[None, :],
                    other=0.0)
        ld = tl.load(l_ptr + a[:, None] * s_lk + k[None, :] * s_la, mask=(a < A)[:, None] & (k < K)[None, :],
                     other=0.0)
        if IEEE:
            acc += tl.dot(w, ld, input_precision="ieee")
        else:
            acc += tl.dot(w, ld)
    mask = (p < P)[:, None] & (k < K)[None, :]
    tl.store(e_ptr + p[:, None] * s_ep + k[None, :] * s_ek, acc.to(e_ptr.dtype.element_ty), mask=mask)


def factor_exposure(w: torch.Tensor, loadings: torch.Tensor, BLOCK_P: int = 32, BLOCK_A: int = 32,
                    BLOCK_K: int = 16) -> torch.Tensor:
    P, A = w.shape
    K = loadings.shape[1]
    e = torch.empty((P, K), dtype=w.dtype, device=w.device)
    if P == 0 or K == 0:
        return e
    if A == 0:
        return e.zero_()
    grid = (triton.cdiv(P, BLOCK_P), triton.cdiv(K, BLOCK_K))
    exposure_kernel[grid](w, loadings, e, P, A, K, w.stride(0), w.stride(1), loadings.stride(0),
                          loadings.stride(1), e.stride(0), e.stride(1), BLOCK_P=BLOCK_P, BLOCK_A=BLOCK_A,
                          BLOCK_K=BLOCK_K, IEEE=w.dtype == torch.float32)
    return e


spec = kcheck.Spec(
    name="hx36_factor_exposure",
    kernel=factor_exposure,
    reference=torch.matmul,
    inputs=[kcheck.Tensor("P", "A", name="weights"), kcheck.Tensor("A", "K", name="loadings")],
    dims={"P": kcheck.Dim(nominal=64), "A": kcheck.Dim(nominal=500, max=4096), "K": kcheck.Dim(nominal=24, max=256)},
    reduce=["A"],
    configs=[{"BLOCK_P": 32, "BLOCK_A": 32, "BLOCK_K": 16}, {"BLOCK_P": 16, "BLOCK_A": 64, "BLOCK_K": 32}],
    properties=[kcheck.props.linear(0)],
)
