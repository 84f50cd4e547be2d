"""Per-channel affine transform of a channels-first activation (FiLM, or an inference batch norm folded into a
scale and a shift): out[b, c, l] = x[b, c, l] * gamma[c] + beta[c], x of shape [B, C, L].

Long sequences are tiled per (b, c) row: each program loads its channel's gamma and beta once and streams BLOCK_L
positions with the input's own strides. Short sequences (L < SHORT) would leave most lanes of a row tile idle, so
they take a flat elementwise kernel over the contiguous tensor instead, each lane finding its channel from its flat
index. fp32 math, output contiguous in the input dtype, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

SHORT = 256


@triton.jit
def affine_rows_kernel(x_ptr, g_ptr, b_ptr, out_ptr, C, L, stride_xb, stride_xc, stride_xl, stride_g, stride_b,
                       BLOCK_L: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    pos = tl.program_id(1).to(tl.int64) * BLOCK_L + tl.arange(0, BLOCK_L).to(tl.int64)
    bi = row // C
    c = row % C
    gamma = tl.load(g_ptr + c * stride_g).to(tl.float32)
    beta = tl.load(b_ptr + c * stride_b).to(tl.float32)
    mask = pos < L
    x = tl.load(x_ptr + bi * stride_xb + c * stride_xc + pos * stride_xl, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * L + pos, (x * gamma + beta).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def affine_flat_kernel(x_ptr, g_ptr, b_ptr, out_ptr, n, C, L, stride_g, stride_b, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    c = offs % C
    gamma = tl.load(g_ptr + c * stride_g, mask=mask, other=0.0).to(tl.float32)
    beta = tl.load(b_ptr + c * stride_b, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x * gamma + beta).to(out_ptr.dtype.element_ty), mask=mask)


def channel_affine(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, BLOCK_L: int = 1024,
                   BLOCK: int = 1024) -> torch.Tensor:
    B, C, L = x.shape
    out = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    n = out.numel()
    if n == 0:
        return out
    if L >= SHORT:
        block_l = min(BLOCK_L, triton.next_power_of_2(L))
        affine_rows_kernel[(B * C, triton.cdiv(L, block_l))](
            x, gamma, beta, out, C, L, x.stride(0), x.stride(1), x.stride(2), gamma.stride(0), beta.stride(0),
            BLOCK_L=block_l)
    else:
        xc = x.contiguous()
        affine_flat_kernel[(triton.cdiv(n, BLOCK),)](xc, gamma, beta, out, n, C, L, gamma.stride(0),
                                                    beta.stride(0), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return x * gamma[None, :, None] + beta[None, :, None]


spec = kcheck.Spec(
    name="hx5_channel_affine",
    kernel=channel_affine,
    reference=reference,
    inputs=[kcheck.Tensor("B", "C", "L", name="x"), kcheck.Tensor("C", name="gamma"),
            kcheck.Tensor("C", name="beta")],
    dims={"B": kcheck.Dim(nominal=8), "C": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_L": 1024, "BLOCK": 1024}, {"BLOCK_L": 128, "BLOCK": 256}],
)

BUG_CLASS = "wrong-axis"
