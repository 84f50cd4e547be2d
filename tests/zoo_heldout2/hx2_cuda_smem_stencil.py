"""CUDA C 3-point smoothing filter over a 1-D signal, zero boundary: out[i] = x[i-1]/4 + x[i]/2 + x[i+1]/4.
Each block of 256 threads stages its 256 samples plus one halo sample on each side in shared memory, then every
thread reads its three neighbours from the tile. Runs on a GPU through CuPy; on a machine without one kcheck
compiles it for sm_90, reports its resources and skips its cases."""

import torch

import kcheck

SOURCE = r"""
#define BS 256
extern "C" __global__ void smooth3(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float tile[BS + 2];
    const size_t i = (size_t)blockIdx.x * BS + threadIdx.x;
    const int t = threadIdx.x + 1;
    tile[t] = i < (size_t)n ? x[i] : 0.0f;
    if (threadIdx.x == 0) tile[0] = i > 0 ? x[i - 1] : 0.0f;
    if (threadIdx.x == BS - 1) tile[BS + 1] = i + 1 < (size_t)n ? x[i + 1] : 0.0f;
    if (i < (size_t)n) out[i] = 0.25f * tile[t - 1] + 0.5f * tile[t] + 0.25f * tile[t + 1];
}
"""

smooth3_kernel = kcheck.CudaKernel(SOURCE, "smooth3", grid=lambda x, out, n: ((n + 255) // 256,), block=(256,))


def smooth3(x, out):
    n = x.numel()
    if n:
        smooth3_kernel(x.contiguous(), out, n)


def reference(x):
    p = torch.nn.functional.pad(x, (1, 1))
    return 0.25 * p[:-2] + 0.5 * p[1:-1] + 0.25 * p[2:]


spec = kcheck.Spec(
    name="hx2_cuda_smem_stencil",
    kernel=smooth3,
    reference=reference,
    inputs=[kcheck.Tensor("N")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)

BUG_CLASS = "missing-syncthreads"
