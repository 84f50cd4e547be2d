"""CUDA C sound speed at arbitrary depths from a tabulated profile (oceanography, sonar ray tracing): the profile
c[K] is given every dz metres from the surface; each depth z is mapped to the fractional table position
f = z / dz, clamped to [0, K - 1] (constant extrapolation above the surface and below the last entry; NaN maps to
the surface), and the speed is interpolated linearly between c[i] and c[i + 1], i = min(floor(f), K - 2)."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void sound_speed_lookup(const float* __restrict__ z, const float* __restrict__ c,
                                              float* __restrict__ out, int n, int k, float inv_dz) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = fminf(z[i] * inv_dz, (float)(k - 1));
    int j = (int)floorf(f);
    j = j > k - 2 ? k - 2 : j;
    const float t = f - (float)j;
    out[i] = c[j] * (1.0f - t) + c[j + 1] * t;
}
"""

lookup_kernel = kcheck.CudaKernel(SOURCE, "sound_speed_lookup",
                                  grid=lambda z, c, out, n, k, inv_dz: ((n + 255) // 256,), block=(256,))

DZ = 0.25


def sound_speed_lookup(z: torch.Tensor, c: torch.Tensor, out: torch.Tensor) -> None:
    n, k = z.shape[0], c.shape[0]
    if n:
        lookup_kernel(z.contiguous(), c.contiguous(), out, n, k, 1.0 / DZ)


def reference(z, c):
    k = c.shape[0]
    f = torch.nan_to_num(z / DZ, nan=0.0).clamp(0.0, k - 1)
    j = torch.clamp(torch.floor(f), max=k - 2).long()
    t = f - j.to(f.dtype)
    return c[j] * (1.0 - t) + c[j + 1] * t


spec = kcheck.Spec(
    name="cuda_sound_speed_lookup",
    kernel=sound_speed_lookup,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="depth"), kcheck.Tensor("K", name="profile")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096), "K": kcheck.Dim(nominal=64, min=2)},
    dtypes=["fp32"],
)
