"""Portfolio valuation: value[m] = sum_n quantity[m, n] * price[m, n] (one portfolio per row), one program per row,
a chunk loop over the holdings with an fp32 running sum per lane."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def portfolio_value_kernel(q_ptr, p_ptr, out_ptr, N, sqm, sqn, spm, spn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK_N,), q_ptr.dtype.element_ty)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        q = tl.load(q_ptr + row * sqm + cols * sqn, mask=mask, other=0.0)
        p = tl.load(p_ptr + row * spm + cols * spn, mask=mask, other=0.0)
        acc += q * p
    tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def portfolio_value(quantity: torch.Tensor, price: torch.Tensor, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = quantity.shape
    out = torch.empty((M,), dtype=quantity.dtype, device=quantity.device)
    if M:
        portfolio_value_kernel[(M,)](quantity, price, out, N, quantity.stride(0), quantity.stride(1),
                                     price.stride(0), price.stride(1), BLOCK_N=BLOCK_N)
    return out


def reference(quantity: torch.Tensor, price: torch.Tensor) -> torch.Tensor:
    return (quantity * price).sum(-1)


spec = kcheck.Spec(
    name="hx21_portfolio_value",
    kernel=portfolio_value,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="quantity"), kcheck.Tensor("M", "N", name="price")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=8192, max=8192)},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)
BUG_CLASS = "low-precision-accumulation"
