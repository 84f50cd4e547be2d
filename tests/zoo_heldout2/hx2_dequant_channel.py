"""Weight dequantization with per-output-channel scale and zero point: W[k, n] = (Q[k, n] - zero[n]) * scale[n],
Q holding integer codes stored as floats (K input features x N output channels). The scale and zero-point vectors
reach the kernel as broadcast 2-D operands (a stride per axis), so the same kernel serves per-row and per-column
quantization."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dequant_kernel(q_ptr, s_ptr, z_ptr, out_ptr, K, N, stride_qk, stride_qn, stride_sk, stride_sn,
                   BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_k = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    ks = (pid_k * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64))[:, None]
    ns = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64))[None, :]
    mask = (ks < K) & (ns < N)
    q = tl.load(q_ptr + ks * stride_qk + ns * stride_qn, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + ks * stride_sk + ns * stride_sn, mask=mask, other=0.0).to(tl.float32)
    z = tl.load(z_ptr + ks * stride_sk + ns * stride_sn, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + ks * N + ns, ((q - z) * s).to(out_ptr.dtype.element_ty), mask=mask)


def dequant(q, scale, zero, BLOCK_K=32, BLOCK_N=64):
    K, N = q.shape
    scale, zero = scale.contiguous(), zero.contiguous()
    out = torch.empty((K, N), dtype=q.dtype, device=q.device)
    if K and N:
        grid = (triton.cdiv(K, BLOCK_K), triton.cdiv(N, BLOCK_N))
        dequant_kernel[grid](q, scale, zero, out, K, N, q.stride(0), q.stride(1), scale.stride(0), 0,
                             BLOCK_K=BLOCK_K, BLOCK_N=BLOCK_N)
    return out



spec = kcheck.Spec(
    name="hx2_dequant_channel",
    kernel=dequant,
    reference=lambda q, s, z: (q - z) * s,
    inputs=[kcheck.Tensor("K", "N"), kcheck.Tensor("N", pattern="randn"), kcheck.Tensor("N")],
    dims={"K": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK_K": 32, "BLOCK_N": 64}, {"BLOCK_K": 8, "BLOCK_N": 128}],
)

BUG_CLASS = "wrong-axis"
