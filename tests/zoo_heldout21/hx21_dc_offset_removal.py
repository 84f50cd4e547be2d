"""DC offset removal per row (mean centering of each signal): y = x - mean(x), one program per row holding the
whole row in a power-of-two block, fp32 math."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def dc_remove_kernel(x_ptr, y_ptr, N, sxm, sxn, sym, syn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    mask = cols < N
    x = tl.load(x_ptr + row * sxm + cols * sxn, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    y = x - mean
    tl.store(y_ptr + row * sym + cols * syn, y.to(y_ptr.dtype.element_ty), mask=mask)


def dc_offset_removal(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        block_n = triton.next_power_of_2(N)
        dc_remove_kernel[(M,)](x, y, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BLOCK_N=N)
    return y


def reference(x: torch.Tensor) -> torch.Tensor:
    return x - x.mean(-1, keepdim=True)


spec = kcheck.Spec(
    name="hx21_dc_offset_removal",
    kernel=dc_offset_removal,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=4, max=8, real=()), "N": kcheck.Dim(nominal=1000, max=4096)},
    reduce=["N"],
)
BUG_CLASS = "kernel-raises"
