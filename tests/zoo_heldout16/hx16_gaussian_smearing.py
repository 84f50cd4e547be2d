"""Gaussian radial-basis expansion of interatomic distances (SchNet / DimeNet "GaussianSmearing"), for training:
out[e, k] = exp(coeff * (d[e] - mu_k)^2) with K = 50 centres mu_k = k * delta evenly spaced on [0, 5] and
coeff = -0.5 / delta^2. The backward recomputes the basis values and contracts the upstream gradient with their
derivative in d. Both passes take BLOCK_E edges per program with the K centres along the second axis; checked with
grad=True."""

from typing import Any

import torch
import triton
import triton.language as tl

import kcheck

K_CENTERS = 50
CUTOFF = 5.0
DELTA = CUTOFF / (K_CENTERS - 1)
COEFF = -0.5 / DELTA**2

BUG_CLASS = "wrong-constant"


@triton.jit
def smearing_fwd_kernel(d_ptr, out_ptr, E, s_d, s_oe, s_ok, coeff, delta, K: tl.constexpr,
                        BLOCK_E: tl.constexpr, BLOCK_K: tl.constexpr):
    e = tl.program_id(0).to(tl.int64) * BLOCK_E + tl.arange(0, BLOCK_E).to(tl.int64)
    k = tl.arange(0, BLOCK_K)
    mask = (e < E)[:, None] & (k < K)[None, :]
    d = tl.load(d_ptr + e * s_d, mask=e < E, other=0.0).to(tl.float32)
    diff = d[:, None] - k.to(tl.float32)[None, :] * delta
    out = tl.exp(coeff * diff * diff)
    tl.store(out_ptr + e[:, None] * s_oe + k[None, :] * s_ok, out.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def smearing_bwd_kernel(d_ptr, g_ptr, dd_ptr, E, s_d, s_ge, s_gk, coeff, delta, K: tl.constexpr,
                        BLOCK_E: tl.constexpr, BLOCK_K: tl.constexpr):
    e = tl.program_id(0).to(tl.int64) * BLOCK_E + tl.arange(0, BLOCK_E).to(tl.int64)
    k = tl.arange(0, BLOCK_K)
    mask = (e < E)[:, None] & (k < K)[None, :]
    d = tl.load(d_ptr + e * s_d, mask=e < E, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + e[:, None] * s_ge + k[None, :] * s_gk, mask=mask, other=0.0).to(tl.float32)
    diff = d[:, None] - k.to(tl.float32)[None, :] * delta
    out = tl.exp(coeff * diff * diff)
    dd = tl.sum(tl.where(mask, g * out * coeff * diff, 0.0), axis=1)
    tl.store(dd_ptr + e, dd.to(dd_ptr.dtype.element_ty), mask=e < E)


def _grid(E: int, block_e: int) -> tuple[int]:
    return (triton.cdiv(E, block_e),)


class GaussianSmearing(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, d: torch.Tensor, BLOCK_E: int = 64) -> torch.Tensor:
        E = d.shape[0]
        out = torch.empty((E, K_CENTERS), dtype=d.dtype, device=d.device)
        if E:
            smearing_fwd_kernel[_grid(E, BLOCK_E)](d, out, E, d.stride(0), out.stride(0), out.stride(1), COEFF, DELTA,
                                                   K=K_CENTERS, BLOCK_E=BLOCK_E, BLOCK_K=64)
        ctx.save_for_backward(d)
        ctx.block_e = BLOCK_E
        return out

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None]:
        (d,) = ctx.saved_tensors
        E = d.shape[0]
        dd = torch.empty((E,), dtype=d.dtype, device=d.device)
        if E:
            smearing_bwd_kernel[_grid(E, ctx.block_e)](d, g, dd, E, d.stride(0), g.stride(0), g.stride(1), COEFF,
                                                       DELTA, K=K_CENTERS, BLOCK_E=ctx.block_e, BLOCK_K=64)
        return dd, None


def gaussian_smearing(d: torch.Tensor, BLOCK_E: int = 64) -> torch.Tensor:
    return GaussianSmearing.apply(d, BLOCK_E)


def reference(d: torch.Tensor) -> torch.Tensor:
    mu = torch.linspace(0.0, CUTOFF, K_CENTERS, dtype=d.dtype, device=d.device)
    return torch.exp(COEFF * (d[:, None] - mu) ** 2)


spec = kcheck.Spec(
    name="hx16_gaussian_smearing",
    kernel=gaussian_smearing,
    reference=reference,
    inputs=[kcheck.Tensor("E", name="distances")],
    dims={"E": kcheck.Dim(nominal=1024)},
    configs=[{"BLOCK_E": 64}, {"BLOCK_E": 16}],
    grad=True,
)
