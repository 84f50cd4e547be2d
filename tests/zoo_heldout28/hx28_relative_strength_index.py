"""Relative strength index (Cutler's RSI, simple averages) of a batch of closing-price windows:

    gain = sum_t max(p[t] - p[t-1], 0),   loss = sum_t max(p[t-1] - p[t], 0),   RSI = 100 * gain / (gain + loss)

A window with no price movement at all (gain + loss = 0, including a single price) has RSI 50, the neutral value.
One program per BLOCK_M windows loops over the window in BLOCK_N-wide chunks, reading each price and its
predecessor; fp32 sums, strides honoured, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def rsi_kernel(p_ptr, out_ptr, M, N, s_pm, s_pn, s_o, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    base = p_ptr + rows[:, None] * s_pm
    up = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    down = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(1, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        p = tl.load(base + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
        prev = tl.load(base + (cols - 1)[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
        d = p - prev
        up += tl.where(d > 0.0, d, 0.0)
        down += tl.where(d < 0.0, -d, 0.0)
    gain = tl.sum(up, axis=1)
    loss = tl.sum(down, axis=1)
    total = gain + loss
    rsi = 100.0 * gain / total
    tl.store(out_ptr + rows * s_o, rsi.to(out_ptr.dtype.element_ty), mask=row_mask)


def relative_strength_index(p: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = p.shape
    out = torch.empty((M,), dtype=p.dtype, device=p.device)
    if M:
        block_m = 8
        rsi_kernel[(triton.cdiv(M, block_m),)](p, out, M, N, p.stride(0), p.stride(1), out.stride(0),
                                               BLOCK_M=block_m, BLOCK_N=BLOCK_N)
    return out


def reference(p: torch.Tensor) -> torch.Tensor:
    d = p[:, 1:] - p[:, :-1]
    zero = torch.zeros_like(d)
    gain = torch.where(d > 0, d, zero).sum(-1)
    loss = torch.where(d < 0, -d, zero).sum(-1)
    total = gain + loss
    return torch.where(total > 0, 100.0 * gain / torch.where(total > 0, total, 1.0), 50.0)


spec = kcheck.Spec(
    name="relative_strength_index",
    kernel=relative_strength_index,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="closes")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=300)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)
