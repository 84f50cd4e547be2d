"""CUDA C uniform Catmull-Rom spline through K control values p[0..K-1] (K >= 2), evaluated at N parameters
u in [0, 1] (clamped; NaN counts as 0, as fminf/fmaxf give): s = u * (K - 1) in fp32, segment i = min(floor(s), K - 2),
t = s - i, and with p0..p3 = p[i-1..i+2] (indices clamped to the ends)

    f = ((2 p1) + (p2 - p0) t + (2 p0 - 5 p1 + 4 p2 - p3) t^2 + (3 p1 - p0 - 3 p2 + p3) t^3) / 2

One thread per parameter, 256 per block; more than 2^30 parameters are launched in chunks (int counts, size_t
offsets).
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void catmull_rom(const float* __restrict__ p, const float* __restrict__ u,
                                       float* __restrict__ out, int k, int n) {
    const size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= (size_t)n) return;
    const float uc = fminf(fmaxf(u[q], 0.0f), 1.0f);
    const float s = uc * (float)(k - 1);
    const int i = min((int)floorf(s), k - 2);
    const float t = s - (float)i;
    const float p0 = p[max(i - 1, 0)], p1 = p[i], p2 = p[i + 1], p3 = p[min(i + 2, k - 1)];
    const float c1 = p2 - p0;
    const float c2 = 2.0f * p0 - 5.0f * p1 + 4.0f * p2 - p3;
    const float c3 = 3.0f * p1 - p0 - 3.0f * p2 + p3;
    out[q] = 0.5f * (2.0f * p1 + t * (c1 + t * (c2 + t * c3)));
}
"""

spline_kernel = kcheck.CudaKernel(SOURCE, "catmull_rom", grid=lambda p, u, out, k, n: ((n + 255) // 256,),
                                  block=(256,))

CHUNK = 1 << 30


def catmull_rom(p: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    k, n = p.shape[0], u.shape[0]
    p, u = p.contiguous(), u.contiguous()
    out = torch.empty(n, dtype=u.dtype, device=u.device)
    for start in range(0, n, CHUNK):
        count = min(CHUNK, n - start)
        spline_kernel(p, u[start:], out[start:], k, count)
    return out


def reference(p: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    k = p.shape[0]
    uc = torch.where(torch.isnan(u), 0.0, u).clamp(0.0, 1.0)
    s = (uc.float() * float(k - 1)).double()  # the fp32 product the kernel forms
    i = torch.clamp(torch.floor(s).long(), max=k - 2)
    t = s - i
    p0, p1 = p[(i - 1).clamp(min=0)], p[i]
    p2, p3 = p[i + 1], p[(i + 2).clamp(max=k - 1)]
    c1 = p2 - p0
    c2 = 2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3
    c3 = 3.0 * p1 - p0 - 3.0 * p2 + p3
    return 0.5 * (2.0 * p1 + t * (c1 + t * (c2 + t * c3)))


spec = kcheck.Spec(
    name="hx24_cuda_catmull_rom_ok",
    kernel=catmull_rom,
    reference=reference,
    inputs=[kcheck.Tensor("K", name="control"), kcheck.Tensor("N", name="u")],
    dims={"K": kcheck.Dim(nominal=64, min=2, max=1 << 20, large=False), "N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)
