"""Tiled GEMM, C = A @ B with tl.dot: A (M, K), B (K, N), masks on the M, N and K tails, fp32 accumulator,
output in the input dtype. Offsets are int64 (M*K, K*N or M*N may pass 2**31); any strides are accepted.

fp32 inputs multiply in TF32 on the GPU (tl.dot's default input_precision), hence the "tf32" precision.
Programs are grouped along M (GROUP_M) so that neighbouring programs reuse the same B columns from L2.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    group = pid // per_group
    first_m = group * GROUP_M
    group_size = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_size
    pid_n = (pid % per_group) // group_size

    rm = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rn = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rk = tl.arange(0, BLOCK_K).to(tl.int64)
    a_rows = a_ptr + rm[:, None] * stride_am
    b_cols = b_ptr + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + rk  # int64: k * stride stays exact past 2**31
        a = tl.load(a_rows + kk[None, :] * stride_ak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_cols + kk[:, None] * stride_bk, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def gemm(a: torch.Tensor, b: torch.Tensor, BLOCK_M: int = 64, BLOCK_N: int = 64, BLOCK_K: int = 32,
         GROUP_M: int = 8) -> torch.Tensor:
    M, K = a.shape
    K2, N = b.shape
    assert K == K2, f"inner dimensions differ: A is {M}x{K}, B is {K2}x{N}"
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M == 0 or N == 0:
        return c
    if K == 0:
        return c.zero_()
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    gemm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                      c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M)
    return c


spec = kcheck.Spec(
    name="gemm",
    kernel=gemm,
    reference=torch.matmul,
    inputs=[kcheck.Tensor("M", "K"), kcheck.Tensor("K", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=128), "K": kcheck.Dim(nominal=128)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["K"],
    configs=[{"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}],
    properties=[kcheck.props.linear(0)],
)
