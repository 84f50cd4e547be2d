"""CUDA C evaluation of a uniform cubic B-spline function on [0, 1] from its K >= 4 control values, as motion and
tone-curve editors store them: the parameter is clamped to [0, 1] (constant extension past the ends), the knot span
is s = floor(t (K - 3)) (the last span holds t = 1), and with u = t (K - 3) - s::

    f(t) = c[s] B0(u) + c[s+1] B1(u) + c[s+2] B2(u) + c[s+3] B3(u)
    B0 = (1 - u)^3 / 6,  B1 = (3u^3 - 6u^2 + 4) / 6,  B2 = (-3u^3 + 3u^2 + 3u + 1) / 6,  B3 = u^3 / 6

The span position t (K - 3) is rounded once (__fmul_rn, never fused into the subtraction), so the span and u are
those of an fp32 computation, which the reference repeats. One thread per parameter. Runs on a GPU through CuPy;
without one kcheck compiles it for sm_90 and skips its cases."""

import torch

import kcheck

BUG_CLASS = "kernel-crash"

SOURCE = r"""
extern "C" __global__ void bspline_eval(const float* __restrict__ t, const float* __restrict__ c,
                                        float* __restrict__ out, int n, int k) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    const int spans = k - 3;
    float tc = t[i];
    const float x = __fmul_rn(tc, (float)spans);
    int s = (int)floorf(x);
    if (s > spans - 1) s = spans - 1;
    const float u = x - (float)s;
    const float u2 = u * u, u3 = u2 * u;
    const float b0 = (1.0f - u) * (1.0f - u) * (1.0f - u) / 6.0f;
    const float b1 = (3.0f * u3 - 6.0f * u2 + 4.0f) / 6.0f;
    const float b2 = (-3.0f * u3 + 3.0f * u2 + 3.0f * u + 1.0f) / 6.0f;
    const float b3 = u3 / 6.0f;
    const float* cs = c + s;
    out[i] = cs[0] * b0 + cs[1] * b1 + cs[2] * b2 + cs[3] * b3;
}
"""

bspline_kernel = kcheck.CudaKernel(SOURCE, "bspline_eval", grid=lambda t, c, o, n, k: ((n + 255) // 256,),
                                   block=(256,))


def bspline_curve(t: torch.Tensor, ctrl: torch.Tensor, out: torch.Tensor) -> None:
    n, k = t.shape[0], ctrl.shape[0]
    if n:
        bspline_kernel(t.contiguous(), ctrl.contiguous(), out, n, k)


def reference(t: torch.Tensor, ctrl: torch.Tensor) -> torch.Tensor:
    spans = ctrl.shape[0] - 3
    tc = torch.fmin(torch.fmax(t.float(), torch.tensor(0.0, device=t.device)), torch.tensor(1.0, device=t.device))
    x = tc * float(spans)  # fp32, as the kernel rounds it
    s = torch.floor(x).clamp(max=spans - 1)
    u = (x - s).double()
    s = s.long()
    basis = torch.stack(((1 - u) ** 3 / 6, (3 * u**3 - 6 * u**2 + 4) / 6, (-3 * u**3 + 3 * u**2 + 3 * u + 1) / 6,
                         u**3 / 6), dim=-1)
    idx = s[:, None] + torch.arange(4, device=t.device)[None, :]
    return (ctrl[idx] * basis.to(ctrl.dtype)).sum(-1)


spec = kcheck.Spec(
    name="cuda_bspline_curve",
    kernel=bspline_curve,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="t"), kcheck.Tensor("K", name="control")],
    outputs=[kcheck.Tensor("N")],
    dims={"N": kcheck.Dim(nominal=4096), "K": kcheck.Dim(nominal=32, min=4, max=512, real=())},
    dtypes=["fp32"],
)
