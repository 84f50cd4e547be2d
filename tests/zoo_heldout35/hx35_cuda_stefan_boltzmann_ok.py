"""CUDA C radiant exitance of grey bodies by the Stefan-Boltzmann law (thermal radiation, remote sensing).

M[m, n] = eps[m] * sigma * T[m, n]^4   (W/m^2), sigma = 5.670374419e-8 W m^-2 K^-4
for surface m with emissivity eps[m] at temperature sample n (here temperatures in units of 100 K, so the
result is in units of 1e8 W/m^2). Rows on grid.x, column blocks on grid.y; size_t row offsets.
"""

import torch

import kcheck

BUG_CLASS = None

SIGMA = 5.670374419e-8

SOURCE = r"""
extern "C" __global__ void grey_body_exitance(const float* __restrict__ temp, const float* __restrict__ emis,
                                              float* __restrict__ out, int n, float sigma) {
    const size_t row = blockIdx.x;
    const int col = blockIdx.y * blockDim.x + threadIdx.x;
    if (col < n) {
        float t = temp[row * (size_t)n + col];
        float t2 = t * t;
        out[row * (size_t)n + col] = emis[row] * sigma * t2 * t2;
    }
}
"""

exitance_kernel = kcheck.CudaKernel(SOURCE, "grey_body_exitance",
                                    grid=lambda temp, emis, out, n, sigma: (temp.shape[0], (n + 255) // 256),
                                    block=(256,))


def grey_body_exitance(temperature, emissivity, out):
    M, N = temperature.shape
    if M and N:
        exitance_kernel(temperature.contiguous(), emissivity.contiguous(), out, N, SIGMA)


def reference(temperature, emissivity):
    return emissivity[:, None] * SIGMA * temperature ** 4


def emissivities(ctx):
    return (0.6 + 0.39 * ctx.rand(ctx.dims["M"], dtype=torch.float32)).to(ctx.dtype)


spec = kcheck.Spec(
    name="hx35_cuda_stefan_boltzmann_ok",
    kernel=grey_body_exitance,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="temperature"), kcheck.Custom(emissivities, name="emissivity", dims=("M",))],
    outputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=24), "N": kcheck.Dim(nominal=1500, large=False)},  # grid.y: N blocks <= 65535
    dtypes=["fp32"],
)
