"""One explicit Euler step of the 1-D Allen-Cahn equation (phase separation) for M independent fields on a uniform
grid, zero-flux (Neumann) boundaries:
u'[i] = u[i] + dt * (kappa * (u[i-1] - 2 u[i] + u[i+1]) + u[i] - u[i]^3),
with the grid spacing folded into kappa and the boundary neighbours mirrored (u[-1] = u[0], u[N] = u[N-1]).
A 2-D grid of [BLOCK_M, BLOCK_N] tiles reads the three-point neighbourhood from the old field and writes a new
one; fp32 arithmetic, int64 offsets, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def allen_cahn_kernel(u_ptr, out_ptr, M, N, dt, kappa, s_um, s_un, s_om, s_on,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    left = tl.maximum(cols - 1, 0)
    right = tl.minimum(cols + 1, N - 1)
    base = u_ptr + rows[:, None] * s_um
    u = tl.load(base + cols[None, :] * s_un, mask=mask, other=0.0).to(tl.float32)
    ul = tl.load(base + left[None, :] * s_un, mask=mask, other=0.0).to(tl.float32)
    ur = tl.load(base + right[None, :] * s_un, mask=mask, other=0.0).to(tl.float32)
    new = u + dt * (kappa * (ul - 2.0 * u + ur) + u - u * u * u)
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, new.to(out_ptr.dtype.element_ty), mask=mask)


def allen_cahn_step(u: torch.Tensor, dt: float, kappa: float, BLOCK_M: int = 8, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = u.shape
    out = u
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    allen_cahn_kernel[grid](u, out, M, N, dt, kappa, u.stride(0), u.stride(1), out.stride(0), out.stride(1),
                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(u: torch.Tensor, dt: float, kappa: float) -> torch.Tensor:
    ul = torch.cat((u[:, :1], u[:, :-1]), dim=1)
    ur = torch.cat((u[:, 1:], u[:, -1:]), dim=1)
    return u + dt * (kappa * (ul - 2.0 * u + ur) + u - u * u * u)


spec = kcheck.Spec(
    name="hx31_allen_cahn_step",
    kernel=allen_cahn_step,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="u"), kcheck.Scalar(0.05, name="dt"), kcheck.Scalar(1.0, name="kappa")],
    # grid axis 1 (column tiles) is limited to 65535 blocks: N stays out of the past-2**31 cases
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=500, large=False)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 64}, {"BLOCK_M": 2, "BLOCK_N": 128}],
)
