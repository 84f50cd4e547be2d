"""PReLU for training: y = x if x > 0 else a[c] * x with a learnable slope per channel (x is [M, C]).

Backward, with g the upstream gradient: dx = g if x > 0 else a[c] * g; da[c] = sum over rows of g * x where
x <= 0. Each program handles BLOCK_M rows and all C channels and writes its partial da to its own row of a
[programs, C] fp32 buffer, summed afterwards."""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def prelu_fwd_kernel(x_ptr, a_ptr, y_ptr, M, C, sxm, sxc, sym, syc, BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_C).to(tl.int64)
    rm = rows < M
    cm = cols < C
    mask = rm[:, None] & cm[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxc, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + rows, mask=rm, other=0.0).to(tl.float32)
    y = tl.where(x > 0.0, x, a[:, None] * x)
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syc, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def prelu_bwd_kernel(g_ptr, x_ptr, a_ptr, dx_ptr, da_ptr, M, C, BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_C).to(tl.int64)
    cm = cols < C
    mask = (rows < M)[:, None] & cm[None, :]
    offs = rows[:, None] * C + cols[None, :]
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + cols, mask=cm, other=0.0).to(tl.float32)
    pos = x > 0.0
    dx = tl.where(pos, g, a[None, :] * g)
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    da = tl.sum(tl.where(pos, 0.0, g * x), axis=0)
    tl.store(da_ptr + pid * C + cols, da, mask=cm)


def _blocks(M: int, C: int) -> tuple[int, int, int]:
    block_c = triton.next_power_of_2(max(C, 1))
    block_m = max(1, min(4096 // block_c, 16))
    return block_m, block_c, triton.cdiv(M, block_m)


class PReLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        M, C = x.shape
        a = a.contiguous()
        y = torch.empty((M, C), dtype=x.dtype, device=x.device)
        if M and C:
            block_m, block_c, programs = _blocks(M, C)
            prelu_fwd_kernel[(programs,)](x, a, y, M, C, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                          BLOCK_M=block_m, BLOCK_C=block_c)
        ctx.save_for_backward(x, a)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, a = ctx.saved_tensors
        M, C = x.shape
        x, g = x.contiguous(), g.contiguous()
        dx = torch.empty((M, C), dtype=x.dtype, device=x.device)
        if M == 0 or C == 0:
            return dx, torch.zeros_like(a)
        block_m, block_c, programs = _blocks(M, C)
        da = torch.empty((programs, C), dtype=torch.float32, device=x.device)
        prelu_bwd_kernel[(programs,)](g, x, a, dx, da, M, C, BLOCK_M=block_m, BLOCK_C=block_c)
        return dx, da.sum(0).to(a.dtype)


def prelu(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    return PReLUFunction.apply(x, a)


def reference(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    zero = torch.zeros_like(x)
    return torch.where(x > 0, x, zero) + a * torch.where(x > 0, zero, x)


spec = kcheck.Spec(
    name="hx21_prelu_train",
    kernel=prelu,
    reference=reference,
    inputs=[kcheck.Tensor("M", "C", name="x"), kcheck.Tensor("C", name="slope", pattern="randn")],
    dims={"M": kcheck.Dim(nominal=48, max=64, real=()), "C": kcheck.Dim(nominal=96, max=1024, real=())},
    grad=True,
)
BUG_CLASS = "wrong-axis"
