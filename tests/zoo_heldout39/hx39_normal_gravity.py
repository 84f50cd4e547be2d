"""Normal gravity of the WGS84 ellipsoid at geodetic latitude and ellipsoidal height (geodesy, NIMA TR8350.2).

Somigliana's closed formula on the ellipsoid and the second-order expansion in height:

    gamma_0 = gamma_e * (1 + k sin^2 phi) / sqrt(1 - e^2 sin^2 phi)
    gamma_h = gamma_0 * (1 - 2 / a * (1 + f + m - 2 f sin^2 phi) * h + 3 h^2 / a^2)

WGS84: gamma_e = 9.7803253359 m/s^2, k = 0.00193185265241, e^2 = 0.00669437999013, a = 6378137 m,
f = 1 / 298.257223563, m = 0.00344978600308. phi (radians) and h (m) are [M, N] grids; elementwise over
BLOCK_M x BLOCK_N tiles, in fp32.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "wrong-constant"

GAMMA_E = 9.7803253359
K_SOMIGLIANA = 0.00193185265241
E2 = 0.00669437999013
A = 6378137.0
F = 1.0 / 298.257223563
M_RATIO = 0.00344978600308


@triton.jit
def normal_gravity_kernel(phi_ptr, h_ptr, out_ptr, M, N, s_pm, s_pn, s_hm, s_hn, s_om, s_on,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    phi = tl.load(phi_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
    h = tl.load(h_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=mask, other=0.0).to(tl.float32)
    s = tl.sin(phi)
    s2 = s * s
    gamma0 = 9.7803253359 * (1.0 + 0.00193185265241 * s2) / tl.sqrt(1.0 - 0.0818191908426 * s2)
    # 2 / a * (1 + f + m - 2 f sin^2 phi) and 3 / a^2, with a = 6378137 m, f = 1/298.257223563, m = 0.00344978600308
    c1 = 3.135711885774796e-7 * (1.0 + 0.0033528106647474805 + 0.00344978600308 - 2.0 * 0.0033528106647474805 * s2)
    gamma = gamma0 * (1.0 - c1 * h + 7.374516772941995e-14 * h * h)
    tl.store(out_ptr + rows[:, None] * s_om + cols[None, :] * s_on, gamma.to(out_ptr.dtype.element_ty), mask=mask)


def normal_gravity(phi: torch.Tensor, h: torch.Tensor, BLOCK_M: int = 16, BLOCK_N: int = 64) -> torch.Tensor:
    M, N = phi.shape
    out = torch.empty((M, N), dtype=phi.dtype, device=phi.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    normal_gravity_kernel[grid](phi, h, out, M, N, phi.stride(0), phi.stride(1), h.stride(0), h.stride(1),
                                out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(phi: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    s2 = torch.sin(phi) ** 2
    gamma0 = GAMMA_E * (1.0 + K_SOMIGLIANA * s2) / torch.sqrt(1.0 - E2 * s2)
    return gamma0 * (1.0 - 2.0 / A * (1.0 + F + M_RATIO - 2.0 * F * s2) * h + 3.0 * h * h / (A * A))


# the kernel's literals for 2 / a and 3 / a^2
assert math.isclose(2.0 / A, 3.135711885774796e-7, rel_tol=1e-12)
assert math.isclose(3.0 / A**2, 7.374516772941995e-14, rel_tol=1e-12)

spec = kcheck.Spec(
    name="hx39_normal_gravity",
    kernel=normal_gravity,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="phi"), kcheck.Tensor("M", "N", name="h")],
    dims={"M": kcheck.Dim(nominal=180), "N": kcheck.Dim(nominal=90, large=False)},  # N tiles: grid axis 1
    configs=[{"BLOCK_M": 16, "BLOCK_N": 64}, {"BLOCK_M": 64, "BLOCK_N": 16}],
)
