"""Vapour-pressure deficit on a grid (agronomy, meteorology): VPD = e_s(T) * (1 - RH / 100) in kPa, with the
saturation vapour pressure from Tetens' formula e_s(T) = 0.6108 * exp(17.27 T / (T + 237.3)), T in degrees C and RH
in percent. T and RH are [rows, columns] fields (stations x hours, or a raster's rows); the deficit is
(100 - RH) * 0.01 * e_s, exact for RH near 100.

Each program takes BLOCK_M rows and walks their columns BLOCK_N at a time; row offsets are int64 (a continental
raster at hourly steps passes 2**31 cells).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def vpd_kernel(t_ptr, rh_ptr, out_ptr, M, N, s_tm, s_tn, s_rm, s_rn, s_om, s_on,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols < N)[None, :]
        t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
        rh = tl.load(rh_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, mask=mask, other=0.0).to(tl.float32)
        es = 0.6108 * tl.exp(17.27 * t / (t + 237.3))
        vpd = es * ((100.0 - rh) * 0.01)
        tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, vpd.to(out_ptr.dtype.element_ty), mask=mask)


def vapor_pressure_deficit(t: torch.Tensor, rh: torch.Tensor, BLOCK_M: int = 4, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = t.shape
    out = torch.empty((M, N), dtype=t.dtype, device=t.device)
    if M == 0 or N == 0:
        return out
    vpd_kernel[(triton.cdiv(M, BLOCK_M),)](
        t, rh, out, M, N, t.stride(0), t.stride(1), rh.stride(0), rh.stride(1), out.stride(0), out.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(t: torch.Tensor, rh: torch.Tensor) -> torch.Tensor:
    es = 0.6108 * torch.exp(17.27 * t / (t + 237.3))
    return es * ((100.0 - rh) * 0.01)


spec = kcheck.Spec(
    name="vapor_pressure_deficit",
    kernel=vapor_pressure_deficit,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="temperature", pattern="randn"), kcheck.Tensor("M", "N", name="rh")],
    dims={"M": kcheck.Dim(nominal=80), "N": kcheck.Dim(nominal=300)},
    configs=[{"BLOCK_M": 4, "BLOCK_N": 128}, {"BLOCK_M": 8, "BLOCK_N": 64}],
)
