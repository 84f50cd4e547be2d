"""Temperature-humidity index (livestock heat stress, NRC 1971) on a [stations, hours] grid:

    THI = (1.8 T + 32) - (0.55 - 0.0055 RH) (1.8 T - 26)

with T the air temperature in degrees C and RH the relative humidity in percent. 2-D tiles of BLOCK_M x BLOCK_N,
numbered on one grid axis (no 65535 limit on the column tiles), fp32 arithmetic, int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "edge-guard"


@triton.jit
def thi_kernel(t_ptr, rh_ptr, out_ptr, M, N, s_tm, s_tn, s_rm, s_rn, s_om, s_on,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tiles_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // tiles_n
    pid_n = pid % tiles_n
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
    rh = tl.load(rh_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn).to(tl.float32)
    tf = 1.8 * t
    thi = (tf + 32.0) - (0.55 - 0.0055 * rh) * (tf - 26.0)
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, thi.to(out_ptr.dtype.element_ty), mask=mask)


def temperature_humidity_index(t: torch.Tensor, rh: torch.Tensor, BLOCK_M: int = 16,
                               BLOCK_N: int = 64) -> torch.Tensor:
    M, N = t.shape
    out = torch.empty((M, N), dtype=t.dtype, device=t.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    thi_kernel[grid](t, rh, out, M, N, t.stride(0), t.stride(1), rh.stride(0), rh.stride(1),
                     out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(t: torch.Tensor, rh: torch.Tensor) -> torch.Tensor:
    tf = 1.8 * t
    return (tf + 32.0) - (0.55 - 0.0055 * rh) * (tf - 26.0)


spec = kcheck.Spec(
    name="hx37_temperature_humidity_index",
    kernel=temperature_humidity_index,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="temperature"), kcheck.Tensor("M", "N", name="humidity")],
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=168)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 32, "BLOCK_N": 32}],
)
