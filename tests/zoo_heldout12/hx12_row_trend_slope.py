import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "cancellation"


@triton.jit
def slope_kernel(x_ptr, out_ptr, N, stride_m, stride_n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_m
    t_mean = (N - 1) * 0.5
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    acc_x = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_row + cols.to(tl.int64) * stride_n, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, cols.to(tl.float32) * x, 0.0)
        acc_x += tl.where(mask, x, 0.0)
    nf = N.to(tl.float32)
    s_tt = nf * (nf * nf - 1.0) / 12.0
    slope = tl.where(N > 1, (tl.sum(acc, axis=0) - t_mean * tl.sum(acc_x, axis=0)) / tl.maximum(s_tt, 1.0), 0.0)
    tl.store(out_ptr + row, slope.to(out_ptr.dtype.element_ty))


def trend_slope(x, BLOCK=256):
    M, N = x.shape
    out = torch.zeros((M,), dtype=x.dtype, device=x.device)
    if M and N:
        slope_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x):
    N = x.shape[-1]
    if N < 2:
        return torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
    t = torch.arange(N, dtype=x.dtype, device=x.device)
    tc = t - t.mean()
    return ((x - x[:, :1]) * tc).sum(-1) / (tc * tc).sum()


spec = kcheck.Spec(
    name="hx12_row_trend_slope",
    kernel=trend_slope,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
