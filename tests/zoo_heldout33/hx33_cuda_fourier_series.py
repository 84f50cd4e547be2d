"""CUDA C evaluation of a truncated Fourier series at many phases::

    f(theta) = sum over k = 1..K of a[k] cos(k theta) + b[k] sin(k theta)

Each block of 256 threads first stages the K <= 64 coefficient pairs in shared memory (threads copy them
cooperatively), then every thread evaluates its phase: cos(k theta) and sin(k theta) come from one sincosf and the
angle-addition recurrence, accumulated in fp32. Runs on a GPU through CuPy; without one kcheck compiles it for
sm_90 and skips its cases."""

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

MAX_HARMONICS = 64

SOURCE = r"""
#define MAX_K 64
extern "C" __global__ void fourier_series(const float* __restrict__ theta, const float* __restrict__ a,
                                          const float* __restrict__ b, float* __restrict__ out, int n, int k) {
    __shared__ float sa[MAX_K];
    __shared__ float sb[MAX_K];
    for (int j = threadIdx.x; j < k; j += blockDim.x) {
        sa[j] = a[j];
        sb[j] = b[j];
    }
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    float s1, c1;
    sincosf(theta[i], &s1, &c1);
    float ck = c1, sk = s1;  /* cos(k theta), sin(k theta) for k = 1 */
    float acc = 0.0f;
    for (int j = 0; j < k; ++j) {
        acc += sa[j] * ck + sb[j] * sk;
        const float cn = ck * c1 - sk * s1;
        sk = sk * c1 + ck * s1;
        ck = cn;
    }
    out[i] = acc;
}
"""

fourier_kernel = kcheck.CudaKernel(SOURCE, "fourier_series", grid=lambda t, a, b, o, n, k: ((n + 255) // 256,),
                                   block=(256,))


def fourier_series(theta: torch.Tensor, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    n, k = theta.shape[0], a.shape[0]
    if n == 0:
        return
    if k == 0:
        out.zero_()
        return
    fourier_kernel(theta.contiguous(), a.contiguous(), b.contiguous(), out, n, k)


def reference(theta: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    k = torch.arange(1, a.shape[0] + 1, dtype=theta.dtype, device=theta.device)
    phase = theta[:, None] * k[None, :]
    return (a[None, :] * torch.cos(phase) + b[None, :] * torch.sin(phase)).sum(-1)


spec = kcheck.Spec(
    name="cuda_fourier_series",
    kernel=fourier_series,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="theta"), kcheck.Tensor("K", name="a"), kcheck.Tensor("K", name="b")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096), "K": kcheck.Dim(nominal=24, max=MAX_HARMONICS, real=())},
    dtypes=["fp32"],
    reduce=["K"],
)
