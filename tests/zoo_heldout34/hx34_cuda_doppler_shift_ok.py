"""CUDA C acoustic Doppler shift for moving sources and receivers (e.g. a pass-by noise simulation):

    f_obs = f_src * (c + v_r) / (c - v_s),

with c = 343 m/s, v_r the receiver's speed towards the source and v_s the source's speed towards the receiver.
Element-wise over [M, N] tracks x samples with any row stride: one thread per sample on a 2-D grid (samples on x,
tracks on y), size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = None

C_SOUND = 343.0

SOURCE = r"""
extern "C" __global__ void doppler(const float* __restrict__ f, const float* __restrict__ vr,
                                   const float* __restrict__ vs, float* __restrict__ out, int m, int n,
                                   int ld_f, int ld_r, int ld_s, int ld_o, float c) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y;
    if (col >= n || row >= m) return;
    const float fs = f[(size_t)row * ld_f + col];
    const float r = vr[(size_t)row * ld_r + col];
    const float s = vs[(size_t)row * ld_s + col];
    out[(size_t)row * ld_o + col] = fs * (c + r) / (c - s);
}
"""


def _grid(f, vr, vs, out, m, n, ld_f, ld_r, ld_s, ld_o, c):
    return ((n + 255) // 256, m)


doppler_kernel = kcheck.CudaKernel(SOURCE, "doppler", grid=_grid, block=(256,))


def doppler_shift(f: torch.Tensor, vr: torch.Tensor, vs: torch.Tensor, out: torch.Tensor) -> None:
    m, n = f.shape
    if m == 0 or n == 0:
        return
    f, vr, vs = (t if t.stride(1) == 1 else t.contiguous() for t in (f, vr, vs))
    for r0 in range(0, m, 65535):  # grid.y is limited to 65535 blocks
        rows = slice(r0, min(m, r0 + 65535))
        doppler_kernel(f[rows], vr[rows], vs[rows], out[rows], rows.stop - rows.start, n, f.stride(0), vr.stride(0),
                       vs.stride(0), out.stride(0), C_SOUND)


def reference(f: torch.Tensor, vr: torch.Tensor, vs: torch.Tensor) -> torch.Tensor:
    return f * (C_SOUND + vr) / (C_SOUND - vs)


spec = kcheck.Spec(
    name="cuda_doppler_shift",
    kernel=doppler_shift,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="f_source"), kcheck.Tensor("M", "N", name="v_receiver"),
            kcheck.Tensor("M", "N", name="v_source")],
    outputs=[kcheck.Tensor("M", "N", name="f_observed")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=1000, real=(), large=False)},
    dtypes=["fp32"],
)
