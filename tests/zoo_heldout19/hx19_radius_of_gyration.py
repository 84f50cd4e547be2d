"""Radius of gyration of each conformation in a batch of molecular coordinates (equal masses):

    c = mean_p r_p,   Rg = sqrt(mean_p |r_p - c|^2)

coords is [B, P, 3] (any strides), Rg is [B]. One program per conformation: a first pass over the atoms computes the
centroid, a second pass the mean squared distance to it (fp32, BLOCK atoms at a time)."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def gyration_kernel(r_ptr, out_ptr, P, srb, srp, src, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    base = r_ptr + b * srb
    sx = tl.zeros([BLOCK], dtype=tl.float32)
    sy = tl.zeros([BLOCK], dtype=tl.float32)
    sz = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, P, BLOCK):
        p = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = p < P
        sx += tl.load(base + p * srp, mask=mask, other=0.0).to(tl.float32)
        sy += tl.load(base + p * srp + src, mask=mask, other=0.0).to(tl.float32)
        sz += tl.load(base + p * srp + 2 * src, mask=mask, other=0.0).to(tl.float32)
    cx = tl.sum(sx, axis=0) / P
    cy = tl.sum(sy, axis=0) / P
    cz = tl.sum(sz, axis=0) / P
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, P, BLOCK):
        p = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = p < P
        x = tl.load(base + p * srp, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(base + p * srp + src, mask=mask, other=0.0).to(tl.float32)
        z = tl.load(base + p * srp + 2 * src, mask=mask, other=0.0).to(tl.float32)
        acc += x * x + y * y + z * z
    rg = tl.sqrt(tl.sum(acc, axis=0) / P - (cx * cx + cy * cy + cz * cz))
    tl.store(out_ptr + b, rg.to(out_ptr.dtype.element_ty))


def radius_of_gyration(coords: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    B, P, _ = coords.shape
    out = torch.empty((B,), dtype=coords.dtype, device=coords.device)
    if B == 0:
        return out
    if P == 0:
        return out.zero_()
    gyration_kernel[(B,)](coords, out, P, *coords.stride(), BLOCK=BLOCK)
    return out


def reference(coords: torch.Tensor) -> torch.Tensor:
    if coords.shape[1] == 0:
        return coords.new_zeros(coords.shape[0])
    centred = coords - coords.mean(dim=1, keepdim=True)
    return centred.pow(2).sum(-1).mean(-1).sqrt()


spec = kcheck.Spec(
    name="hx19_radius_of_gyration",
    kernel=radius_of_gyration,
    reference=reference,
    inputs=[kcheck.Tensor("B", "P", 3, name="coords")],
    dims={"B": kcheck.Dim(nominal=16), "P": kcheck.Dim(nominal=700)},
    reduce=["P"],
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
