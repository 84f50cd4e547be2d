"""CUDA C A-law companding of multichannel audio (telephony, ITU-T G.711 characteristic, A = 87.6), the step
before 8-bit quantization.

For samples x normalized to full scale, per channel (row):

    y = sgn(x) * A |x| / (1 + ln A)               for |x| < 1 / A
    y = sgn(x) * (1 + ln(A |x|)) / (1 + ln A)      otherwise

Elementwise, in fp32. Rows whose length is a multiple of 4 go through a float4 kernel (16-byte loads and stores)
when every row of the input and of the output starts on a 16-byte boundary; otherwise a scalar kernel. Both take
the row pitches of input and output; size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
#define A_LAW 87.6f
#define INV_1P_LN_A 0.18272246f  /* 1 / (1 + ln 87.6) */

__device__ __forceinline__ float alaw(float x) {
    const float ax = fabsf(x);
    const float y = ax < (1.0f / A_LAW) ? A_LAW * ax * INV_1P_LN_A : (1.0f + logf(A_LAW * ax)) * INV_1P_LN_A;
    return copysignf(y, x);
}

extern "C" __global__ void alaw_vec4(const float* __restrict__ x, float* __restrict__ y, int m, int n4, int ldx,
                                     int ldy) {
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)m * (size_t)n4) return;
    const size_t row = idx / (size_t)n4, q = idx % (size_t)n4;
    const float4 v = reinterpret_cast<const float4*>(x + row * (size_t)ldx)[q];
    float4 r;
    r.x = alaw(v.x);
    r.y = alaw(v.y);
    r.z = alaw(v.z);
    r.w = alaw(v.w);
    reinterpret_cast<float4*>(y + row * (size_t)ldy)[q] = r;
}

extern "C" __global__ void alaw_scalar(const float* __restrict__ x, float* __restrict__ y, int m, int n, int ldx,
                                       int ldy) {
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)m * (size_t)n) return;
    const size_t row = idx / (size_t)n, j = idx % (size_t)n;
    y[row * (size_t)ldy + j] = alaw(x[row * (size_t)ldx + j]);
}
"""


def _blocks(m: int, count: int) -> tuple[int]:
    return ((m * count + 255) // 256,)


alaw_vec4 = kcheck.CudaKernel(SOURCE, "alaw_vec4", grid=lambda x, y, m, n4, ldx, ldy: _blocks(m, n4), block=(256,))
alaw_scalar = kcheck.CudaKernel(SOURCE, "alaw_scalar", grid=lambda x, y, m, n, ldx, ldy: _blocks(m, n),
                                block=(256,))


def a_law_compand(x: torch.Tensor, out: torch.Tensor) -> None:
    m, n = x.shape
    if m == 0 or n == 0:
        return
    if x.stride(1) != 1:
        x = x.contiguous()
    aligned = all(t.data_ptr() % 16 == 0 for t in (x, out))
    if n % 4 == 0 and aligned:
        alaw_vec4(x, out, m, n // 4, x.stride(0), out.stride(0))
    else:
        alaw_scalar(x, out, m, n, x.stride(0), out.stride(0))


def reference(x: torch.Tensor) -> torch.Tensor:
    a = 87.6
    ax = x.abs()
    y = torch.where(ax < 1.0 / a, a * ax, 1.0 + torch.log(a * ax)) / (1.0 + torch.log(torch.tensor(a)).item())
    return torch.copysign(y, x)


spec = kcheck.Spec(
    name="hx39_cuda_a_law_compand",
    kernel=a_law_compand,
    reference=reference,
    inputs=[kcheck.Tensor("C", "N", name="x")],
    outputs=[kcheck.Tensor("C", "N")],
    dims={"C": kcheck.Dim(nominal=8), "N": kcheck.Dim(nominal=4096)},
    dtypes=["fp32"],
)
