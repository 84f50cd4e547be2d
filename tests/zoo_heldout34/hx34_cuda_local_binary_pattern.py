"""CUDA C local binary pattern (LBP) codes of a grayscale image, the texture descriptor of face and material
recognition: for every pixel, bit k of the code is set when neighbour k is at least the centre,

    neighbours k = 0..7 clockwise from the top-left: (-1,-1) (-1,0) (-1,+1) (0,+1) (+1,+1) (+1,0) (+1,-1) (0,-1),

with the image edge replicated. 16x16 threads per block stage an 18x18 tile (the block's pixels and a one-pixel halo,
clamped coordinates) in shared memory, synchronize, then each thread compares its eight neighbours. The code is
written as a float (0..255). size_t offsets.
"""

import torch
import torch.nn.functional as F

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define TS 16
extern "C" __global__ void lbp_codes(const float* __restrict__ img, float* __restrict__ out, int h, int w) {
    __shared__ float tile[TS + 2][TS + 2];
    const int x0 = blockIdx.x * TS - 1, y0 = blockIdx.y * TS - 1;
    const int t = threadIdx.y * TS + threadIdx.x;
    for (int i = t; i < (TS + 2) * (TS + 2); i += TS * TS) {
        const int ty = i / (TS + 2), tx = i % (TS + 2);
        const int y = min(max(y0 + ty, 0), h - 1), x = min(max(x0 + tx, 0), w - 1);
        tile[ty][tx] = img[(size_t)y * w + x];
    }
    const int x = blockIdx.x * TS + threadIdx.x, y = blockIdx.y * TS + threadIdx.y;
    if (x >= w || y >= h) return;
    const int cy = threadIdx.y + 1, cx = threadIdx.x + 1;
    const float c = tile[cy][cx];
    const int dy[8] = {-1, -1, -1, 0, 1, 1, 1, 0};
    const int dx[8] = {-1, 0, 1, 1, 1, 0, -1, -1};
    int code = 0;
    for (int k = 0; k < 8; ++k) code |= (tile[cy + dy[k]][cx + dx[k]] >= c) << k;
    out[(size_t)y * w + x] = (float)code;
}
"""

lbp_kernel = kcheck.CudaKernel(SOURCE, "lbp_codes", grid=lambda img, out, h, w: ((w + 15) // 16, (h + 15) // 16),
                               block=(16, 16))


def lbp_codes(img: torch.Tensor, out: torch.Tensor) -> None:
    h, w = img.shape
    if h and w:
        lbp_kernel(img.contiguous(), out, h, w)


def reference(img: torch.Tensor) -> torch.Tensor:
    h, w = img.shape
    padded = F.pad(img[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    centre = padded[1:h + 1, 1:w + 1]
    offsets = [(-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1)]
    code = torch.zeros_like(img)
    for k, (dy, dx) in enumerate(offsets):
        neighbour = padded[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx]
        code = code + (neighbour >= centre).to(img.dtype) * float(1 << k)
    return code


spec = kcheck.Spec(
    name="cuda_local_binary_pattern",
    kernel=lbp_codes,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="img")],
    outputs=[kcheck.Tensor("H", "W", name="codes")],
    dims={"H": kcheck.Dim(nominal=96, large=False), "W": kcheck.Dim(nominal=160)},  # H tiles on grid.y (<= 65535)
    dtypes=["fp32"],
)
