"""Gated residual update (highway / GRU-style gate): out = x + sigmoid(g) * h, elementwise over 2-D activations.
The gate is computed as e / (1 + e) with e = exp(g), in fp32."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def gated_residual_kernel(x_ptr, g_ptr, h_ptr, out_ptr, M, N, stride_xm, stride_gm, stride_hm,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64))[:, None]
    cols = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64))[None, :]
    mask = (rows < M) & (cols < N)
    x = tl.load(x_ptr + rows * stride_xm + cols, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows * stride_gm + cols, mask=mask, other=0.0).to(tl.float32)
    h = tl.load(h_ptr + rows * stride_hm + cols, mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(g)
    gate = e / (1.0 + e)
    tl.store(out_ptr + rows * N + cols, (x + gate * h).to(out_ptr.dtype.element_ty), mask=mask)


def gated_residual(x, g, h, BLOCK_M=16, BLOCK_N=64):
    M, N = x.shape
    x, g, h = (t if t.stride(-1) == 1 else t.contiguous() for t in (x, g, h))
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        gated_residual_kernel[grid](x, g, h, out, M, N, x.stride(0), g.stride(0), h.stride(0),
                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx2_gated_residual",
    kernel=gated_residual,
    reference=lambda x, g, h: x + torch.sigmoid(g) * h,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 4, "BLOCK_N": 256}],
)

BUG_CLASS = "exp-overflow"
