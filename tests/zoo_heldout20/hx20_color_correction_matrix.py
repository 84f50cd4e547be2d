"""Colour correction matrix: each RGB pixel is multiplied by a 3x3 matrix, out[p, i] = sum_j C[i, j] * rgb[p, j].

Pixels are (P, 3) with any strides, C is (3, 3) with any strides; each program handles BLOCK pixels, loads the
nine coefficients as scalars and computes in fp32.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def _coef(c_ptr, i: tl.constexpr, j: tl.constexpr, sci, scj):
    return tl.load(c_ptr + j * sci + i * scj).to(tl.float32)


@triton.jit
def ccm_kernel(x_ptr, c_ptr, out_ptr, P, sxp, sxc, sci, scj, sop, soc, BLOCK: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = p < P
    r = tl.load(x_ptr + p * sxp, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(x_ptr + p * sxp + sxc, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(x_ptr + p * sxp + 2 * sxc, mask=mask, other=0.0).to(tl.float32)
    ty = out_ptr.dtype.element_ty
    o0 = _coef(c_ptr, 0, 0, sci, scj) * r + _coef(c_ptr, 0, 1, sci, scj) * g + _coef(c_ptr, 0, 2, sci, scj) * b
    o1 = _coef(c_ptr, 1, 0, sci, scj) * r + _coef(c_ptr, 1, 1, sci, scj) * g + _coef(c_ptr, 1, 2, sci, scj) * b
    o2 = _coef(c_ptr, 2, 0, sci, scj) * r + _coef(c_ptr, 2, 1, sci, scj) * g + _coef(c_ptr, 2, 2, sci, scj) * b
    tl.store(out_ptr + p * sop, o0.to(ty), mask=mask)
    tl.store(out_ptr + p * sop + soc, o1.to(ty), mask=mask)
    tl.store(out_ptr + p * sop + 2 * soc, o2.to(ty), mask=mask)


def color_correction(rgb: torch.Tensor, ccm: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    P = rgb.shape[0]
    out = torch.empty((P, 3), dtype=rgb.dtype, device=rgb.device)
    if P:
        ccm_kernel[(triton.cdiv(P, BLOCK),)](rgb, ccm, out, P, rgb.stride(0), rgb.stride(1), ccm.stride(0),
                                             ccm.stride(1), out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


def reference(rgb: torch.Tensor, ccm: torch.Tensor) -> torch.Tensor:
    return rgb @ ccm.t()


spec = kcheck.Spec(
    name="color_correction_matrix",
    kernel=color_correction,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, name="rgb"), kcheck.Tensor(3, 3, pattern="randn", name="ccm")],
    dims={"P": kcheck.Dim(nominal=4096)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)

BUG_CLASS = "index-transposition"
