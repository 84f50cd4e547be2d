"""CUDA C: wavetable oscillator (audio synthesis): each output sample reads one cycle of a waveform table of T
samples at a phase given in cycles, with linear interpolation between neighbouring table entries:

p = phase - floor(phase),  pos = p * T,  i0 = floor(pos) (kept in [0, T - 1]),  i1 = (i0 + 1) mod T
y = table[i0] + (pos - i0) * (table[i1] - table[i0])

One thread per sample, size_t offsets. A non-finite phase gives a NaN sample.
"""

import torch

import kcheck

BUG_CLASS = 'kernel-crash'

SOURCE = r"""
extern "C" __global__ void wavetable(const float* __restrict__ phase, const float* __restrict__ table,
                                     float* __restrict__ out, int n, int t) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    float ph = phase[i];
    float p = ph - floorf(ph);
    float pos = p * (float)t;
    int i0 = (int)pos;
    int i1 = i0 + 1 == t ? 0 : i0 + 1;
    float fr = pos - (float)i0;
    float a = table[i0];
    out[i] = a + fr * (table[i1] - a);
}
"""

wavetable_kernel = kcheck.CudaKernel(SOURCE, "wavetable", grid=lambda ph, tb, o, n, t: ((n + 255) // 256,),
                                     block=(256,))


def wavetable(phase: torch.Tensor, table: torch.Tensor, out: torch.Tensor) -> None:
    n, t = phase.numel(), table.numel()
    if n and t:
        wavetable_kernel(phase.contiguous(), table.contiguous(), out, n, t)


def reference(phase: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    T = table.shape[0]
    p = phase - torch.floor(phase)
    pos = p * T
    i0 = torch.nan_to_num(torch.floor(pos), nan=0.0).clamp(0, T - 1).long()
    i1 = (i0 + 1) % T
    fr = pos - i0.to(pos.dtype)
    return table[i0] + fr * (table[i1] - table[i0])


spec = kcheck.Spec(
    name="hx27_cuda_wavetable_oscillator",
    kernel=wavetable,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="phase"), kcheck.Tensor("T", pattern="randn", name="table")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096, max=2 ** 30, real=()), "T": kcheck.Dim(nominal=2048, min=1, real=())},
    dtypes=["fp32"],
)
