import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "low-precision-accumulation"


@triton.jit
def masked_sum_kernel(x_ptr, m_ptr, out_ptr, N, stride_xm, stride_xn, stride_mm, stride_mn, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK).to(tl.int64)
        inb = cols < N
        keep = tl.load(m_ptr + row * stride_mm + cols * stride_mn, mask=inb, other=0) != 0
        x = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=inb & keep, other=0.0)
        acc += x
    tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def masked_token_sum(x, keep, BLOCK=32):
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    if M:
        km = keep.view(torch.uint8)
        masked_sum_kernel[(M,)](x, km, out, N, x.stride(0), x.stride(1), km.stride(0), km.stride(1), BLOCK=BLOCK)
    return out


def reference(x, keep):
    return torch.where(keep, x, torch.zeros_like(x)).sum(-1)


spec = kcheck.Spec(
    name="hx12_masked_token_sum",
    kernel=masked_token_sum,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N"), kcheck.Tensor("M", "N", dtype=torch.bool, density=0.8)],
    dims={"M": kcheck.Dim(nominal=32), "N": kcheck.Dim(nominal=4096)},
    reduce=["N"],
    configs=[{"BLOCK": 32}, {"BLOCK": 128}],
)
