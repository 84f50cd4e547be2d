"""Rain rate from radar reflectivity (Marshall-Palmer Z-R relation): Z = 200 R^1.6 with Z in mm^6/m^3, and the radar
reports dBZ = 10 log10(Z), so R = (10^(dBZ / 10) / 200)^(1 / 1.6) mm/h. Computed as
exp(dBZ * ln(10) / (10 * 1.6) - ln(200) / 1.6): one product and one difference before the exponential.

Elementwise over a [rays, gates] polar scan; each program takes BLOCK_M rays and walks their gates BLOCK_N at a time.
Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"
A = 200.0  # Marshall-Palmer Z = A R^B
B = 1.6


@triton.jit
def rain_rate_kernel(dbz_ptr, out_ptr, M, N, s_dm, s_dn, s_om, s_on, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        dbz = tl.load(dbz_ptr + rows[:, None] * s_dm + cols[None, :] * s_dn, mask=mask, other=0.0).to(tl.float32)
        # ln(10) / (10 * 1.6) and ln(200) / 1.6
        rate = tl.exp(dbz * (2.302585092994046 / (20.0 * 1.6)) - 5.298317366548036 / 1.6)
        tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, rate.to(out_ptr.dtype.element_ty), mask=mask)


def rain_rate(dbz: torch.Tensor, BLOCK_M: int = 8, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = dbz.shape
    out = torch.empty((M, N), dtype=dbz.dtype, device=dbz.device)
    if M == 0 or N == 0:
        return out
    rain_rate_kernel[(triton.cdiv(M, BLOCK_M),)](dbz, out, M, N, dbz.stride(0), dbz.stride(1), out.stride(0),
                                                 out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(dbz: torch.Tensor) -> torch.Tensor:
    z = torch.pow(10.0, dbz / 10.0)
    return torch.pow(z / A, 1.0 / B)


spec = kcheck.Spec(
    name="radar_rain_rate",
    kernel=rain_rate,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="dbz")],
    dims={"M": kcheck.Dim(nominal=72), "N": kcheck.Dim(nominal=250)},
    configs=[{"BLOCK_M": 8, "BLOCK_N": 128}, {"BLOCK_M": 32, "BLOCK_N": 32}],
)
