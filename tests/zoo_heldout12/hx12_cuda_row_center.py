import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
extern "C" __global__ void row_center(const float* __restrict__ x, float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    float* orow = out + (size_t)row * (size_t)n;
    const float shift = xr[0];
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) acc += xr[j] - shift;
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
    }
    const float mean = buf[0] / (float)n;
    for (int j = t; j < n; j += blockDim.x) orow[j] = (xr[j] - shift) - mean;
}
"""

row_center_kernel = kcheck.CudaKernel(SOURCE, "row_center", grid=lambda x, out, m, n: (m,), block=(256,))


def row_center(x, out):
    m, n = x.shape
    if m and n:
        row_center_kernel(x.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx12_cuda_row_center",
    kernel=row_center,
    reference=lambda x: x - x.mean(-1, keepdim=True),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, large=False)},
    dtypes=["fp32"],
    reduce=["N"],
)
