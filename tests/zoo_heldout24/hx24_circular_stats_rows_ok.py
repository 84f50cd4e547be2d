"""Circular statistics of angle samples, one row per series (x [M, N], radians): the mean cosine C = mean(cos x),
the mean sine S = mean(sin x) and the mean resultant length R = sqrt(C^2 + S^2) (1 for identical angles, near 0 for
uniform ones). Rows are processed BLOCK_M at a time in a loop over BLOCK_N chunks with fp32 accumulators; three
outputs [M] in the input dtype (NaN for empty rows, as the mean of nothing). Any strides; int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def circular_stats_kernel(x_ptr, c_ptr, s_ptr, r_ptr, M, N, sm, sn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc_c = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    acc_s = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        x = tl.load(x_ptr + rows[:, None] * sm + cols[None, :] * sn, mask=mask, other=0.0).to(tl.float32)
        acc_c += tl.where(mask, tl.cos(x), 0.0)
        acc_s += tl.where(mask, tl.sin(x), 0.0)
    c = tl.sum(acc_c, axis=1) / N
    s = tl.sum(acc_s, axis=1) / N
    r = tl.sqrt(c * c + s * s)
    tl.store(c_ptr + rows, c.to(c_ptr.dtype.element_ty), mask=row_mask)
    tl.store(s_ptr + rows, s.to(s_ptr.dtype.element_ty), mask=row_mask)
    tl.store(r_ptr + rows, r.to(r_ptr.dtype.element_ty), mask=row_mask)


def circular_stats(x: torch.Tensor, BLOCK_N: int = 256, TILE: int = 4096):
    M, N = x.shape
    c, s, r = (torch.empty(M, dtype=x.dtype, device=x.device) for _ in range(3))
    if M == 0:
        return c, s, r
    if N == 0:
        return c.fill_(float("nan")), s.fill_(float("nan")), r.fill_(float("nan"))
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    circular_stats_kernel[(triton.cdiv(M, block_m),)](x, c, s, r, M, N, x.stride(0), x.stride(1),
                                                      BLOCK_M=block_m, BLOCK_N=block_n)
    return c, s, r


def reference(x: torch.Tensor):
    c = torch.cos(x).mean(-1)
    s = torch.sin(x).mean(-1)
    return c, s, torch.sqrt(c * c + s * s)


spec = kcheck.Spec(
    name="hx24_circular_stats_rows_ok",
    kernel=circular_stats,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=720)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
