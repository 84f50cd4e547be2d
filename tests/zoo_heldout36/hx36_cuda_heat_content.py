"""Climate (CUDA C): ocean heat content of each temperature profile, OHC[p] = RHO_CP * sum_k T[p, k] * dz[k]
(J/m^2 per kelvin of anomaly, layers of thickness dz). One block of 256 threads per profile: a strided partial sum
per thread in fp32, then a tree reduction in shared memory with a __syncthreads() after every step. size_t
offsets."""

import torch

import kcheck

BUG_CLASS = "divergent-barrier"

RHO_CP = 4.1e6  # seawater density x specific heat, J / (m^3 K)

SOURCE = r"""
extern "C" __global__ void heat_content(const float* __restrict__ temp, const float* __restrict__ dz,
                                        float* __restrict__ out, int k, float rho_cp) {
    __shared__ float buf[256];
    const int p = blockIdx.x, t = threadIdx.x;
    const float* tp = temp + (size_t)p * (size_t)k;
    float acc = 0.0f;
    for (int j = t; j < k; j += blockDim.x) acc += tp[j] * dz[j];
    buf[t] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            buf[t] += buf[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[p] = rho_cp * buf[0];
}
"""

heat_kernel = kcheck.CudaKernel(SOURCE, "heat_content", grid=lambda temp, dz, out, k, rho_cp: (temp.shape[0],),
                                block=(256,))


def heat_content(temp: torch.Tensor, dz: torch.Tensor, out: torch.Tensor) -> None:
    p, k = temp.shape
    if p == 0:
        return
    if k == 0:
        out.zero_()
        return
    heat_kernel(temp.contiguous(), dz.contiguous(), out, k, RHO_CP)


spec = kcheck.Spec(
    name="hx36_cuda_heat_content",
    kernel=heat_content,
    reference=lambda temp, dz: RHO_CP * (temp * dz).sum(-1),
    inputs=[kcheck.Tensor("P", "K", name="temperature"), kcheck.Tensor("K", name="dz")],
    outputs=[kcheck.Tensor("P")],
    dims={"P": kcheck.Dim(nominal=128), "K": kcheck.Dim(nominal=800)},
    dtypes=["fp32"],
    reduce=["K"],
    properties=[kcheck.props.linear(0)],
)
