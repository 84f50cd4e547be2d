"""Split-K GEMM for tall-skinny shapes (C = A @ B with K much larger than M and N): a 3-D grid of (M tile, N tile,
K split); each program multiplies its slice of K with tl.dot (IEEE fp32) and adds its partial tile into C with
tl.atomic_add. C is fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def splitk_kernel(a_ptr, b_ptr, c_ptr, M, N, K, k_per_split,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    pid_k = tl.program_id(2).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    k_lo = pid_k * k_per_split
    k_hi = tl.minimum(k_lo + k_per_split, K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak,
                    mask=(rm < M)[:, None] & (rk < k_hi)[None, :], other=0.0)
        b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(rk < k_hi)[:, None] & (rn < N)[None, :], other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    c_mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.atomic_add(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc, mask=c_mask)


def splitk_gemm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, SPLIT_K: int = 4, BLOCK_K: int = 32) -> None:
    M, K = a.shape
    N = b.shape[1]
    if M == 0 or N == 0 or K == 0:
        return
    BLOCK_M, BLOCK_N = 32, 32
    k_per_split = triton.cdiv(triton.cdiv(K, SPLIT_K), BLOCK_K) * BLOCK_K
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), triton.cdiv(K, k_per_split))
    splitk_kernel[grid](a, b, c, M, N, K, k_per_split, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)


spec = kcheck.Spec(
    name="hx9_splitk_gemm",
    kernel=splitk_gemm,
    reference=lambda a, b: a @ b,
    inputs=[kcheck.Tensor("M", "K", name="a"), kcheck.Tensor("K", "N", name="b")],
    outputs=[kcheck.Tensor("M", "N", name="c")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=32), "K": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["K"],
    configs=[{"SPLIT_K": 4, "BLOCK_K": 32}, {"SPLIT_K": 8, "BLOCK_K": 64}],
)

BUG_CLASS = 'uninitialized-accumulator'  # the planted class (from the README's table), for benchmarks/zoo.py
