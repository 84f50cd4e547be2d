"""Calorimeter tower energies (particle physics): H energy deposits (hits), each with the index of the tower it
fell in, are summed per tower:

    E[t] = sum over hits h with tower[h] == t of e[h]

A scatter-add: each program takes BLOCK hits and adds their energies into the fp32 tower array with atomics (many
hits share a tower, within a program and across programs). The tower array is zeroed first; fp32 in and out.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "missing-atomic"


@triton.jit
def tower_energy_kernel(e_ptr, idx_ptr, out_ptr, H, stride_e, stride_i, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < H
    e = tl.load(e_ptr + offs * stride_e, mask=mask, other=0.0)
    tower = tl.load(idx_ptr + offs * stride_i, mask=mask, other=0)
    tl.store(out_ptr + tower, tl.load(out_ptr + tower, mask=mask, other=0.0) + e, mask=mask)


def tower_energy(e: torch.Tensor, tower: torch.Tensor, towers: int, BLOCK: int = 512) -> torch.Tensor:
    out = torch.zeros((towers,), dtype=torch.float32, device=e.device)
    H = e.shape[0]
    if H == 0 or towers == 0:
        return out
    tower_energy_kernel[(triton.cdiv(H, BLOCK),)](e, tower, out, H, e.stride(0), tower.stride(0), BLOCK=BLOCK)
    return out


def reference(e: torch.Tensor, tower: torch.Tensor, towers: int) -> torch.Tensor:
    return torch.zeros((towers,), dtype=e.dtype, device=e.device).index_add_(0, tower, e)


spec = kcheck.Spec(
    name="hx38_calorimeter_tower_energy",
    kernel=tower_energy,
    reference=reference,
    inputs=[kcheck.Tensor("H", name="energy"), kcheck.Index("H", high="T", name="tower"),
            kcheck.Scalar(lambda d: d["T"], name="towers")],
    dims={"H": kcheck.Dim(nominal=4096), "T": kcheck.Dim(nominal=64)},
    dtypes=["fp32"],
    output_shapes=[("T",)],
    configs=[{"BLOCK": 512}, {"BLOCK": 64}],
    properties=[kcheck.props.linear(0)],
)
