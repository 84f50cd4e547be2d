"""CUDA C Shannon diversity index (ecology) of species counts, one site per row:

    H = -sum_i p_i ln p_i  with p_i = c_i / T, T = sum_i c_i,  computed as  H = ln T - (sum_i c_i ln c_i) / T

(c ln c = 0 for an absent species). One block of 256 threads per row: strided partial sums of c and c ln c per
thread, then a tree reduction of both in shared memory with a __syncthreads() after every step. size_t offsets."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
extern "C" __global__ void shannon_diversity(const float* __restrict__ c, float* __restrict__ out, int m, int n) {
    __shared__ float tot[256];
    __shared__ float cln[256];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* cr = c + (size_t)row * n;
    float a = 0.0f, b = 0.0f;
    for (int j = t; j < n; j += blockDim.x) {
        const float v = cr[j];
        a += v;
        b += v > 0.0f ? v * logf(v) : 0.0f;
    }
    tot[t] = a;
    cln[t] = b;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            tot[t] += tot[t + s];
            cln[t] += cln[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[row] = logf(tot[0]) - cln[0] / tot[0];
}
"""

shannon_kernel = kcheck.CudaKernel(SOURCE, "shannon_diversity", grid=lambda c, out, m, n: (m,), block=(256,))


def shannon_diversity(counts: torch.Tensor, out: torch.Tensor) -> None:
    m, n = counts.shape
    if m:
        shannon_kernel(counts.contiguous(), out, m, n)


def reference(counts: torch.Tensor) -> torch.Tensor:
    total = counts.sum(-1)
    return torch.log(total) - torch.xlogy(counts, counts).sum(-1) / total


def species_counts(ctx: kcheck.CaseContext) -> torch.Tensor:
    """Abundance counts 0..19 per species (absent species included)."""
    return ctx.randint(0, 20, (ctx.dims["M"], ctx.dims["N"])).to(torch.float32)


spec = kcheck.Spec(
    name="hx30_cuda_shannon_diversity",
    kernel=shannon_diversity,
    reference=reference,
    inputs=[kcheck.Custom(species_counts, name="counts", dims=("M", "N"))],
    outputs=[kcheck.Tensor("M")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=700)},
    dtypes=["fp32"],
    reduce=["N"],
)
