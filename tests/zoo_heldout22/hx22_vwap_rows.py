"""Volume-weighted average price per instrument over a window of trades.

    vwap[m] = sum_n price[m, n] * |size[m, n]| / sum_n |size[m, n]|,   0 for a window without traded volume

Trade sizes are signed (buy > 0, sell < 0); the weight is the traded quantity |size|. One program per instrument
makes two passes over its trades in BLOCK_N chunks with per-lane fp32 sums: the total and the largest |size|, then
the price sum with weights |size| / max|size| (so tiny prices times tiny sizes do not underflow to 0).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "division-by-zero"


@triton.jit
def vwap_kernel(p_ptr, v_ptr, out_ptr, N, spm, spn, svm, svn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    den = tl.zeros([BLOCK_N], dtype=tl.float32)
    top = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        q = tl.abs(tl.load(v_ptr + row * svm + cols * svn, mask=cols < N, other=0.0).to(tl.float32))
        den += q
        top = tl.maximum(top, q)
    total_den = tl.sum(den, axis=0)
    qmax = tl.max(top, axis=0)
    num = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        p = tl.load(p_ptr + row * spm + cols * spn, mask=mask, other=0.0).to(tl.float32)
        q = tl.abs(tl.load(v_ptr + row * svm + cols * svn, mask=mask, other=0.0).to(tl.float32))
        num += p * (q / qmax)
    total_num = tl.sum(num, axis=0)
    vwap = total_num / (total_den / qmax)
    tl.store(out_ptr + row, vwap.to(out_ptr.dtype.element_ty))


def vwap(price, size, BLOCK_N=128):
    M, N = price.shape
    out = torch.empty((M,), dtype=price.dtype, device=price.device)
    if M:
        vwap_kernel[(M,)](price, size, out, N, price.stride(0), price.stride(1), size.stride(0), size.stride(1),
                          BLOCK_N=BLOCK_N)
    return out


def reference(price, size):
    q = size.abs()
    num = (price * q).sum(-1)
    den = q.sum(-1)
    return torch.where(den == 0, torch.zeros_like(num), num / den)


spec = kcheck.Spec(
    name="hx22_vwap_rows",
    kernel=vwap,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="price"), kcheck.Tensor("M", "N", name="size")],
    dims={"M": kcheck.Dim(nominal=40, max=128, real=()), "N": kcheck.Dim(nominal=390, real=(23400,))},
    reduce=["N"],
    configs=[{"BLOCK_N": 128}, {"BLOCK_N": 512}],
)
