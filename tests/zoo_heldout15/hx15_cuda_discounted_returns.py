"""Discounted returns of RL episodes in CUDA C, one block of 1024 threads per episode row (N <= 1024 steps):

    G[t] = r[t] + gamma * G[t + 1],   G[N - 1] = r[N - 1]

computed as a reverse inclusive scan of the affine maps x -> a * x + b (a step is (gamma, r[t]); composing
(a1, b1) after (a2, b2) gives (a1 * a2, a1 * b2 + b1)), Hillis-Steele in shared memory: log2(1024) rounds, each
reading the partner's pair, then a barrier, then writing, then a barrier. fp32; gamma is a mode.
"""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

SOURCE = r"""
extern "C" __global__ void discounted_returns(const float* __restrict__ r, float* __restrict__ out, int n,
                                              long long s_row, float gamma) {
    __shared__ float sa[1024];
    __shared__ float sb[1024];
    const int t = threadIdx.x;
    const float* rr = r + (size_t)blockIdx.x * (size_t)s_row;
    const bool live = t < n;
    sa[t] = live ? gamma : 1.0f;
    sb[t] = live ? rr[t] : 0.0f;
    __syncthreads();
    for (int off = 1; off < 1024; off <<= 1) {
        float a = sa[t], b = sb[t];
        if (t + off < 1024) {
            float a2 = sa[t + off], b2 = sb[t + off];
            b = a * b2 + b;
            a = a * a2;
            __syncthreads();
            sa[t] = a;
            sb[t] = b;
            __syncthreads();
        }
    }
    if (live) out[(size_t)blockIdx.x * (size_t)n + t] = sb[t];
}
"""

returns_kernel = kcheck.CudaKernel(SOURCE, "discounted_returns", grid=lambda r, out, n, s, g: (r.shape[0],),
                                   block=(1024,))


def discounted_returns(rewards, gamma=0.99):
    B, N = rewards.shape
    out = torch.empty((B, N), dtype=torch.float32, device=rewards.device)
    if B == 0 or N == 0:
        return out
    if rewards.stride(1) != 1:
        rewards = rewards.contiguous()
    returns_kernel(rewards, out, N, rewards.stride(0), float(gamma))
    return out


def reference(rewards, gamma=0.99):
    out = torch.empty_like(rewards)
    g = torch.zeros_like(rewards[:, 0]) if rewards.shape[1] else None
    for t in range(rewards.shape[1] - 1, -1, -1):
        g = rewards[:, t] + gamma * g
        out[:, t] = g
    return out


spec = kcheck.Spec(
    name="hx15_cuda_discounted_returns",
    kernel=discounted_returns,
    reference=reference,
    inputs=[kcheck.Tensor("B", "N", name="rewards")],
    dims={"B": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512, max=1024, real=(1000,))},
    reduce=["N"],
    dtypes=["fp32"],
    params={"gamma": [0.99, 0.9]},
)
