"""Participation ratio of wave functions (condensed-matter localization): PR = (sum_i |psi_i|^2)^2 / sum_i |psi_i|^4,
about N for a state spread evenly over N sites and 1 for a state on one site; 0 for an all-zero row.

The ratio is scale-free, so each row is first scaled by 1 / max_i |psi_i|: the fourth powers of tiny amplitudes
(1e-38) would underflow fp32 and those of large ones overflow. Each program takes BLOCK_M rows: a first pass finds
the row's largest magnitude, a second sums u^2 and u^4 of u = psi / max per lane in fp32. Row offsets are int64.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def participation_kernel(x_ptr, out_ptr, M, N, s_xm, s_xn, s_o, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    x_row = x_ptr + rows[:, None] * s_xm
    peak = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_row + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        peak = tl.maximum(peak, tl.abs(x))
    m = tl.max(peak, axis=1)
    inv = tl.where(m > 0.0, 1.0 / m, 0.0)[:, None]
    s2 = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    s4 = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_row + cols[None, :] * s_xn, mask=mask, other=0.0).to(tl.float32)
        u2 = (x * inv) * (x * inv)
        s2 += u2
        s4 += u2 * u2
    a = tl.sum(s2, axis=1)
    b = tl.sum(s4, axis=1)
    pr = tl.where(b == 0.0, 0.0, a * a / b)
    tl.store(out_ptr + rows * s_o, pr.to(out_ptr.dtype.element_ty), mask=row_mask)


def participation_ratio(psi: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = psi.shape
    out = torch.empty((M,), dtype=psi.dtype, device=psi.device)
    if M == 0:
        return out
    block_m = 8
    participation_kernel[(triton.cdiv(M, block_m),)](psi, out, M, N, psi.stride(0), psi.stride(1), out.stride(0),
                                                     BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return out


def reference(psi: torch.Tensor) -> torch.Tensor:
    m = psi.abs().amax(dim=-1, keepdim=True) if psi.shape[-1] else psi.new_zeros(psi.shape[0], 1)
    inv = torch.where(m > 0, 1.0 / m, torch.zeros_like(m))
    u2 = (psi * inv) ** 2
    a, b = u2.sum(-1), (u2 * u2).sum(-1)
    return torch.where(b == 0, torch.zeros_like(b), a * a / b)


spec = kcheck.Spec(
    name="participation_ratio_ok",
    kernel=participation_ratio,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="psi")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=500)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 64}],
)
