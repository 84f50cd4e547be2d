"""CUDA C per-row sum of squared errors between predictions and targets, out[i] = sum_j (p[i, j] - t[i, j])^2
(a per-sample regression loss before averaging). One block of 256 threads per row: strided partial sums per
thread, then a shared-memory tree reduction. fp32, size_t row offsets. Runs on a GPU through CuPy; without one
kcheck compiles it for sm_90 and skips its cases."""


import kcheck

SOURCE = r"""
extern "C" __global__ void row_sq_error(const float* __restrict__ p, const float* __restrict__ tg,
                                        float* __restrict__ out, int m, int n) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* pr = p + (size_t)row * (size_t)n;
    const float* tr = tg + (size_t)row * (size_t)n;
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        const float d = pr[j] - tr[j];
        acc += d * d;
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[row] = buf[0];
}
"""

row_sq_error_kernel = kcheck.CudaKernel(SOURCE, "row_sq_error", grid=lambda p, tg, out, m, n: (m,), block=(256,))


def row_sq_error(pred, target, out):
    m, n = pred.shape
    if m:
        row_sq_error_kernel(pred.contiguous(), target.contiguous(), out, m, n)


def reference(pred, target):
    return (pred - target).pow(2).sum(-1)


spec = kcheck.Spec(
    name="hx7_cuda_row_sq_error",
    kernel=row_sq_error,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024)},
    dtypes=["fp32"],
    reduce=["N"],
)

BUG_CLASS = "divergent-barrier"
