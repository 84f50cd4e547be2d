"""CUDA C thermo-elastic stress of a uniaxially loaded bar field (materials): sigma = E (eps - alpha dT).

strain and dtemp are [M, N] fields (M load cases by N points; strain in units of 1e-3, temperature change in K);
young (E, in GPa) and alpha (the thermal expansion coefficient, per K, times 1e3) are modes. The fast kernel
reads and writes four points per thread as float4, which needs every row of every tensor to start on a 16-byte
boundary (base pointer 16-byte aligned, row stride a multiple of 4 floats); otherwise the launcher takes the
scalar kernel. Rows are on grid x, size_t row offsets, unit column stride (copied when it is not).
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
extern "C" __global__ void thermal_stress_vec4(const float* __restrict__ eps, const float* __restrict__ dt,
                                               float* __restrict__ sig, int m, int n, int ld_e, int ld_t, int ld_s,
                                               float young, float alpha) {
    const int row = blockIdx.x;
    const int j = 4 * (blockIdx.y * blockDim.x + threadIdx.x);
    if (j >= n) return;
    const float* er = eps + (size_t)row * (size_t)ld_e;
    const float* tr = dt + (size_t)row * (size_t)ld_t;
    float* sr = sig + (size_t)row * (size_t)ld_s;
    if (j + 3 < n) {
        const float4 e = *reinterpret_cast<const float4*>(er + j);
        const float4 d = *reinterpret_cast<const float4*>(tr + j);
        float4 s;
        s.x = young * (e.x - alpha * d.x);
        s.y = young * (e.y - alpha * d.y);
        s.z = young * (e.z - alpha * d.z);
        s.w = young * (e.w - alpha * d.w);
        *reinterpret_cast<float4*>(sr + j) = s;
    } else {
        for (int c = j; c < n; ++c) sr[c] = young * (er[c] - alpha * tr[c]);
    }
}

extern "C" __global__ void thermal_stress(const float* __restrict__ eps, const float* __restrict__ dt,
                                          float* __restrict__ sig, int m, int n, int ld_e, int ld_t, int ld_s,
                                          float young, float alpha) {
    const int row = blockIdx.x;
    const int j = blockIdx.y * blockDim.x + threadIdx.x;
    if (j >= n) return;
    sig[(size_t)row * (size_t)ld_s + j] =
        young * (eps[(size_t)row * (size_t)ld_e + j] - alpha * dt[(size_t)row * (size_t)ld_t + j]);
}
"""

vec4_kernel = kcheck.CudaKernel(SOURCE, "thermal_stress_vec4",
                                grid=lambda e, d, s, m, n, le, lt, ls, y, a: (m, (n + 1023) // 1024), block=(256,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "thermal_stress",
                                  grid=lambda e, d, s, m, n, le, lt, ls, y, a: (m, (n + 255) // 256), block=(256,))


def thermal_stress(strain: torch.Tensor, dtemp: torch.Tensor, out: torch.Tensor, young: float = 200.0,
                   alpha: float = 0.012) -> None:
    m, n = strain.shape
    if m == 0 or n == 0:
        return
    strain = strain if strain.stride(1) == 1 else strain.contiguous()
    dtemp = dtemp if dtemp.stride(1) == 1 else dtemp.contiguous()
    aligned = all(t.data_ptr() % 16 == 0 for t in (strain, dtemp, out))
    launch = vec4_kernel if aligned else scalar_kernel
    launch(strain, dtemp, out, m, n, strain.stride(0), dtemp.stride(0), out.stride(0), float(young), float(alpha))


def reference(strain: torch.Tensor, dtemp: torch.Tensor, young: float = 200.0, alpha: float = 0.012) -> torch.Tensor:
    return young * (strain - alpha * dtemp)


spec = kcheck.Spec(
    name="hx40_cuda_thermal_stress",
    kernel=thermal_stress,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="strain"), kcheck.Tensor("M", "N", name="dtemp")],
    outputs=[kcheck.Tensor("M", "N")],
    # grid.y (column blocks) is limited to 65535: N stays out of the past-2**31 case, M grows instead
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, large=False)},
    dtypes=["fp32"],
    params={"young": [200.0, 70.0], "alpha": [0.012, 0.023]},
)
