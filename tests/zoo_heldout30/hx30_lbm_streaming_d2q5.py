"""Lattice Boltzmann D2Q5 streaming on a periodic H x W lattice, repeated for several steps: each population q moves
one cell along its lattice velocity c_q per step,

    f_new[q, y, x] = f[q, (y - cy_q) mod H, (x - cx_q) mod W],  c = (0,0), (+1,0), (-1,0), (0,+1), (0,-1) as (x, y)

Each launch reads one buffer and writes the other (ping-pong), one program per (population, tile of rows, tile of
columns); the input is copied first so it is left unchanged."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def stream_kernel(src_ptr, dst_ptr, H, W, s_q, s_h, s_w, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    q = tl.program_id(0)
    ys = tl.program_id(1).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    xs = tl.program_id(2).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    cx = tl.where(q == 1, 1, tl.where(q == 2, -1, 0))
    cy = tl.where(q == 3, 1, tl.where(q == 4, -1, 0))
    src_y = (ys - cy + H) % H
    src_x = (xs - cx + W) % W
    mask = (ys < H)[:, None] & (xs < W)[None, :]
    base = q.to(tl.int64) * s_q
    f = tl.load(src_ptr + base + src_y[:, None] * s_h + src_x[None, :] * s_w, mask=mask)
    tl.store(dst_ptr + base + ys[:, None] * s_h + xs[None, :] * s_w, f, mask=mask)


def stream(f: torch.Tensor, steps: int = 2, BLOCK_H: int = 16, BLOCK_W: int = 32) -> torch.Tensor:
    Q, H, W = f.shape
    a = f.contiguous().clone()
    if a.numel() == 0:
        return a
    b = a
    grid = (Q, triton.cdiv(H, BLOCK_H), triton.cdiv(W, BLOCK_W))
    for _ in range(steps):
        stream_kernel[grid](a, b, H, W, a.stride(0), a.stride(1), a.stride(2), BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
        a, b = b, a
    return a


def reference(f: torch.Tensor, steps: int = 2) -> torch.Tensor:
    shifts = [(0, 0), (0, 1), (0, -1), (1, 0), (-1, 0)]  # (dy, dx) per population
    return torch.stack([torch.roll(f[q], shifts=(steps * dy, steps * dx), dims=(0, 1))
                        for q, (dy, dx) in enumerate(shifts)])


spec = kcheck.Spec(
    name="hx30_lbm_streaming_d2q5",
    kernel=stream,
    reference=reference,
    inputs=[kcheck.Tensor(5, "H", "W", name="f")],
    dims={"H": kcheck.Dim(nominal=48), "W": kcheck.Dim(nominal=80)},
    configs=[{"BLOCK_H": 16, "BLOCK_W": 32}, {"BLOCK_H": 8, "BLOCK_W": 8}],
    params={"steps": [2, 1]},
)
