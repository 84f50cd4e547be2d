"""The LoRA branch of a fine-tuned linear layer: delta = scale * (x @ A^T) @ B^T, with A [R, K] (down) and B [N, R]
(up) stored as nn.Linear weights are, [out_features, in_features].

Two GEMM kernels on 2-D tiles. The first computes t = x @ A^T [M, R] into an fp32 buffer, looping over K in BLOCK_K
chunks; the second computes scale * t @ B^T [M, N] over the rank in BLOCK_R chunks. Products use fp32 operands with
IEEE precision (no tf32), accumulate in fp32 and are stored in x's dtype. Every operand is read through its strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def gemm_nt_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bn, s_bk, s_cm, s_cn, scale,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """c[m, n] = scale * sum_k a[m, k] * b[n, k]"""
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        rk = start + tl.arange(0, BLOCK_K).to(tl.int64)
        a = tl.load(a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak,
                    mask=(rm < M)[:, None] & (rk < K)[None, :], other=0.0).to(tl.float32)
        b = tl.load(b_ptr + rn[None, :] * s_bn + rk[:, None] * s_bk,
                    mask=(rn < N)[None, :] & (rk < K)[:, None], other=0.0).to(tl.float32)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.store(c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn, (acc * scale).to(c_ptr.dtype.element_ty), mask=mask)


def lora_delta(x, lora_a, lora_b, scale=2.0, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32):
    M, K = x.shape
    R = lora_a.shape[0]
    N = lora_b.shape[0]
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    t = torch.empty((M, R), dtype=torch.float32, device=x.device)
    gemm_nt_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(R, 16))](
        x, lora_a, t, M, R, K, x.stride(0), x.stride(1), lora_a.stride(0), lora_a.stride(1),
        t.stride(0), t.stride(1), 1.0, BLOCK_M=BLOCK_M, BLOCK_N=16, BLOCK_K=BLOCK_K)
    gemm_nt_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](
        t, lora_b, out, M, N, R, t.stride(0), t.stride(1), lora_b.stride(1), lora_b.stride(0),
        out.stride(0), out.stride(1), scale, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=16)
    return out


def reference(x, lora_a, lora_b, scale=2.0):
    return scale * (x @ lora_a.T) @ lora_b.T


spec = kcheck.Spec(
    name="hx15_lora_delta",
    kernel=lora_delta,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="x"), kcheck.Tensor("R", "K", name="lora_a"),
            kcheck.Tensor("N", "R", name="lora_b")],
    dims={"M": kcheck.Dim(nominal=64), "K": kcheck.Dim(nominal=256, real=(4096,)),
          "N": kcheck.Dim(nominal=192, real=(4096,)), "R": kcheck.Dim(nominal=16, max=64, real=(8, 64))},
    reduce=["K", "R"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 64}],
    params={"scale": [2.0, 0.5]},
)
