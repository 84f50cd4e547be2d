"""ACES filmic tone mapping (Narkowicz's fit) of an HDR image held as rows of pixels:
v = exposure * x, y = clamp(v (2.51 v + 0.03) / (v (2.43 v + 0.59) + 0.14), 0, 1).

x is [M, N] with any strides; each program maps BLOCK_M rows, walking the row in BLOCK_N chunks, in fp32. NaN
propagates through the clamp as torch.clamp's does."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

A, B, C, D, E = 2.51, 0.03, 2.43, 0.59, 0.14


@triton.jit
def aces_kernel(x_ptr, y_ptr, M, N, exposure, stride_xm, stride_xn, stride_ym, stride_yn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    x_row = x_ptr + rows[:, None] * stride_xm
    y_row = y_ptr + rows[:, None] * stride_ym
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < N)[None, :]
        v = tl.load(x_row + cols[None, :] * stride_xn, mask=mask, other=0.0).to(tl.float32) * exposure
        t = (v * (2.51 * v + 0.03)) / (v * (2.43 * v + 0.59) + 0.14)
        t = tl.minimum(tl.maximum(t, 0.0, propagate_nan=tl.PropagateNan.ALL), 1.0, propagate_nan=tl.PropagateNan.ALL)
        tl.store(y_row + cols[None, :] * stride_yn, t.to(y_ptr.dtype.element_ty), mask=mask)


def aces_tonemap(x: torch.Tensor, exposure: float, BLOCK_M: int = 4, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        aces_kernel[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, exposure, x.stride(0), x.stride(1), y.stride(0),
                                                y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def reference(x: torch.Tensor, exposure: float) -> torch.Tensor:
    v = exposure * x
    return torch.clamp(v * (A * v + B) / (v * (C * v + D) + E), 0.0, 1.0)


spec = kcheck.Spec(
    name="hx19_aces_tonemap",
    kernel=aces_tonemap,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="hdr")],
    params={"exposure": [1.0, 0.6]},
    dims={"M": kcheck.Dim(nominal=96), "N": kcheck.Dim(nominal=640)},
    configs=[{"BLOCK_M": 4, "BLOCK_N": 256}, {"BLOCK_M": 16, "BLOCK_N": 64}],
)
