"""Kronecker product of two matrices, out = A (x) B for A [P, Q] and B [R, S]:
out[i * R + k, j * S + l] = A[i, j] * B[k, l], an [P*R, Q*S] matrix. Tiles of the output on a 1-D grid; each
element gathers its factor of A and of B. Any strides; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "index-transposition"


@triton.jit
def kron_kernel(a_ptr, b_ptr, out_ptr, PR, QS, R, S, sa0, sa1, sb0, sb1, so0, so1, n_col_tiles,
                BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    tr = pid // n_col_tiles
    tc = pid % n_col_tiles
    rows = tr * BLOCK_R + tl.arange(0, BLOCK_R).to(tl.int64)
    cols = tc * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    mask = (rows < PR)[:, None] & (cols < QS)[None, :]
    i = rows // R
    k = rows % R
    j = cols // S
    l = cols % S
    a = tl.load(a_ptr + j[None, :] * sa0 + i[:, None] * sa1, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + k[:, None] * sb0 + l[None, :] * sb1, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + rows[:, None] * so0 + cols[None, :] * so1, (a * b).to(out_ptr.dtype.element_ty), mask=mask)


def kron(a: torch.Tensor, b: torch.Tensor, BLOCK_R: int = 32, BLOCK_C: int = 64) -> torch.Tensor:
    P, Q = a.shape
    R, S = b.shape
    out = torch.empty((P * R, Q * S), dtype=a.dtype, device=a.device)
    if out.numel() == 0:
        return out
    n_col_tiles = triton.cdiv(Q * S, BLOCK_C)
    kron_kernel[(triton.cdiv(P * R, BLOCK_R) * n_col_tiles,)](
        a, b, out, P * R, Q * S, R, S, a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0), out.stride(1),
        n_col_tiles, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out


spec = kcheck.Spec(
    name="hx24_kron",
    kernel=kron,
    reference=torch.kron,
    inputs=[kcheck.Tensor("P", "Q"), kcheck.Tensor("R", "S")],
    dims={"P": kcheck.Dim(nominal=24, real=()), "Q": kcheck.Dim(nominal=40, real=()),
          "R": kcheck.Dim(nominal=6, max=8, real=()), "S": kcheck.Dim(nominal=3, max=4, real=())},
    configs=[{"BLOCK_R": 32, "BLOCK_C": 64}, {"BLOCK_R": 16, "BLOCK_C": 16}],
    properties=[kcheck.props.linear(0), kcheck.props.linear(1)],
)
