"""CUDA C per-row mean absolute value (the scale statistic of an absmean / BitNet-style weight quantizer):
out[m] = mean_n |x[m, n]|. One block of 256 threads per row, a strided partial sum per thread, a tree reduction
in shared memory."""


import kcheck

SOURCE = r"""
extern "C" __global__ void row_absmean(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + row * n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += fabsf(xr[j]);
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[row] = buf[0] / (float)n;
}
"""

row_absmean_kernel = kcheck.CudaKernel(SOURCE, "row_absmean", grid=lambda x, out, m, n: (m,), block=(256,))


def row_absmean(x, out):
    m, n = x.shape
    if m and n:
        row_absmean_kernel(x.contiguous(), out, m, n)
    elif m:
        out.fill_(float("nan"))


spec = kcheck.Spec(
    name="hx2_cuda_row_absmean",
    kernel=row_absmean,
    reference=lambda x: x.abs().mean(-1),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "int32-overflow"
