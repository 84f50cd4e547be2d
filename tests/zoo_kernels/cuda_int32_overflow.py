"""Bug class: int32 index overflow, in CUDA C.

A row scale with one block per row: ``int i = row * n + j`` is computed in 32-bit int, so past 2**31 elements it
wraps negative and the kernel addresses memory before the tensors (an illegal address, or wrong rows). Every size
below 2**31 elements is right; kcheck's past-2**31 case on a GPU with the memory for it shows the bug, and
``kcheck lint`` flags the product statically. The fix is ``size_t i = (size_t)row * n + j``.
"""

import torch

import kcheck

SOURCE = r"""
extern "C" __global__ void scale_rows(const float* x, const float* s, float* out, int m, int n) {
    int row = blockIdx.x;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        int i = row * n + j;  /* BUG: 32-bit product */
        out[i] = x[i] * s[row];
    }
}
"""

scale_rows_kernel = kcheck.CudaKernel(SOURCE, "scale_rows", grid=lambda x, s, out, m, n: (m,), block=(256,))


def scale_rows(x: torch.Tensor, s: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        scale_rows_kernel(x.contiguous(), s, out, m, n)


spec = kcheck.Spec(
    name="cuda_int32_overflow",
    kernel=scale_rows,
    reference=lambda x, s: x * s[:, None],
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1024, large=False)},
    dtypes=["fp32"],
)

BUG_CLASS = "int32-overflow"
