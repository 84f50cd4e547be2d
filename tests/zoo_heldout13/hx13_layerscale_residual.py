"""Residual add with LayerScale (CaiT, DINOv2): out = residual + gamma * x, gamma per channel, on [M, C] token
activations. 2-D tiles of BLOCK_M x BLOCK_C with rows on grid axis 0 and channel blocks on axis 1 (C is at most
65535 * BLOCK_C); every offset is int64 and honours each tensor's strides.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def layerscale_residual_kernel(x_ptr, r_ptr, g_ptr, o_ptr, M, C, stride_xm, stride_xc, stride_rm, stride_rc,
                               stride_g, stride_om, stride_oc, BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    col_mask = cols < C
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xc, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + rows[:, None] * stride_rm + cols[None, :] * stride_rc, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + cols * stride_g, mask=col_mask, other=0.0).to(tl.float32)
    out = r + g[None, :] * x
    tl.store(o_ptr + rows[:, None] * stride_om + cols[None, :] * stride_oc, out.to(o_ptr.dtype.element_ty), mask=mask)


def layerscale_residual(x: torch.Tensor, residual: torch.Tensor, gamma: torch.Tensor, BLOCK_M: int = 16,
                        BLOCK_C: int = 128, num_warps: int = 4) -> torch.Tensor:
    M, C = x.shape
    out = torch.empty((M, C), dtype=x.dtype, device=x.device)
    if M == 0 or C == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(C, BLOCK_C))
    layerscale_residual_kernel[grid](x, residual, gamma, out, M, C, x.stride(0), x.stride(1), residual.stride(0),
                                     residual.stride(1), gamma.stride(0), out.stride(0), out.stride(1),
                                     BLOCK_M=BLOCK_M, BLOCK_C=BLOCK_C, num_warps=num_warps)
    return out


def reference(x: torch.Tensor, residual: torch.Tensor, gamma: torch.Tensor) -> torch.Tensor:
    return residual + gamma * x


BUG_CLASS = None

spec = kcheck.Spec(
    name="hx13_layerscale_residual",
    kernel=layerscale_residual,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C", name="x"), kcheck.Tensor("M", "C", name="residual"),
            kcheck.Tensor("C", name="gamma", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "C": kcheck.Dim(nominal=192, max=65535 * 64, real=(768,))},
    configs=[{"BLOCK_M": 16, "BLOCK_C": 128, "num_warps": 4}, {"BLOCK_M": 64, "BLOCK_C": 64, "num_warps": 8}],
)
