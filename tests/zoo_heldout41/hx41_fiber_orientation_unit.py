"""Unit fibre orientations from diffusion-MRI principal eigenvectors (neuroscience tractography): each voxel's
vector v [3] is scaled to unit length; a voxel with no fibre (v = 0, masked out of the tensor fit) gets 0.

v is an [M, 3] tensor of any strides. Each program takes BLOCK_M voxels as a [BLOCK_M, 4] tile (the 4th lane
masked). The vector is first divided by its largest magnitude component, so that subnormal and huge components
neither underflow nor overflow in the squares. fp32 math.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def unit_vectors_kernel(v_ptr, u_ptr, M, s_vm, s_vk, s_um, s_uk, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    ks = tl.arange(0, 4).to(tl.int64)
    mask = (rows[:, None] < M) & (ks[None, :] < 3)
    v = tl.load(v_ptr + rows[:, None] * s_vm + ks[None, :] * s_vk, mask=mask, other=0.0).to(tl.float32)
    big = tl.max(tl.abs(v), axis=1)
    safe = tl.where(big > 0.0, big, 1.0)
    w = v / safe[:, None]
    norm = tl.sqrt(tl.sum(w * w, axis=1))
    u = w / norm[:, None]
    tl.store(u_ptr + rows[:, None] * s_um + ks[None, :] * s_uk, u.to(u_ptr.dtype.element_ty), mask=mask)


def fiber_orientation_unit(v, BLOCK_M=64):
    M = v.shape[0]
    u = torch.empty((M, 3), dtype=v.dtype, device=v.device)
    if M == 0:
        return u
    unit_vectors_kernel[(triton.cdiv(M, BLOCK_M),)](v, u, M, v.stride(0), v.stride(1), u.stride(0), u.stride(1),
                                                    BLOCK_M=BLOCK_M)
    return u


def reference(v):
    big = v.abs().amax(dim=-1, keepdim=True)
    w = v / torch.where(big > 0, big, 1.0)
    u = w / torch.linalg.vector_norm(w, dim=-1, keepdim=True)
    return torch.where(big == 0, 0.0, u)


spec = kcheck.Spec(
    name="fiber_orientation_unit",
    kernel=fiber_orientation_unit,
    reference=reference,
    inputs=[kcheck.Tensor("M", 3, name="v")],
    dims={"M": kcheck.Dim(nominal=1000)},
    configs=[{"BLOCK_M": 64}, {"BLOCK_M": 16}],
)
