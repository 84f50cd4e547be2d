"""Free-air gravity anomaly on a grid of stations (geodesy):

    anomaly[m, n] = g[m, n] - gamma(lat[m]) + 3.086e-3 * h[m, n]

with g the observed gravity (m/s^2), h the station height (km: the free-air gradient is 0.3086 mGal/m =
3.086e-3 m/s^2 per km) and gamma the normal gravity of the WGS84 ellipsoid at the row's latitude (radians),
Somigliana's closed form:

    gamma(phi) = 9.7803253359 * (1 + 0.00193185265241 sin^2 phi) / sqrt(1 - 0.00669437999013 sin^2 phi)

2-D tiles of [BLOCK_M, BLOCK_N]; gamma is computed once per row of the tile (fp32); any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

GAMMA_E = 9.7803253359
K_SOMIGLIANA = 0.00193185265241
E2 = 0.00669437999013
FREE_AIR = 3.086e-3


@triton.jit
def free_air_kernel(g_ptr, h_ptr, lat_ptr, out_ptr, M, N, stride_gm, stride_gn, stride_hm, stride_hn, stride_lat,
                    stride_om, stride_on, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    lat = tl.load(lat_ptr + rows * stride_lat, mask=row_mask, other=0.0).to(tl.float32)
    s = tl.sin(lat)
    s2 = s * s
    gamma = 9.7803253359 * (1.0 + 0.00193185265241 * s2) / tl.sqrt(1.0 - 0.00669437999013 * s2)
    g = tl.load(g_ptr + rows[:, None] * stride_gm + cols[None, :] * stride_gn, mask=mask, other=0.0)
    h = tl.load(h_ptr + rows[:, None] * stride_hm + cols[None, :] * stride_hn, mask=mask, other=0.0)
    anomaly = g.to(tl.float32) - gamma[:, None] + 3.086e-3 * h.to(tl.float32)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, anomaly.to(out_ptr.dtype.element_ty),
             mask=mask)


def free_air_anomaly(g: torch.Tensor, h: torch.Tensor, lat: torch.Tensor, BLOCK_M: int = 32,
                     BLOCK_N: int = 64) -> torch.Tensor:
    M, N = g.shape
    out = torch.empty((M, N), dtype=g.dtype, device=g.device)
    if M == 0 or N == 0:
        return out
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    free_air_kernel[grid](g, h, lat, out, M, N, g.stride(0), g.stride(1), h.stride(0), h.stride(1), lat.stride(0),
                          out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(g: torch.Tensor, h: torch.Tensor, lat: torch.Tensor) -> torch.Tensor:
    s2 = torch.sin(lat) ** 2
    gamma = GAMMA_E * (1 + K_SOMIGLIANA * s2) / torch.sqrt(1 - E2 * s2)
    return g - gamma[:, None] + FREE_AIR * h


spec = kcheck.Spec(
    name="hx38_free_air_anomaly",
    kernel=free_air_anomaly,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="gravity"), kcheck.Tensor("M", "N", name="height_km"),
            kcheck.Tensor("M", name="latitude")],
    dims={"M": kcheck.Dim(nominal=96), "N": kcheck.Dim(nominal=160)},
    configs=[{"BLOCK_M": 32, "BLOCK_N": 64}, {"BLOCK_M": 8, "BLOCK_N": 128}],
)
