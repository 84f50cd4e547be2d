"""Pearson correlation coefficient between paired rows x[i, :] and y[i, :] (e.g. a correlation metric between
predicted and target signals):

    r[i] = cov(x_i, y_i) / (std(x_i) * std(y_i) + eps)

One program per row, streaming both rows once in BLOCK_N-wide chunks with fp32 accumulators for the sums, the
sums of squares and the cross-products."""

import torch
import triton
import triton.language as tl

import kcheck

EPS = 1e-8


@triton.jit
def pearson_kernel(x_ptr, y_ptr, out_ptr, N, stride_x, stride_y, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    y_row = y_ptr + row * stride_y
    sx = tl.zeros([BLOCK_N], dtype=tl.float32)
    sy = tl.zeros([BLOCK_N], dtype=tl.float32)
    sxy = tl.zeros([BLOCK_N], dtype=tl.float32)
    sxx = tl.zeros([BLOCK_N], dtype=tl.float32)
    syy = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_row + cols, mask=mask, other=0.0).to(tl.float32)
        sx += x
        sy += y
        sxy += x * y
        sxx += x * x
        syy += y * y
    mx = tl.sum(sx, axis=0) / N
    my = tl.sum(sy, axis=0) / N
    cov = tl.sum(sxy, axis=0) - N * mx * my
    vx = tl.maximum(tl.sum(sxx, axis=0) - N * mx * mx, 0.0)
    vy = tl.maximum(tl.sum(syy, axis=0) - N * my * my, 0.0)
    r = cov / (tl.sqrt(vx) * tl.sqrt(vy) + eps)
    tl.store(out_ptr + row, r.to(out_ptr.dtype.element_ty))


def pearson_corr(x, y, BLOCK_N=256):
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    x = x if x.stride(1) == 1 else x.contiguous()
    y = y if y.stride(1) == 1 else y.contiguous()
    pearson_kernel[(M,)](x, y, out, N, x.stride(0), y.stride(0), EPS, BLOCK_N=min(BLOCK_N, triton.next_power_of_2(N)))
    return out


def reference(x, y):
    dx = x - x.mean(-1, keepdim=True)
    dy = y - y.mean(-1, keepdim=True)
    cov = (dx * dy).sum(-1)
    return cov / (dx.pow(2).sum(-1).sqrt() * dy.pow(2).sum(-1).sqrt() + EPS)


spec = kcheck.Spec(
    name="hx7_pearson_corr",
    kernel=pearson_corr,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="y")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, min=1)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 1024}],
)

BUG_CLASS = "cancellation"
