"""Hydrology: mean flow velocity from Manning's equation, V = R^(2/3) * sqrt(S) / n, for river reaches (rows:
bed slope S and roughness n per reach) over a series of hydraulic radii R (columns: one per time step, from the
stage record). R^(2/3) is exp(2/3 * log R) in fp32; [BLOCK_M, BLOCK_N] tiles, strides honoured. The inputs are
physical: R > 0, S > 0, n in [0.01, 0.08]."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"


@triton.jit
def manning_kernel(r_ptr, s_ptr, n_ptr, out_ptr, M, N, s_rm, s_rn, s_s, s_n, s_om, s_on, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    radius = tl.load(r_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, mask=mask, other=1.0)
    slope = tl.load(s_ptr + rows * s_s, mask=row_mask, other=1.0).to(tl.float32)
    rough = tl.load(n_ptr + rows * s_n, mask=row_mask, other=1.0).to(tl.float32)
    conveyance = tl.exp(tl.log(radius) * (2.0 / 3.0))
    v = conveyance * (tl.sqrt(slope) / rough)[:, None]
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, v.to(out_ptr.dtype.element_ty), mask=mask)


def manning_velocity(radius: torch.Tensor, slope: torch.Tensor, rough: torch.Tensor, BLOCK_M: int = 16,
                     BLOCK_N: int = 64) -> torch.Tensor:
    M, N = radius.shape
    out = torch.empty((M, N), dtype=radius.dtype, device=radius.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    manning_kernel[grid](radius, slope, rough, out, M, N, radius.stride(0), radius.stride(1), slope.stride(0),
                         rough.stride(0), out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(radius: torch.Tensor, slope: torch.Tensor, rough: torch.Tensor) -> torch.Tensor:
    return radius.pow(2.0 / 3.0) * (slope.sqrt() / rough)[:, None]


def hydraulic_radius(ctx: kcheck.CaseContext) -> torch.Tensor:
    M, N = ctx.dims["M"], ctx.dims["N"]
    return (0.05 + 4.0 * ctx.rand(M, N, dtype=torch.float64)).to(ctx.dtype)


def bed_slope(ctx: kcheck.CaseContext) -> torch.Tensor:
    return (10.0 ** (-4.0 + 2.0 * ctx.rand(ctx.dims["M"], dtype=torch.float64))).to(ctx.dtype)


def roughness(ctx: kcheck.CaseContext) -> torch.Tensor:
    return (0.01 + 0.07 * ctx.rand(ctx.dims["M"], dtype=torch.float64)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx36_manning_velocity",
    kernel=manning_velocity,
    reference=reference,
    inputs=[kcheck.Custom(hydraulic_radius, name="radius", dims=("M", "N")),
            kcheck.Custom(bed_slope, name="slope", dims=("M",)), kcheck.Custom(roughness, name="roughness", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=300)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 32}],
)
