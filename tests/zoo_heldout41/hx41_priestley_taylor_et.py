"""Priestley-Taylor reference evapotranspiration (mm/day) on a [M, N] grid of fields x days:

    es = 0.6108 * exp(17.27 T / (T + 237.3))           saturation vapour pressure, kPa
    delta = 4098 * es / (T + 237.3)^2                  its slope, kPa/degC
    ET = alpha * delta / (delta + gamma) * (Rn - G) / lambda

T (air temperature, degC) and A = Rn - G (available energy, MJ/m^2/day) are [M, N] tensors of any strides;
alpha = 1.26, gamma = 0.066 kPa/degC, lambda = 2.45 MJ/kg. 2-D tiles, fp32 math, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def priestley_taylor_kernel(t_ptr, a_ptr, et_ptr, M, N, s_tm, s_tn, s_am, s_an, s_em, s_en,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + rows[:, None] * s_am + cols[None, :] * s_an, mask=mask, other=0.0).to(tl.float32)
    tk = t + 237.3
    es = 0.6108 * tl.exp(17.27 * t / tk)
    delta = 4098.0 * es / (tk * tk)
    et = 1.26 * a / (2.45 * (1.0 + 0.066 / delta))  # delta / (delta + gamma), finite where delta overflows
    tl.store(et_ptr + rows[:, None] * s_em + cols[None, :] * s_en, et.to(et_ptr.dtype.element_ty), mask=mask)


def priestley_taylor(t, a, BLOCK_M=32, BLOCK_N=32):
    M, N = t.shape
    et = torch.empty((M, N), dtype=t.dtype, device=t.device)
    if M == 0 or N == 0:
        return et
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    priestley_taylor_kernel[grid](t, a, et, M, N, t.stride(0), t.stride(1), a.stride(0), a.stride(1),
                                  et.stride(0), et.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return et


def reference(t, a):
    tk = t + 237.3
    es = 0.6108 * torch.exp(17.27 * t / tk)
    delta = 4098.0 * es / (tk * tk)
    return 1.26 * a / (2.45 * (1.0 + 0.066 / delta))


spec = kcheck.Spec(
    name="priestley_taylor_et",
    kernel=priestley_taylor,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="temperature"), kcheck.Tensor("M", "N", name="available_energy")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=96)},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 32}, {"BLOCK_M": 16, "BLOCK_N": 64}],
)
