import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def wmean_kernel(x_ptr, w_ptr, out_ptr, N, stride_xm, stride_xn, stride_wm, stride_wn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    num = tl.zeros([BLOCK], dtype=tl.float32)
    den = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        w = tl.abs(tl.load(w_ptr + row * stride_wm + cols * stride_wn, mask=mask, other=0.0).to(tl.float32))
        num += w * x
        den += w
    s_num = tl.sum(num, axis=0)
    s_den = tl.sum(den, axis=0)
    y = s_num / s_den
    tl.store(out_ptr + row, y.to(out_ptr.dtype.element_ty))


def weighted_row_mean(x, w, BLOCK=128):
    M, N = x.shape
    out = torch.zeros((M,), dtype=x.dtype, device=x.device)
    if M and N:
        wmean_kernel[(M,)](x, w, out, N, x.stride(0), x.stride(1), w.stride(0), w.stride(1), BLOCK=BLOCK)
    return out


def reference(x, w):
    w = w.abs()
    den = w.sum(-1)
    return torch.where(den > 0, (w * x).sum(-1) / torch.where(den > 0, den, torch.ones_like(den)),
                       torch.zeros_like(den))


spec = kcheck.Spec(
    name="hx12_weighted_row_mean",
    kernel=weighted_row_mean,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="w")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=512)},
    reduce=["N"],
    configs=[{"BLOCK": 128}, {"BLOCK": 32}],
)
