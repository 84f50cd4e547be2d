"""Magnitude response of a bank of Butterworth low-pass filters of order n on a frequency grid:

    |H(w; wc)| = 1 / sqrt(1 + (w / wc)^(2n))

for every cutoff wc[c] (rows) and frequency w[f] (columns). (w / wc)^2 is raised to the n-th power by repeated
multiplication (n is a compile-time constant). 2-D tiles, fp32 arithmetic, int64 offsets."""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "no-op"


@triton.jit
def butterworth_kernel(wc_ptr, w_ptr, h_ptr, C, F, stride_wc, stride_w, stride_hc, stride_hf,
                       ORDER: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_F: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_F + tl.arange(0, BLOCK_F).to(tl.int64)
    rmask = rows < C
    cmask = cols < F
    wc = tl.load(wc_ptr + rows * stride_wc, mask=rmask, other=1.0).to(tl.float32)
    w = tl.load(w_ptr + cols * stride_w, mask=cmask, other=0.0).to(tl.float32)
    ratio = w[None, :] / wc[:, None]
    r2 = ratio * ratio
    p = r2
    for _ in tl.static_range(ORDER - 1):
        p = p * r2
    h = 1.0 / tl.sqrt(1.0 + p)
    h_offs = rows[:, None] * stride_hc + cols[None, :] * stride_hf


def butterworth_magnitude(cutoffs: torch.Tensor, freqs: torch.Tensor, order: int = 2, BLOCK_C: int = 16,
                          BLOCK_F: int = 64) -> torch.Tensor:
    C, F = cutoffs.shape[0], freqs.shape[0]
    h = torch.empty((C, F), dtype=freqs.dtype, device=freqs.device)
    if C == 0 or F == 0:
        return h
    grid = (triton.cdiv(C, BLOCK_C), triton.cdiv(F, BLOCK_F))
    butterworth_kernel[grid](cutoffs, freqs, h, C, F, cutoffs.stride(0), freqs.stride(0), h.stride(0), h.stride(1),
                             ORDER=order, BLOCK_C=BLOCK_C, BLOCK_F=BLOCK_F)
    return h


def reference(cutoffs: torch.Tensor, freqs: torch.Tensor, order: int = 2) -> torch.Tensor:
    ratio = freqs[None, :] / cutoffs[:, None]
    return 1.0 / torch.sqrt(1.0 + (ratio * ratio) ** order)


spec = kcheck.Spec(
    name="hx30_butterworth_magnitude",
    kernel=butterworth_magnitude,
    reference=reference,
    inputs=[kcheck.Tensor("C", name="cutoffs"), kcheck.Tensor("F", name="freqs")],
    dims={"C": kcheck.Dim(nominal=24), "F": kcheck.Dim(nominal=1000)},
    configs=[{"BLOCK_C": 16, "BLOCK_F": 64}, {"BLOCK_C": 4, "BLOCK_F": 256}],
    params={"order": [2, 5]},
)
