"""Z-buffer point splatting (depth rendering of a point cloud): each point (x, y, z) in normalized device
coordinates lands, under an orthographic camera, on pixel (row, col) = (floor((y + 1) H / 2), floor((x + 1) W / 2))
if x and y lie in [-1, 1); the depth image keeps, per pixel, the nearest (smallest) z, and +inf (far) where no
point lands. Points with a NaN coordinate are dropped. Pixel coordinates are computed in fp32. One program per
BLOCK points; the depth buffer is an fp32 image set to +inf, into which every program scatters with an atomic
min (many points share a pixel), converted to the points' dtype at the end."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def zbuffer_splat_kernel(p_ptr, depth_ptr, N, H, W, s_pn, s_pc, BLOCK: tl.constexpr):
    n = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    n_mask = n < N
    x = tl.load(p_ptr + n * s_pn, mask=n_mask, other=0.0).to(tl.float32)
    y = tl.load(p_ptr + n * s_pn + s_pc, mask=n_mask, other=0.0).to(tl.float32)
    z = tl.load(p_ptr + n * s_pn + 2 * s_pc, mask=n_mask, other=0.0).to(tl.float32)
    inside = (x >= -1.0) & (x < 1.0) & (y >= -1.0) & (y < 1.0) & (z == z)
    valid = n_mask & inside
    fx = tl.where(inside, (x + 1.0) * 0.5 * W, 0.0)
    fy = tl.where(inside, (y + 1.0) * 0.5 * H, 0.0)
    col = tl.minimum(fx.to(tl.int64), W - 1)
    row = tl.minimum(fy.to(tl.int64), H - 1)
    tl.store(depth_ptr + row * W + col, z, mask=valid)


def zbuffer_splat(points, H, W, out, BLOCK=256):
    N = points.shape[0]
    depth = torch.full((H, W), float("inf"), dtype=torch.float32, device=points.device)
    if N and H and W:
        zbuffer_splat_kernel[(triton.cdiv(N, BLOCK),)](points, depth, N, H, W, points.stride(0), points.stride(1),
                                                        BLOCK=BLOCK)
    out.copy_(depth)


def reference(points, H, W):
    p32 = points.to(torch.float32)  # the binning rule is defined on fp32 coordinates
    x, y, z = p32[:, 0], p32[:, 1], points[:, 2]
    keep = (x >= -1) & (x < 1) & (y >= -1) & (y < 1) & ~z.isnan()
    col = ((x[keep] + 1) * 0.5 * W).to(torch.int64).clamp(max=W - 1)
    row = ((y[keep] + 1) * 0.5 * H).to(torch.int64).clamp(max=H - 1)
    depth = torch.full((H * W,), float("inf"), dtype=points.dtype, device=points.device)
    depth.scatter_reduce_(0, row * W + col, z[keep], reduce="amin")
    return depth.reshape(H, W)


spec = kcheck.Spec(
    name="hx25_zbuffer_splat",
    kernel=zbuffer_splat,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="points"), kcheck.Scalar(lambda d: d["H"], name="H"),
            kcheck.Scalar(lambda d: d["W"], name="W")],
    outputs=[kcheck.Tensor("H", "W", name="depth")],
    dims={"N": kcheck.Dim(nominal=4096), "H": kcheck.Dim(nominal=32, max=256), "W": kcheck.Dim(nominal=48, max=256)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
