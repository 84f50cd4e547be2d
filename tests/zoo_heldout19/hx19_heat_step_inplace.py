"""One explicit (FTCS) time step of the 1-D heat equation, in place, with fixed (Dirichlet) end values:

    u[i] <- u[i] + r * (u[i - 1] - 2 u[i] + u[i + 1])    for 0 < i < N - 1

The step must read the old field everywhere, so the launcher snapshots u into a scratch copy that the kernel reads,
and the kernel writes u; each program updates BLOCK points in fp32. Returns u."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def heat_step_kernel(src_ptr, u_ptr, n, r, stride, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = i < n
    interior = mask & (i > 0) & (i < n - 1)
    centre = tl.load(src_ptr + i * stride, mask=mask, other=0.0).to(tl.float32)
    left = tl.load(src_ptr + (i - 1) * stride, mask=interior, other=0.0).to(tl.float32)
    right = tl.load(src_ptr + (i + 1) * stride, mask=interior, other=0.0).to(tl.float32)
    new = tl.where(interior, centre + r * (left - 2.0 * centre + right), centre)
    tl.store(u_ptr + i * stride, new.to(u_ptr.dtype.element_ty), mask=mask)


def heat_step_(u: torch.Tensor, r: float, BLOCK: int = 512) -> torch.Tensor:
    n = u.shape[0]
    if n:
        src = u
        heat_step_kernel[(triton.cdiv(n, BLOCK),)](src, u, n, r, u.stride(0), BLOCK=BLOCK)
    return u


def reference(u: torch.Tensor, r: float) -> torch.Tensor:
    new = u.clone()
    if u.shape[0] > 2:
        new[1:-1] = u[1:-1] + r * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return new


spec = kcheck.Spec(
    name="hx19_heat_step_inplace",
    kernel=heat_step_,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="u", mutated=True)],
    params={"r": [0.25, 0.5]},
    dims={"N": kcheck.Dim(nominal=5000)},
    configs=[{"BLOCK": 512}, {"BLOCK": 64}],
)
