"""CUDA C initial great-circle bearing (geodesy, navigation): from point 1 (lat1, lon1) to point 2 (lat2, lon2),
radians, on a sphere,

    theta = atan2(sin(dlon) cos(lat2), cos(lat1) sin(lat2) - sin(lat1) cos(lat2) cos(dlon))

in (-pi, pi], 0 due north; the second argument is evaluated as sin(lat2 - lat1) + 2 sin(lat1) cos(lat2)
sin^2(dlon / 2), which is exactly 0 for coincident points (bearing 0) instead of a rounding residue whose sign
would pick 0 or pi. One thread per pair, double arithmetic inside (a bearing near +-pi must not flip sign), float
out; the launcher splits N into launches of at most 2**30 pairs (n is a C int).
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void initial_bearing(const float* __restrict__ lat1, const float* __restrict__ lon1,
                                           const float* __restrict__ lat2, const float* __restrict__ lon2,
                                           float* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double p1 = (double)lat1[i], p2 = (double)lat2[i];
    const double dl = (double)lon2[i] - (double)lon1[i];
    const double h = sin(0.5 * dl);
    const double y = sin(dl) * cos(p2);
    const double x = sin(p2 - p1) + 2.0 * sin(p1) * cos(p2) * h * h;
    out[i] = (float)atan2(y, x);
}
"""

CHUNK = 1 << 30

bearing_kernel = kcheck.CudaKernel(SOURCE, "initial_bearing",
                                   grid=lambda a, b, c, d, out, n: ((n + 255) // 256,), block=(256,))


def initial_bearing(lat1: torch.Tensor, lon1: torch.Tensor, lat2: torch.Tensor, lon2: torch.Tensor,
                    out: torch.Tensor) -> None:
    n = lat1.shape[0]
    args = [t.contiguous() for t in (lat1, lon1, lat2, lon2)]
    for start in range(0, n, CHUNK):
        stop = min(n, start + CHUNK)
        bearing_kernel(*(t[start:stop] for t in args), out[start:stop], stop - start)


def reference(lat1: torch.Tensor, lon1: torch.Tensor, lat2: torch.Tensor, lon2: torch.Tensor) -> torch.Tensor:
    dl = lon2 - lon1
    h = torch.sin(0.5 * dl)
    y = torch.sin(dl) * torch.cos(lat2)
    x = torch.sin(lat2 - lat1) + 2.0 * torch.sin(lat1) * torch.cos(lat2) * h * h
    return torch.atan2(y, x)


spec = kcheck.Spec(
    name="hx38_cuda_initial_bearing_ok",
    kernel=initial_bearing,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="lat1"), kcheck.Tensor("N", name="lon1"), kcheck.Tensor("N", name="lat2"),
            kcheck.Tensor("N", name="lon2")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=8192)},
    dtypes=["fp32"],
)
