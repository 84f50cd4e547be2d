"""CUDA C firing-rate estimate of binned spike trains with a causal alpha kernel (neuroscience).

spikes is [R, T]: R trials (rows) of T time bins. The rate is the spike train filtered with the causal alpha
function of time constant tau (in bins), truncated to W = 64 taps:
rate[r, t] = sum_{k=0}^{W-1} a[k] * spikes[r, t - k] (bins before 0 count as 0), a[k] = (k / tau^2) exp(-k / tau).
One block of 256 threads per (trial, 256-bin tile): the tile and its W - 1 bins of history are staged in shared
memory with the taps, a barrier, then each thread sums its W products in fp32. size_t row offsets.
"""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

TAPS = 64

SOURCE = r"""
#define TILE 256
#define W 64
extern "C" __global__ void alpha_rate(const float* __restrict__ s, const float* __restrict__ taps,
                                      float* __restrict__ rate, int r, int t, int ld) {
    __shared__ float xs[TILE + W - 1];
    __shared__ float ws[W];
    const int row = blockIdx.x, tid = threadIdx.x;
    const int t0 = blockIdx.y * TILE;
    const float* sr = s + (size_t)row * (size_t)ld;
    for (int i = tid; i < TILE + W - 1; i += blockDim.x) {
        const int src = t0 - (W - 1) + i;
        xs[i] = (src >= 0 && src < t) ? sr[src] : 0.0f;
    }
    if (tid < W) ws[tid] = taps[tid];
    const int out = t0 + tid;
    if (out < t) {
        float acc = 0.0f;
        for (int k = 0; k < W; ++k) acc += ws[k] * xs[tid + W - 1 - k];
        rate[(size_t)row * (size_t)t + out] = acc;
    }
}
"""

alpha_rate_kernel = kcheck.CudaKernel(SOURCE, "alpha_rate", grid=lambda s, a, out, r, t, ld: (r, (t + 255) // 256),
                                      block=(256,))


def alpha_taps(tau: float, device: torch.device | str, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    k = torch.arange(TAPS, dtype=torch.float64, device=device)
    return (k / (tau * tau) * torch.exp(-k / tau)).to(dtype)


def alpha_kernel_rate(spikes: torch.Tensor, out: torch.Tensor, tau: float = 5.0) -> None:
    r, t = spikes.shape
    if r == 0 or t == 0:
        return
    if spikes.stride(1) != 1:
        spikes = spikes.contiguous()
    alpha_rate_kernel(spikes, alpha_taps(tau, spikes.device), out, r, t, spikes.stride(0))


def reference(spikes: torch.Tensor, tau: float = 5.0) -> torch.Tensor:
    taps = alpha_taps(tau, spikes.device, spikes.dtype)
    padded = torch.nn.functional.pad(spikes[:, None, :], (TAPS - 1, 0))
    return torch.nn.functional.conv1d(padded, taps.flip(0)[None, None, :])[:, 0, :]


spec = kcheck.Spec(
    name="hx40_cuda_alpha_kernel_rate",
    kernel=alpha_kernel_rate,
    reference=reference,
    inputs=[kcheck.Tensor("R", "T", name="spikes")],
    outputs=[kcheck.Tensor("R", "T")],
    # grid.y (T tiles) is limited to 65535 blocks: T stays out of the past-2**31 case, R grows instead
    dims={"R": kcheck.Dim(nominal=40), "T": kcheck.Dim(nominal=1000, large=False)},
    dtypes=["fp32"],
    params={"tau": [5.0, 12.0]},
)
