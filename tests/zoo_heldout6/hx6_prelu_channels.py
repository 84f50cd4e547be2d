"""PReLU with one learned slope per channel on a [B, C, L] tensor, as torch.nn.functional.prelu:
y = x where x >= 0, else weight[c] * x. Computed in fp32, returned in the input dtype, strides honoured.

Two tilings: for L >= SHORT_L, one program per (b, c) row chunk of BLOCK_L positions, the slope a scalar; for short
sequences (L < SHORT_L: per-channel features with little or no length) one program per BLOCK_C channels of one
batch element, a [BLOCK_C, next_pow2(L)] tile, so the programs stay wide."""

import torch
import triton
import triton.language as tl

import kcheck

SHORT_L = 16


@triton.jit
def prelu_rows_kernel(x_ptr, w_ptr, out_ptr, C, L, sxb, sxc, sxl, sob, soc, sol, BLOCK_L: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    b = row // C
    c = row % C
    ls = tl.program_id(1).to(tl.int64) * BLOCK_L + tl.arange(0, BLOCK_L).to(tl.int64)
    mask = ls < L
    x = tl.load(x_ptr + b * sxb + c * sxc + ls * sxl, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(w_ptr + c).to(tl.float32)
    y = tl.where(x >= 0, x, a * x)
    tl.store(out_ptr + b * sob + c * soc + ls * sol, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def prelu_channels_kernel(x_ptr, w_ptr, out_ptr, C, L, sxb, sxc, sxl, sob, soc, sol,
                          BLOCK_C: tl.constexpr, BLOCK_L: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cs = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    ls = tl.arange(0, BLOCK_L).to(tl.int64)
    c_mask = cs < C
    l_mask = ls < L
    mask = c_mask[:, None] & l_mask[None, :]
    x = tl.load(x_ptr + b * sxb + cs[:, None] * sxc + ls[None, :] * sxl, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(w_ptr + ls, mask=l_mask, other=0.0).to(tl.float32)
    y = tl.where(x >= 0, x, a[None, :] * x)
    tl.store(out_ptr + b * sob + cs[:, None] * soc + ls[None, :] * sol, y.to(out_ptr.dtype.element_ty), mask=mask)


def prelu(x: torch.Tensor, weight: torch.Tensor, BLOCK_L: int = 256, BLOCK_C: int = 64) -> torch.Tensor:
    B, C, L = x.shape
    out = torch.empty((B, C, L), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    strides = (*x.stride(), *out.stride())
    if L >= SHORT_L:
        prelu_rows_kernel[(B * C, triton.cdiv(L, BLOCK_L))](x, weight, out, C, L, *strides, BLOCK_L=BLOCK_L)
    else:
        prelu_channels_kernel[(B, triton.cdiv(C, BLOCK_C))](
            x, weight, out, C, L, *strides, BLOCK_C=BLOCK_C, BLOCK_L=triton.next_power_of_2(L))
    return out


spec = kcheck.Spec(
    name="hx6_prelu_channels",
    kernel=prelu,
    reference=torch.nn.functional.prelu,
    inputs=[kcheck.Tensor("B", "C", "L"), kcheck.Tensor("C", pattern="randn")],
    dims={"B": kcheck.Dim(nominal=4), "C": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_L": 256, "BLOCK_C": 64}, {"BLOCK_L": 64, "BLOCK_C": 16}],
)

BUG_CLASS = "wrong-axis"
