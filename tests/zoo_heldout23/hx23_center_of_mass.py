"""Mass-weighted center of each molecule of a batch: com[b] = sum_a m[b, a] * r[b, a, :] / sum_a m[b, a], for
positions r [B, A, 3] (any strides) and positive masses m [B, A].

The 1-D grid enumerates (molecule, atom chunk) pairs; each program sums m*x, m*y, m*z and m over its BLOCK_A
atoms in fp32 and adds the four partial sums with tl.atomic_add into a zero-filled fp32 buffer acc [B, 4]; the
launcher then divides. Offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def com_partial_kernel(r_ptr, m_ptr, acc_ptr, A, chunks, srb, sra, src, smb, sma, BLOCK_A: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    b = pid // chunks
    c = pid % chunks
    atoms = c * BLOCK_A + tl.arange(0, BLOCK_A).to(tl.int64)
    mask = atoms < A
    m = tl.load(m_ptr + b * smb + atoms * sma, mask=mask, other=0.0).to(tl.float32)
    base = r_ptr + b * srb + atoms * sra
    rx = tl.load(base, mask=mask, other=0.0).to(tl.float32)
    ry = tl.load(base + src, mask=mask, other=0.0).to(tl.float32)
    rz = tl.load(base + 2 * src, mask=mask, other=0.0).to(tl.float32)
    out = acc_ptr + b * 4
    tl.atomic_add(out, tl.sum(tl.where(mask, m * rx, 0.0), axis=0))
    tl.atomic_add(out + 1, tl.sum(tl.where(mask, m * ry, 0.0), axis=0))
    tl.atomic_add(out + 2, tl.sum(tl.where(mask, m * rz, 0.0), axis=0))
    tl.atomic_add(out + 3, tl.sum(m, axis=0))


def center_of_mass(r: torch.Tensor, m: torch.Tensor, BLOCK_A: int = 128) -> torch.Tensor:
    B, A, _ = r.shape
    acc = torch.empty((B, 4), dtype=torch.float32, device=r.device)
    if B and A:
        chunks = triton.cdiv(A, BLOCK_A)
        com_partial_kernel[(B * chunks,)](r, m, acc, A, chunks, r.stride(0), r.stride(1), r.stride(2),
                                          m.stride(0), m.stride(1), BLOCK_A=BLOCK_A)
    return (acc[:, :3] / acc[:, 3:]).to(r.dtype)


def masses(ctx: kcheck.CaseContext) -> torch.Tensor:
    B, A = ctx.dims["B"], ctx.dims["A"]
    return (ctx.rand(B, A, dtype=torch.float32) * 15.0 + 1.0).to(ctx.dtype)


def reference(r: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    return (m[:, :, None] * r).sum(1) / m.sum(1)[:, None]


BUG_CLASS = "uninitialized-accumulator"

spec = kcheck.Spec(
    name="hx23_center_of_mass",
    kernel=center_of_mass,
    reference=reference,
    inputs=[kcheck.Tensor("B", "A", 3, name="positions"), kcheck.Custom(masses, name="masses", dims=("B", "A"))],
    dims={"B": kcheck.Dim(nominal=32, real=()), "A": kcheck.Dim(nominal=300, min=1, real=(37, 2880))},
    reduce=["A"],
    configs=[{"BLOCK_A": 128}, {"BLOCK_A": 64}],
)
