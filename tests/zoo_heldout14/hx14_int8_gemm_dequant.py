"""Epilogue of a W8A8 int8 GEMM (SmoothQuant-style serving): the int32 accumulator C = A_q @ B_q^T is turned back
into activations with the per-token scale of A and the per-channel scale of B, plus the bias:
out[m, n] = C[m, n] * a_scale[m] * b_scale[n] + bias[n].

2-D tiles of BLOCK_M x BLOCK_N, grid (row tiles, column tiles). The accumulator is read through its strides (it can
be a slice of a split-K workspace); the output is a fresh row-major [M, N] whose leading dimension the launcher
passes. fp16 outputs are left out: real int8 accumulators times their scales run past fp16's 65504, so the serving
stack dequantizes to bf16 or fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def dequant_epilogue_kernel(c_ptr, a_scale_ptr, b_scale_ptr, bias_ptr, out_ptr, M, N, ldo, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    m_ok = rm < M
    n_ok = rn < N
    mask = m_ok[:, None] & n_ok[None, :]
    c = tl.load(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, mask=mask, other=0).to(tl.float32)
    sa = tl.load(a_scale_ptr + rm, mask=m_ok, other=0.0).to(tl.float32)
    sb = tl.load(b_scale_ptr + rn, mask=n_ok, other=0.0).to(tl.float32)
    bias = tl.load(bias_ptr + rn, mask=n_ok, other=0.0).to(tl.float32)
    y = c * sa[:, None] * sb[None, :] + bias[None, :]
    tl.store(out_ptr + rm[:, None] * ldo + rn[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def int8_gemm_dequant(acc: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor, bias: torch.Tensor,
                      BLOCK_M: int = 32, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = acc.shape
    out = torch.empty((M, N), dtype=a_scale.dtype, device=acc.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    a_scale, b_scale, bias = a_scale.contiguous(), b_scale.contiguous(), bias.contiguous()
    dequant_epilogue_kernel[grid](acc, a_scale, b_scale, bias, out, M, N, M, acc.stride(0),
                                  acc.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(acc: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return acc.to(a_scale.dtype) * a_scale[:, None] * b_scale[None, :] + bias[None, :]


spec = kcheck.Spec(
    name="hx14_int8_gemm_dequant",
    kernel=int8_gemm_dequant,
    reference=reference,
    inputs=[kcheck.Index("M", "N", low=-4096, high=4096, dtype=torch.int32, name="acc"),
            kcheck.Tensor("M", name="a_scale"), kcheck.Tensor("N", name="b_scale"), kcheck.Tensor("N", name="bias")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256, large=False)},  # grid axis 1: N tiles <= 65535
    dtypes=["fp32", "bf16"],
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 64, "BLOCK_N": 32}],
)
