"""Alpha compositing ("over") of a foreground on a background, grayscale planes [H, W], in CUDA C:

    out = a * fg + (1 - a) * bg,      a = clamp(alpha, 0, 1)

A 2-D grid of 32x8 thread blocks, one pixel per thread; every operand read through its row stride (unit column
stride), the output contiguous. fp32, size_t offsets.
"""

import torch

import kcheck

BUG_CLASS = None

SOURCE = r"""
extern "C" __global__ void alpha_over(const float* __restrict__ fg, const float* __restrict__ bg,
                                      const float* __restrict__ alpha, float* __restrict__ out, int H, int W,
                                      long long s_fg, long long s_bg, long long s_a) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float a = alpha[(size_t)y * (size_t)s_a + x];
    a = a < 0.0f ? 0.0f : (a > 1.0f ? 1.0f : a);
    const float f = fg[(size_t)y * (size_t)s_fg + x];
    const float b = bg[(size_t)y * (size_t)s_bg + x];
    out[(size_t)y * (size_t)W + x] = a * f + (1.0f - a) * b;
}
"""

blend_kernel = kcheck.CudaKernel(SOURCE, "alpha_over",
                                 grid=lambda fg, bg, a, o, H, W, s1, s2, s3: ((W + 31) // 32, (H + 7) // 8),
                                 block=(32, 8))


def _rows(t):
    return t if t.stride(1) == 1 else t.contiguous()


def alpha_over(fg, bg, alpha):
    H, W = fg.shape
    out = torch.empty((H, W), dtype=torch.float32, device=fg.device)
    if H == 0 or W == 0:
        return out
    fg, bg, alpha = _rows(fg), _rows(bg), _rows(alpha)
    blend_kernel(fg, bg, alpha, out, H, W, fg.stride(0), bg.stride(0), alpha.stride(0))
    return out


def reference(fg, bg, alpha):
    a = alpha.clamp(0.0, 1.0)
    return a * fg + (1.0 - a) * bg


spec = kcheck.Spec(
    name="hx15_cuda_alpha_blend_ok",
    kernel=alpha_over,
    reference=reference,
    inputs=[kcheck.Tensor("H", "W", name="fg"), kcheck.Tensor("H", "W", name="bg"),
            kcheck.Tensor("H", "W", name="alpha")],
    dims={"H": kcheck.Dim(nominal=96, real=(720,), large=False), "W": kcheck.Dim(nominal=128, real=(1280,))},
    dtypes=["fp32"],
)
