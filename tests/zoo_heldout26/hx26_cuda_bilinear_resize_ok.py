"""CUDA C bilinear resize of a batch of images [B, H, W] to [B, HO, WO] at any scale, with the half-pixel
convention of torch.nn.functional.interpolate(mode="bilinear", align_corners=False): output pixel (oy, ox) samples
the input at ((oy + 0.5) * H / HO - 0.5, (ox + 0.5) * W / WO - 0.5), clamped at 0, between its four neighbours
(the far ones clamped to the last row and column). A grid-stride loop over all output pixels, size_t offsets."""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void resize_bilinear(const float* __restrict__ x, float* __restrict__ y, int b, int h, int w,
                                           int ho, int wo) {
    const size_t total = (size_t)b * ho * wo;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
        const int ox = (int)(i % wo);
        const size_t r = i / wo;
        const int oy = (int)(r % ho);
        const size_t image = r / ho;
        /* (o + 0.5) * in / out - 0.5, with one rounding before the subtraction */
        const float fy = fmaxf((float)(2 * oy + 1) * (float)h / (2.0f * (float)ho) - 0.5f, 0.0f);
        const float fx = fmaxf((float)(2 * ox + 1) * (float)w / (2.0f * (float)wo) - 0.5f, 0.0f);
        const int y0 = min((int)fy, h - 1), x0 = min((int)fx, w - 1);
        const int y1 = min(y0 + 1, h - 1), x1 = min(x0 + 1, w - 1);
        const float ly = fy - y0, lx = fx - x0;
        const float* p = x + image * h * w;
        const float top = (1.0f - lx) * p[(size_t)y0 * w + x0] + lx * p[(size_t)y0 * w + x1];
        const float bot = (1.0f - lx) * p[(size_t)y1 * w + x0] + lx * p[(size_t)y1 * w + x1];
        y[i] = (1.0f - ly) * top + ly * bot;
    }
}
"""

resize_kernel = kcheck.CudaKernel(
    SOURCE, "resize_bilinear", block=(256,),
    grid=lambda x, y, b, h, w, ho, wo: (min((b * ho * wo + 255) // 256, 1 << 20),))


def resize_bilinear(x: torch.Tensor, ho: int, wo: int, y: torch.Tensor) -> None:
    B, H, W = x.shape
    if y.numel():
        resize_kernel(x.contiguous(), y, B, H, W, ho, wo)


def reference(x: torch.Tensor, ho: int, wo: int) -> torch.Tensor:
    return torch.nn.functional.interpolate(x[:, None], size=(ho, wo), mode="bilinear", align_corners=False)[:, 0]


spec = kcheck.Spec(
    name="hx26_cuda_bilinear_resize_ok",
    kernel=resize_bilinear,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "W", name="img"), kcheck.Scalar(lambda d: d["HO"], name="out_h"),
            kcheck.Scalar(lambda d: d["WO"], name="out_w")],
    outputs=[kcheck.Tensor("B", "HO", "WO", name="resized")],
    dims={"B": kcheck.Dim(nominal=2, real=()), "H": kcheck.Dim(nominal=60, min=1), "W": kcheck.Dim(nominal=80, min=1),
          "HO": kcheck.Dim(nominal=45), "WO": kcheck.Dim(nominal=128)},
    dtypes=["fp32"],
)
