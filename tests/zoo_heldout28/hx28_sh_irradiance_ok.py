"""Diffuse irradiance from order-2 spherical-harmonic lighting (Ramamoorthi and Hanrahan, "An Efficient
Representation for Irradiance Environment Maps", eq. 13), per pixel normal and colour channel:

    E(n) = c1 L22 (x^2 - y^2) + c3 L20 z^2 + c4 L00 - c5 L20
           + 2 c1 (L2-2 xy + L21 xz + L2-1 yz) + 2 c2 (L11 x + L1-1 y + L10 z)

    c1 = 0.429043, c2 = 0.511664, c3 = 0.743125, c4 = 0.886227, c5 = 0.247708

n = (x, y, z) is [P, 3]; the nine lighting coefficients per channel are [9, 3] in the order L00, L1-1, L10, L11,
L2-2, L2-1, L20, L21, L22. Each program evaluates BLOCK_P normals for the three channels; fp32 arithmetic, strides
honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None

C1, C2, C3, C4, C5 = 0.429043, 0.511664, 0.743125, 0.886227, 0.247708


@triton.jit
def sh_irradiance_kernel(n_ptr, l_ptr, e_ptr, P, s_np, s_nc, s_lk, s_lc, s_ep, s_ec, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    p = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    mask = p < P
    x = tl.load(n_ptr + p * s_np, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(n_ptr + p * s_np + s_nc, mask=mask, other=0.0).to(tl.float32)
    z = tl.load(n_ptr + p * s_np + 2 * s_nc, mask=mask, other=0.0).to(tl.float32)
    for ch in tl.static_range(3):
        lc = l_ptr + ch * s_lc
        l00 = tl.load(lc).to(tl.float32)
        l1m1 = tl.load(lc + s_lk).to(tl.float32)
        l10 = tl.load(lc + 2 * s_lk).to(tl.float32)
        l11 = tl.load(lc + 3 * s_lk).to(tl.float32)
        l2m2 = tl.load(lc + 4 * s_lk).to(tl.float32)
        l2m1 = tl.load(lc + 5 * s_lk).to(tl.float32)
        l20 = tl.load(lc + 6 * s_lk).to(tl.float32)
        l21 = tl.load(lc + 7 * s_lk).to(tl.float32)
        l22 = tl.load(lc + 8 * s_lk).to(tl.float32)
        e = (0.429043 * l22 * (x * x - y * y) + 0.743125 * l20 * z * z + 0.886227 * l00 - 0.247708 * l20
             + 2.0 * 0.429043 * (l2m2 * x * y + l21 * x * z + l2m1 * y * z)
             + 2.0 * 0.511664 * (l11 * x + l1m1 * y + l10 * z))
        tl.store(e_ptr + p * s_ep + ch * s_ec, e.to(e_ptr.dtype.element_ty), mask=mask)


def sh_irradiance(normals: torch.Tensor, sh: torch.Tensor, BLOCK_P: int = 256) -> torch.Tensor:
    P = normals.shape[0]
    e = torch.empty((P, 3), dtype=normals.dtype, device=normals.device)
    if P:
        sh_irradiance_kernel[(triton.cdiv(P, BLOCK_P),)](normals, sh, e, P, normals.stride(0), normals.stride(1),
                                                         sh.stride(0), sh.stride(1), e.stride(0), e.stride(1),
                                                         BLOCK_P=BLOCK_P)
    return e


def reference(normals: torch.Tensor, sh: torch.Tensor) -> torch.Tensor:
    x, y, z = (normals[:, i:i + 1] for i in range(3))
    L00, L1m1, L10, L11, L2m2, L2m1, L20, L21, L22 = (sh[k][None, :] for k in range(9))
    return (C1 * L22 * (x * x - y * y) + C3 * L20 * z * z + C4 * L00 - C5 * L20
            + 2 * C1 * (L2m2 * x * y + L21 * x * z + L2m1 * y * z)
            + 2 * C2 * (L11 * x + L1m1 * y + L10 * z))


spec = kcheck.Spec(
    name="sh_irradiance",
    kernel=sh_irradiance,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="normals"), kcheck.Tensor(9, 3, pattern="randn", name="sh_coefficients")],
    dims={"P": kcheck.Dim(nominal=3000)},
    configs=[{"BLOCK_P": 256}, {"BLOCK_P": 64}],
)
