"""Sigmoid gating of a flat activation buffer in CUDA C (the gate of a gated MLP / a GLU after the projections are
split): out = x * sigmoid(g), elementwise over N values.

When N is a multiple of 4, each thread moves one float4 of each;
otherwise a scalar kernel takes one value per thread. 256 threads per block; fp32.
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
__device__ __forceinline__ float gate(float x, float g) { return x / (1.0f + expf(-g)); }

extern "C" __global__ void sigmoid_gate_vec4(const float* __restrict__ x, const float* __restrict__ g,
                                             float* __restrict__ out, long long n4) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 a = reinterpret_cast<const float4*>(x)[i];
    float4 b = reinterpret_cast<const float4*>(g)[i];
    float4 y = make_float4(gate(a.x, b.x), gate(a.y, b.y), gate(a.z, b.z), gate(a.w, b.w));
    reinterpret_cast<float4*>(out)[i] = y;
}

extern "C" __global__ void sigmoid_gate_scalar(const float* __restrict__ x, const float* __restrict__ g,
                                               float* __restrict__ out, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = gate(x[i], g[i]);
}
"""

vec4_kernel = kcheck.CudaKernel(SOURCE, "sigmoid_gate_vec4", grid=lambda x, g, o, n4: ((n4 + 255) // 256,),
                                block=(256,))
scalar_kernel = kcheck.CudaKernel(SOURCE, "sigmoid_gate_scalar", grid=lambda x, g, o, n: ((n + 255) // 256,),
                                  block=(256,))


def sigmoid_gate(x, g):
    n = x.numel()
    out = torch.empty((n,), dtype=torch.float32, device=x.device)
    if n == 0:
        return out
    x, g = x.contiguous(), g.contiguous()
    if n % 4 == 0:
        vec4_kernel(x, g, out, n // 4)
    else:
        scalar_kernel(x, g, out, n)
    return out


def reference(x, g):
    return x * torch.sigmoid(g)


spec = kcheck.Spec(
    name="hx15_cuda_sigmoid_gate_vec4",
    kernel=sigmoid_gate,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="x"), kcheck.Tensor("N", name="g")],
    dims={"N": kcheck.Dim(nominal=4096, real=(11008, 14336))},
    dtypes=["fp32"],
)
