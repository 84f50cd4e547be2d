"""CUDA C outer difference of two vectors (pairwise offsets, e.g. arrival-time differences between two sensor
sets): D[i, j] = a[i] - b[j]. One block of 256 threads per 256 columns of one row; rows on grid x (up to 2^31-1),
column tiles on grid y, size_t output offsets."""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void outer_difference(const float* __restrict__ a, const float* __restrict__ b,
                                            float* __restrict__ out, int m, int n) {
    const int i = blockIdx.x;
    const int j = blockIdx.y * blockDim.x + threadIdx.x;
    if (j < n) out[(size_t)i * n + j] = a[i] - b[j];
}
"""

outer_kernel = kcheck.CudaKernel(SOURCE, "outer_difference", grid=lambda a, b, out, m, n: (m, (n + 255) // 256),
                                 block=(256,))


def outer_difference(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    m, n = a.shape[0], b.shape[0]
    if m and n:
        outer_kernel(a.contiguous(), b.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx31_cuda_outer_difference_ok",
    kernel=outer_difference,
    reference=lambda a, b: a[:, None] - b[None, :],
    inputs=[kcheck.Tensor("M", name="a"), kcheck.Tensor("N", name="b")],
    outputs=[kcheck.Tensor("M", "N")],
    # grid.y (column tiles) is limited to 65535 blocks: N stays out of the past-2**31 case
    dims={"M": kcheck.Dim(nominal=300), "N": kcheck.Dim(nominal=500, large=False)},
    dtypes=["fp32"],
)
