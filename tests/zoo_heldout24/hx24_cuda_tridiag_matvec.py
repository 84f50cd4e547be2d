"""CUDA C product of a tridiagonal matrix with a vector, y[i] = a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] with
x[-1] = x[n] = 0 (the operator of a 1-D implicit diffusion step; a is the sub-, b the main and c the
super-diagonal). 256 threads per block stage their x values and the two halo values in shared memory, then each
thread combines its three neighbours. Long vectors are processed in chunks of at most 2^30 rows (int counts, size_t
offsets); each chunk gets the window of x around it, `lo` = 1 when x has an element before the chunk.
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
#define B 256
extern "C" __global__ void tridiag_matvec(const float* __restrict__ a, const float* __restrict__ b,
                                          const float* __restrict__ c, const float* __restrict__ xw,
                                          float* __restrict__ y, int n, int lo, int m) {
    __shared__ float xs[B + 2];
    const int t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * B + t;  /* row within the chunk */
    const long long k = (long long)i + lo;        /* its x inside the window xw[0 .. m) */
    if (i >= (size_t)n) return;
    xs[t + 1] = (k < m) ? xw[k] : 0.0f;
    if (t == 0) xs[0] = (k - 1 >= 0 && k - 1 < m) ? xw[k - 1] : 0.0f;
    if (t == B - 1) xs[B + 1] = (k + 1 < m) ? xw[k + 1] : 0.0f;
    __syncthreads();
    y[i] = a[i] * xs[t] + b[i] * xs[t + 1] + c[i] * xs[t + 2];
}
"""

tridiag_kernel = kcheck.CudaKernel(SOURCE, "tridiag_matvec",
                                   grid=lambda a, b, c, xw, y, n, lo, m: ((n + 255) // 256,), block=(256,))

CHUNK = 1 << 30


def tridiag_matvec(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    a, b, c, x = a.contiguous(), b.contiguous(), c.contiguous(), x.contiguous()
    y = torch.empty(n, dtype=x.dtype, device=x.device)
    for start in range(0, n, CHUNK):
        count = min(CHUNK, n - start)
        lo = 1 if start > 0 else 0
        xw = x[start - lo:start + count + 1]
        tridiag_kernel(a[start:], b[start:], c[start:], xw, y[start:], count, lo, xw.shape[0])
    return y


def reference(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    xp = torch.nn.functional.pad(x, (1, 1))
    return a * xp[:-2] + b * x + c * xp[2:]


spec = kcheck.Spec(
    name="hx24_cuda_tridiag_matvec",
    kernel=tridiag_matvec,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="sub"), kcheck.Tensor("N", name="diag"), kcheck.Tensor("N", name="sup"),
            kcheck.Tensor("N", name="x")],
    dims={"N": kcheck.Dim(nominal=5000)},
    dtypes=["fp32"],
    properties=[kcheck.props.linear(3)],
)
