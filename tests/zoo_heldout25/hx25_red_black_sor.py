"""Red-black successive over-relaxation for the Poisson equation lap(u) = f on a grid [H, W] with unit spacing and
Dirichlet borders (the border cells of the initial guess are kept): each sweep updates the red cells ((i + j) even)
and then the black ones, u_ij <- (1 - omega) u_ij + omega / 4 (u_{i-1,j} + u_{i+1,j} + u_{i,j-1} + u_{i,j+1} - f_ij).
A red cell's four neighbours are black and vice versa, so each colour's update is one launch working in place on
an fp32 copy of the grid: [BLOCK_H, BLOCK_W] tiles, every program writing only cells of the launch's colour.
iterations and omega are modes."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def sor_colour_kernel(u_ptr, f_ptr, H, W, omega, colour, s_uh, s_uw, s_fh, s_fw,
                      BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    j = tl.program_id(1).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    interior = ((i >= 1) & (i < H - 1))[:, None] & ((j >= 1) & (j < W - 1))[None, :]
    mask = interior
    p = u_ptr + i[:, None] * s_uh + j[None, :] * s_uw
    up = tl.load(p - s_uh, mask=mask, other=0.0)
    down = tl.load(p + s_uh, mask=mask, other=0.0)
    left = tl.load(p - s_uw, mask=mask, other=0.0)
    right = tl.load(p + s_uw, mask=mask, other=0.0)
    centre = tl.load(p, mask=mask, other=0.0)
    f = tl.load(f_ptr + i[:, None] * s_fh + j[None, :] * s_fw, mask=mask, other=0.0).to(tl.float32)
    new = (1.0 - omega) * centre + omega * 0.25 * (up + down + left + right - f)
    tl.store(p, new, mask=mask)


def red_black_sor(u0, f, iterations=3, omega=1.5, BLOCK_H=16, BLOCK_W=32):
    H, W = u0.shape
    u = u0.to(torch.float32, memory_format=torch.contiguous_format, copy=True)  # fp32 working copy, in place
    if H > 2 and W > 2:
        grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
        for _ in range(iterations):
            for colour in (0, 1):
                sor_colour_kernel[grid](u, f, H, W, omega, colour, u.stride(0), u.stride(1), f.stride(0), f.stride(1),
                                        BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return u.to(u0.dtype)


def reference(u0, f, iterations=3, omega=1.5):
    u = u0.clone()
    H, W = u.shape
    if H <= 2 or W <= 2:
        return u
    ii = torch.arange(1, H - 1, device=u.device)[:, None]
    jj = torch.arange(1, W - 1, device=u.device)[None, :]
    for _ in range(iterations):
        for colour in (0, 1):
            nb = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
            new = (1 - omega) * u[1:-1, 1:-1] + omega / 4 * (nb - f[1:-1, 1:-1])
            u[1:-1, 1:-1] = torch.where((ii + jj) % 2 == colour, new, u[1:-1, 1:-1])
    return u


spec = kcheck.Spec(
    name="hx25_red_black_sor",
    kernel=red_black_sor,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="u0"), kcheck.Tensor("H", "W", pattern="randn", name="f")],
    params={"iterations": [3, 1], "omega": [1.5, 1.0]},
    dims={"H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 64}],
)
