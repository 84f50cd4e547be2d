"""CUDA C bilinear sampling of a single-channel image at P normalized coordinates (grid_sample style,
align_corners=True, border padding):

    px = (u + 1) / 2 * (W - 1),  py = (v + 1) / 2 * (H - 1), both clamped to the image,
    out[p] = bilinear blend of the 4 neighbouring pixels (neighbours clamped to the last row/column).

Non-finite coordinates are treated as the image border (0 after the clamp). One thread per sample.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void bilinear_sample(const float* __restrict__ img, const float* __restrict__ uv,
                                           float* __restrict__ out, int h, int w, int p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p) return;
    float px = (uv[2 * (size_t)i] + 1.0f) * 0.5f * (float)(w - 1);
    float py = (uv[2 * (size_t)i + 1] + 1.0f) * 0.5f * (float)(h - 1);
    px = isnan(px) ? 0.0f : px;
    py = isnan(py) ? 0.0f : fminf(fmaxf(py, 0.0f), (float)(h - 1));
    const int x0 = (int)floorf(px), y0 = (int)floorf(py);
    const int x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1);
    const float fx = px - (float)x0, fy = py - (float)y0;
    const float a = img[(size_t)y0 * w + x0], b = img[(size_t)y0 * w + x1];
    const float c = img[(size_t)y1 * w + x0], d = img[(size_t)y1 * w + x1];
    const float top = a + fx * (b - a), bot = c + fx * (d - c);
    out[i] = top + fy * (bot - top);
}
"""

bilinear_kernel = kcheck.CudaKernel(SOURCE, "bilinear_sample",
                                    grid=lambda img, uv, out, h, w, p: ((p + 255) // 256,), block=(256,))


def bilinear_sample(img: torch.Tensor, uv: torch.Tensor, out: torch.Tensor) -> None:
    h, w = img.shape
    p = uv.shape[0]
    if p and h and w:
        bilinear_kernel(img.contiguous(), uv.contiguous(), out, h, w, p)


def reference(img: torch.Tensor, uv: torch.Tensor) -> torch.Tensor:
    h, w = img.shape
    px = ((uv[:, 0] + 1) * 0.5 * (w - 1)).nan_to_num(0.0).clamp(0, w - 1)
    py = ((uv[:, 1] + 1) * 0.5 * (h - 1)).nan_to_num(0.0).clamp(0, h - 1)
    x0, y0 = px.floor().long(), py.floor().long()
    x1, y1 = (x0 + 1).clamp(max=w - 1), (y0 + 1).clamp(max=h - 1)
    fx, fy = px - x0, py - y0
    a, b, c, d = img[y0, x0], img[y0, x1], img[y1, x0], img[y1, x1]
    top, bot = a + fx * (b - a), c + fx * (d - c)
    return top + fy * (bot - top)


spec = kcheck.Spec(
    name="cuda_bilinear_sample",
    kernel=bilinear_sample,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="img"), kcheck.Tensor("P", 2, name="uv")],
    outputs=[kcheck.Tensor("P")],
    dims={"H": kcheck.Dim(nominal=64, min=1, real=()), "W": kcheck.Dim(nominal=96, min=1, real=()),
          "P": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

BUG_CLASS = "kernel-crash"
