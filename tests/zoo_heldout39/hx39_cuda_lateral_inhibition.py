"""CUDA C lateral inhibition along rows of receptors (computational neuroscience: centre-surround receptive
fields, as in the Limulus eye model).

Each row is a 1-D layer of N receptors. A receptor's response is its input minus `strength` times the mean input
of its surround, the neighbours within `radius` on either side (the centre excluded; only neighbours inside the
row count):

    out[i] = x[i] - strength * mean_{0 < |d| <= radius, 0 <= i + d < N} x[i + d]     (0 where no neighbour)

One block of 256 threads computes 256 receptors of one row: the tile and its halo of `radius` receptors per side
are staged in shared memory, then each thread sums its surround from there. 1-D grid over (row, tile) pairs,
size_t offsets; the input's row pitch is honoured.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define TILE 256
#define RMAX 32
extern "C" __global__ void lateral_inhibition(const float* __restrict__ x, float* __restrict__ out, int n, int ldx,
                                              int tiles, int r, float strength) {
    __shared__ float s[TILE + 2 * RMAX];
    const int row = blockIdx.x / tiles, tile = blockIdx.x % tiles;
    const int t = threadIdx.x, i0 = tile * TILE;
    const float* xr = x + (size_t)row * (size_t)ldx;
    for (int j = t; j < TILE + 2 * r; j += blockDim.x) {
        const int g = i0 - r + j;
        s[j] = (g >= 0 && g < n) ? xr[g] : 0.0f;
    }
    const int i = i0 + t;
    if (i < n) {
        float acc = 0.0f;
        for (int d = 1; d <= r; ++d) acc += s[t + r - d] + s[t + r + d];
        const int cnt = min(i + r, n - 1) - max(i - r, 0);  /* neighbours inside the row */
        const float surround = cnt > 0 ? acc / (float)cnt : 0.0f;
        out[(size_t)row * (size_t)n + i] = s[t + r] - strength * surround;
    }
}
"""

TILE = 256
RMAX = 32

inhibition_kernel = kcheck.CudaKernel(SOURCE, "lateral_inhibition",
                                      grid=lambda x, out, n, ldx, tiles, r, k: (out.shape[0] * tiles,),
                                      block=(TILE,))


def lateral_inhibition(x: torch.Tensor, out: torch.Tensor, radius: int = 4, strength: float = 0.8) -> None:
    m, n = x.shape
    if m == 0 or n == 0:
        return
    assert 0 < radius <= RMAX, f"radius {radius} outside 1..{RMAX}"
    if x.stride(1) != 1:
        x = x.contiguous()
    tiles = (n + TILE - 1) // TILE
    inhibition_kernel(x, out, n, x.stride(0), tiles, radius, float(strength))


def reference(x: torch.Tensor, radius: int = 4, strength: float = 0.8) -> torch.Tensor:
    m, n = x.shape
    xp = torch.nn.functional.pad(x, (radius, radius))
    acc = torch.zeros_like(x)
    for d in range(1, radius + 1):
        acc = acc + xp[:, radius - d: radius - d + n] + xp[:, radius + d: radius + d + n]
    i = torch.arange(n, device=x.device)
    cnt = (torch.clamp(i + radius, max=n - 1) - torch.clamp(i - radius, min=0)).to(x.dtype)
    surround = torch.where(cnt > 0, acc / cnt.clamp(min=1), torch.zeros_like(acc))
    return x - strength * surround


spec = kcheck.Spec(
    name="hx39_cuda_lateral_inhibition",
    kernel=lateral_inhibition,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1000)},
    params={"radius": [4, 16], "strength": [0.8, 0.3]},
    dtypes=["fp32"],
)
