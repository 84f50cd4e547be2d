"""Push-forward of material line elements (continuum mechanics): v[n] = F[n] @ V[n], the deformation gradient
F = dx/dX of each material point (a general, non-symmetric 3x3 matrix) mapping a reference-configuration vector V to
its current configuration.

Each program takes BLOCK points and loads their matrices as a [BLOCK, 4, 4] tile (row i, column j, padded from 3),
so that v_i = sum_j F_ij V_j is one reduction over the column axis. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def push_forward_kernel(f_ptr, v_ptr, out_ptr, N, s_fn, s_fr, s_fc, s_vn, s_vc, s_on, s_oc, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    pts = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    ij = tl.arange(0, 4).to(tl.int64)
    p_mask = pts < N
    c_mask = ij < 3
    i = ij[None, :, None]
    j = ij[None, None, :]
    f_mask = p_mask[:, None, None] & c_mask[None, :, None] & c_mask[None, None, :]
    f = tl.load(f_ptr + pts[:, None, None] * s_fn + i * s_fc + j * s_fr, mask=f_mask, other=0.0).to(tl.float32)
    v_mask = p_mask[:, None] & c_mask[None, :]
    v = tl.load(v_ptr + pts[:, None] * s_vn + ij[None, :] * s_vc, mask=v_mask, other=0.0).to(tl.float32)
    out = tl.sum(f * v[:, None, :], axis=2)
    tl.store(out_ptr + pts[:, None] * s_on + ij[None, :] * s_oc, out.to(out_ptr.dtype.element_ty), mask=v_mask)


def push_forward(F: torch.Tensor, V: torch.Tensor, BLOCK: int = 64) -> torch.Tensor:
    N = F.shape[0]
    out = torch.empty((N, 3), dtype=V.dtype, device=V.device)
    if N == 0:
        return out
    push_forward_kernel[(triton.cdiv(N, BLOCK),)](
        F, V, out, N, F.stride(0), F.stride(1), F.stride(2), V.stride(0), V.stride(1), out.stride(0), out.stride(1),
        BLOCK=BLOCK)
    return out


def reference(F: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    return torch.einsum("nij,nj->ni", F, V)


spec = kcheck.Spec(
    name="deformation_push_forward",
    kernel=push_forward,
    reference=reference,
    inputs=[kcheck.Tensor("N", 3, 3, name="F"), kcheck.Tensor("N", 3, name="V")],
    dims={"N": kcheck.Dim(nominal=1000)},
    configs=[{"BLOCK": 64}, {"BLOCK": 16}],
)
