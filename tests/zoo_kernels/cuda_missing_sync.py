"""Bug class: missing __syncthreads() in a shared-memory tree reduction, in CUDA C.

The row sums of ``examples/cuda_block_reduce.py`` (one block of 256 threads per row, a strided partial per thread,
then a tree reduction in shared memory) without the barrier after each halving step: thread t may read buf[t + s]
before the thread that owns it has added its own pair in the previous step. Whether a run shows it depends on how
the block's 8 warps happen to be scheduled: on a small, idle launch they often keep in step and the sums come out
right, so a casual test can pass and the kernel fail later under load or on another GPU. compute-sanitizer's
racecheck (kcheck's sanitizer pass, ``kcheck check --sanitize``) reports the shared-memory hazard whatever the
values. Without a GPU kcheck compiles it for sm_90 and skips its cases: the bug can only show on a GPU.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void row_sum(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += xr[j];
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        /* BUG: __syncthreads() missing here: the next step reads sums not yet written */
    }
    if (t == 0) out[row] = buf[0];
}
"""

row_sum_kernel = kcheck.CudaKernel(SOURCE, "row_sum", grid=lambda x, out, m, n: (m,), block=(256,))


def row_sum(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m:
        row_sum_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="cuda_missing_sync",
    kernel=row_sum,
    reference=lambda x: x.sum(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "missing-syncthreads"
