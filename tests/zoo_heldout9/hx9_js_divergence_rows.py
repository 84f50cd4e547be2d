"""Jensen-Shannon divergence between the softmax distributions of two logit rows (symmetric distillation loss):
JS = 0.5 * KL(p || m) + 0.5 * KL(q || m), m = (p + q) / 2, per row, 0 * log 0 taken as 0. One program per row,
three passes over BLOCK_N chunks (row maxima, log-normalizers, divergence), log m computed as logaddexp - log 2."""

import torch
import triton
import triton.language as tl

import kcheck

LN2 = 0.6931471805599453


@triton.jit
def jsd_kernel(x_ptr, y_ptr, out_ptr, N, stride_xm, stride_ym, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    y_row = y_ptr + row * N
    mx = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    my = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.load(y_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        mx = tl.maximum(mx, x, propagate_nan=tl.PropagateNan.ALL)
        my = tl.maximum(my, y, propagate_nan=tl.PropagateNan.ALL)
    max_x = tl.max(mx, axis=0)
    max_y = tl.max(my, axis=0)
    sx = tl.zeros([BLOCK_N], dtype=tl.float32)
    sy = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.load(y_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        sx += tl.where(mask, tl.exp(x - max_x), 0.0)
        sy += tl.where(mask, tl.exp(y - max_y), 0.0)
    log_sx = tl.log(tl.sum(sx, axis=0))
    log_sy = tl.log(tl.sum(sy, axis=0))
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        lp = (tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32) - max_x) - log_sx
        lq = (tl.load(y_row + cols, mask=mask, other=0.0).to(tl.float32) - max_y) - log_sy
        hi = tl.maximum(lp, lq, propagate_nan=tl.PropagateNan.ALL)
        lo = tl.minimum(lp, lq, propagate_nan=tl.PropagateNan.ALL)
        hi_safe = tl.where(hi == -float("inf"), 0.0, hi)
        lm = hi + tl.log(1.0 + tl.exp(lo - hi_safe)) - LN2
        p = tl.exp(lp)
        q = tl.exp(lq)
        term = tl.where(p > 0, p * (lp - lm), 0.0) + tl.where(q > 0, q * (lq - lm), 0.0)
        acc += tl.where(mask, term, 0.0)
    tl.store(out_ptr + row, (0.5 * tl.sum(acc, axis=0)).to(out_ptr.dtype.element_ty))


def js_divergence_rows(x: torch.Tensor, y: torch.Tensor, BLOCK_N: int = 512) -> torch.Tensor:
    M, N = x.shape
    if x.stride(1) != 1:
        x = x.contiguous()
    if y.stride(1) != 1:
        y = y.contiguous()
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    jsd_kernel[(M,)](x, y, out, N, x.stride(0), y.stride(0), BLOCK_N=BLOCK_N)
    return out


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    lp = torch.log_softmax(x, -1)
    lq = torch.log_softmax(y, -1)
    lm = torch.logaddexp(lp, lq) - LN2
    p, q = lp.exp(), lq.exp()
    term = torch.where(p > 0, p * (lp - lm), 0.0) + torch.where(q > 0, q * (lq - lm), 0.0)
    return 0.5 * term.sum(-1)


spec = kcheck.Spec(
    name="hx9_js_divergence_rows",
    kernel=js_divergence_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="student_logits"), kcheck.Tensor("M", "N", name="teacher_logits")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK_N": 512}, {"BLOCK_N": 128}],
)

BUG_CLASS = 'stride-assumption'  # the planted class (from the README's table), for benchmarks/zoo.py
