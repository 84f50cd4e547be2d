"""Planted bug (racecheck): a CUDA C block sum in shared memory with the __syncthreads() of the tree reduction
missing: threads read partial sums other threads have not yet written. One block of 256 threads per row."""

import torch

import kcheck
from kcheck.backends._cuda import launch

SOURCE = r"""
extern "C" __global__ void row_sum(const float* x, float* out, int m, int n) {
    __shared__ float buf[256];
    int row = blockIdx.x, t = threadIdx.x;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += x[(size_t)row * n + j];
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        /* BUG: __syncthreads() missing here */
    }
    if (t == 0) out[row] = buf[0];
}
"""


def row_sum(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty(m, device=x.device, dtype=x.dtype)
    if m:
        launch(SOURCE, "row_sum", (m,), (256,), x.contiguous(), out, m, n)
    return out


spec = kcheck.Spec(name="cuda_missing_sync", kernel=row_sum, reference=lambda x: x.sum(-1),
                   inputs=[kcheck.Tensor("M", "N")], dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
                   dtypes=["fp32"], reduce=["N"])
