"""Gram matrix of a batch of feature rows, G = X X^T (style loss, kernel methods), X [M, K]. 2-D grid of
BLOCK_M x BLOCK_M output tiles; each program loops over K in BLOCK_K steps with tl.dot (IEEE fp32 for fp32 inputs,
fp32 accumulation for half inputs); output in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def gram_kernel(x_ptr, g_ptr, M, K, stride_xm, stride_xk, stride_gm, stride_gn,
                BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, IEEE: tl.constexpr):
    ri = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rj = tl.program_id(1).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M, BLOCK_M], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        k_ok = rk < K
        a = tl.load(x_ptr + ri[:, None] * stride_xm + rk[None, :] * stride_xk,
                    mask=(ri < M)[:, None] & k_ok[None, :], other=0.0)
        bt = tl.load(x_ptr + rj[None, :] * stride_xm + rk[:, None] * stride_xk,
                     mask=(rj < M)[None, :] & k_ok[:, None], other=0.0)
        if IEEE:
            acc += tl.dot(a, bt, input_precision="ieee")
        else:
            acc += tl.dot(a, bt)
    mask = (ri < M)[:, None] & (rj < M)[None, :]
    tl.store(g_ptr + ri[:, None] * stride_gm + rj[None, :] * stride_gn, acc.to(g_ptr.dtype.element_ty), mask=mask)


def gram_matrix(x: torch.Tensor, BLOCK_K: int = 64) -> torch.Tensor:
    M, K = x.shape
    g = torch.empty((M, M), dtype=x.dtype, device=x.device)
    if M == 0:
        return g
    if K == 0:
        return g.zero_()
    block_m = max(16, min(64, triton.next_power_of_2(M)))
    block_k = min(BLOCK_K, K)
    grid = (triton.cdiv(M, block_m), triton.cdiv(M, block_m))
    gram_kernel[grid](x, g, M, K, x.stride(0), x.stride(1), g.stride(0), g.stride(1),
                      BLOCK_M=block_m, BLOCK_K=block_k, IEEE=x.dtype == torch.float32)
    return g


spec = kcheck.Spec(
    name="hx9_gram_matrix",
    kernel=gram_matrix,
    reference=lambda x: x @ x.T,
    inputs=[kcheck.Tensor("M", "K")],
    dims={"M": kcheck.Dim(nominal=128), "K": kcheck.Dim(nominal=256)},
    reduce=["K"],
    configs=[{"BLOCK_K": 64}, {"BLOCK_K": 32}],
)

BUG_CLASS = 'kernel-raises'  # the planted class (from the README's table), for benchmarks/zoo.py
