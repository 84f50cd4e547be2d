"""Molecular dipole moment from partial charges: mu[m] = sum over atoms n of q[m, n] * r[m, n, :], one molecule
per row (atoms padded to a common count carry charge 0).

Each program takes BLOCK_M molecules and walks their atoms in chunks of BLOCK_N, accumulating the three
components in fp32; the moment is stored in the input dtype. Strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "tail-tile-dropped"

TILE = 2048  # atoms per program and chunk


@triton.jit
def dipole_moment_kernel(q_ptr, r_ptr, mu_ptr, M, N, stride_qm, stride_qn, stride_rm, stride_rn, stride_rc,
                         stride_mm, stride_mc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc_x = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    acc_y = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    acc_z = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    num_chunks = N // BLOCK_N
    for c in range(0, num_chunks):
        cols = c * BLOCK_N + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        q = tl.load(q_ptr + rows[:, None] * stride_qm + cols[None, :] * stride_qn, mask=mask,
                    other=0.0).to(tl.float32)
        r = r_ptr + rows[:, None] * stride_rm + cols[None, :] * stride_rn
        acc_x += q * tl.load(r, mask=mask, other=0.0).to(tl.float32)
        acc_y += q * tl.load(r + stride_rc, mask=mask, other=0.0).to(tl.float32)
        acc_z += q * tl.load(r + 2 * stride_rc, mask=mask, other=0.0).to(tl.float32)
    mu = mu_ptr + rows * stride_mm
    ty = mu_ptr.dtype.element_ty
    tl.store(mu, tl.sum(acc_x, axis=1).to(ty), mask=row_mask)
    tl.store(mu + stride_mc, tl.sum(acc_y, axis=1).to(ty), mask=row_mask)
    tl.store(mu + 2 * stride_mc, tl.sum(acc_z, axis=1).to(ty), mask=row_mask)


def dipole_moment(q: torch.Tensor, r: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = q.shape
    mu = torch.empty((M, 3), dtype=q.dtype, device=q.device)
    if M == 0:
        return mu
    if N == 0:
        return mu.zero_()
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    dipole_moment_kernel[(triton.cdiv(M, block_m),)](
        q, r, mu, M, N, q.stride(0), q.stride(1), r.stride(0), r.stride(1), r.stride(2), mu.stride(0),
        mu.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return mu


def reference(q: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    return (q[:, :, None] * r).sum(dim=1)


spec = kcheck.Spec(
    name="dipole_moment",
    kernel=dipole_moment,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="charges"), kcheck.Tensor("M", "N", 3, name="positions")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=300)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)
