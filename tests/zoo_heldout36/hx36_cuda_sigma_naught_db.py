"""Remote sensing (CUDA C): calibrated SAR backscatter in decibels from detected amplitudes,
sigma0_dB = 10 * log10(CAL * dn^2 + NESZ) (NESZ, the noise-equivalent sigma zero, keeps dark pixels finite).
Where both buffers start on a 16-byte boundary and the count is a multiple of 4 the kernel reads and writes
float4 (four pixels a thread); otherwise a scalar kernel runs. Launches of at
most 2**30 pixels (chunk starts keep the 16-byte alignment)."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

CAL = 0.0025
NESZ = 1e-4
CHUNK = 2**30

SOURCE = r"""
__device__ __forceinline__ float to_db(float a, float cal, float nesz) { return 10.0f * log10f(cal * a * a + nesz); }

extern "C" __global__ void sigma0_vec4(const float4* __restrict__ dn, float4* __restrict__ out, int n4,
                                       float cal, float nesz) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        const float4 a = dn[i];
        out[i] = make_float4(to_db(a.x, cal, nesz), to_db(a.y, cal, nesz), to_db(a.z, cal, nesz),
                             to_db(a.w, cal, nesz));
    }
}

extern "C" __global__ void sigma0_scalar(const float* __restrict__ dn, float* __restrict__ out, int n,
                                         float cal, float nesz) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = to_db(dn[i], cal, nesz);
}
"""

vec4_kernel = kcheck.CudaKernel(SOURCE, "sigma0_vec4", grid=lambda dn, out, n4, cal, nesz: ((n4 + 255) // 256,),
                                block=(256,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "sigma0_scalar", grid=lambda dn, out, n, cal, nesz: ((n + 255) // 256,),
                                  block=(256,))


def sigma_naught_db(dn: torch.Tensor, out: torch.Tensor) -> None:
    dn = dn.contiguous()
    n = dn.numel()
    vec = n % 4 == 0 and out.data_ptr() % 16 == 0
    for s in range(0, n, CHUNK):  # launches of at most 2**30 pixels: int counts and indices
        e = min(n, s + CHUNK)
        if vec:
            vec4_kernel(dn[s:e], out[s:e], (e - s) // 4, CAL, NESZ)
        else:
            scalar_kernel(dn[s:e], out[s:e], e - s, CAL, NESZ)


spec = kcheck.Spec(
    name="hx36_cuda_sigma_naught_db",
    kernel=sigma_naught_db,
    reference=lambda dn: 10.0 * torch.log10(CAL * dn * dn + NESZ),
    inputs=[kcheck.Tensor("N", name="amplitude")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)
