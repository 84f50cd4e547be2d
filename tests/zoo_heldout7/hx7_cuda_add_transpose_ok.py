"""CUDA C out = x + y^T for x (M, N) and y (N, M) (symmetrizing a score matrix, or adding a transposed
gradient). 32x32 tiles: each block stages the y tile it needs in shared memory (padded to 33 columns against
bank conflicts) with coalesced reads, synchronizes, then reads x and writes out coalesced. 32x8 threads per
block, guards on both edges, size_t offsets. Runs on a GPU through CuPy; without one kcheck compiles it for
sm_90 and skips its cases."""


import kcheck

SOURCE = r"""
#define TILE 32
#define ROWS 8
extern "C" __global__ void add_transpose(const float* __restrict__ x, const float* __restrict__ y,
                                         float* __restrict__ out, int m, int n) {
    __shared__ float tile[TILE][TILE + 1];
    const int row0 = blockIdx.x * TILE;   /* rows of x / out */
    const int col0 = blockIdx.y * TILE;   /* columns of x / out = rows of y */
    /* y[col0 + r][row0 + c] -> tile[r][c] */
    for (int k = 0; k < TILE; k += ROWS) {
        const int yr = col0 + threadIdx.y + k, yc = row0 + threadIdx.x;
        if (yr < n && yc < m) tile[threadIdx.y + k][threadIdx.x] = y[(size_t)yr * m + yc];
    }
    __syncthreads();
    for (int k = 0; k < TILE; k += ROWS) {
        const int r = row0 + threadIdx.y + k, c = col0 + threadIdx.x;
        if (r < m && c < n) {
            const size_t off = (size_t)r * n + c;
            out[off] = x[off] + tile[threadIdx.x][threadIdx.y + k];
        }
    }
}
"""

add_transpose_kernel = kcheck.CudaKernel(SOURCE, "add_transpose",
                                         grid=lambda x, y, out, m, n: ((m + 31) // 32, (n + 31) // 32),
                                         block=(32, 8))


def add_transpose(x, y, out):
    m, n = x.shape
    if m and n:
        add_transpose_kernel(x.contiguous(), y.contiguous(), out, m, n)


spec = kcheck.Spec(
    name="hx7_cuda_add_transpose_ok",
    kernel=add_transpose,
    reference=lambda x, y: x + y.t(),
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("N", "M", name="y")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=256), "N": kcheck.Dim(nominal=128, large=False)},  # grid.y: N tiles <= 65535
    dtypes=["fp32"],
)

BUG_CLASS = None
