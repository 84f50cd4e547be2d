"""CUDA C mean logistic loss per row: for margins z = y * f(x) (label times score), loss = mean_j log(1 + exp(-z_j)),
computed stably as max(-z, 0) + log1p(exp(-|z|)).

One block of 256 threads per row: a strided partial sum per thread (fp32), then a tree reduction in shared memory
with a __syncthreads() after every step, which every thread of the block reaches. Rows of N >= 1 margins;
size_t offsets.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void logistic_loss_rows(const float* __restrict__ z, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int t = threadIdx.x;
    const float* zr = z + (size_t)blockIdx.x * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        const float v = -zr[j];
        acc += fmaxf(v, 0.0f) + log1pf(expf(-fabsf(v)));
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[blockIdx.x] = buf[0] / (float)n;
}
"""

loss_kernel = kcheck.CudaKernel(SOURCE, "logistic_loss_rows", grid=lambda z, out, m, n: (m,), block=(256,))


def logistic_loss_rows(z: torch.Tensor, out: torch.Tensor) -> None:
    m, n = z.shape
    if m == 0:
        return
    zc = z.contiguous()
    for r0 in range(0, m, 2**31 - 1):
        r1 = min(m, r0 + 2**31 - 1)
        loss_kernel(zc[r0:r1], out[r0:r1], r1 - r0, n)


def reference(z: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.softplus(-z).mean(-1)


BUG_CLASS = "divergent-barrier"

spec = kcheck.Spec(
    name="hx23_cuda_logistic_loss_rows",
    kernel=logistic_loss_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="margins")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1)},
    dtypes=["fp32"],
    reduce=["N"],
)
