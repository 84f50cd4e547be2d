"""CUDA C: downward-expander noise gate (audio dynamics), per sample:

y = x                                    if |x| >= threshold
y = x * (|x| / threshold)^(ratio - 1)    below it (ratio > 1 attenuates quiet samples)

Two kernels: a float4 path (four samples per thread, 16-byte loads and stores) used when the length is a multiple
of 4 and both buffers are 16-byte aligned, and a scalar path otherwise. size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = 'misaligned-access'

SOURCE = r"""
__device__ __forceinline__ float gate(float x, float thr, float ratio) {
    float a = fabsf(x);
    return a >= thr ? x : x * powf(a / thr, ratio - 1.0f);
}

extern "C" __global__ void gate_vec4(const float4* __restrict__ x, float4* __restrict__ y, int n4, float thr,
                                     float ratio) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n4) return;
    float4 v = x[i];
    v.x = gate(v.x, thr, ratio); v.y = gate(v.y, thr, ratio);
    v.z = gate(v.z, thr, ratio); v.w = gate(v.w, thr, ratio);
    y[i] = v;
}

extern "C" __global__ void gate_scalar(const float* __restrict__ x, float* __restrict__ y, int n, float thr,
                                       float ratio) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    y[i] = gate(x[i], thr, ratio);
}
"""

gate_vec4 = kcheck.CudaKernel(SOURCE, "gate_vec4", grid=lambda x, y, n4, t, r: ((n4 + 255) // 256,), block=(256,))
gate_scalar = kcheck.CudaKernel(SOURCE, "gate_scalar", grid=lambda x, y, n, t, r: ((n + 255) // 256,), block=(256,))


def noise_gate(x: torch.Tensor, threshold: float, ratio: float, out: torch.Tensor) -> None:
    n = x.numel()
    if n == 0:
        return
    x = x.contiguous()
    vec = n % 4 == 0
    if vec:
        gate_vec4(x, out, n // 4, threshold, ratio)
    else:
        gate_scalar(x, out, n, threshold, ratio)


def reference(x: torch.Tensor, threshold: float, ratio: float) -> torch.Tensor:
    a = x.abs()
    return torch.where(a >= threshold, x, x * (a / threshold) ** (ratio - 1.0))


spec = kcheck.Spec(
    name="hx27_cuda_noise_gate",
    kernel=noise_gate,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x"), kcheck.Scalar(0.5, name="threshold"), kcheck.Scalar(3.0, name="ratio")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096, max=2 ** 30, real=())},
    dtypes=["fp32"],
)
