"""CUDA C detector non-linearity correction (astronomy and photogrammetry sensors): each of M readout rows of N
pixels has its dark level d[m] removed, and the signal is linearised with the sensor's measured cubic,

    s = x - d[m],      y = s + c2 * s^2 + c3 * s^3             (evaluated as s * (1 + s * (c2 + c3 * s)))

Two kernels: a float4 one (one thread per four pixels of a row) for rows that start on a 16-byte boundary, and a
scalar one for the rest; the launcher picks. Rows on grid.y (M <= 65535), size_t offsets, fp32.
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

C2 = 2.0e-3
C3 = -5.0e-6

SOURCE = r"""
__device__ __forceinline__ float linearize(float x, float d, float c2, float c3) {
    const float s = x - d;
    return s * (1.0f + s * (c2 + c3 * s));
}

extern "C" __global__ void linearize_vec4(const float* __restrict__ x, const float* __restrict__ dark,
                                          float* __restrict__ y, int m, int n, float c2, float c3) {
    const int j4 = blockIdx.x * blockDim.x + threadIdx.x;  /* a group of four pixels */
    if (j4 >= n / 4) return;
    const size_t row = blockIdx.y;
    const float d = dark[row];
    const float4 v = reinterpret_cast<const float4*>(x + row * (size_t)n)[j4];
    float4 r;
    r.x = linearize(v.x, d, c2, c3);
    r.y = linearize(v.y, d, c2, c3);
    r.z = linearize(v.z, d, c2, c3);
    r.w = linearize(v.w, d, c2, c3);
    reinterpret_cast<float4*>(y + row * (size_t)n)[j4] = r;
}

extern "C" __global__ void linearize_scalar(const float* __restrict__ x, const float* __restrict__ dark,
                                            float* __restrict__ y, int m, int n, float c2, float c3) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const size_t row = blockIdx.y;
    y[row * (size_t)n + j] = linearize(x[row * (size_t)n + j], dark[row], c2, c3);
}
"""

vec4_kernel = kcheck.CudaKernel(SOURCE, "linearize_vec4",
                                grid=lambda x, d, y, m, n, c2, c3: ((n // 4 + 255) // 256, m), block=(256,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "linearize_scalar",
                                  grid=lambda x, d, y, m, n, c2, c3: ((n + 255) // 256, m), block=(256,))


def detector_linearity(x: torch.Tensor, dark: torch.Tensor, y: torch.Tensor) -> None:
    m, n = x.shape
    if m == 0 or n == 0:
        return
    x = x.contiguous()
    dark = dark.contiguous()
    if x.data_ptr() % 16 == 0 and y.data_ptr() % 16 == 0:
        vec4_kernel(x, dark, y, m, n, C2, C3)
    else:
        scalar_kernel(x, dark, y, m, n, C2, C3)


def reference(x: torch.Tensor, dark: torch.Tensor) -> torch.Tensor:
    s = x - dark[:, None]
    return s + C2 * s ** 2 + C3 * s ** 3


spec = kcheck.Spec(
    name="hx38_cuda_detector_linearity",
    kernel=detector_linearity,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="raw"), kcheck.Tensor("M", name="dark_level")],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, large=False), "N": kcheck.Dim(nominal=2048)},
    dtypes=["fp32"],
)
