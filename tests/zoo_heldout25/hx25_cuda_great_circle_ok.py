"""CUDA C great-circle distances between pairs of (latitude, longitude) points in degrees [N, 2], on a sphere of
the Earth's mean radius, in km: the Vincenty special case of the central angle,
atan2(sqrt((cos p2 sin dl)^2 + (cos p1 sin p2 - sin p1 cos p2 cos dl)^2), sin p1 sin p2 + cos p1 cos p2 cos dl),
well conditioned from coincident to antipodal points (unlike acos, or the haversine near the antipode). One thread
per pair, launches of at most 2**30 pairs, size_t offsets; fp32."""

import math

import torch

import kcheck

BUG_CLASS = None

EARTH_RADIUS_KM = 6371.0088

SOURCE = r"""
extern "C" __global__ void great_circle_km(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ out, int n, float radius) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float deg = 0.017453292519943295f;
    const float p1 = a[(size_t)i * 2] * deg, l1 = a[(size_t)i * 2 + 1] * deg;
    const float p2 = b[(size_t)i * 2] * deg, l2 = b[(size_t)i * 2 + 1] * deg;
    float sp1, cp1, sp2, cp2, sdl, cdl;
    sincosf(p1, &sp1, &cp1);
    sincosf(p2, &sp2, &cp2);
    sincosf(l2 - l1, &sdl, &cdl);
    const float x = cp2 * sdl;
    const float y = cp1 * sp2 - sp1 * cp2 * cdl;
    const float num = hypotf(x, y);
    const float den = sp1 * sp2 + cp1 * cp2 * cdl;
    out[i] = radius * atan2f(num, den);
}
"""

CHUNK = 2 ** 30
great_circle_kernel = kcheck.CudaKernel(SOURCE, "great_circle_km", grid=lambda a, b, out, n, r: ((n + 255) // 256,),
                                        block=(256,))


def great_circle(a, b, out):
    n = a.shape[0]
    a, b = a.contiguous(), b.contiguous()
    for start in range(0, n, CHUNK):
        end = min(n, start + CHUNK)
        great_circle_kernel(a[start:end], b[start:end], out[start:end], end - start, EARTH_RADIUS_KM)


def reference(a, b):
    p1, l1 = torch.deg2rad(a[:, 0]), torch.deg2rad(a[:, 1])
    p2, l2 = torch.deg2rad(b[:, 0]), torch.deg2rad(b[:, 1])
    dl = l2 - l1
    x = torch.cos(p2) * torch.sin(dl)
    y = torch.cos(p1) * torch.sin(p2) - torch.sin(p1) * torch.cos(p2) * torch.cos(dl)
    den = torch.sin(p1) * torch.sin(p2) + torch.cos(p1) * torch.cos(p2) * torch.cos(dl)
    return EARTH_RADIUS_KM * torch.atan2(torch.sqrt(x * x + y * y), den)


assert abs(EARTH_RADIUS_KM * math.pi - 20015.1) < 0.1

spec = kcheck.Spec(
    name="hx25_cuda_great_circle_ok",
    kernel=great_circle,
    reference=reference,
    inputs=[kcheck.Tensor("N", 2, name="a"), kcheck.Tensor("N", 2, name="b")],
    outputs=[kcheck.Tensor("N", name="km")],
    dims={"N": kcheck.Dim(nominal=10000)},
    dtypes=["fp32"],
)
