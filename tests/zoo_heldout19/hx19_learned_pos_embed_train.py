"""Scaled token embeddings plus learned positional embeddings, for training:

    y[b, t, d] = sqrt(D) * x[b, t, d] + pos[t, d]

Backward, with g the upstream gradient: dx = sqrt(D) * g, dpos = sum over b of g. One backward kernel writes dx and
accumulates dpos: each program takes BLOCK (t, d) positions of B_CHUNK batch rows and adds its partial sum into an
fp32 buffer with atomics (the buffer starts at zero), cast to the weight's dtype at the end. Strides honoured,
int64 offsets."""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "uninitialized-accumulator"


@triton.jit
def pos_embed_fwd_kernel(x_ptr, pos_ptr, y_ptr, B, T, D, scale, n_tiles, sxb, sxt, sxd, spt, spd, syb, syt, syd,
                         BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    b = (pid // n_tiles).to(tl.int64)
    j = (pid % n_tiles).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = j < T * D
    t = j // D
    d = j % D
    x = tl.load(x_ptr + b * sxb + t * sxt + d * sxd, mask=mask, other=0.0).to(tl.float32)
    p = tl.load(pos_ptr + t * spt + d * spd, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + b * syb + t * syt + d * syd, (scale * x + p).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def pos_embed_bwd_kernel(g_ptr, dx_ptr, dpos_ptr, B, T, D, scale, n_tiles, sgb, sgt, sgd, sdb, sdt, sdd,
                         BLOCK: tl.constexpr, B_CHUNK: tl.constexpr):
    pid = tl.program_id(0)
    b0 = (pid // n_tiles).to(tl.int64) * B_CHUNK
    j = (pid % n_tiles).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = j < T * D
    t = j // D
    d = j % D
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(B_CHUNK):
        b = b0 + i
        m = mask & (b < B)
        g = tl.load(g_ptr + b * sgb + t * sgt + d * sgd, mask=m, other=0.0).to(tl.float32)
        tl.store(dx_ptr + b * sdb + t * sdt + d * sdd, (scale * g).to(dx_ptr.dtype.element_ty), mask=m)
        acc += g
    tl.atomic_add(dpos_ptr + j, acc, mask=mask)


BLOCK = 256
B_CHUNK = 4


def pos_embed_forward(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    B, T, D = x.shape
    y = torch.empty((B, T, D), dtype=x.dtype, device=x.device)
    if B * T * D == 0:
        return y
    n_tiles = triton.cdiv(T * D, BLOCK)
    pos_embed_fwd_kernel[(B * n_tiles,)](x, pos, y, B, T, D, float(D) ** 0.5, n_tiles, *x.stride(), *pos.stride(),
                                         *y.stride(), BLOCK=BLOCK)
    return y


def pos_embed_backward(g: torch.Tensor, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    B, T, D = g.shape
    dx = torch.empty((B, T, D), dtype=g.dtype, device=g.device)
    dpos32 = torch.empty((T * D,), dtype=torch.float32, device=g.device)
    if B * T * D:
        n_tiles = triton.cdiv(T * D, BLOCK)
        grid = (triton.cdiv(B, B_CHUNK) * n_tiles,)
        pos_embed_bwd_kernel[grid](g, dx, dpos32, B, T, D, float(D) ** 0.5, n_tiles, *g.stride(), *dx.stride(),
                                   BLOCK=BLOCK, B_CHUNK=B_CHUNK)
    return dx, dpos32.view(T, D).to(pos.dtype)


class PosEmbedFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(pos)
        return pos_embed_forward(x, pos)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        (pos,) = ctx.saved_tensors
        return pos_embed_backward(g, pos)


def pos_embed(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    return PosEmbedFunction.apply(x, pos)


def reference(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    return x * x.shape[-1] ** 0.5 + pos


spec = kcheck.Spec(
    name="hx19_learned_pos_embed_train",
    kernel=pos_embed,
    reference=reference,
    inputs=[kcheck.Tensor("B", "T", "D", name="x"), kcheck.Tensor("T", "D", name="pos")],
    dims={"B": kcheck.Dim(nominal=6, max=8, real=()), "T": kcheck.Dim(nominal=40, real=()),
          "D": kcheck.Dim(nominal=64, real=())},
    grad=True,
)
