"""CUDA C tiered (block) tariff: the cost of each metered usage u under T tiers of equal width w, where tier k
starts at k w, costs base[k] for the tiers below it and rate[k] per unit inside it:
k = clamp(floor(u / w), 0, T - 1), cost = base[k] + rate[k] (u - k w). Usage below zero bills at the first tier,
usage past the last boundary at the last tier's rate. One thread per meter, launches in chunks of 2^28 meters so that
every index fits an int."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"
CHUNK = 1 << 28

SOURCE = r"""
extern "C" __global__ void tiered_tariff(const float* __restrict__ usage, const float* __restrict__ base,
                                         const float* __restrict__ rate, float* __restrict__ cost, int n, int tiers,
                                         float width) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float u = usage[i];
    int k = (int)floorf(u / width);
    cost[i] = base[k] + rate[k] * (u - (float)k * width);
}
"""

tariff_kernel = kcheck.CudaKernel(SOURCE, "tiered_tariff",
                                  grid=lambda u, b, r, c, n, tiers, w: ((n + 255) // 256,), block=(256,))


def tiered_tariff(usage: torch.Tensor, base: torch.Tensor, rate: torch.Tensor, width: float,
                  out: torch.Tensor) -> None:
    usage, base, rate = usage.contiguous(), base.contiguous(), rate.contiguous()
    tiers = base.shape[0]
    for s in range(0, usage.numel(), CHUNK):
        u = usage[s:s + CHUNK]
        tariff_kernel(u, base, rate, out[s:s + CHUNK], u.numel(), tiers, width)


def reference(usage: torch.Tensor, base: torch.Tensor, rate: torch.Tensor, width: float) -> torch.Tensor:
    tiers = base.shape[0]
    kf = torch.floor(usage / width).clamp(0, tiers - 1)
    k = torch.nan_to_num(kf, nan=0.0).long()
    return base[k] + rate[k] * (usage - k.to(usage.dtype) * width)


spec = kcheck.Spec(
    name="hx31_cuda_tiered_tariff",
    kernel=tiered_tariff,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="usage"), kcheck.Tensor("T", name="base"), kcheck.Tensor("T", name="rate"),
            kcheck.Scalar(0.5, name="width")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096), "T": kcheck.Dim(nominal=8, min=1, max=64, real=(4,))},
    dtypes=["fp32"],
)
