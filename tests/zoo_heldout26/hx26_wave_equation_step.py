"""One leapfrog step of the 2-D wave equation on a [H, W] grid with fixed (Dirichlet) edges:

    u_next = 2 u - u_prev + C2 * (u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1] - 4 u)     (interior cells)
    u_next = u                                                                              (edge cells)

with C2 = (c dt / h)^2 the squared Courant number (a mode). The new field overwrites u_prev in place: each cell
reads only its own old u_prev value, so the buffer can be reused (the usual two-buffer rotation); u is only read.
One program per BLOCK_M x BLOCK_N tile, fp32 arithmetic, strides honoured.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def wave_step_kernel(u_ptr, prev_ptr, out_ptr, H, W, c2, s_uh, s_uw, s_ph, s_pw, s_oh, s_ow,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    j = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    inside = (i < H)[:, None] & (j < W)[None, :]
    interior = inside & ((i > 0) & (i < H - 1))[:, None] & ((j > 0) & (j < W - 1))[None, :]
    at = u_ptr + i[:, None] * s_uh + j[None, :] * s_uw
    u = tl.load(at, mask=inside, other=0.0).to(tl.float32)
    up = tl.load(at - s_uh, mask=interior, other=0.0).to(tl.float32)
    down = tl.load(at + s_uh, mask=interior, other=0.0).to(tl.float32)
    left = tl.load(at - s_uw, mask=interior, other=0.0).to(tl.float32)
    right = tl.load(at + s_uw, mask=interior, other=0.0).to(tl.float32)
    prev = tl.load(prev_ptr + i[:, None] * s_ph + j[None, :] * s_pw, mask=inside, other=0.0).to(tl.float32)
    lap = (up + down) + (left + right) - 4.0 * u
    nxt = tl.where(interior, 2.0 * u - prev + c2 * lap, u)
    tl.store(out_ptr + i[:, None] * s_oh + j[None, :] * s_ow, nxt.to(out_ptr.dtype.element_ty), mask=inside)


def wave_step_(u: torch.Tensor, u_prev: torch.Tensor, c2: float = 0.25,
               BLOCK_M: int = 16, BLOCK_N: int = 32) -> torch.Tensor:
    H, W = u.shape
    out = u
    if u.numel() == 0:
        return out
    grid = (triton.cdiv(H, BLOCK_M), triton.cdiv(W, BLOCK_N))
    wave_step_kernel[grid](u, u_prev, out, H, W, c2, u.stride(0), u.stride(1), u_prev.stride(0), u_prev.stride(1),
                           out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(u: torch.Tensor, u_prev: torch.Tensor, c2: float = 0.25) -> torch.Tensor:
    out = u.clone()
    if u.shape[0] > 2 and u.shape[1] > 2:
        c = u[1:-1, 1:-1]
        lap = (u[:-2, 1:-1] + u[2:, 1:-1]) + (u[1:-1, :-2] + u[1:-1, 2:]) - 4.0 * c
        out[1:-1, 1:-1] = 2.0 * c - u_prev[1:-1, 1:-1] + c2 * lap
    return out


spec = kcheck.Spec(
    name="hx26_wave_equation_step",
    kernel=wave_step_,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="u"), kcheck.Tensor("H", "W", name="u_prev", mutated=True)],
    dims={"H": kcheck.Dim(nominal=80), "W": kcheck.Dim(nominal=96)},
    params={"c2": [0.25, 0.1]},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 32}, {"BLOCK_M": 32, "BLOCK_N": 16}],
)
