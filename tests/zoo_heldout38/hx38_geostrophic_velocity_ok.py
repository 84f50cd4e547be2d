"""Surface geostrophic currents from sea surface height (oceanography, satellite altimetry): on an [H, W] grid of
SSH eta (cm) with spacings dy, dx (km) and Coriolis parameter f (1/s),

    u = -(g / f) * d(eta)/dy,      v = (g / f) * d(eta)/dx          (m/s: 1 cm/km = 1e-5)

Derivatives as torch.gradient takes them: central differences inside, one-sided first differences on the edges
(H, W >= 2). Two outputs from one pass over [BLOCK_H, BLOCK_W] tiles, neighbours read through the strides; fp32
arithmetic, outputs in the input dtype. f is a mode (northern and southern mid-latitudes).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

G = 9.80665


@triton.jit
def geostrophic_kernel(eta_ptr, u_ptr, v_ptr, H, W, scale, inv_dy, inv_dx, stride_eh, stride_ew,
                       stride_uh, stride_uw, stride_vh, stride_vw, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid_h = tl.program_id(0).to(tl.int64)
    pid_w = tl.program_id(1).to(tl.int64)
    rows = pid_h * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    cols = pid_w * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (rows < H)[:, None] & (cols < W)[None, :]
    up = tl.maximum(rows - 1, 0)
    down = tl.minimum(rows + 1, H - 1)
    left = tl.maximum(cols - 1, 0)
    right = tl.minimum(cols + 1, W - 1)
    e_up = tl.load(eta_ptr + up[:, None] * stride_eh + cols[None, :] * stride_ew, mask=mask, other=0.0)
    e_down = tl.load(eta_ptr + down[:, None] * stride_eh + cols[None, :] * stride_ew, mask=mask, other=0.0)
    e_left = tl.load(eta_ptr + rows[:, None] * stride_eh + left[None, :] * stride_ew, mask=mask, other=0.0)
    e_right = tl.load(eta_ptr + rows[:, None] * stride_eh + right[None, :] * stride_ew, mask=mask, other=0.0)
    dedy = (e_down.to(tl.float32) - e_up.to(tl.float32)) / (down - up).to(tl.float32)[:, None] * inv_dy
    dedx = (e_right.to(tl.float32) - e_left.to(tl.float32)) / (right - left).to(tl.float32)[None, :] * inv_dx
    u = -scale * dedy
    v = scale * dedx
    tl.store(u_ptr + rows[:, None] * stride_uh + cols[None, :] * stride_uw, u.to(u_ptr.dtype.element_ty), mask=mask)
    tl.store(v_ptr + rows[:, None] * stride_vh + cols[None, :] * stride_vw, v.to(v_ptr.dtype.element_ty), mask=mask)


def geostrophic_velocity(eta: torch.Tensor, dy_km: float, dx_km: float, coriolis: float = 1.0e-4,
                         BLOCK_W: int = 64, BLOCK_H: int = 16) -> tuple[torch.Tensor, torch.Tensor]:
    H, W = eta.shape
    u = torch.empty((H, W), dtype=eta.dtype, device=eta.device)
    v = torch.empty((H, W), dtype=eta.dtype, device=eta.device)
    if H == 0 or W == 0:
        return u, v
    assert H >= 2 and W >= 2, "one-sided differences need two points along each axis"
    block_w = min(BLOCK_W, triton.next_power_of_2(W))
    grid = (triton.cdiv(H, BLOCK_H), triton.cdiv(W, block_w))
    geostrophic_kernel[grid](eta, u, v, H, W, G / coriolis * 1.0e-5, 1.0 / dy_km, 1.0 / dx_km,
                             eta.stride(0), eta.stride(1), u.stride(0), u.stride(1), v.stride(0), v.stride(1),
                             BLOCK_H=BLOCK_H, BLOCK_W=block_w)
    return u, v


def reference(eta: torch.Tensor, dy_km: float, dx_km: float,
              coriolis: float = 1.0e-4) -> tuple[torch.Tensor, torch.Tensor]:
    dedy, dedx = torch.gradient(eta, spacing=(dy_km, dx_km))
    scale = G / coriolis * 1.0e-5
    return -scale * dedy, scale * dedx


spec = kcheck.Spec(
    name="hx38_geostrophic_velocity_ok",
    kernel=geostrophic_velocity,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="ssh_cm"), kcheck.Scalar(12.5, name="dy_km"),
            kcheck.Scalar(25.0, name="dx_km")],
    dims={"H": kcheck.Dim(nominal=90, min=2), "W": kcheck.Dim(nominal=180, min=2)},
    params={"coriolis": [1.0e-4, -7.3e-5]},
    configs=[{"BLOCK_W": 64, "BLOCK_H": 16}, {"BLOCK_W": 16, "BLOCK_H": 32}],
    properties=[kcheck.props.linear(0)],
)
