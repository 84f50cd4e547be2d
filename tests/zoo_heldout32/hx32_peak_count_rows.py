"""Peak count per row: the number of strict local maxima of each signal, x[i] > x[i - 1] and x[i] > x[i + 1] for
interior samples 1 <= i <= N - 2 (spike counting, heart-beat detection before any thresholding). Returned as an fp32
count per row.

One program per row loops over the interior in BLOCK-wide chunks, loading each sample with its left and right
neighbours; int64 row offsets, strides honoured. A NaN sample is never a peak and makes neither neighbour one.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def peak_count_kernel(x_ptr, out_ptr, N, s_xm, s_xn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * s_xm
    count = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(1, N - 1, BLOCK):
        i = start + tl.arange(0, BLOCK).to(tl.int64)
        inside = i < N
        left = tl.load(base + (i - 1) * s_xn, mask=inside, other=0.0)
        mid = tl.load(base + i * s_xn, mask=inside, other=0.0)
        right = tl.load(base + (i + 1) * s_xn, mask=inside, other=0.0)
        peak = inside & (mid > left) & (mid > right)
        count += tl.where(peak, 1.0, 0.0)
    tl.store(out_ptr + row, tl.sum(count, axis=0))


def peak_count(x: torch.Tensor, BLOCK: int = 256) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=torch.float32, device=x.device)
    if M == 0:
        return out
    peak_count_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] < 3:
        return torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
    mid = x[:, 1:-1]
    return ((mid > x[:, :-2]) & (mid > x[:, 2:])).sum(-1).to(x.dtype)


spec = kcheck.Spec(
    name="hx32_peak_count_rows",
    kernel=peak_count,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=48, real=()), "N": kcheck.Dim(nominal=700, real=(2880,))},
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
    output_dtypes=[torch.float32],
)
