"""Inviscid Burgers equation u_t + (u^2 / 2)_x = 0 advanced by the Lax-Friedrichs scheme on periodic 1-D grids,
one grid per row::

    u'[i] = (u[i-1] + u[i+1]) / 2 - (dt / (2 dx)) * (f(u[i+1]) - f(u[i-1])),   f(u) = u^2 / 2

with the flux difference written as (u[i+1] - u[i-1]) (u[i+1] + u[i-1]) / 2, exact for close values (no
cancellation of two large squares). `steps` steps of Courant number dt/dx (modes) run as one launch each,
ping-ponging between two fp32 buffers; the result is returned in the input dtype. Tiles of BLOCK_M rows by BLOCK_N
cells, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"

TILE = 4096  # cells per program


@triton.jit
def lax_friedrichs_kernel(u_ptr, v_ptr, M, N, half_courant, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    left = tl.where(cols == 0, N - 1, cols - 1)
    right = tl.where(cols == N - 1, 0, cols + 1)
    row = u_ptr + rows[:, None] * N
    ul = tl.load(row + left[None, :], mask=mask, other=0.0)
    ur = tl.load(row + right[None, :], mask=mask, other=0.0)
    flux_diff = 0.5 * (ur - ul) * (ur + ul)
    new = 0.5 * (ul + ur) - half_courant * flux_diff
    tl.store(v_ptr + rows[:, None] * N + cols[None, :], new, mask=mask)


def burgers_lax_friedrichs(u0: torch.Tensor, steps: int = 4, courant: float = 0.1,
                           BLOCK_N: int = 128) -> torch.Tensor:
    M, N = u0.shape
    u = torch.empty((M, N), dtype=torch.float32, device=u0.device)
    u.copy_(u0)
    if M == 0 or N == 0:
        return u.to(u0.dtype)
    v = u
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))
    for _ in range(steps):
        lax_friedrichs_kernel[grid](u, v, M, N, 0.5 * courant, BLOCK_M=block_m, BLOCK_N=block_n)
        u, v = v, u
    return u.to(u0.dtype)


def reference(u0: torch.Tensor, steps: int = 4, courant: float = 0.1) -> torch.Tensor:
    u = u0
    for _ in range(steps):
        ul = torch.roll(u, 1, dims=-1)
        ur = torch.roll(u, -1, dims=-1)
        u = 0.5 * (ul + ur) - 0.5 * courant * (0.5 * ur * ur - 0.5 * ul * ul)
    return u


spec = kcheck.Spec(
    name="burgers_lax_friedrichs",
    kernel=burgers_lax_friedrichs,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="u0")],
    dims={"M": kcheck.Dim(nominal=16), "N": kcheck.Dim(nominal=256)},
    params={"steps": [4, 1], "courant": [0.1, 0.5]},
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)
