import torch

import kcheck

BUG_CLASS = "divergent-barrier"

EPS = 1e-3

SOURCE = r"""
extern "C" __global__ void row_geomean(const float* __restrict__ x, float* __restrict__ out, int m, int n,
                                       float eps) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += logf(fabsf(xr[j]) + eps);
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[row] = expf(buf[0] / (float)n);
}
"""

row_geomean_kernel = kcheck.CudaKernel(SOURCE, "row_geomean", grid=lambda x, out, m, n, eps: (m,), block=(256,))


def row_geomean(x, out):
    m, n = x.shape
    if m and n:
        row_geomean_kernel(x.contiguous(), out, m, n, EPS)


spec = kcheck.Spec(
    name="hx12_cuda_row_geomean",
    kernel=row_geomean,
    reference=lambda x: torch.exp(torch.log(x.abs() + EPS).mean(-1)),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, min=1, large=False)},
    dtypes=["fp32"],
    reduce=["N"],
)
