"""Remote sensing (SAR): range cell migration of a stripmap acquisition, the extra slant range of a target at
closest range R0 seen from along-track offset u,

    dR = sqrt(R0^2 + u^2) - R0 = u^2 / (sqrt(R0^2 + u^2) + R0)

(the second form: dR is millimetres to metres on ranges of kilometres). Output [A, R]: along-track positions x
range bins, [BLOCK_A, BLOCK_R] tiles in fp32, strides honoured. The range axis is built from the geometry:
R0 = NEAR_RANGE + bin * BIN_SPACING."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"

NEAR_RANGE = 5000.0   # m
BIN_SPACING = 1.5     # m


@triton.jit
def migration_kernel(u_ptr, r0_ptr, out_ptr, A, R, s_u, s_r, s_oa, s_or, BLOCK_A: tl.constexpr,
                     BLOCK_R: tl.constexpr):
    pid_a = tl.program_id(0).to(tl.int64)
    pid_r = tl.program_id(1).to(tl.int64)
    a = pid_a * BLOCK_A + tl.arange(0, BLOCK_A).to(tl.int64)
    r = pid_r * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    u = tl.load(u_ptr + a * s_u, mask=a < A, other=0.0).to(tl.float32)
    r0 = tl.load(r0_ptr + r * s_r, mask=r < R, other=0.0).to(tl.float32)
    u2 = (u * u)[:, None]
    slant = tl.sqrt(r0[None, :] * r0[None, :] + u2)
    dr = tl.where(u2 == float("inf"), float("inf"), slant - r0[None, :])
    mask = (a < A)[:, None] & (r < R)[None, :]
    tl.store(out_ptr + a[:, None] * s_oa + r[None, :] * s_or, dr.to(out_ptr.dtype.element_ty), mask=mask)


def range_migration(u: torch.Tensor, r0: torch.Tensor, BLOCK_A: int = 32, BLOCK_R: int = 32) -> torch.Tensor:
    A, R = u.shape[0], r0.shape[0]
    out = torch.empty((A, R), dtype=u.dtype, device=u.device)
    if A == 0 or R == 0:
        return out
    grid = (triton.cdiv(A, BLOCK_A), triton.cdiv(R, BLOCK_R))
    migration_kernel[grid](u, r0, out, A, R, u.stride(0), r0.stride(0), out.stride(0), out.stride(1),
                           BLOCK_A=BLOCK_A, BLOCK_R=BLOCK_R)
    return out


def reference(u: torch.Tensor, r0: torch.Tensor) -> torch.Tensor:
    u2 = u[:, None] ** 2
    dr = u2 / (torch.sqrt(r0[None, :] ** 2 + u2) + r0[None, :])
    return torch.where(torch.isinf(u2), torch.full_like(dr, float("inf")), dr)


def closest_range(ctx: kcheck.CaseContext) -> torch.Tensor:
    R = ctx.dims["R"]
    return (NEAR_RANGE + BIN_SPACING * torch.arange(R, dtype=torch.float64, device=ctx.device)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx36_sar_range_migration",
    kernel=range_migration,
    reference=reference,
    inputs=[kcheck.Tensor("A", name="u"), kcheck.Custom(closest_range, name="r0", dims=("R",))],
    dims={"A": kcheck.Dim(nominal=256), "R": kcheck.Dim(nominal=200, max=4096)},
    dtypes=["fp32"],
    configs=[{"BLOCK_A": 32, "BLOCK_R": 32}, {"BLOCK_A": 16, "BLOCK_R": 64}],
)
