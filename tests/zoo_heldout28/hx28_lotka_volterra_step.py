"""One explicit Euler step of the Lotka-Volterra predator-prey equations over an ensemble of populations:

    x' = x + dt * (alpha * x - beta * x * y)        (prey)
    y' = y + dt * (delta * x * y - gamma * y)       (predators)

x and y are [M, N] fields (ensemble members by grid cells); the rates are scalars. The fields are made contiguous
and processed as flat vectors, BLOCK elements per program, in fp32; element offsets are int64 (M * N may pass
2**31).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

ALPHA, BETA, DELTA, GAMMA = 1.1, 0.4, 0.1, 0.4


@triton.jit
def lotka_volterra_kernel(x_ptr, y_ptr, xo_ptr, yo_ptr, n, dt, alpha, beta, delta, gamma, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    xy = x * y
    xn = x + dt * (alpha * x - beta * xy)
    yn = y + dt * (delta * xy - gamma * y)
    tl.store(xo_ptr + offs, xn.to(xo_ptr.dtype.element_ty), mask=mask)
    tl.store(yo_ptr + offs, yn.to(yo_ptr.dtype.element_ty), mask=mask)


def lotka_volterra_step(x: torch.Tensor, y: torch.Tensor, dt: float = 0.01,
                        BLOCK: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    x, y = x.contiguous(), y.contiguous()
    xo, yo = torch.empty_like(x), torch.empty_like(y)
    n = x.numel()
    if n:
        lotka_volterra_kernel[(triton.cdiv(n, BLOCK),)](x, y, xo, yo, n, dt, ALPHA, BETA, DELTA, GAMMA, BLOCK=BLOCK)
    return xo, yo


def reference(x: torch.Tensor, y: torch.Tensor, dt: float = 0.01) -> tuple[torch.Tensor, torch.Tensor]:
    return x + dt * (ALPHA * x - BETA * x * y), y + dt * (DELTA * x * y - GAMMA * y)


spec = kcheck.Spec(
    name="lotka_volterra_step",
    kernel=lotka_volterra_step,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="prey"), kcheck.Tensor("M", "N", name="predators")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=300)},
    params={"dt": [0.01, 0.25]},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
