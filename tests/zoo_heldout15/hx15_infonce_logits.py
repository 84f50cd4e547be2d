"""InfoNCE / CLIP similarity logits between a batch of query embeddings and a bank of key embeddings:

    logits[m, n] = (q[m] . k[n]) / tau

A GEMM on 2-D tiles of BLOCK_M x BLOCK_N, looping over the embedding in BLOCK_D chunks; fp32 operands with IEEE
precision (no tf32), fp32 accumulation, stored in the inputs' dtype. The temperature is a mode. Offsets are int64,
every operand read through its strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def infonce_logits_kernel(q_ptr, k_ptr, out_ptr, M, N, D, s_qm, s_qd, s_kn, s_kd, s_om, s_on, inv_tau,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        rd = start + tl.arange(0, BLOCK_D).to(tl.int64)
        q = tl.load(q_ptr + rm[:, None] * s_qm + rd[None, :] * s_qd,
                    mask=(rm < M)[:, None] & (rd < D)[None, :], other=0.0).to(tl.float32)
        kt = tl.load(k_ptr + rn[None, :] * s_kn + rd[:, None] * s_kd,
                     mask=(rn < N)[None, :] & (rd < D)[:, None], other=0.0).to(tl.float32)
        acc += tl.dot(q, kt, input_precision="ieee")
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.store(out_ptr + rm[:, None] * s_om + rn[None, :] * s_on, (acc * inv_tau).to(out_ptr.dtype.element_ty),
             mask=mask)


def infonce_logits(q, k, tau=0.07, BLOCK_M=32, BLOCK_N=32, BLOCK_D=32):
    M, D = q.shape
    N = k.shape[0]
    out = torch.empty((M, N), dtype=q.dtype, device=q.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    infonce_logits_kernel[grid](q, k, out, M, N, D, q.stride(0), q.stride(1), D, 1,
                                out.stride(0), out.stride(1), 1.0 / tau,
                                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D)
    return out


def reference(q, k, tau=0.07):
    return (q @ k.T) / tau


spec = kcheck.Spec(
    name="hx15_infonce_logits",
    kernel=infonce_logits,
    reference=reference,
    inputs=[kcheck.Tensor("M", "D", name="q"), kcheck.Tensor("N", "D", name="k")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=128, real=(512,))},
    reduce=["D"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_D": 32}, {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_D": 64}],
    params={"tau": [0.07, 1.0]},
)
