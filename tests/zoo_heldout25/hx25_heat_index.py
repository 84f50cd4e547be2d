"""NWS heat index from air temperature T (degrees F) and relative humidity RH (%), on 2-D fields [M, N]:
Steadman's simple formula, and where its average with T reaches 80 F the Rothfusz regression with the NWS's two
adjustments (dry air at 80-112 F, humid air at 80-87 F). 2-D tiles of BLOCK_M x BLOCK_N on a 2-D grid (rows on
axis 0), each tensor's strides passed explicitly, int64 offsets (a field may pass 2**31 points), fp32 arithmetic."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"


@triton.jit
def heat_index_kernel(t_ptr, rh_ptr, out_ptr, M, N, s_tm, s_tn, s_rm, s_rn, s_om, s_on,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
    rh = tl.load(rh_ptr + rows[:, None] * s_rm + cols[None, :] * s_rn, mask=mask, other=0.0).to(tl.float32)
    simple = 0.5 * (t + 61.0 + (t - 68.0) * 1.2 + rh * 0.094)
    full = (-42.379 + 2.04901523 * t + 10.14333127 * rh - 0.22475541 * t * rh - 6.83783e-3 * t * t
            - 5.481717e-2 * rh * rh + 1.22874e-3 * t * t * rh + 8.5282e-4 * t * rh * rh
            - 1.99e-6 * t * t * rh * rh)
    dry = (rh < 13.0) & (t > 80.0) & (t < 112.0)
    full = tl.where(dry, full - (13.0 - rh) * 0.25 * tl.sqrt(tl.where(dry, (17.0 - tl.abs(t - 95.0)) / 17.0, 0.0)),
                    full)
    humid = (rh > 85.0) & (t > 80.0) & (t < 87.0)
    full = tl.where(humid, full + (rh - 85.0) * 0.1 * (87.0 - t) * 0.2, full)
    hi = tl.where(0.5 * (simple + t) >= 80.0, full, simple)
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, hi.to(out_ptr.dtype.element_ty), mask=mask)


def heat_index(t, rh, BLOCK_M=16, BLOCK_N=64):
    M, N = t.shape
    out = torch.empty((M, N), dtype=t.dtype, device=t.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    heat_index_kernel[grid](t, rh, out, M, N, t.stride(0), t.stride(1), rh.stride(0), rh.stride(1),
                            out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(t, rh):
    simple = 0.5 * (t + 61.0 + (t - 68.0) * 1.2 + rh * 0.094)
    full = (-42.379 + 2.04901523 * t + 10.14333127 * rh - 0.22475541 * t * rh - 6.83783e-3 * t ** 2
            - 5.481717e-2 * rh ** 2 + 1.22874e-3 * t ** 2 * rh + 8.5282e-4 * t * rh ** 2 - 1.99e-6 * t ** 2 * rh ** 2)
    dry = (rh < 13) & (t > 80) & (t < 112)
    dry_adj = (13 - rh) / 4 * ((17 - (t - 95).abs()) / 17).clamp(min=0).sqrt()
    full = torch.where(dry, full - dry_adj, full)
    humid = (rh > 85) & (t > 80) & (t < 87)
    full = torch.where(humid, full + (rh - 85) / 10 * (87 - t) / 5, full)
    return torch.where((simple + t) / 2 >= 80, full, simple)


spec = kcheck.Spec(
    name="hx25_heat_index",
    kernel=heat_index,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="temperature_f"), kcheck.Tensor("M", "N", name="humidity_pct")],
    dims={"M": kcheck.Dim(nominal=96), "N": kcheck.Dim(nominal=200)},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 4, "BLOCK_N": 128}],
)
