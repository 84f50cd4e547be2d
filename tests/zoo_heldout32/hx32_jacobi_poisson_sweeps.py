"""Jacobi relaxation for the 2-D Poisson equation lap(u) = f on a unit grid with fixed (Dirichlet) boundary values:
`sweeps` sweeps of

    u'[i, j] = (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - f[i, j]) / 4

on the interior, the boundary rows and columns kept. The grid is relaxed in fp32 and returned in the input dtype.

One launch per sweep over [BLOCK_H, BLOCK_W] tiles on a 2-D grid: each program reads its tile's four neighbours from
the current iterate and writes the next iterate into the other of two buffers (swapped after each sweep), so no
program reads a cell another program of the same sweep writes. Strides passed explicitly, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def jacobi_sweep_kernel(u_ptr, f_ptr, v_ptr, H, W, s_uh, s_uw, s_fh, s_fw, BLOCK_H: tl.constexpr,
                        BLOCK_W: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    j = tl.program_id(1).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    inside = (i < H)[:, None] & (j < W)[None, :]
    interior = inside & ((i > 0) & (i < H - 1))[:, None] & ((j > 0) & (j < W - 1))[None, :]
    c = u_ptr + i[:, None] * s_uh + j[None, :] * s_uw
    up = tl.load(c - s_uh, mask=interior, other=0.0)
    down = tl.load(c + s_uh, mask=interior, other=0.0)
    left = tl.load(c - s_uw, mask=interior, other=0.0)
    right = tl.load(c + s_uw, mask=interior, other=0.0)
    f = tl.load(f_ptr + i[:, None] * s_fh + j[None, :] * s_fw, mask=interior, other=0.0).to(tl.float32)
    new = 0.25 * (up + down + left + right - f)
    tl.store(v_ptr + i[:, None] * s_uh + j[None, :] * s_uw, new, mask=interior)


def jacobi_poisson(u0: torch.Tensor, f: torch.Tensor, sweeps: int = 4, BLOCK_H: int = 16,
                   BLOCK_W: int = 32) -> torch.Tensor:
    H, W = u0.shape
    cur = torch.empty((H, W), dtype=torch.float32, device=u0.device)
    cur.copy_(u0)
    nxt = cur  # the boundary is never written: both buffers carry it
    if H > 2 and W > 2:
        grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
        for _ in range(sweeps):
            jacobi_sweep_kernel[grid](cur, f, nxt, H, W, cur.stride(0), cur.stride(1), f.stride(0), f.stride(1),
                                      BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
            cur, nxt = nxt, cur
    return cur.to(u0.dtype)


def reference(u0: torch.Tensor, f: torch.Tensor, sweeps: int = 4) -> torch.Tensor:
    u = u0.clone()
    if u.shape[0] > 2 and u.shape[1] > 2:
        for _ in range(sweeps):
            v = u.clone()
            v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - f[1:-1, 1:-1])
            u = v
    return u


spec = kcheck.Spec(
    name="hx32_jacobi_poisson_sweeps",
    kernel=jacobi_poisson,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="u0"), kcheck.Tensor("H", "W", name="f"), kcheck.Scalar(4, name="sweeps")],
    dims={"H": kcheck.Dim(nominal=40, real=()), "W": kcheck.Dim(nominal=96, real=())},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 64}],
)
