import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "off-by-one-mask"


@triton.jit
def mad_kernel(x_ptr, out_ptr, N, stride_m, stride_n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_m
    shift = tl.load(x_row).to(tl.float32)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = cols < N - 1
        x = tl.load(x_row + cols * stride_n, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, x - shift, 0.0)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = cols < N - 1
        x = tl.load(x_row + cols * stride_n, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, tl.abs((x - shift) - mean), 0.0)
    tl.store(out_ptr + row, (tl.sum(acc, axis=0) / N).to(out_ptr.dtype.element_ty))


def mean_abs_dev(x, BLOCK=256):
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    if N == 0:
        return out.fill_(float("nan"))
    mad_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK=BLOCK)
    return out


def reference(x):
    return (x - x.mean(-1, keepdim=True)).abs().mean(-1)


spec = kcheck.Spec(
    name="hx12_mad_rows",
    kernel=mean_abs_dev,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK": 256}, {"BLOCK": 64}],
)
