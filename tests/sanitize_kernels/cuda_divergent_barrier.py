"""Planted bug (synccheck): a CUDA C kernel with __syncthreads() inside a branch that only part of a warp takes."""

import torch

import kcheck
from kcheck.backends._cuda import launch

SOURCE = r"""
extern "C" __global__ void shift(const float* x, float* out, int n) {
    __shared__ float buf[64];
    int t = threadIdx.x, i = blockIdx.x * 64 + t;
    buf[t] = i < n ? x[i] : 0.0f;
    if (t < 16) {
        __syncthreads();  /* BUG: divergent barrier: threads 16..63 never reach it */
    }
    if (i < n) out[i] = 2.0f * buf[t];
}
"""


def shift(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        launch(SOURCE, "shift", ((n + 63) // 64,), (64,), x.contiguous(), out, n)
    return out


spec = kcheck.Spec(name="cuda_divergent_barrier", kernel=shift, reference=lambda x: 2 * x,
                   inputs=[kcheck.Tensor("N")], dims={"N": kcheck.Dim(nominal=1024)}, dtypes=["fp32"])
