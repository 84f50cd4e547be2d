"""Wing loss for facial-landmark regression (Feng et al., 2018), averaged over each sample's coordinates:

    wing(d) = w * log(1 + |d| / eps)   if |d| < w
              |d| - C                  otherwise,       C = w - w * log(1 + w / eps)
    loss[m] = mean_n wing(pred[m, n] - target[m, n])

Row blocks: each program takes BLOCK_M samples and walks their coordinates in BLOCK_N-wide chunks, accumulating in
fp32. The loss is returned in the inputs' dtype. Row offsets are int64.
"""

import math

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"

W, EPS = 10.0, 2.0
C = W - W * math.log(1.0 + W / EPS)


@triton.jit
def wing_loss_kernel(p_ptr, t_ptr, out_ptr, M, N, s_pm, s_pn, s_tm, s_tn,
                     W: tl.constexpr, EPS: tl.constexpr, C: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    row_ok = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = row_ok[:, None] & (cols <= N)[None, :]
        p = tl.load(p_ptr + rows[:, None] * s_pm + cols[None, :] * s_pn, mask=mask, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + rows[:, None] * s_tm + cols[None, :] * s_tn, mask=mask, other=0.0).to(tl.float32)
        a = tl.abs(p - t)
        u = a / EPS
        w1 = 1.0 + u
        near = W * tl.where(w1 == 1.0, u, tl.log(w1) * (u / (w1 - 1.0)))  # log1p(u), exact for small u
        acc += tl.where(a < W, near, a - C)
    loss = tl.sum(acc, axis=1) / N
    tl.store(out_ptr + rows, loss.to(out_ptr.dtype.element_ty), mask=row_ok)


def wing_loss(pred, target, BLOCK_M=4, BLOCK_N=128):
    M, N = pred.shape
    out = torch.empty((M,), dtype=pred.dtype, device=pred.device)
    if M == 0:
        return out
    wing_loss_kernel[(triton.cdiv(M, BLOCK_M),)](
        pred, target, out, M, N, pred.stride(0), pred.stride(1), target.stride(0), target.stride(1),
        W=W, EPS=EPS, C=C, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(pred, target):
    a = (pred - target).abs()
    return torch.where(a < W, W * torch.log1p(a / EPS), a - C).mean(-1)


spec = kcheck.Spec(
    name="hx15_wing_loss_rows",
    kernel=wing_loss,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="pred"), kcheck.Tensor("M", "N", name="target")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=136, min=1)},
    reduce=["N"],
    configs=[{"BLOCK_M": 4, "BLOCK_N": 128}, {"BLOCK_M": 8, "BLOCK_N": 32}],
)
