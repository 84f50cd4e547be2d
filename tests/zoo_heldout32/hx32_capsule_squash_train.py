"""Capsule squash (Sabour et al. 2017) for training: each row s of x is a capsule's pose vector, squashed to a
length below 1 in its own direction::

    a = |s|^2,  f(a) = a / ((1 + a) sqrt(a + eps)),  v = f(a) s

(eps keeps the zero capsule's gradient finite). Triton forward and backward behind a torch.autograd.Function. The
backward, with g the upstream gradient::

    ds = f(a) g + 2 f'(a) (s . g) s,   f'(a) = (1 / (1 + a)^2 - a / (2 (1 + a) (a + eps))) / sqrt(a + eps)

(f' written so that the two terms that cancel for large a are combined before rounding). Each program takes
BLOCK_M capsules of one BLOCK_N-wide block (N <= 1024), strides passed explicitly, int64 offsets, fp32 inside.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"

EPS = 1e-8
TILE = 4096


@triton.jit
def squash_fwd_kernel(x_ptr, y_ptr, M, N, eps, s_xm, s_xn, s_ym, s_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    s = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn).to(tl.float32)
    a = tl.sum(s * s, axis=1)
    f = a / ((1.0 + a) * tl.sqrt(a + eps))
    v = f[:, None] * s
    tl.store(y_ptr + rows[:, None] * s_ym + cols[None, :] * s_yn, v.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def squash_bwd_kernel(g_ptr, x_ptr, dx_ptr, M, N, eps, s_gm, s_gn, s_xm, s_xn, s_dm, s_dn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    s = tl.load(x_ptr + rows[:, None] * s_xm + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * s_gm + cols[None, :] * s_gn, mask=mask, other=0.0).to(tl.float32)
    a = tl.sum(s * s, axis=1)
    sg = tl.sum(s * g, axis=1)
    r = 1.0 / tl.sqrt(a + eps)
    f = a / (1.0 + a) * r
    df = (1.0 / ((1.0 + a) * (1.0 + a)) - a / (2.0 * (1.0 + a) * (a + eps))) * r
    ds = f[:, None] * g + (2.0 * df * sg)[:, None] * s
    tl.store(dx_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, ds.to(dx_ptr.dtype.element_ty), mask=mask)


def _blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


def squash_forward(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    block_m, block_n, programs = _blocks(M, N)
    squash_fwd_kernel[(programs,)](x, y, M, N, EPS, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                   BLOCK_M=block_m, BLOCK_N=block_n)
    return y


def squash_backward(g: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx
    block_m, block_n, programs = _blocks(M, N)
    squash_bwd_kernel[(programs,)](g, x, dx, M, N, EPS, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                                   dx.stride(0), dx.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return dx


class CapsuleSquash(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return squash_forward(x)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return squash_backward(g, x)


def capsule_squash(x: torch.Tensor) -> torch.Tensor:
    return CapsuleSquash.apply(x)


def reference(x: torch.Tensor) -> torch.Tensor:
    a = (x * x).sum(-1, keepdim=True)
    return x * (a / ((1.0 + a) * torch.sqrt(a + EPS)))


spec = kcheck.Spec(
    name="hx32_capsule_squash_train",
    kernel=capsule_squash,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="s")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=16, max=1024, real=())},
    reduce=["N"],
    grad=True,
)
