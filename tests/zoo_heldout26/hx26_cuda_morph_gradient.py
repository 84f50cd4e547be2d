"""CUDA C morphological gradient (3x3 dilation minus 3x3 erosion, edges replicated) of a batch of images [B, H, W],
the usual edge map of grey-level morphology.

Each 32x8 block stages its tile with a one-pixel halo in shared memory, then runs the separable max/min filter: a
horizontal pass writes the 3-wide row maxima and minima of all ten staged rows to shared memory, and a vertical pass
combines three of them per output pixel. fmaxf/fminf skip NaN, as the reference does. size_t plane offsets."""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define TW 32
#define TH 8
extern "C" __global__ void morph_gradient(const float* __restrict__ img, float* __restrict__ out, int h, int w) {
    __shared__ float tile[TH + 2][TW + 2];
    __shared__ float rmax[TH + 2][TW];
    __shared__ float rmin[TH + 2][TW];
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    const size_t plane = (size_t)blockIdx.z * h * w;
    const int tid = threadIdx.y * TW + threadIdx.x;
    /* the tile and its halo, edge pixels replicated */
    for (int i = tid; i < (TH + 2) * (TW + 2); i += TW * TH) {
        const int ty = i / (TW + 2), tx = i % (TW + 2);
        const int y = min(max(y0 + ty - 1, 0), h - 1);
        const int x = min(max(x0 + tx - 1, 0), w - 1);
        tile[ty][tx] = img[plane + (size_t)y * w + x];
    }
    __syncthreads();
    /* horizontal pass over every staged row */
    for (int i = tid; i < (TH + 2) * TW; i += TW * TH) {
        const int ty = i / TW, tx = i % TW;
        const float a = tile[ty][tx], b = tile[ty][tx + 1], c = tile[ty][tx + 2];
        rmax[ty][tx] = fmaxf(fmaxf(a, b), c);
        rmin[ty][tx] = fminf(fminf(a, b), c);
    }
    /* vertical pass: one output pixel per thread */
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x < w && y < h) {
        const int ty = threadIdx.y, tx = threadIdx.x;
        const float hi = fmaxf(fmaxf(rmax[ty][tx], rmax[ty + 1][tx]), rmax[ty + 2][tx]);
        const float lo = fminf(fminf(rmin[ty][tx], rmin[ty + 1][tx]), rmin[ty + 2][tx]);
        out[plane + (size_t)y * w + x] = hi - lo;
    }
}
"""

morph_gradient_kernel = kcheck.CudaKernel(
    SOURCE, "morph_gradient", grid=lambda img, out, h, w: ((w + 31) // 32, (h + 7) // 8, img.shape[0]),
    block=(32, 8))


def morph_gradient(img: torch.Tensor, out: torch.Tensor) -> None:
    _, H, W = img.shape
    if out.numel():
        morph_gradient_kernel(img.contiguous(), out, H, W)


def reference(img: torch.Tensor) -> torch.Tensor:
    x = img[:, None]
    inf = torch.full_like(x, float("inf"))
    hi = torch.where(torch.isnan(x), -inf, x)
    lo = torch.where(torch.isnan(x), inf, x)
    pad = (1, 1, 1, 1)
    dil = torch.nn.functional.max_pool2d(torch.nn.functional.pad(hi, pad, mode="replicate"), 3, stride=1)
    ero = -torch.nn.functional.max_pool2d(torch.nn.functional.pad(-lo, pad, mode="replicate"), 3, stride=1)
    return (dil - ero)[:, 0]


spec = kcheck.Spec(
    name="hx26_cuda_morph_gradient",
    kernel=morph_gradient,
    reference=reference,
    inputs=[kcheck.Tensor("B", "H", "W", name="img")],
    outputs=[kcheck.Tensor("B", "H", "W", name="gradient")],
    # grid.y holds the row tiles and grid.z the images (at most 65535 each): W grows in the past-2**31 case
    dims={"B": kcheck.Dim(nominal=2, max=64, large=False, real=()), "H": kcheck.Dim(nominal=72, large=False),
          "W": kcheck.Dim(nominal=100)},
    dtypes=["fp32"],
)
