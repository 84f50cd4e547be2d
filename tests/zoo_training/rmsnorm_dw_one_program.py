"""Planted bug: the RMSNorm weight gradient keeps the first program's partial sum and drops the other programs'
rows (the accumulation over rows is missing). Correct while one program covers every row (M <= BLOCK_M); wrong
at the nominal size, in ``grad of input 1 (weight)`` only: the forward and dx are right."""

from __future__ import annotations

from typing import Any

import torch
import triton
from train_rmsnorm import _blocks, reference, rmsnorm_bwd_kernel, rmsnorm_forward

import kcheck


def rmsnorm_backward(g: torch.Tensor, x: torch.Tensor, w: torch.Tensor,
                     rstd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M == 0 or N == 0:
        return dx, torch.zeros_like(w)
    block_m, block_n, programs = _blocks(M, N)
    dw_part = torch.empty((programs, N), dtype=torch.float32, device=x.device)
    rmsnorm_bwd_kernel[(programs,)](g, x, w, rstd, dx, dw_part, M, N, g.stride(0), g.stride(1), x.stride(0),
                                    x.stride(1), w.stride(0), dx.stride(0), dx.stride(1),
                                    BLOCK_M=block_m, BLOCK_N=block_n)
    return dx, dw_part[0].to(w.dtype)  # BUG: dw_part.sum(0)


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        y, rstd = rmsnorm_forward(x, w)
        ctx.save_for_backward(x, w, rstd)
        return y

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, w, rstd = ctx.saved_tensors
        return rmsnorm_backward(g, x, w, rstd)


assert triton  # the kernels are Triton's (imported from the example)

spec = kcheck.Spec(
    name="rmsnorm_dw_one_program",
    kernel=RMSNormFunction.apply,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", pattern="randn", name="weight")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=256, max=8192, real=())},
    reduce=["N"],
    grad=True,
)
