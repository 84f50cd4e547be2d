"""Pinball (quantile) loss per row, the training loss of quantile-regression forecasters (e.g. the multi-horizon
heads of a demand or latency model): loss[i] = mean_j max(tau * (y - p), (tau - 1) * (y - p)).

Row-block kernel: BLOCK_M rows per program walk the row in BLOCK_N-wide chunks; each chunk's losses are reduced
across the chunk and added to a per-row running total, divided by N at the end. The output is in the inputs'
dtype.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def pinball_kernel(p_ptr, y_ptr, out_ptr, M, N, tau, stride_pm, stride_pn, stride_ym, stride_yn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < M
    acc = tl.zeros([BLOCK_M], dtype=out_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_ok[:, None] & (cols < N)[None, :]
        p = tl.load(p_ptr + rows[:, None] * stride_pm + cols[None, :] * stride_pn, mask=mask, other=0.0)
        y = tl.load(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yn, mask=mask, other=0.0)
        diff = y.to(tl.float32) - p.to(tl.float32)
        loss = tl.maximum(tau * diff, (tau - 1.0) * diff)
        acc += tl.sum(loss, axis=1).to(acc.dtype)
    tl.store(out_ptr + rows, (acc.to(tl.float32) / N).to(out_ptr.dtype.element_ty), mask=row_ok)


def pinball_loss(pred: torch.Tensor, target: torch.Tensor, tau: float = 0.9, BLOCK_M: int = 16,
                 BLOCK_N: int = 32) -> torch.Tensor:
    M, N = pred.shape
    out = torch.empty((M,), dtype=pred.dtype, device=pred.device)
    if M == 0:
        return out
    pinball_kernel[(triton.cdiv(M, BLOCK_M),)](pred, target, out, M, N, tau, pred.stride(0), pred.stride(1),
                                               target.stride(0), target.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(pred: torch.Tensor, target: torch.Tensor, tau: float = 0.9) -> torch.Tensor:
    diff = target - pred
    return torch.maximum(tau * diff, (tau - 1.0) * diff).mean(dim=-1)


spec = kcheck.Spec(
    name="hx14_pinball_loss",
    kernel=pinball_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=16384)},
    reduce=["N"],
    params={"tau": [0.9, 0.5]},
    configs=[{"BLOCK_M": 16, "BLOCK_N": 32}, {"BLOCK_M": 4, "BLOCK_N": 256}],
)
