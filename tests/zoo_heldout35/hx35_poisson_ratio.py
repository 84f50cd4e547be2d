"""Poisson's ratio from biaxial strain-gauge readings of tensile specimens (materials testing).

nu[m, n] = -eps_lat[m, n] / eps_ax[m, n] for specimen m at load step n; at an unloaded step (axial strain exactly
0) the ratio is reported as 0. Elementwise over a 2-D grid of (specimen, step block) programs, fp32 arithmetic.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def poisson_ratio_kernel(lat_ptr, ax_ptr, out_ptr, N, s_lm, s_ln, s_am, s_an, s_om, s_on, BLOCK: tl.constexpr):
    m = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    lat = tl.load(lat_ptr + m * s_lm + cols * s_ln, mask=mask, other=0.0).to(tl.float32)
    ax = tl.load(ax_ptr + m * s_am + cols * s_an, mask=mask, other=1.0).to(tl.float32)
    nu = -lat / ax
    tl.store(out_ptr + m * s_om + cols * s_on, nu.to(out_ptr.dtype.element_ty), mask=mask)


def poisson_ratio(lateral, axial, BLOCK=256):
    M, N = axial.shape
    out = torch.empty_like(axial)
    if M == 0 or N == 0:
        return out
    poisson_ratio_kernel[(M, triton.cdiv(N, BLOCK))](lateral, axial, out, N, lateral.stride(0), lateral.stride(1),
                                                     axial.stride(0), axial.stride(1), out.stride(0), out.stride(1),
                                                     BLOCK=BLOCK)
    return out


def reference(lateral, axial):
    safe = torch.where(axial != 0, axial, torch.ones_like(axial))
    return torch.where(axial != 0, -lateral / safe, torch.zeros_like(axial))


spec = kcheck.Spec(
    name="hx35_poisson_ratio",
    kernel=poisson_ratio,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="lateral_strain"), kcheck.Tensor("M", "N", name="axial_strain")],
    dims={"M": kcheck.Dim(nominal=8), "N": kcheck.Dim(nominal=1200)},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
