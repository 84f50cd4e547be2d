"""MUSCL reconstruction for finite-volume schemes: the minmod-limited slope of every cell from its two one-sided
differences, row by row (each row an independent 1-D grid of cell averages)::

    s[i] = minmod(u[i] - u[i-1], u[i+1] - u[i]),   minmod(a, b) = sign(a) * min(|a|, |b|) if a * b > 0 else 0

The first and last cell of a row have one neighbour only: their slope is 0 (first order at the boundary).
Differences are taken in fp32; the slope is stored in the input dtype. Tiles of BLOCK_M rows by BLOCK_N cells,
strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"

TILE = 4096  # cells per program


@triton.jit
def minmod_slope_kernel(u_ptr, s_ptr, M, N, stride_um, stride_un, stride_sm, stride_sn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    row_ok = (rows < M)[:, None]
    inner = row_ok & (cols > 0)[None, :] & (cols < N - 1)[None, :]
    u_row = u_ptr + rows[:, None] * stride_um
    u_c = tl.load(u_row + cols[None, :] * stride_un, mask=inner, other=0.0).to(tl.float32)
    u_l = tl.load(u_row + (cols - 1)[None, :] * stride_un, mask=inner, other=0.0).to(tl.float32)
    u_r = tl.load(u_row + (cols + 1)[None, :] * stride_un).to(tl.float32)
    a = u_c - u_l
    b = u_r - u_c
    mag = tl.minimum(tl.abs(a), tl.abs(b))
    s = tl.where(a * b > 0.0, tl.where(a > 0.0, mag, -mag), 0.0)
    s = tl.where(inner, s, 0.0)
    out_mask = row_ok & (cols < N)[None, :]
    tl.store(s_ptr + rows[:, None] * stride_sm + cols[None, :] * stride_sn, s.to(s_ptr.dtype.element_ty),
             mask=out_mask)


def minmod_slope(u: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = u.shape
    s = torch.empty((M, N), dtype=u.dtype, device=u.device)
    if M == 0 or N == 0:
        return s
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))
    minmod_slope_kernel[grid](u, s, M, N, u.stride(0), u.stride(1), s.stride(0), s.stride(1),
                              BLOCK_M=block_m, BLOCK_N=block_n)
    return s


def reference(u: torch.Tensor) -> torch.Tensor:
    s = torch.zeros_like(u)
    if u.shape[-1] < 3:
        return s
    a = u[:, 1:-1] - u[:, :-2]
    b = u[:, 2:] - u[:, 1:-1]
    mag = torch.minimum(a.abs(), b.abs())
    s[:, 1:-1] = torch.where(a * b > 0, torch.where(a > 0, mag, -mag), torch.zeros_like(mag))
    return s


spec = kcheck.Spec(
    name="minmod_slope",
    kernel=minmod_slope,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="u")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=256)},
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)
