"""CUDA C backward warping of an image [H, W] by a dense displacement field (optical flow), nearest-neighbour
sampling with border clamping (grid_sample's mode="nearest", padding_mode="border", in pixel units):
out[y, x] = img[iy, ix] with ix = rint(clamp(x + u[y, x], 0, W - 1)), iy = rint(clamp(y + v[y, x], 0, H - 1)),
the sums in fp32, rint rounding half to even, and a NaN displacement clamped to 0 (fmaxf/fminf return the number).
256 threads per block along a row; (row, column chunk) blocks flattened onto grid.x; size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void flow_warp_nearest(const float* __restrict__ img, const float* __restrict__ u,
                                             const float* __restrict__ v, float* __restrict__ out, int h, int w,
                                             int col_chunks) {
    const int row = blockIdx.x / col_chunks;
    const int col = (blockIdx.x % col_chunks) * blockDim.x + threadIdx.x;
    if (col >= w) return;
    const size_t o = (size_t)row * w + col;
    float sx = (float)col + u[o];
    float sy = (float)row + v[o];
    sy = fminf(fmaxf(sy, 0.0f), (float)(h - 1));
    const int ix = __float2int_rn(sx);
    const int iy = __float2int_rn(sy);
    out[o] = img[(size_t)iy * w + ix];
}
"""

warp_kernel = kcheck.CudaKernel(SOURCE, "flow_warp_nearest",
                                grid=lambda img, u, v, out, h, w, col_chunks: (h * col_chunks,), block=(256,))


def flow_warp_nearest(img: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    h, w = img.shape
    out = torch.empty((h, w), dtype=img.dtype, device=img.device)
    if h and w:
        warp_kernel(img.contiguous(), u.contiguous(), v.contiguous(), out, h, w, (w + 255) // 256)
    return out


def reference(img: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    h, w = img.shape
    if h == 0 or w == 0:
        return img.clone()
    f32 = torch.float32
    sx = torch.arange(w, dtype=f32, device=img.device)[None, :] + u.to(f32)
    sy = torch.arange(h, dtype=f32, device=img.device)[:, None] + v.to(f32)
    sx = torch.where(torch.isnan(sx), 0.0, sx).clamp(0.0, float(w - 1))
    sy = torch.where(torch.isnan(sy), 0.0, sy).clamp(0.0, float(h - 1))
    ix, iy = torch.round(sx).long(), torch.round(sy).long()
    return img[iy, ix]


spec = kcheck.Spec(
    name="hx24_cuda_flow_warp_nearest",
    kernel=flow_warp_nearest,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="image"), kcheck.Tensor("H", "W", name="flow_x"),
            kcheck.Tensor("H", "W", name="flow_y")],
    dims={"H": kcheck.Dim(nominal=64), "W": kcheck.Dim(nominal=160)},
    dtypes=["fp32"],
)
