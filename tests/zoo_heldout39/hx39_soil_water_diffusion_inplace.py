"""One explicit step of soil-water diffusion down a set of soil profiles, in place (agronomy, the diffusivity
form of Richards' equation with a constant diffusivity).

theta[p, z] is the volumetric water content of layer z of profile p. With r = D * dt / dz^2 (a mode, <= 1/2
for stability) and no-flux top and bottom boundaries (mirror ghost layers):

    theta[p, z] += r * (theta[p, z - 1] - 2 * theta[p, z] + theta[p, z + 1])

The update is written back into theta. Each program reads a BLOCK_P x BLOCK_Z tile and its neighbours from a copy
of the profiles taken before the launch.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "race"


@triton.jit
def soil_diffusion_kernel(src_ptr, theta_ptr, P, Z, r, s_sp, s_sz, s_tp, s_tz,
                          BLOCK_P: tl.constexpr, BLOCK_Z: tl.constexpr):
    prof = tl.program_id(0).to(tl.int64) * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    z = tl.program_id(1).to(tl.int64) * BLOCK_Z + tl.arange(0, BLOCK_Z).to(tl.int64)
    mask = (prof < P)[:, None] & (z < Z)[None, :]
    up = tl.where(z > 0, z - 1, 0)
    down = tl.where(z < Z - 1, z + 1, Z - 1)
    row = src_ptr + prof[:, None] * s_sp
    c = tl.load(row + z[None, :] * s_sz, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(row + up[None, :] * s_sz, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(row + down[None, :] * s_sz, mask=mask, other=0.0).to(tl.float32)
    new = c + r * (a - 2.0 * c + b)
    tl.store(theta_ptr + prof[:, None] * s_tp + z[None, :] * s_tz, new.to(theta_ptr.dtype.element_ty), mask=mask)


def soil_water_diffusion_(theta: torch.Tensor, r: float = 0.25, BLOCK_P: int = 4,
                          BLOCK_Z: int = 32) -> torch.Tensor:
    P, Z = theta.shape
    if P == 0 or Z == 0:
        return theta
    src = theta
    grid = (triton.cdiv(P, BLOCK_P), triton.cdiv(Z, BLOCK_Z))
    soil_diffusion_kernel[grid](src, theta, P, Z, r, src.stride(0), src.stride(1), theta.stride(0), theta.stride(1),
                                BLOCK_P=BLOCK_P, BLOCK_Z=BLOCK_Z)
    return theta


def reference(theta: torch.Tensor, r: float = 0.25) -> torch.Tensor:
    a = torch.cat((theta[:, :1], theta[:, :-1]), dim=1)
    b = torch.cat((theta[:, 1:], theta[:, -1:]), dim=1)
    return theta + r * (a - 2.0 * theta + b)


spec = kcheck.Spec(
    name="hx39_soil_water_diffusion_inplace",
    kernel=soil_water_diffusion_,
    reference=reference,
    inputs=[kcheck.Tensor("P", "Z", name="theta", mutated=True)],
    dims={"P": kcheck.Dim(nominal=50), "Z": kcheck.Dim(nominal=120, large=False)},  # Z tiles: grid axis 1
    params={"r": [0.25, 0.45]},
    configs=[{"BLOCK_P": 4, "BLOCK_Z": 32}, {"BLOCK_P": 16, "BLOCK_Z": 16}],
)
