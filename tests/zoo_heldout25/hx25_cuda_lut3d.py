"""CUDA C 3-D colour lookup table with trilinear interpolation (colour grading, .cube LUTs): each RGB pixel of
[N, 3] is clamped into [0, 1], scaled to the LUT's S x S x S lattice ([S, S, S, 3], indexed [r, g, b]), and the
output colour interpolates the eight surrounding lattice entries. One thread per pixel, the cell's lower corner
limited to S - 2 so that the upper corner exists; launches of at most 2**30 pixels; size_t offsets; fp32."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
__device__ __forceinline__ float lut_at(const float* lut, int s, int r, int g, int b, int c) {
    return lut[(((size_t)r * s + g) * s + b) * 3 + c];
}

extern "C" __global__ void lut3d_trilinear(const float* __restrict__ rgb, const float* __restrict__ lut,
                                           float* __restrict__ out, int n, int s) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* px = rgb + (size_t)i * 3;
    float u[3];
    int i0[3];
    float f[3];
    for (int c = 0; c < 3; ++c) {
        u[c] = fminf(px[c], 1.0f) * (float)(s - 1);
        i0[c] = min((int)u[c], s - 2);
        f[c] = u[c] - (float)i0[c];
    }
    for (int c = 0; c < 3; ++c) {
        float acc = 0.0f;
        for (int corner = 0; corner < 8; ++corner) {
            const int dr = corner >> 2, dg = (corner >> 1) & 1, db = corner & 1;
            const float wgt = (dr ? f[0] : 1.0f - f[0]) * (dg ? f[1] : 1.0f - f[1]) * (db ? f[2] : 1.0f - f[2]);
            acc += wgt * lut_at(lut, s, i0[0] + dr, i0[1] + dg, i0[2] + db, c);
        }
        out[(size_t)i * 3 + c] = acc;
    }
}
"""

CHUNK = 2 ** 30
lut3d_kernel = kcheck.CudaKernel(SOURCE, "lut3d_trilinear", grid=lambda rgb, lut, out, n, s: ((n + 255) // 256,),
                                 block=(256,))


def apply_lut3d(rgb, lut, out):
    n, s = rgb.shape[0], lut.shape[0]
    rgb, lut = rgb.contiguous(), lut.contiguous()
    for start in range(0, n, CHUNK):
        end = min(n, start + CHUNK)
        lut3d_kernel(rgb[start:end], lut, out[start:end], end - start, s)


def make_lut(ctx):
    """A smooth grading LUT on a 17^3 lattice: identity, a gamma on each channel and a little cross-talk."""
    s = 17
    grid = torch.linspace(0.0, 1.0, s, dtype=torch.float64)
    r, g, b = torch.meshgrid(grid, grid, grid, indexing="ij")
    lut = torch.stack([r ** 0.8 + 0.05 * g, g ** 1.1 + 0.03 * b, b ** 0.9 + 0.04 * r], dim=-1)
    lut += 0.01 * torch.randn(lut.shape, generator=ctx.generator, dtype=torch.float64)
    return lut.to(ctx.dtype).to(ctx.device)


def reference(rgb, lut):
    s = lut.shape[0]
    u = torch.nan_to_num(rgb, nan=0.0).clamp(0.0, 1.0) * (s - 1)  # fmaxf(NaN, 0) = 0
    i0 = u.floor().long().clamp(max=s - 2)
    f = u - i0
    out = torch.zeros_like(rgb)
    for corner in range(8):
        d = torch.tensor([corner >> 2, (corner >> 1) & 1, corner & 1], device=rgb.device)
        w = torch.where(d.bool(), f, 1 - f).prod(dim=1, keepdim=True)
        idx = i0 + d
        out += w * lut[idx[:, 0], idx[:, 1], idx[:, 2]]
    return out


spec = kcheck.Spec(
    name="hx25_cuda_lut3d",
    kernel=apply_lut3d,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="rgb"), kcheck.Custom(make_lut, name="lut", dims=(17, 17, 17, 3))],
    outputs=[kcheck.Tensor("N", 3, name="out")],
    dims={"N": kcheck.Dim(nominal=20000)},
    dtypes=["fp32"],
)
