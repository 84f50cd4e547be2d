"""CUDA C spectral subtraction gain (Berouti et al.) for speech denoising: for a power spectrogram P[T, F] (frames
by bins) and a noise power estimate noise[F],

    gain = sqrt(max(P - alpha * noise, beta * P) / P)      (0 where P <= 0 or P is NaN)

with the over-subtraction factor alpha and the spectral floor beta as modes. Frames whose length is a multiple of
four are processed four bins per thread through float4 loads and stores; other lengths (an FFT's N/2 + 1 bins) take
the scalar kernel. Frames beyond the grid's 65535 rows are taken by a grid-stride loop; size_t offsets."""

import torch

import kcheck

BUG_CLASS = "misaligned-access"

SOURCE = r"""
__device__ __forceinline__ float sub_gain(float p, float nz, float alpha, float beta) {
    if (!(p > 0.0f)) return 0.0f;
    return sqrtf(fmaxf(p - alpha * nz, beta * p) / p);
}

extern "C" __global__ void spectral_gain(const float* __restrict__ p, const float* __restrict__ noise,
                                         float* __restrict__ g, int t, int f, float alpha, float beta) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= f) return;
    const float nz = noise[c];
    for (int row = blockIdx.y; row < t; row += gridDim.y) {
        const size_t at = (size_t)row * f + c;
        g[at] = sub_gain(p[at], nz, alpha, beta);
    }
}

extern "C" __global__ void spectral_gain_vec4(const float* __restrict__ p, const float* __restrict__ noise,
                                              float* __restrict__ g, int t, int f, float alpha, float beta) {
    const int q = blockIdx.x * blockDim.x + threadIdx.x;  /* bins 4q .. 4q + 3 */
    if (4 * q >= f) return;
    const float4 nz = reinterpret_cast<const float4*>(noise)[q];
    for (int row = blockIdx.y; row < t; row += gridDim.y) {
        const size_t at = (size_t)row * f + 4 * (size_t)q;
        const float4 pw = *reinterpret_cast<const float4*>(p + at);
        float4 out;
        out.x = sub_gain(pw.x, nz.x, alpha, beta);
        out.y = sub_gain(pw.y, nz.y, alpha, beta);
        out.z = sub_gain(pw.z, nz.z, alpha, beta);
        out.w = sub_gain(pw.w, nz.w, alpha, beta);
        *reinterpret_cast<float4*>(g + at) = out;
    }
}
"""

_rows = lambda t: min(t, 65535)  # noqa: E731
gain_kernel = kcheck.CudaKernel(SOURCE, "spectral_gain", block=(256,),
                                grid=lambda p, nz, g, t, f, a, b: ((f + 255) // 256, _rows(t)))
gain_kernel_vec4 = kcheck.CudaKernel(SOURCE, "spectral_gain_vec4", block=(64,),
                                     grid=lambda p, nz, g, t, f, a, b: ((f // 4 + 63) // 64, _rows(t)))


def spectral_gain(power: torch.Tensor, noise: torch.Tensor, gain: torch.Tensor, alpha: float = 2.0,
                  beta: float = 0.01) -> None:
    T, F = power.shape
    if gain.numel() == 0:
        return
    p, nz = power.contiguous(), noise.contiguous()
    vec4 = all(t.data_ptr() % 16 == 0 for t in (p, nz, gain))
    (gain_kernel_vec4 if vec4 else gain_kernel)(p, nz, gain, T, F, float(alpha), float(beta))


def reference(power: torch.Tensor, noise: torch.Tensor, alpha: float = 2.0, beta: float = 0.01) -> torch.Tensor:
    kept = torch.fmax(power - alpha * noise, beta * power)  # fmaxf: a NaN noise estimate leaves the floor
    g = torch.sqrt(kept / power)
    return torch.where(power > 0, g, torch.zeros_like(g))


spec = kcheck.Spec(
    name="hx26_cuda_spectral_subtraction",
    kernel=spectral_gain,
    reference=reference,
    inputs=[kcheck.Tensor("T", "F", name="power"), kcheck.Tensor("F", name="noise")],
    outputs=[kcheck.Tensor("T", "F", name="gain")],
    dims={"T": kcheck.Dim(nominal=100), "F": kcheck.Dim(nominal=257)},
    params={"alpha": [2.0, 4.0], "beta": [0.01, 0.1]},
    dtypes=["fp32"],
)
