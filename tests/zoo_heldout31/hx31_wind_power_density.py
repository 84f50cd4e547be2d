"""Wind power density at M stations over N samples: P[m, n] = 0.5 * rho[m] * |v[m, n]|^3 (W/m^2), with rho the
station's air density. A 2-D grid of [BLOCK_M, BLOCK_N] tiles; row offsets in int64 (M*N may pass 2**31), strides
honoured, fp32 arithmetic, the result in the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def wind_power_kernel(v_ptr, rho_ptr, out_ptr, M, N, s_vm, s_vn, s_r, s_om, s_on,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    v = tl.load(v_ptr + rows[:, None] * s_vm + cols[None, :] * s_vn, mask=mask, other=0.0).to(tl.float32)
    rho = tl.load(rho_ptr + rows * s_r, mask=row_mask, other=0.0).to(tl.float32)
    speed = tl.abs(v)
    p = 0.5 * rho[:, None] * speed * speed * speed
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, p.to(out_ptr.dtype.element_ty), mask=mask)


def wind_power_density(v: torch.Tensor, rho: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = v.shape
    out = torch.empty((M, N), dtype=v.dtype, device=v.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    wind_power_kernel[grid](v, rho, out, M, N, v.stride(0), v.stride(1), rho.stride(0), out.stride(0),
                            out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(v: torch.Tensor, rho: torch.Tensor) -> torch.Tensor:
    return 0.5 * rho[:, None] * v.abs() ** 3


spec = kcheck.Spec(
    name="hx31_wind_power_density",
    kernel=wind_power_density,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="v"), kcheck.Tensor("M", name="rho")],
    # grid axis 1 (column tiles) is limited to 65535 blocks: N stays out of the past-2**31 cases
    dims={"M": kcheck.Dim(nominal=96), "N": kcheck.Dim(nominal=300, large=False)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 128}, {"BLOCK_M": 4, "BLOCK_N": 32}],
)
