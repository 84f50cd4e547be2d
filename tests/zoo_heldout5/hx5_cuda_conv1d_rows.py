"""CUDA C "same" 1-D convolution of every row with one 7-tap filter (cross-correlation, zero padding, as
torch.nn.functional.conv1d with padding=3): out[m, j] = sum_k w[k] x[m, j + k - 3].

One block of 256 threads per row (rows on grid.x, up to 2^31-1 blocks) walks the row in 256-column tiles. Each
tile and its 3-element halo on either side are staged in shared memory, the left halo carried over from the
previous tile's last values instead of read again; the 7 taps are staged once. fp32, size_t row offsets.
"""

import torch

import kcheck

SOURCE = r"""
#define R 3
#define TB 256
extern "C" __global__ void conv1d_same(const float* __restrict__ x, const float* __restrict__ w,
                                       float* __restrict__ out, int m, int l) {
    __shared__ float tile[TB + 2 * R];
    __shared__ float taps[2 * R + 1];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * l;
    float* outr = out + (size_t)row * l;
    if (t < 2 * R + 1) taps[t] = w[t];
    for (int j0 = 0; j0 < l; j0 += TB) {
        const int j = j0 + t;
        const float v = (j < l) ? xr[j] : 0.0f;
        float halo = 0.0f;
        if (t < R) {
            const int right = j0 + TB + t;
            halo = (right < l) ? xr[right] : 0.0f;
            tile[t] = j0 ? tile[TB + t] : 0.0f;  /* left halo: the last R values of the previous tile */
        }
        tile[t + R] = v;
        if (t < R) tile[TB + R + t] = halo;
        __syncthreads();
        if (j < l) {
            float acc = 0.0f;
            for (int k = 0; k < 2 * R + 1; ++k) acc += taps[k] * tile[t + k];
            outr[j] = acc;
        }
    }
}
"""

conv1d_kernel = kcheck.CudaKernel(SOURCE, "conv1d_same", grid=lambda x, w, out, m, n: (m,), block=(256,))


def conv1d_rows(x: torch.Tensor, w: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m and n:
        conv1d_kernel(x.contiguous(), w.contiguous(), out, m, n)


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.conv1d(x[:, None, :], w[None, None, :], padding=3)[:, 0, :]


spec = kcheck.Spec(
    name="hx5_cuda_conv1d_rows",
    kernel=conv1d_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "L", name="x"), kcheck.Tensor(7, name="w")],
    outputs=[kcheck.Tensor("M", "L")],
    dims={"M": kcheck.Dim(nominal=64), "L": kcheck.Dim(nominal=256)},
    dtypes=["fp32"],
    properties=[kcheck.props.linear(0)],
)

BUG_CLASS = "missing-syncthreads"
