"""Integrated water vapour transport (IVT) of a pressure-level atmosphere (meteorology: atmospheric rivers).

For specific humidity q and winds (u, v) on L pressure levels of a Y x X grid, and the pressure thickness dp of
each level (Pa), the vertically integrated vapour flux in kg m^-1 s^-1:

    IVT_u[y, x] = (1 / g) * sum_k q[k, y, x] * u[k, y, x] * dp[k]
    IVT_v[y, x] = (1 / g) * sum_k q[k, y, x] * v[k, y, x] * dp[k]

The grid is tiled BLOCK_Y x BLOCK_X and the levels split into chunks of LEVELS (grid axis 2), so that a shallow
grid still has programs enough; each program sums its chunk in fp32 and adds it into an fp32 [2, Y, X]
accumulator with atomics, cast to the input dtype at the end.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"

G = 9.80665


@triton.jit
def ivt_kernel(q_ptr, u_ptr, v_ptr, dp_ptr, acc_ptr, L, Y, X, inv_g,
               s_qk, s_qy, s_qx, s_uk, s_uy, s_ux, s_vk, s_vy, s_vx, s_dp, s_a2, s_ay, s_ax,
               LEVELS: tl.constexpr, BLOCK_Y: tl.constexpr, BLOCK_X: tl.constexpr):
    ys = tl.program_id(0).to(tl.int64) * BLOCK_Y + tl.arange(0, BLOCK_Y).to(tl.int64)
    xs = tl.program_id(1).to(tl.int64) * BLOCK_X + tl.arange(0, BLOCK_X).to(tl.int64)
    k0 = tl.program_id(2).to(tl.int64) * LEVELS
    mask = (ys < Y)[:, None] & (xs < X)[None, :]
    fu = tl.zeros([BLOCK_Y, BLOCK_X], dtype=tl.float32)
    fv = tl.zeros([BLOCK_Y, BLOCK_X], dtype=tl.float32)
    for i in range(0, LEVELS):
        k = k0 + i
        m = mask & (k < L)
        q = tl.load(q_ptr + k * s_qk + ys[:, None] * s_qy + xs[None, :] * s_qx, mask=m, other=0.0).to(tl.float32)
        u = tl.load(u_ptr + k * s_uk + ys[:, None] * s_uy + xs[None, :] * s_ux, mask=m, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + k * s_vk + ys[:, None] * s_vy + xs[None, :] * s_vx, mask=m, other=0.0).to(tl.float32)
        dp = tl.load(dp_ptr + k * s_dp, mask=k < L, other=0.0).to(tl.float32)
        qdp = q * dp
        fu += qdp * u
        fv += qdp * v
    out = acc_ptr + ys[:, None] * s_ay + xs[None, :] * s_ax
    tl.atomic_add(out, fu * inv_g, mask=mask)
    tl.atomic_add(out + s_a2, fv * inv_g, mask=mask)


def integrated_vapor_transport(q: torch.Tensor, u: torch.Tensor, v: torch.Tensor, dp: torch.Tensor,
                               LEVELS: int = 8, BLOCK_Y: int = 16,
                               BLOCK_X: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    L, Y, X = q.shape
    acc = torch.empty((2, Y, X), dtype=torch.float32, device=q.device)
    if L > 0 and Y > 0 and X > 0:
        grid = (triton.cdiv(Y, BLOCK_Y), triton.cdiv(X, BLOCK_X), triton.cdiv(L, LEVELS))
        ivt_kernel[grid](q, u, v, dp, acc, L, Y, X, 1.0 / G,
                         q.stride(0), q.stride(1), q.stride(2), u.stride(0), u.stride(1), u.stride(2),
                         v.stride(0), v.stride(1), v.stride(2), dp.stride(0), acc.stride(0), acc.stride(1),
                         acc.stride(2), LEVELS=LEVELS, BLOCK_Y=BLOCK_Y, BLOCK_X=BLOCK_X)
    return acc[0].to(q.dtype), acc[1].to(q.dtype)


def reference(q: torch.Tensor, u: torch.Tensor, v: torch.Tensor,
              dp: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    qdp = q * dp[:, None, None]
    return (qdp * u).sum(0) / G, (qdp * v).sum(0) / G


spec = kcheck.Spec(
    name="hx39_integrated_vapor_transport",
    kernel=integrated_vapor_transport,
    reference=reference,
    inputs=[kcheck.Tensor("L", "Y", "X", name="q"), kcheck.Tensor("L", "Y", "X", name="u"),
            kcheck.Tensor("L", "Y", "X", name="v"), kcheck.Tensor("L", name="dp")],
    dims={"L": kcheck.Dim(nominal=27, max=64), "Y": kcheck.Dim(nominal=40), "X": kcheck.Dim(nominal=72, large=False)},
    reduce=["L"],
    configs=[{"LEVELS": 8, "BLOCK_Y": 16, "BLOCK_X": 32}, {"LEVELS": 32, "BLOCK_Y": 8, "BLOCK_X": 64}],
)
