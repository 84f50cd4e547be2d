"""CUDA C histogram back-projection (Swain & Ballard; the first step of mean-shift / CamShift tracking): every pixel
of image b is replaced by the value of image b's histogram at the pixel's bin,

    out[b, p] = hist[b, bin],   bin = clamp(floor(img[b, p] * NB), 0, NB - 1)

for intensities normalized to [0, 1): values outside land in the first or last bin (NaN in the first, as the
float-to-int conversion gives 0). A grid-stride loop over all pixels, size_t indices."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void hist_backproject(const float* __restrict__ img, const float* __restrict__ hist,
                                            float* __restrict__ out, int b, int n, int nbins) {
    const size_t total = (size_t)b * n;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
        const size_t image = i / n;
        int bin = (int)floorf(img[i] * (float)nbins);
        out[i] = hist[image * nbins + bin];
    }
}
"""

backproject_kernel = kcheck.CudaKernel(
    SOURCE, "hist_backproject", block=(256,),
    grid=lambda img, hist, out, b, n, nb: (min((b * n + 255) // 256, 1 << 20),))


def hist_backproject(img: torch.Tensor, hist: torch.Tensor, out: torch.Tensor) -> None:
    B, P = img.shape
    NB = hist.shape[1]
    if out.numel():
        backproject_kernel(img.contiguous(), hist.contiguous(), out, B, P, NB)


def reference(img: torch.Tensor, hist: torch.Tensor) -> torch.Tensor:
    NB = hist.shape[1]
    v = torch.floor(img.float() * NB)  # the kernel's product is fp32
    v = torch.where(torch.isnan(v), torch.zeros_like(v), v).clamp(0, NB - 1)
    return torch.gather(hist, 1, v.long())


spec = kcheck.Spec(
    name="hx26_cuda_hist_backproject",
    kernel=hist_backproject,
    reference=reference,
    inputs=[kcheck.Tensor("B", "P", name="img"), kcheck.Tensor("B", "NB", name="hist")],
    outputs=[kcheck.Tensor("B", "P", name="backprojection")],
    dims={"B": kcheck.Dim(nominal=4, real=()), "P": kcheck.Dim(nominal=4096), "NB": kcheck.Dim(nominal=32)},
    dtypes=["fp32"],
)
