"""CUDA C initial great-circle bearing from point 1 to point 2 (geodesy, navigation), latitudes and longitudes in
radians, the result in radians in (-pi, pi]:

    theta = atan2(sin(dlon) cos(lat2), cos(lat1) sin(lat2) - sin(lat1) cos(lat2) cos(dlon))

Four [N] inputs, one thread per pair, launches of at most 2**30 pairs, size_t offsets."""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void initial_bearing(const float* __restrict__ lat1, const float* __restrict__ lon1,
                                           const float* __restrict__ lat2, const float* __restrict__ lon2,
                                           float* __restrict__ out, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    float s1, c1, s2, c2, sd, cd;
    sincosf(lat1[i], &s1, &c1);
    sincosf(lat2[i], &s2, &c2);
    sincosf(lon2[i] - lon1[i], &sd, &cd);
    out[i] = atan2f(sd * c2, c1 * s2 - s1 * c2 * cd);
}
"""

bearing_kernel = kcheck.CudaKernel(SOURCE, "initial_bearing",
                                   grid=lambda a, b, c, d, out, n: ((n + 255) // 256,), block=(256,))

CHUNK = 1 << 30


def initial_bearing(lat1, lon1, lat2, lon2, out: torch.Tensor) -> None:
    n = lat1.shape[0]
    ins = [t.contiguous() for t in (lat1, lon1, lat2, lon2)]
    for start in range(0, n, CHUNK):
        count = min(CHUNK, n - start)
        bearing_kernel(*[t[start:start + count] for t in ins], out[start:start + count], count)


def reference(lat1, lon1, lat2, lon2):
    d = lon2 - lon1
    return torch.atan2(torch.sin(d) * torch.cos(lat2),
                       torch.cos(lat1) * torch.sin(lat2) - torch.sin(lat1) * torch.cos(lat2) * torch.cos(d))


spec = kcheck.Spec(
    name="cuda_initial_bearing_ok",
    kernel=initial_bearing,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="lat1"), kcheck.Tensor("N", name="lon1"), kcheck.Tensor("N", name="lat2"),
            kcheck.Tensor("N", name="lon2")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)
