"""Seasonal effective rainfall per field (agronomy): the sum over days of the rain above an interception
threshold, out[m] = sum_j max(P[m, j] - threshold, 0), with the threshold (mm) a mode.

BLOCK_M fields per program, each row walked in BLOCK_N-wide chunks into a per-lane fp32 running sum, reduced once
at the end; any strides, int64 offsets; the result is stored in the input dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def effective_rain_kernel(p_ptr, out_ptr, M, N, threshold, s_pm, s_pn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=p_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_mask[:, None] & (cols[None, :] < N)
        p = tl.load(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, tl.maximum(p - threshold, 0.0, propagate_nan=tl.PropagateNan.ALL), 0.0).to(acc.dtype)
    total = tl.sum(acc.to(tl.float32), axis=1)
    tl.store(out_ptr + rows, total.to(out_ptr.dtype.element_ty), mask=row_mask)


def effective_rainfall(p, threshold=0.5, BLOCK_M=8, BLOCK_N=16):
    M, N = p.shape
    out = torch.empty((M,), dtype=p.dtype, device=p.device)
    if M == 0:
        return out
    effective_rain_kernel[(triton.cdiv(M, BLOCK_M),)](p, out, M, N, float(threshold), p.stride(0), p.stride(1),
                                                      BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(p, threshold=0.5):
    return torch.clamp(p - threshold, min=0.0).sum(-1)


spec = kcheck.Spec(
    name="effective_rainfall_sum",
    kernel=effective_rainfall,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="rain")],
    params={"threshold": [0.5, 0.0]},
    dims={"M": kcheck.Dim(nominal=16), "N": kcheck.Dim(nominal=4000)},
    reduce=["N"],
    configs=[{"BLOCK_M": 8, "BLOCK_N": 16}, {"BLOCK_M": 4, "BLOCK_N": 128}],
)
