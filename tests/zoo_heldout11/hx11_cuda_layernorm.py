"""CUDA C LayerNorm over the last dimension with weight and bias, one block of 256 threads per row:
y = (x - mean) / sqrt(var + eps) * w + b, statistics in two passes (mean, then mean squared deviation).

Each pass reduces a per-thread partial by warp shuffles, the eight warp leaders write their sums to a shared array,
and every thread adds the eight entries. The variance pass reuses the same shared array.

Planted bug (missing-syncthreads): there is no __syncthreads() between the mean pass reading the shared partials
and the variance pass overwriting them, so a fast warp can overwrite partial[w] while a slow warp still reads it for
the mean (a write-after-read hazard across warps): the row's mean, and so its whole output, is wrong at random.
"""

import torch

import kcheck

SOURCE = r"""
#define THREADS 256
#define WARPS (THREADS / 32)

__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void layernorm_rows(const float* __restrict__ x, const float* __restrict__ w,
                                          const float* __restrict__ b, float* __restrict__ y, int n, float eps) {
    __shared__ float partial[WARPS];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const float* xr = x + (size_t)blockIdx.x * (size_t)n;
    float* yr = y + (size_t)blockIdx.x * (size_t)n;

    float s = 0.0f;
    for (int j = t; j < n; j += THREADS) s += xr[j];
    s = warp_sum(s);
    if (lane == 0) partial[warp] = s;
    __syncthreads();
    float total = 0.0f;
    for (int i = 0; i < WARPS; ++i) total += partial[i];
    const float mean = total / n;

    float q = 0.0f;
    for (int j = t; j < n; j += THREADS) {
        const float d = xr[j] - mean;
        q += d * d;
    }
    q = warp_sum(q);
    if (lane == 0) partial[warp] = q;
    __syncthreads();
    float qt = 0.0f;
    for (int i = 0; i < WARPS; ++i) qt += partial[i];
    const float rstd = rsqrtf(qt / n + eps);

    for (int j = t; j < n; j += THREADS) yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
}
"""

EPS = 1e-5

layernorm_kernel = kcheck.CudaKernel(SOURCE, "layernorm_rows", grid=lambda x, w, b, y, n, eps: (x.shape[0],),
                                     block=(256,))


def layernorm(x, weight, bias, out):
    m, n = x.shape
    if m == 0 or n == 0:
        return
    layernorm_kernel(x.contiguous(), weight.contiguous(), bias.contiguous(), out, n, EPS)


def reference(x, weight, bias):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps=EPS)


spec = kcheck.Spec(
    name="hx11_cuda_layernorm",
    kernel=layernorm,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("N", pattern="randn"), kcheck.Tensor("N", pattern="randn")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, large=False)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "missing-syncthreads"  # no __syncthreads() between reading partial[] for the mean and rewriting it
