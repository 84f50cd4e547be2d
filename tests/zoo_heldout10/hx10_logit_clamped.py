"""Clamped logit: out = log(p / (1 - p)) with p = clamp(x, eps, 1 - eps), eps = 2**-20, as torch.logit(x, eps).

A 2-D grid: BLOCK_M rows by BLOCK_N columns per program; each element's address is row * stride_m + col *
stride_n. fp32 math, result in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 2.0 ** -20


@triton.jit
def logit_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on,
                 EPS_: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.5)
    p = x.to(tl.float32)
    p = tl.minimum(tl.maximum(p, EPS_, propagate_nan=tl.PropagateNan.ALL), 1.0 - EPS_,
                   propagate_nan=tl.PropagateNan.ALL)
    y = tl.log(p / (1.0 - p))
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, y.to(out_ptr.dtype.element_ty),
             mask=mask)


def logit(x: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        logit_kernel[grid](x, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1),
                           EPS_=EPS, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


spec = kcheck.Spec(
    name="hx10_logit_clamped",
    kernel=logit,
    reference=lambda x: torch.logit(x, eps=EPS),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 256}, {"BLOCK_M": 4, "BLOCK_N": 64}],
)

BUG_CLASS = "int32-overflow"
