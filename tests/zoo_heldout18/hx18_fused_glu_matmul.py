"""Fused GLU projection: out = (x @ Wa) * sigmoid(x @ Wb), the gated linear unit of a transformer MLP computed
in one kernel. x: (M, K), Wa and Wb: (K, N), out: (M, N).

Each program owns a BLOCK_M x BLOCK_N output tile and walks K in BLOCK_K steps with two fp32 tl.dot
accumulators (the value and the gate share the x tile). fp32 inputs multiply in TF32 on a
GPU (tl.dot's default), hence the "tf32" precision. Offsets are int64, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def glu_matmul_kernel(x_ptr, wa_ptr, wb_ptr, out_ptr, M, N, K,
                      s_xm, s_xk, s_ak, s_an, s_bk, s_bn, s_om, s_on,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    rk = tl.arange(0, BLOCK_K).to(tl.int64)
    acc_a = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_b = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kt in range(0, K // BLOCK_K):
        kk = kt * BLOCK_K + rk
        x = tl.load(x_ptr + rm[:, None] * s_xm + kk[None, :] * s_xk,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        wa = tl.load(wa_ptr + kk[:, None] * s_ak + rn[None, :] * s_an,
                     mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        wb = tl.load(wb_ptr + kk[:, None] * s_bk + rn[None, :] * s_bn,
                     mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc_a = tl.dot(x, wa, acc_a)
        acc_b = tl.dot(x, wb, acc_b)
    out = acc_a * tl.sigmoid(acc_b)
    tl.store(out_ptr + rm[:, None] * s_om + rn[None, :] * s_on, out.to(out_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def glu_matmul(x, wa, wb, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32):
    M, K = x.shape
    N = wa.shape[1]
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    glu_matmul_kernel[grid](x, wa, wb, out, M, N, K, x.stride(0), x.stride(1), wa.stride(0), wa.stride(1),
                            wb.stride(0), wb.stride(1), out.stride(0), out.stride(1),
                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out


def reference(x, wa, wb):
    return (x @ wa) * torch.sigmoid(x @ wb)


BUG_CLASS = "tail-tile-dropped"

spec = kcheck.Spec(
    name="hx18_fused_glu_matmul",
    kernel=glu_matmul,
    reference=reference,
    inputs=[kcheck.Tensor("M", "K", name="x"), kcheck.Tensor("K", "N", name="w_value"),
            kcheck.Tensor("K", "N", name="w_gate")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=128), "K": kcheck.Dim(nominal=128)},
    dtypes=["tf32", "bf16", "fp16"],
    reduce=["K"],
    configs=[{"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 64}],
)
