"""Batched matmul with a BLAS-style epilogue, out = alpha * (a @ b) + beta * out, for a (B, M, K) and
b (B, K, N). The launcher exposes the common case out = alpha * a @ b (attention scores with the 1/sqrt(d) scale
folded in). Tiles of BLOCK_M x BLOCK_N per program, tl.dot over BLOCK_K chunks of K with fp32 operands and an
fp32 accumulator (IEEE products, no TF32), masks on the M, N and K tails, int64 batch offsets."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, alpha, beta,
               stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_b = tl.program_id(0).to(tl.int64)
    pid_m = tl.program_id(1)
    pid_n = tl.program_id(2)
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    rk = tl.arange(0, BLOCK_K).to(tl.int64)
    a_base = a_ptr + pid_b * stride_ab
    b_base = b_ptr + pid_b * stride_bb
    c_ptrs = c_ptr + pid_b * stride_cb + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    c_mask = (rm[:, None] < M) & (rn[None, :] < N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        kk = k + rk
        a = tl.load(a_base + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0).to(tl.float32)
        b = tl.load(b_base + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0).to(tl.float32)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    acc = acc * alpha + beta * tl.load(c_ptrs, mask=c_mask, other=0.0).to(tl.float32)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=c_mask)


def bmm_alpha(a, b, alpha=0.125, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32):
    B, M, K = a.shape
    N = b.shape[2]
    out = torch.empty((B, M, N), dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    if K == 0:
        return out.zero_()
    grid = (B, triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    bmm_kernel[grid](a, b, out, M, N, K, alpha, 0.0,
                     a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2),
                     out.stride(0), out.stride(1), out.stride(2),
                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out


def reference(a, b, alpha=0.125):
    return alpha * torch.bmm(a, b)


spec = kcheck.Spec(
    name="hx7_bmm_alpha",
    kernel=bmm_alpha,
    reference=reference,
    inputs=[kcheck.Tensor("B", "M", "K", name="a"), kcheck.Tensor("B", "K", "N", name="b")],
    dims={"B": kcheck.Dim(nominal=4), "M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=64),
          "K": kcheck.Dim(nominal=64)},
    reduce=["K"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 16}],
)

BUG_CLASS = "uninitialized-accumulator"
