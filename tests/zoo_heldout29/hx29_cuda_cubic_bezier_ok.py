"""CUDA C evaluation of cubic Bezier curves (vector graphics, animation paths): for control points P0..P3 of each
2-D curve and a parameter t in [0, 1], B(t) = (1-t)^3 P0 + 3 (1-t)^2 t P1 + 3 (1-t) t^2 P2 + t^3 P3.

One thread per curve; the point is formed by de Casteljau's construction (three rounds of linear interpolation,
each a convex combination, so no cancellation for t in [0, 1]). Control points are read as 8 contiguous floats per
curve; launches cover at most 2**30 curves (a 32-bit count); size_t offsets."""

import torch

import kcheck

BUG_CLASS = None
CHUNK = 1 << 30

SOURCE = r"""
__device__ __forceinline__ float lerp(float a, float b, float t, float s) { return s * a + t * b; }

extern "C" __global__ void bezier3(const float* __restrict__ ctrl, const float* __restrict__ param,
                                   float* __restrict__ out, int n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    const float t = param[i], s = 1.0f - t;
    const float* c = ctrl + 8 * i;
    for (int d = 0; d < 2; ++d) {
        const float p0 = c[d], p1 = c[2 + d], p2 = c[4 + d], p3 = c[6 + d];
        const float a = lerp(p0, p1, t, s), b = lerp(p1, p2, t, s), e = lerp(p2, p3, t, s);
        const float f = lerp(a, b, t, s), g = lerp(b, e, t, s);
        out[2 * i + d] = lerp(f, g, t, s);
    }
}
"""

bezier_kernel = kcheck.CudaKernel(SOURCE, "bezier3", grid=lambda c, t, o, n: ((n + 255) // 256,), block=(256,))


def cubic_bezier(ctrl: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    ctrl, t = ctrl.contiguous(), t.contiguous()
    n = t.numel()
    out = torch.empty((n, 2), dtype=ctrl.dtype, device=ctrl.device)
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        bezier_kernel(ctrl[start:stop], t[start:stop], out[start:stop], stop - start)
    return out


def reference(ctrl: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    t = t[:, None]
    s = 1.0 - t
    return (s ** 3 * ctrl[:, 0] + 3 * s * s * t * ctrl[:, 1] + 3 * s * t * t * ctrl[:, 2] + t ** 3 * ctrl[:, 3])


def curve_params(ctx: kcheck.CaseContext) -> torch.Tensor:
    """The parameter of each curve's point, uniform in [0, 1)."""
    return ctx.rand(ctx.dims["N"], dtype=torch.float32).to(ctx.dtype)


spec = kcheck.Spec(
    name="cuda_cubic_bezier_ok",
    kernel=cubic_bezier,
    reference=reference,
    inputs=[kcheck.Tensor("N", 4, 2, name="ctrl"), kcheck.Custom(curve_params, name="t", dims=("N",))],
    dims={"N": kcheck.Dim(nominal=3000)},
    dtypes=["fp32"],
)
