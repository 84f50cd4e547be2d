"""Maximum drawdown of each row of log prices (or log equity): the largest fall from a running peak,

    dd = max_t ( max_{s <= t} p_s - p_t )    (>= 0; exp(-dd) - 1 is the worst peak-to-trough return)

A NaN price poisons the running peak from there on, and the drawdown with it.

Each program takes BLOCK_M rows of one BLOCK_N-wide block (N <= 8192): the running peak is a prefix scan with a
NaN-propagating maximum along the row, then a NaN-propagating max-reduction of peak - p. Strides passed explicitly,
int64 offsets, fp32 inside, the drawdown returned in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "kernel-raises"

TILE = 4096


@triton.jit
def _max_nan(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def max_drawdown_kernel(p_ptr, out_ptr, M, N, s_pm, s_pn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    p = tl.load(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, mask=mask, other=-float("inf"))
    p = p.to(tl.float32)
    peak = tl.associative_scan(p, 1, _max_nan)
    fall = tl.where(mask, peak - p, 0.0)
    dd = tl.reduce(fall, 1, _max_nan)
    tl.store(out_ptr + rows, dd.to(out_ptr.dtype.element_ty), mask=rows < M)


def max_drawdown(p: torch.Tensor) -> torch.Tensor:
    M, N = p.shape
    out = torch.empty((M,), dtype=p.dtype, device=p.device)
    if M == 0:
        return out
    if N == 0:
        return out.zero_()
    block_n = N
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    max_drawdown_kernel[(triton.cdiv(M, block_m),)](p, out, M, N, p.stride(0), p.stride(1), BLOCK_M=block_m,
                                                   BLOCK_N=block_n)
    return out


def reference(p: torch.Tensor) -> torch.Tensor:
    if p.shape[-1] == 0:
        return torch.zeros(p.shape[:-1], dtype=p.dtype, device=p.device)
    peak = torch.cummax(p, dim=-1).values
    return (peak - p).amax(-1)


spec = kcheck.Spec(
    name="hx32_max_drawdown_rows",
    kernel=max_drawdown,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="log_price")],
    dims={"M": kcheck.Dim(nominal=16, max=32, real=()), "N": kcheck.Dim(nominal=252, max=8192, real=(2880,))},
)
