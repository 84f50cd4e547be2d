"""One explicit Euler step of the Gray-Scott reaction-diffusion model (pattern formation), in place on the two
concentration fields u, v of an H x W periodic grid:

u += dt * (Du * lap(u) - u v^2 + F (1 - u)),   v += dt * (Dv * lap(v) + u v^2 - (F + k) v)

lap is the 5-point Laplacian with periodic wrap. The launcher snapshots u and v, the kernel reads the snapshot
(neighbours included) and writes the new values into u and v, BLOCK_H x BLOCK_W tiles per program.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'race'


@triton.jit
def _lap(p, r, c, rm, rp, cm, cp, s_h, s_w, mask):
    ctr = tl.load(p + r[:, None] * s_h + c[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(p + rm[:, None] * s_h + c[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    dn = tl.load(p + rp[:, None] * s_h + c[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    lf = tl.load(p + r[:, None] * s_h + cm[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    rt = tl.load(p + r[:, None] * s_h + cp[None, :] * s_w, mask=mask, other=0.0).to(tl.float32)
    return ctr, up + dn + lf + rt - 4.0 * ctr


@triton.jit
def gray_scott_kernel(u_src, v_src, u_ptr, v_ptr, H, W, du, dv, feed, kill, dt,
                      s_ah, s_aw, s_bh, s_bw, s_uh, s_uw, s_vh, s_vw, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    r = tl.program_id(0).to(tl.int64) * BLOCK_H + tl.arange(0, BLOCK_H).to(tl.int64)
    c = tl.program_id(1).to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    mask = (r < H)[:, None] & (c < W)[None, :]
    rm = (r + H - 1) % H
    rp = (r + 1) % H
    cm = (c + W - 1) % W
    cp = (c + 1) % W
    u, lu = _lap(u_src, r, c, rm, rp, cm, cp, s_ah, s_aw, mask)
    v, lv = _lap(v_src, r, c, rm, rp, cm, cp, s_bh, s_bw, mask)
    uvv = u * v * v
    un = u + dt * (du * lu - uvv + feed * (1.0 - u))
    vn = v + dt * (dv * lv + uvv - (feed + kill) * v)
    tl.store(u_ptr + r[:, None] * s_uh + c[None, :] * s_uw, un.to(u_ptr.dtype.element_ty), mask=mask)
    tl.store(v_ptr + r[:, None] * s_vh + c[None, :] * s_vw, vn.to(v_ptr.dtype.element_ty), mask=mask)


def gray_scott_step(u, v, du, dv, feed, kill, dt, BLOCK: int = 32):
    H, W = u.shape
    if H == 0 or W == 0:
        return u, v
    u_src, v_src = u, v
    grid = (triton.cdiv(H, BLOCK), triton.cdiv(W, BLOCK))
    gray_scott_kernel[grid](u_src, v_src, u, v, H, W, du, dv, feed, kill, dt, u_src.stride(0), u_src.stride(1),
                            v_src.stride(0), v_src.stride(1), u.stride(0), u.stride(1), v.stride(0), v.stride(1), BLOCK_H=BLOCK, BLOCK_W=BLOCK)
    return u, v


def reference(u, v, du, dv, feed, kill, dt):
    def lap(a):
        return (torch.roll(a, 1, 0) + torch.roll(a, -1, 0) + torch.roll(a, 1, 1) + torch.roll(a, -1, 1) - 4.0 * a)
    uvv = u * v * v
    return (u + dt * (du * lap(u) - uvv + feed * (1.0 - u)), v + dt * (dv * lap(v) + uvv - (feed + kill) * v))


spec = kcheck.Spec(
    name="hx27_gray_scott_step",
    kernel=gray_scott_step,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", mutated=True, name="u"), kcheck.Tensor("H", "W", mutated=True, name="v"),
            kcheck.Scalar(0.16, name="du"), kcheck.Scalar(0.08, name="dv"), kcheck.Scalar(0.035, name="feed"),
            kcheck.Scalar(0.065, name="kill"), kcheck.Scalar(1.0, name="dt")],
    dims={"H": kcheck.Dim(nominal=64, real=()), "W": kcheck.Dim(nominal=96, real=())},
    configs=[{"BLOCK": 32}, {"BLOCK": 16}],
)
