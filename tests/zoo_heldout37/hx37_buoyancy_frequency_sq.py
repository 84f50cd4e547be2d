"""Squared buoyancy (Brunt-Vaisala) frequency of density profiles (physical oceanography): rho is [Z, X], in-situ
density on Z equally spaced depth levels (dz metres apart, depth increasing with the row) at X stations;

    N^2 = (g / rho_0) d(rho)/dz,       g = 9.81 m/s^2, rho_0 = 1025 kg/m^3

with the derivative taken as numpy/torch.gradient does: central differences inside, one-sided at the top and bottom
levels. A column stencil on 2-D tiles (BLOCK_Z levels x BLOCK_X stations), computed in fp32 into an fp32 buffer,
which is rounded once into the output the caller passes (whatever its dtype). int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"

G = 9.81
RHO_0 = 1025.0


@triton.jit
def n2_kernel(rho_ptr, out_ptr, Z, X, scale, s_rz, s_rx, s_oz, s_ox, BLOCK_Z: tl.constexpr, BLOCK_X: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tiles_x = tl.cdiv(X, BLOCK_X)
    zs = (pid // tiles_x) * BLOCK_Z + tl.arange(0, BLOCK_Z).to(tl.int64)
    xs = (pid % tiles_x) * BLOCK_X + tl.arange(0, BLOCK_X).to(tl.int64)
    mask = (zs < Z)[:, None] & (xs < X)[None, :]
    up = tl.maximum(zs - 1, 0)
    down = tl.minimum(zs + 1, Z - 1)
    col = rho_ptr + xs[None, :] * s_rx
    r_up = tl.load(col + up[:, None] * s_rz, mask=mask, other=0.0).to(tl.float32)
    r_down = tl.load(col + down[:, None] * s_rz, mask=mask, other=0.0).to(tl.float32)
    steps = (down - up).to(tl.float32)
    n2 = scale * (r_down - r_up) / steps[:, None]
    tl.store(out_ptr + zs[:, None] * s_oz + xs[None, :] * s_ox, n2, mask=mask)


def buoyancy_frequency_sq(rho: torch.Tensor, out: torch.Tensor, dz: float = 10.0, BLOCK_Z: int = 32,
                          BLOCK_X: int = 32) -> None:
    Z, X = rho.shape
    if Z == 0 or X == 0:
        return
    work = torch.empty((Z, X), dtype=torch.float32, device=rho.device)
    grid = (triton.cdiv(Z, BLOCK_Z) * triton.cdiv(X, BLOCK_X),)
    n2_kernel[grid](rho, work, Z, X, G / (RHO_0 * dz), rho.stride(0), rho.stride(1), work.stride(0),
                    work.stride(1), BLOCK_Z=BLOCK_Z, BLOCK_X=BLOCK_X)


def reference(rho: torch.Tensor, dz: float) -> torch.Tensor:
    return torch.gradient(rho, spacing=dz, dim=0)[0] * (G / RHO_0)


spec = kcheck.Spec(
    name="hx37_buoyancy_frequency_sq",
    kernel=buoyancy_frequency_sq,
    reference=reference,
    inputs=[kcheck.Tensor("Z", "X", name="rho")],
    outputs=[kcheck.Tensor("Z", "X")],
    dims={"Z": kcheck.Dim(nominal=200, min=2), "X": kcheck.Dim(nominal=40)},
    params={"dz": [10.0, 2.5]},
    configs=[{"BLOCK_Z": 32, "BLOCK_X": 32}, {"BLOCK_Z": 64, "BLOCK_X": 16}],
    properties=[kcheck.props.linear(0)],
)
