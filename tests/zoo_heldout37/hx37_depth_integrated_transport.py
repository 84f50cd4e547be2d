"""Depth-integrated volume transport of an ocean section (physical oceanography): u is [Z, X], the velocity normal
to the section in Z layers at X stations, and dz [Z] the layer thicknesses; the transport per unit width at each
station is

    transport[x] = sum_z u[z, x] dz[z]

A column reduction split along depth: the grid is (station tiles) x (depth splits); each program sums its slab of
layers for BLOCK_X stations in fp32 and adds the partial sum into an fp32 buffer with tl.atomic_add (several depth
splits share each station), then the buffer is returned in u's dtype. Splitting keeps deep sections from being
summed by a few long programs. int64 offsets, any strides.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"

MAX_SPLITS = 8


@triton.jit
def transport_kernel(u_ptr, dz_ptr, acc_ptr, Z, X, Z_PER_SPLIT, s_uz, s_ux, s_dz,
                     BLOCK_Z: tl.constexpr, BLOCK_X: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    split = tl.program_id(1).to(tl.int64)
    cols = pid * BLOCK_X + tl.arange(0, BLOCK_X).to(tl.int64)
    col_mask = cols < X
    z_lo = split * Z_PER_SPLIT
    z_hi = tl.minimum(z_lo + Z_PER_SPLIT, Z)
    acc = tl.zeros([BLOCK_Z, BLOCK_X], dtype=tl.float32)
    for z0 in range(z_lo, z_hi, BLOCK_Z):
        zs = z0 + tl.arange(0, BLOCK_Z).to(tl.int64)
        z_mask = zs < z_hi
        mask = z_mask[:, None] & col_mask[None, :]
        u = tl.load(u_ptr + zs[:, None] * s_uz + cols[None, :] * s_ux, mask=mask, other=0.0).to(tl.float32)
        dz = tl.load(dz_ptr + zs * s_dz, mask=z_mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, u * dz[:, None], 0.0)
    part = tl.sum(acc, axis=0)
    tl.store(acc_ptr + cols, tl.load(acc_ptr + cols, mask=col_mask, other=0.0) + part, mask=col_mask)


def depth_integrated_transport(u: torch.Tensor, dz: torch.Tensor, BLOCK_Z: int = 16,
                               BLOCK_X: int = 64) -> torch.Tensor:
    Z, X = u.shape
    acc = torch.zeros((X,), dtype=torch.float32, device=u.device)
    if X == 0 or Z == 0:
        return acc.to(u.dtype)
    steps = triton.cdiv(Z, BLOCK_Z)
    splits = min(MAX_SPLITS, steps)
    z_per_split = triton.cdiv(steps, splits) * BLOCK_Z
    grid = (triton.cdiv(X, BLOCK_X), triton.cdiv(Z, z_per_split))
    transport_kernel[grid](u, dz, acc, Z, X, z_per_split, u.stride(0), u.stride(1), dz.stride(0),
                           BLOCK_Z=BLOCK_Z, BLOCK_X=BLOCK_X)
    return acc.to(u.dtype)


def reference(u: torch.Tensor, dz: torch.Tensor) -> torch.Tensor:
    return (u * dz[:, None]).sum(0)


spec = kcheck.Spec(
    name="hx37_depth_integrated_transport",
    kernel=depth_integrated_transport,
    reference=reference,
    inputs=[kcheck.Tensor("Z", "X", name="u"), kcheck.Tensor("Z", name="dz")],
    dims={"Z": kcheck.Dim(nominal=400), "X": kcheck.Dim(nominal=150)},
    reduce=["Z"],
    configs=[{"BLOCK_Z": 16, "BLOCK_X": 64}, {"BLOCK_Z": 32, "BLOCK_X": 32}],
    properties=[kcheck.props.linear(0)],
)
