"""CUDA C ReLU6, y = min(max(x, 0), 6), on a 2-D activation with any row stride (a padded or sliced input).

One block of 256 threads per row (rows on grid.x, up to 2^31 - 1 of them), a strided loop over the columns,
size_t offsets. Written with comparisons rather than fminf/fmaxf, which would drop NaN: NaN propagates as in torch.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void relu6_rows(const float* __restrict__ x, float* __restrict__ out, int m, int n,
                                      int x_stride, int out_stride) {
    const size_t row = blockIdx.x;
    const float* xr = x + row * (size_t)x_stride;
    float* orow = out + row * (size_t)out_stride;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const float v = xr[j];
        orow[j] = v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v);
    }
}
"""

relu6_kernel = kcheck.CudaKernel(SOURCE, "relu6_rows", grid=lambda x, out, m, n, sx, so: (m,), block=(256,))


def relu6_rows(x, out):
    m, n = x.shape
    if m == 0 or n == 0:
        return
    if x.stride(1) != 1:
        x = x.contiguous()
    target = out if out.stride(1) == 1 else torch.empty((m, n), dtype=out.dtype, device=out.device)
    relu6_kernel(x, target, m, n, x.stride(0), target.stride(0))
    if target is not out:
        out.copy_(target)


spec = kcheck.Spec(
    name="hx11_cuda_relu6_rows_ok",
    kernel=relu6_rows,
    reference=lambda x: torch.clamp(x, 0.0, 6.0),
    inputs=[kcheck.Tensor("M", "N")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1000, large=False)},  # n is a C int
    dtypes=["fp32"],
)

BUG_CLASS = None
