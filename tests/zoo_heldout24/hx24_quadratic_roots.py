"""Real roots of a batch of quadratics a x^2 + b x + c = 0, in the cancellation-free form of Numerical Recipes:
q = -(b + sign(b) sqrt(b^2 - 4ac)) / 2, x1 = q / a (the root of larger magnitude), x2 = c / q. Coefficients are the
rows of an [N, 3] tensor (any strides); two outputs [N]. The test quadratics have real roots of widely different
magnitudes (10^-3 to 10^3), built from the roots in float64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def quadratic_roots_kernel(coef_ptr, x1_ptr, x2_ptr, N, s0, s1, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    a = tl.load(coef_ptr + offs * s0, mask=mask, other=1.0).to(tl.float32)
    b = tl.load(coef_ptr + offs * s0 + s1, mask=mask, other=0.0).to(tl.float32)
    c = tl.load(coef_ptr + offs * s0 + 2 * s1, mask=mask, other=0.0).to(tl.float32)
    sq = tl.sqrt(b * b - 4.0 * a * c)
    q = -0.5 * (b + tl.where(b >= 0, sq, -sq))
    x1 = q / a
    x2 = (-b + tl.where(b >= 0, sq, -sq)) / (2.0 * a)
    tl.store(x1_ptr + offs, x1.to(x1_ptr.dtype.element_ty), mask=mask)
    tl.store(x2_ptr + offs, x2.to(x2_ptr.dtype.element_ty), mask=mask)


def quadratic_roots(coef: torch.Tensor, BLOCK: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    N = coef.shape[0]
    x1 = torch.empty(N, dtype=coef.dtype, device=coef.device)
    x2 = torch.empty(N, dtype=coef.dtype, device=coef.device)
    if N:
        quadratic_roots_kernel[(triton.cdiv(N, BLOCK),)](coef, x1, x2, N, coef.stride(0), coef.stride(1),
                                                         BLOCK=BLOCK)
    return x1, x2


def _coefficients(ctx: kcheck.CaseContext) -> torch.Tensor:
    n = ctx.dims["N"]
    u = ctx.rand(n, 4, dtype=torch.float64)
    sign = torch.where(u[:, 2:4] < 0.5, -1.0, 1.0)
    r1 = sign[:, 0] * 10.0 ** (6.0 * u[:, 0] - 3.0)
    r2 = sign[:, 1] * 10.0 ** (6.0 * u[:, 1] - 3.0)
    a = 0.5 + ctx.rand(n, dtype=torch.float64)
    coef = torch.stack([a, -a * (r1 + r2), a * r1 * r2], dim=1)
    if ctx.layout == "strided":
        coef = torch.cat([coef, torch.zeros_like(coef)], dim=1)[:, :3]
    return coef.to(ctx.dtype)


def reference(coef: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    a, b, c = coef[:, 0], coef[:, 1], coef[:, 2]
    sq = torch.sqrt(b * b - 4.0 * a * c)
    q = -0.5 * (b + torch.where(b >= 0, sq, -sq))
    return q / a, c / q


spec = kcheck.Spec(
    name="hx24_quadratic_roots",
    kernel=quadratic_roots,
    reference=reference,
    inputs=[kcheck.Custom(_coefficients, name="coefficients", dims=("N", 3))],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
