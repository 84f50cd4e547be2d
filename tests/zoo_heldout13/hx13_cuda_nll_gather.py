"""CUDA C per-token negative log-likelihood from log-probabilities, with an ignore index (padding tokens):
loss[i] = -logp[i, target[i]], or 0 where target[i] == ignore_index. One thread per token on a flat 1-D grid;
a target outside [0, V) that is not the ignore index is a caller error and trips a device assert (as PyTorch's
own NLL kernels do). size_t offsets.
"""

import torch

import kcheck

SOURCE = r"""
#include <assert.h>

extern "C" __global__ void nll_gather(const float* __restrict__ logp, const long long* __restrict__ target,
                                      float* __restrict__ loss, int m, int v, int ignore_index) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)m) return;
    const long long t = target[i];
    assert(t >= 0 && t < v);
    if (t == ignore_index) { loss[i] = 0.0f; return; }
    loss[i] = -logp[i * (size_t)v + (size_t)t];
}
"""

nll_kernel = kcheck.CudaKernel(SOURCE, "nll_gather", grid=lambda lp, tg, out, m, v, ig: ((m + 255) // 256,),
                               block=(256,))


def nll_gather(logp: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    M, V = logp.shape
    out = torch.empty((M,), dtype=torch.float32, device=logp.device)
    if M:
        nll_kernel(logp.contiguous(), target.contiguous(), out, M, V, ignore_index)
    return out


def targets(ctx: kcheck.CaseContext) -> torch.Tensor:
    M, V = ctx.dims["M"], ctx.dims["V"]
    t = ctx.randint(0, max(V, 1), (M,))
    t[3::7] = ctx.params["ignore_index"]
    return t


def reference(logp: torch.Tensor, target: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    keep = target != ignore_index
    picked = logp.gather(1, torch.where(keep, target, 0)[:, None])[:, 0]
    return torch.where(keep, -picked, torch.zeros_like(picked))


BUG_CLASS = "kernel-crash"

spec = kcheck.Spec(
    name="hx13_cuda_nll_gather",
    kernel=nll_gather,
    reference=reference,
    inputs=[kcheck.Tensor("M", "V", name="logp"), kcheck.Custom(targets, name="target", dims=("M",))],
    dims={"M": kcheck.Dim(nominal=256), "V": kcheck.Dim(nominal=512, min=1, large=False)},
    params={"ignore_index": [-100]},
    dtypes=["fp32"],
)
