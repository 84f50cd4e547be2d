import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = None


@triton.jit
def rev_cumsum_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, stride_om, stride_on, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    carry = tl.zeros([1], dtype=tl.float32)
    chunks = tl.cdiv(N, BLOCK)
    for i in range(0, chunks):
        start = (chunks - 1 - i).to(tl.int64) * BLOCK
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        y = tl.cumsum(x, axis=0, reverse=True) + carry
        tl.store(o_row + cols * stride_on, y.to(out_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def rev_cumsum(x, BLOCK=256):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        rev_cumsum_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx12_rev_cumsum_ok",
    kernel=rev_cumsum,
    reference=lambda x: x.flip(-1).cumsum(-1).flip(-1),
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"BLOCK": 256}, {"BLOCK": 32}],
)
