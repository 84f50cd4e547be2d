"""Clarity index C_te of room impulse responses (room acoustics, ISO 3382-1).

For each impulse response h (one row, sampled from the direct sound on), the early-to-late energy ratio in dB:

    C = 10 * log10( sum_{t < early} h[t]^2 / sum_{t >= early} h[t]^2 )

`early` is the boundary in samples (C80 for music at 1 kHz: 80 samples; C50 for speech: 50), a mode of the Spec.
Each program takes BLOCK_M responses and walks them in BLOCK_N-sample chunks twice: once for the peak magnitude,
then accumulating both energies in fp32 on the response divided by its peak (subnormal responses would square to
zero otherwise; the ratio does not change).
An all-zero response gives NaN (0/0), one without late energy +inf, as the formula does.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def clarity_kernel(h_ptr, out_ptr, M, N, early, s_hm, s_hn, s_o,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    # pass 1: each response's peak magnitude; the energies are summed on h / peak, so that a quiet (subnormal)
    # response does not square to zero, while the ratio is unchanged
    peak = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        valid = row_mask[:, None] & (cols < N)[None, :]
        h = tl.load(h_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=valid, other=0.0).to(tl.float32)
        peak = tl.maximum(peak, tl.abs(h))
    pk = tl.max(peak, axis=1)
    scale = tl.where((pk > 0.0) & (pk < float("inf")), 1.0 / pk, 1.0)[:, None]
    # pass 2: early and late energies
    e_early = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    e_late = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        valid = row_mask[:, None] & (cols < N)[None, :]
        h = tl.load(h_ptr + rows[:, None] * s_hm + cols[None, :] * s_hn, mask=valid, other=0.0).to(tl.float32) * scale
        is_early = (cols <= early)[None, :]
        e2 = h * h
        e_early += tl.where(valid & is_early, e2, 0.0)
        e_late += tl.where(valid & (~is_early), e2, 0.0)
    ratio = tl.sum(e_early, axis=1) / tl.sum(e_late, axis=1)
    c = 4.342944819032518 * tl.log(ratio)  # 10 / ln(10) * ln(ratio)
    tl.store(out_ptr + rows * s_o, c.to(out_ptr.dtype.element_ty), mask=row_mask)


def clarity_index(h: torch.Tensor, early: int = 80, BLOCK_M: int = 4, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = h.shape
    out = torch.empty((M,), dtype=h.dtype, device=h.device)
    if M == 0:
        return out
    clarity_kernel[(triton.cdiv(M, BLOCK_M),)](h, out, M, N, early, h.stride(0), h.stride(1), out.stride(0),
                                               BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(h: torch.Tensor, early: int = 80) -> torch.Tensor:
    e = h * h
    return 10.0 * torch.log10(e[:, :early].sum(-1) / e[:, early:].sum(-1))


spec = kcheck.Spec(
    name="hx39_clarity_index_rows",
    kernel=clarity_index,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="h")],
    dims={"M": kcheck.Dim(nominal=48), "N": kcheck.Dim(nominal=1000, min=1)},
    params={"early": [80, 50]},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 256}, {"BLOCK_M": 1, "BLOCK_N": 64}],
)
