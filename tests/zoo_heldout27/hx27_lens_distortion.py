"""Brown-Conrady lens distortion (camera models, robotics / AR): normalized image points [N, 2] are mapped
through radial (k1, k2) and tangential (p1, p2) distortion:

r2 = x^2 + y^2,  radial = 1 + k1 r2 + k2 r2^2
x_d = x radial + 2 p1 x y + p2 (r2 + 2 x^2),  y_d = y radial + p1 (r2 + 2 y^2) + 2 p2 x y

The output buffer is given by the caller. The kernel computes in fp32 into an fp32 scratch buffer, which the
launcher then copies (with the cast) into the output.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'no-op'


@triton.jit
def distort_kernel(pts_ptr, res_ptr, n, k1, k2, p1, p2, s_pn, s_pc, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(pts_ptr + offs * s_pn, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(pts_ptr + offs * s_pn + s_pc, mask=mask, other=0.0).to(tl.float32)
    r2 = x * x + y * y
    radial = 1.0 + r2 * (k1 + k2 * r2)
    xy = x * y
    xd = x * radial + 2.0 * p1 * xy + p2 * (r2 + 2.0 * x * x)
    yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * xy
    tl.store(res_ptr + offs * 2, xd, mask=mask)
    tl.store(res_ptr + offs * 2 + 1, yd, mask=mask)


def lens_distortion(pts: torch.Tensor, k1: float, k2: float, p1: float, p2: float, out: torch.Tensor,
                    BLOCK: int = 512) -> None:
    n = pts.shape[0]
    if n == 0:
        return
    res = torch.empty((n, 2), dtype=torch.float32, device=pts.device)
    distort_kernel[(triton.cdiv(n, BLOCK),)](pts, res, n, k1, k2, p1, p2, pts.stride(0), pts.stride(1),
                                             BLOCK=BLOCK)


def reference(pts, k1, k2, p1, p2):
    x, y = pts.unbind(-1)
    r2 = x * x + y * y
    radial = 1.0 + k1 * r2 + k2 * r2 * r2
    xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
    yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
    return torch.stack([xd, yd], dim=-1)


spec = kcheck.Spec(
    name="hx27_lens_distortion",
    kernel=lens_distortion,
    reference=reference,
    inputs=[kcheck.Tensor("N", 2, name="points"), kcheck.Scalar(-0.28, name="k1"), kcheck.Scalar(0.07, name="k2"),
            kcheck.Scalar(1.5e-3, name="p1"), kcheck.Scalar(-8e-4, name="p2")],
    outputs=[kcheck.Tensor("N", 2)],
    dims={"N": kcheck.Dim(nominal=4096, real=())},
    configs=[{"BLOCK": 512}, {"BLOCK": 64}],
)
