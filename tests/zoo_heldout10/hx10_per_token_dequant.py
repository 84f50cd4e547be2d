"""Dequantization with a scale vector of length T: out[t, d] = q[t, d] * scale[d] (0 where d >= T).

Programs tile the (T, D) output in BLOCK_T x BLOCK_D blocks; q is read through its strides, the scale once per
column of the tile; fp32 product, result in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dequant_kernel(q_ptr, s_ptr, out_ptr, T, D, sqt, sqd, sot, sod, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    rmask = rows < T
    cmask = cols < D
    mask = rmask[:, None] & cmask[None, :]
    q = tl.load(q_ptr + rows[:, None] * sqt + cols[None, :] * sqd, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + cols, mask=cmask & (cols < T), other=0.0).to(tl.float32)
    y = q * s[None, :]
    tl.store(out_ptr + rows[:, None] * sot + cols[None, :] * sod, y.to(out_ptr.dtype.element_ty), mask=mask)


def dequant(q: torch.Tensor, scale: torch.Tensor, BLOCK_T: int = 32, BLOCK_D: int = 128) -> torch.Tensor:
    T, D = q.shape
    scale = scale.contiguous()
    out = torch.empty((T, D), dtype=q.dtype, device=q.device)
    if T and D:
        grid = (triton.cdiv(T, BLOCK_T), triton.cdiv(D, BLOCK_D))
        dequant_kernel[grid](q, scale, out, T, D, q.stride(0), q.stride(1), out.stride(0), out.stride(1),
                             BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return out


spec = kcheck.Spec(
    name="hx10_per_token_dequant",
    kernel=dequant,
    reference=lambda q, scale: q * scale[:, None],
    inputs=[kcheck.Tensor("T", "D"), kcheck.Tensor("T")],
    dims={"T": kcheck.Dim(nominal=256), "D": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_T": 32, "BLOCK_D": 128}, {"BLOCK_T": 8, "BLOCK_D": 32}],
)

BUG_CLASS = "wrong-axis"
