"""Right Cauchy-Green deformation tensor of a batch of deformation gradients (continuum mechanics, finite strain):

    C = F^T F,    C[i, j] = sum_k F[k, i] * F[k, j]

F is [P, 3, 3] (one 3x3 deformation gradient per material point, F[k, i] = d x_k / d X_i), C the same shape.
Each program loads BLOCK_P gradients as a [BLOCK_P, 4, 4] tile (rows and columns padded from 3 to 4, masked)
through the three strides, forms the products with 3-D broadcasting and reduces over k; fp32 arithmetic, int64
offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def cauchy_green_kernel(f_ptr, c_ptr, P, s_fp, s_fr, s_fc, s_cp, s_cr, s_cc, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    p = pid * BLOCK_P + tl.arange(0, BLOCK_P).to(tl.int64)
    r = tl.arange(0, 4).to(tl.int64)
    c = tl.arange(0, 4).to(tl.int64)
    p3 = p[:, None, None]
    r3 = r[None, :, None]
    c3 = c[None, None, :]
    mask = (p3 < P) & (r3 < 3) & (c3 < 3)
    f = tl.load(f_ptr + p3 * s_fp + r3 * s_fc + c3 * s_fr, mask=mask, other=0.0).to(tl.float32)  # f[p, k, i]
    # C[p, i, j] = sum_k F[p, k, i] * F[p, k, j]: expand to [BLOCK_P, k, i, j] and reduce over k
    prod = f[:, :, :, None] * f[:, :, None, :]
    cg = tl.sum(prod, axis=1)
    tl.store(c_ptr + p3 * s_cp + r3 * s_cr + c3 * s_cc, cg.to(c_ptr.dtype.element_ty), mask=mask)


def right_cauchy_green(F: torch.Tensor, BLOCK_P: int = 64) -> torch.Tensor:
    P = F.shape[0]
    C = torch.empty((P, 3, 3), dtype=F.dtype, device=F.device)
    if P:
        cauchy_green_kernel[(triton.cdiv(P, BLOCK_P),)](
            F, C, P, F.stride(0), F.stride(1), F.stride(2), C.stride(0), C.stride(1), C.stride(2), BLOCK_P=BLOCK_P)
    return C


def reference(F: torch.Tensor) -> torch.Tensor:
    return F.transpose(-1, -2) @ F


spec = kcheck.Spec(
    name="right_cauchy_green",
    kernel=right_cauchy_green,
    reference=reference,
    inputs=[kcheck.Tensor("P", 3, 3, name="deformation_gradient")],
    dims={"P": kcheck.Dim(nominal=500)},
    configs=[{"BLOCK_P": 64}, {"BLOCK_P": 16}],
)
