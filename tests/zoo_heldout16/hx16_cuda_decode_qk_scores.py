"""CUDA C attention scores for one decode step: scores[h, t] = scale * q[h, :] . K[h, t, :] against the KV cache
(H heads, T cached tokens, head dim D). One block of 128 threads per (token, head): a strided partial dot product
per thread in fp32, then a tree reduction in shared memory. size_t offsets."""

import math

import torch

import kcheck

BUG_CLASS = "missing-syncthreads"

SOURCE = r"""
#define THREADS 128
extern "C" __global__ void decode_qk(const float* __restrict__ q, const float* __restrict__ k,
                                     float* __restrict__ scores, int heads, int tokens, int dim, float scale) {
    __shared__ float part[THREADS];
    const int t = blockIdx.x, h = blockIdx.y, tid = threadIdx.x;
    const float* qh = q + (size_t)h * dim;
    const float* kr = k + ((size_t)h * tokens + t) * (size_t)dim;
    float acc = 0.0f;
    for (int d = tid; d < dim; d += THREADS) acc += qh[d] * kr[d];
    part[tid] = acc;
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) part[tid] += part[tid + s];
        __syncthreads();
    }
    if (tid == 0) scores[(size_t)h * tokens + t] = part[0] * scale;
}
"""

decode_qk_kernel = kcheck.CudaKernel(SOURCE, "decode_qk", grid=lambda q, k, s, hh, tt, dd, sc: (tt, hh),
                                     block=(128,))


def decode_qk_scores(q: torch.Tensor, k: torch.Tensor, scores: torch.Tensor) -> None:
    H, T, D = k.shape
    if H and T:
        decode_qk_kernel(q.contiguous(), k.contiguous(), scores, H, T, D, 1.0 / math.sqrt(max(D, 1)))


def reference(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    D = k.shape[-1]
    return torch.einsum("hd,htd->ht", q, k) / math.sqrt(max(D, 1))


spec = kcheck.Spec(
    name="hx16_cuda_decode_qk_scores",
    kernel=decode_qk_scores,
    reference=reference,
    inputs=[kcheck.Tensor("H", "D", name="q"), kcheck.Tensor("H", "T", "D", name="k_cache")],
    outputs=[kcheck.Tensor("H", "T")],
    dims={"H": kcheck.Dim(nominal=8, max=65535, large=False), "T": kcheck.Dim(nominal=256),
          "D": kcheck.Dim(nominal=128)},
    dtypes=["fp32"],
    reduce=["D"],
)
