"""CUDA C unit-hydrograph convolution (hydrology): the direct runoff at S gauges over T time steps is the excess
rainfall convolved with the catchment's unit hydrograph u (K ordinates, K <= 64),

    Q[s, t] = sum_{j=0}^{K-1} u[j] * P[s, t - j]          (steps before the record contribute nothing)

Each block of 256 threads computes 256 consecutive steps of one gauge: it stages those steps of P in shared memory
behind a halo of the 63 steps before them, and the K ordinates beside them, then (after one __syncthreads()) each
thread sums its K products. Gauges on grid.y (S <= 65535), size_t offsets, fp32.
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
#define TILE 256
#define KMAX 64
extern "C" __global__ void unit_hydrograph(const float* __restrict__ p, const float* __restrict__ u,
                                           float* __restrict__ q, int s, int t_len, int k) {
    __shared__ float tile[KMAX - 1 + TILE];
    __shared__ float uk[KMAX];
    const int tx = threadIdx.x;
    const float* pr = p + (size_t)blockIdx.y * (size_t)t_len;
    const long long t0 = (long long)blockIdx.x * TILE;
    const long long t = t0 + tx;
    tile[KMAX - 1 + tx] = (t < t_len) ? pr[t] : 0.0f;
    if (tx < KMAX - 1) {
        const long long th = t0 - (KMAX - 1) + tx;
        tile[tx] = (th >= 0) ? pr[th] : 0.0f;
    }
    if (tx < k) {
        uk[tx] = u[tx];
        __syncthreads();
    }
    if (t < t_len) {
        float acc = 0.0f;
        for (int j = 0; j < k; ++j) acc += uk[j] * tile[KMAX - 1 + tx - j];
        q[(size_t)blockIdx.y * (size_t)t_len + t] = acc;
    }
}
"""

hydrograph_kernel = kcheck.CudaKernel(SOURCE, "unit_hydrograph",
                                      grid=lambda p, u, q, s, t_len, k: ((t_len + 255) // 256, s), block=(256,))


def unit_hydrograph(p: torch.Tensor, u: torch.Tensor, q: torch.Tensor) -> None:
    S, T = p.shape
    K = u.shape[0]
    assert 1 <= K <= 64, f"{K} ordinates: the kernel takes 1 to 64"
    if S and T:
        hydrograph_kernel(p.contiguous(), u.contiguous(), q, S, T, K)


def reference(p: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    T = p.shape[1]
    out = torch.zeros_like(p)
    for j in range(min(u.shape[0], T)):
        out[:, j:] += u[j] * p[:, : T - j]
    return out


spec = kcheck.Spec(
    name="hx38_cuda_unit_hydrograph",
    kernel=unit_hydrograph,
    reference=reference,
    inputs=[kcheck.Tensor("S", "T", name="excess_rain"), kcheck.Tensor("K", name="ordinates")],
    outputs=[kcheck.Tensor("S", "T")],
    dims={"S": kcheck.Dim(nominal=32, large=False), "T": kcheck.Dim(nominal=2000),
          "K": kcheck.Dim(nominal=24, min=1, max=64)},
    dtypes=["fp32"],
    reduce=["K"],
    properties=[kcheck.props.linear(0)],
)
