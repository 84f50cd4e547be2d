"""CIE XYZ to CIE L*a*b* (D65 white point), one colour per row of a [N, 3] tensor:

    f(t) = t^(1/3)                 for t > (6/29)^3
         = t / (3 (6/29)^2) + 4/29  otherwise
    L* = 116 f(Y / Yn) - 16,   a* = 500 (f(X / Xn) - f(Y / Yn)),   b* = 200 (f(Y / Yn) - f(Z / Zn))

The cube root is exp2(log2(t) / 3), taken only where t is above the threshold. One program per BLOCK colours, the
three components loaded with the row and component strides, fp32 arithmetic; element offsets are int64 (N * 3 may
pass 2**31).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"

WHITE = (0.95047, 1.0, 1.08883)  # D65, 2-degree observer
DELTA = 6.0 / 29.0


@triton.jit
def _lab_f(t):
    cube = tl.exp2(tl.log2(tl.where(t > 0.008856451679035631, t, 1.0)) * (1.0 / 3.0))
    return tl.where(t > 0.008856451679035631, cube, t * 7.787037037037037 + 0.13793103448275862)


@triton.jit
def xyz_to_lab_kernel(xyz_ptr, lab_ptr, N, xn, yn, zn, s_in, s_ic, s_on, s_oc, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # a colour index, below N < 2**31
    ok = rows < N
    src = xyz_ptr + (rows * s_in).to(tl.int64)
    x = tl.load(src, mask=ok, other=0.0).to(tl.float32)
    y = tl.load(src + s_ic, mask=ok, other=0.0).to(tl.float32)
    z = tl.load(src + 2 * s_ic, mask=ok, other=0.0).to(tl.float32)
    fx = _lab_f(x / xn)
    fy = _lab_f(y / yn)
    fz = _lab_f(z / zn)
    dst = lab_ptr + rows.to(tl.int64) * s_on
    ty = lab_ptr.dtype.element_ty
    tl.store(dst, (116.0 * fy - 16.0).to(ty), mask=ok)
    tl.store(dst + s_oc, (500.0 * (fx - fy)).to(ty), mask=ok)
    tl.store(dst + 2 * s_oc, (200.0 * (fy - fz)).to(ty), mask=ok)


def xyz_to_lab(xyz: torch.Tensor, BLOCK: int = 1024) -> torch.Tensor:
    N = xyz.shape[0]
    lab = torch.empty((N, 3), dtype=xyz.dtype, device=xyz.device)
    if N == 0:
        return lab
    xyz_to_lab_kernel[(triton.cdiv(N, BLOCK),)](xyz, lab, N, *WHITE, xyz.stride(0), xyz.stride(1),
                                                lab.stride(0), lab.stride(1), BLOCK=BLOCK)
    return lab


def reference(xyz: torch.Tensor) -> torch.Tensor:
    t = xyz / torch.tensor(WHITE, dtype=xyz.dtype, device=xyz.device)
    f = torch.where(t > DELTA ** 3, t.clamp(min=DELTA ** 3).pow(1.0 / 3.0), t / (3 * DELTA ** 2) + 4.0 / 29.0)
    fx, fy, fz = f.unbind(-1)
    return torch.stack((116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)), dim=-1)


spec = kcheck.Spec(
    name="hx26_xyz_to_lab",
    kernel=xyz_to_lab,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, name="xyz")],
    dims={"N": kcheck.Dim(nominal=3000)},
    configs=[{"BLOCK": 1024}, {"BLOCK": 128}],
)
