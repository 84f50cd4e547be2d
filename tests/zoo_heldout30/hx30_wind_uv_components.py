"""Meteorology: zonal and meridional wind components from wind speed and the direction the wind blows FROM (degrees
clockwise from north):

    u = -speed * sin(dir),   v = -speed * cos(dir)

over a [M, N] grid. 2-D tiles, every tensor read and written through its own strides, fp32 arithmetic."""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "stride-assumption"


@triton.jit
def wind_uv_kernel(s_ptr, d_ptr, u_ptr, v_ptr, M, N, s_sm, s_sn, s_dm, s_dn, s_um, s_un, s_vm, s_vn, deg2rad,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = (tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64))[:, None]
    cols = (tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64))[None, :]
    mask = (rows < M) & (cols < N)
    speed = tl.load(s_ptr + rows * s_sm + cols * s_sn, mask=mask, other=0.0).to(tl.float32)
    theta = tl.load(d_ptr + rows * s_dm + cols * s_dn, mask=mask, other=0.0).to(tl.float32) * deg2rad
    u = -speed * tl.sin(theta)
    v = -speed * tl.cos(theta)
    tl.store(u_ptr + rows * s_um + cols * s_un, u.to(u_ptr.dtype.element_ty), mask=mask)
    tl.store(v_ptr + rows * s_vm + cols * s_vn, v.to(v_ptr.dtype.element_ty), mask=mask)


def wind_components(speed: torch.Tensor, direction: torch.Tensor, BLOCK_M: int = 16,
                    BLOCK_N: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = speed.shape
    u = torch.empty((M, N), dtype=speed.dtype, device=speed.device)
    v = torch.empty((M, N), dtype=speed.dtype, device=speed.device)
    if M == 0 or N == 0:
        return u, v
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    wind_uv_kernel[grid](speed, direction, u, v, M, N, speed.stride(0), speed.stride(1),
                         N, 1, u.stride(0), u.stride(1),
                         v.stride(0), v.stride(1), math.pi / 180.0, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return u, v


def reference(speed: torch.Tensor, direction: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    theta = torch.deg2rad(direction)
    return -speed * torch.sin(theta), -speed * torch.cos(theta)


spec = kcheck.Spec(
    name="hx30_wind_uv_components",
    kernel=wind_components,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="speed"), kcheck.Tensor("M", "N", name="direction_deg")],
    dims={"M": kcheck.Dim(nominal=90), "N": kcheck.Dim(nominal=180)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 4, "BLOCK_N": 32}],
)
