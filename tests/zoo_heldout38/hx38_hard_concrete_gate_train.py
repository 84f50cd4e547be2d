"""Hard concrete gates (L0 regularisation, Louizos et al. 2018), deterministic gate at inference and in the
backward, for training: per feature n a learned log_alpha[n] shifts the gate's logit,

    s = sigmoid((x + log_alpha) / beta)
    y = clamp(s * (zeta - gamma) + gamma, 0, 1)          (beta = 2/3, stretch interval (gamma, zeta) = (-0.1, 1.1))

Backward, with g the upstream gradient, u = s * (zeta - gamma) + gamma and the clamp passing gradient on
0 <= u <= 1 (as torch.clamp does)::

    dz         = [0 <= u <= 1] * g * (zeta - gamma) * s * (1 - s) / beta
    dx         = dz
    dlog_alpha = sum over rows of dz

Rows fit one block (N <= 8192, several rows per program). Each backward program writes its rows' partial
dlog_alpha (fp32) to its own row of a [programs, N] buffer, summed afterwards: deterministic. The clamp is written
with comparisons so that NaN stays NaN. int64 offsets, any strides.
"""

from __future__ import annotations

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

BETA = 2.0 / 3.0
GAMMA = -0.1
ZETA = 1.1
TILE = 4096


@triton.jit
def gate_fwd_kernel(x_ptr, la_ptr, y_ptr, M, N, sxm, sxn, sla, sym, syn, BETA: tl.constexpr, GAMMA: tl.constexpr,
                    ZETA: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    la = tl.load(la_ptr + cols * sla, mask=col_mask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-(x + la[None, :]) / BETA))
    u = s * ZETA + GAMMA
    y = tl.where(u < 0.0, 0.0, tl.where(u > 1.0, 1.0, u))
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def gate_bwd_kernel(g_ptr, x_ptr, la_ptr, dx_ptr, dla_part_ptr, M, N, sgm, sgn, sxm, sxn, sla, sdm, sdn,
                    BETA: tl.constexpr, GAMMA: tl.constexpr, ZETA: tl.constexpr, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    col_mask = cols < N
    mask = (rows < M)[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + rows[:, None] * sgm + cols[None, :] * sgn, mask=mask, other=0.0).to(tl.float32)
    la = tl.load(la_ptr + cols * sla, mask=col_mask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-(x + la[None, :]) / BETA))
    u = s * (ZETA - GAMMA) + GAMMA
    gu = tl.where((u >= 0.0) & (u <= 1.0), g, 0.0)
    dz = gu * (ZETA - GAMMA) * s * (1.0 - s) / BETA
    tl.store(dx_ptr + rows[:, None] * sdm + cols[None, :] * sdn, dz.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dla_part_ptr + pid * N + cols, tl.sum(tl.where(mask, dz, 0.0), axis=0), mask=col_mask)


def _blocks(M: int, N: int) -> tuple[int, int, int]:
    block_n = triton.next_power_of_2(max(N, 1))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(max(M, 1))))
    return block_m, block_n, triton.cdiv(M, block_m)


def gate_forward(x: torch.Tensor, la: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return y
    block_m, block_n, programs = _blocks(M, N)
    gate_fwd_kernel[(programs,)](x, la, y, M, N, x.stride(0), x.stride(1), la.stride(0), y.stride(0), y.stride(1),
                                 BETA=BETA, GAMMA=GAMMA, ZETA=ZETA, BLOCK_M=block_m, BLOCK_N=block_n)
    return y


def gate_backward(g: torch.Tensor, x: torch.Tensor, la: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(la)
    block_m, block_n, programs = _blocks(M, N)
    dla_part = torch.empty((programs, N), dtype=torch.float32, device=x.device)
    gate_bwd_kernel[(programs,)](g, x, la, dx, dla_part, M, N, g.stride(0), g.stride(1), x.stride(0), x.stride(1),
                                 la.stride(0), dx.stride(0), dx.stride(1), BETA=BETA, GAMMA=GAMMA, ZETA=ZETA,
                                 BLOCK_M=block_m, BLOCK_N=block_n)
    return dx, dla_part.sum(0).to(la.dtype)


class HardConcreteGate(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, log_alpha: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, log_alpha)
        return gate_forward(x, log_alpha)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, log_alpha = ctx.saved_tensors
        return gate_backward(g, x, log_alpha)


def hard_concrete_gate(x: torch.Tensor, log_alpha: torch.Tensor) -> torch.Tensor:
    return HardConcreteGate.apply(x, log_alpha)


def reference(x: torch.Tensor, log_alpha: torch.Tensor) -> torch.Tensor:
    s = torch.sigmoid((x + log_alpha) / BETA)
    return torch.clamp(s * (ZETA - GAMMA) + GAMMA, 0.0, 1.0)


spec = kcheck.Spec(
    name="hx38_hard_concrete_gate_train",
    kernel=hard_concrete_gate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="log_alpha")],
    dims={"M": kcheck.Dim(nominal=96, real=()), "N": kcheck.Dim(nominal=320, max=8192, real=())},
    grad=True,
)
