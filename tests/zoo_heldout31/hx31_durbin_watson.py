"""Durbin-Watson statistic of regression residuals, one series per row:
d[m] = sum_{t>=1} (e[m, t] - e[m, t-1])^2 / sum_t e[m, t]^2 (near 2: no first-order autocorrelation). The series is
read twice in BLOCK_N chunks: a first pass finds the row's largest magnitude, by which the second divides every
residual (subnormal residuals would underflow when squared); each chunk is read with its predecessor element,
differences taken before scaling and squaring, fp32 per-lane running sums, several series per program, int64 row
offsets, strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def durbin_watson_kernel(e_ptr, out_ptr, M, N, s_em, s_en, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    amax = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        e = tl.load(e_ptr + rows[:, None] * s_em + cols[None, :] * s_en, mask=mask, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.max(tl.abs(e), axis=1))
    scale = tl.where(amax > 0.0, amax, 1.0)[:, None]
    num = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    den = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols < N)[None, :]
        pmask = mask & (cols >= 1)[None, :]
        e = tl.load(e_ptr + rows[:, None] * s_em + cols[None, :] * s_en, mask=mask, other=0.0).to(tl.float32)
        ep = tl.load(e_ptr + rows[:, None] * s_em + (cols - 1)[None, :] * s_en, mask=pmask, other=0.0).to(tl.float32)
        d = tl.where(pmask, (e - ep) / scale, 0.0)
        es = e / scale
        num += tl.where(pmask, (e * e + ep * ep - 2.0 * e * ep) / (scale * scale), 0.0)
        den += es * es
    dw = tl.sum(num, axis=1) / tl.sum(den, axis=1)
    tl.store(out_ptr + rows, dw.to(out_ptr.dtype.element_ty), mask=row_mask)


def durbin_watson(e: torch.Tensor, BLOCK_N: int = 128) -> torch.Tensor:
    M, N = e.shape
    out = torch.empty((M,), dtype=e.dtype, device=e.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(max(N, 1)))
    block_m = max(1, min(1024 // block_n, triton.next_power_of_2(M)))
    durbin_watson_kernel[(triton.cdiv(M, block_m),)](e, out, M, N, e.stride(0), e.stride(1),
                                                    BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(e: torch.Tensor) -> torch.Tensor:
    return (e[:, 1:] - e[:, :-1]).pow(2).sum(-1) / e.pow(2).sum(-1)


spec = kcheck.Spec(
    name="hx31_durbin_watson",
    kernel=durbin_watson,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=400)},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 32}],
)
