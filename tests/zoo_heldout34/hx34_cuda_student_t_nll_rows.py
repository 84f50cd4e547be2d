"""CUDA C negative log-likelihood of Student-t residual models, one per row (robust regression, heavy-tailed noise):

    nll[m] = sum_n [ (nu + 1) / 2 * log(1 + z^2 / nu) ] + N * (log_scale[m] + C(nu)),
    z = (x[m, n] - loc[m]) * exp(-log_scale[m]),
    C(nu) = lgamma(nu / 2) - lgamma((nu + 1) / 2) + log(nu * pi) / 2.

One block of 256 threads per row: a strided partial sum per thread (fp32, log1pf), then a tree reduction in shared
memory, a __syncthreads() after every halving. C(nu) is computed on the host; nu (the degrees of freedom) is a mode.
"""

import math

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
extern "C" __global__ void student_t_nll(const float* __restrict__ x, const float* __restrict__ loc,
                                         const float* __restrict__ log_scale, float* __restrict__ out,
                                         int m, int n, float nu, float c_nu) {
    __shared__ float buf[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * (size_t)n;
    const float mu = loc[row], inv_s = expf(-log_scale[row]);
    float acc = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        const float z = (xr[j] - mu) * inv_s;
        acc += log1pf(z * z / nu);
    }
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[row] = 0.5f * (nu + 1.0f) * buf[0] + (float)n * (log_scale[row] + c_nu);
}
"""

nll_kernel = kcheck.CudaKernel(SOURCE, "student_t_nll", grid=lambda x, loc, ls, out, m, n, nu, c: (m,), block=(256,))


def _c_nu(nu: float) -> float:
    return math.lgamma(nu / 2) - math.lgamma((nu + 1) / 2) + 0.5 * math.log(nu * math.pi)


def student_t_nll(x: torch.Tensor, loc: torch.Tensor, log_scale: torch.Tensor, out: torch.Tensor,
                  nu: float = 4.0) -> None:
    m, n = x.shape
    if m:
        nll_kernel(x.contiguous(), loc.contiguous(), log_scale.contiguous(), out, m, n, float(nu), _c_nu(nu))


def reference(x: torch.Tensor, loc: torch.Tensor, log_scale: torch.Tensor, nu: float = 4.0) -> torch.Tensor:
    z = (x - loc[:, None]) * torch.exp(-log_scale)[:, None]
    n = x.shape[1]
    return 0.5 * (nu + 1.0) * torch.log1p(z * z / nu).sum(-1) + n * (log_scale + _c_nu(nu))


spec = kcheck.Spec(
    name="cuda_student_t_nll_rows",
    kernel=student_t_nll,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="residuals"), kcheck.Tensor("M", pattern="randn", name="loc"),
            kcheck.Tensor("M", pattern="randn", name="log_scale")],
    outputs=[kcheck.Tensor("M", name="nll")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=1000)},
    dtypes=["fp32"],
    reduce=["N"],
    params={"nu": [4.0, 1.5]},
)
