"""One row step of Sinkhorn balancing (optimal transport, Sinkhorn attention, balanced MoE routing):
P = |K| * (r / sum_j |K|_ij), so that row i of P sums to the target marginal r_i. One program per
BLOCK_M rows; pass 1 sums |K| over BLOCK_N chunks in fp32, pass 2 writes the rescaled rows."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def sinkhorn_row_kernel(k_ptr, r_ptr, p_ptr, M, N, skm, skn, spm, spn, BLOCK_M: tl.constexpr,
                        BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    rmask = rows < M
    k_row = k_ptr + rows[:, None] * skm
    p_row = p_ptr + rows[:, None] * spm
    s = tl.zeros([BLOCK_M], dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        m = rmask[:, None] & (cols < N)[None, :]
        s += tl.sum(tl.abs(tl.load(k_row + cols[None, :] * skn, mask=m, other=0.0).to(tl.float32)), axis=1)
    r = tl.load(r_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    scale = r / s
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        m = rmask[:, None] & (cols < N)[None, :]
        a = tl.abs(tl.load(k_row + cols[None, :] * skn, mask=m, other=0.0).to(tl.float32))
        tl.store(p_row + cols[None, :] * spn, (a * scale[:, None]).to(p_ptr.dtype.element_ty), mask=m)


def sinkhorn_row_scale(k: torch.Tensor, r: torch.Tensor, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = k.shape
    p = torch.empty((M, N), dtype=k.dtype, device=k.device)
    if M == 0 or N == 0:
        return p
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(4096 // block_n, triton.next_power_of_2(M)))
    sinkhorn_row_kernel[(triton.cdiv(M, block_m),)](k, r, p, M, N, k.stride(0), k.stride(1), p.stride(0),
                                                    p.stride(1), BLOCK_M=block_m, BLOCK_N=block_n)
    return p


def reference(k: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    a = k.abs()
    return a * (r / a.sum(-1).clamp_min(1e-12))[:, None]


spec = kcheck.Spec(
    name="hx16_sinkhorn_row_scale",
    kernel=sinkhorn_row_scale,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="kernel_matrix"), kcheck.Tensor("M", name="row_marginals")],
    dims={"M": kcheck.Dim(nominal=128), "N": kcheck.Dim(nominal=256)},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 64}],
)
