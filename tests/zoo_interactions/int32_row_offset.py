"""Bug class: int32 overflow of a row's start offset, not of the flat element count.

Per row of logits (M rows of V classes), the maximum logit. The kernel computes the row's start as
``tl.program_id(0) * stride``: two int32 values, so the product wraps once ``row * V`` passes 2**31. A past-2**31
case that grows V (the cheapest way to pass 2**31 elements: the targets do not grow with it) keeps the last row's
start at (M - 1) * V < 2**31 for a small M, and passes. Growing the number of rows instead (M = 2**31 / V + 2)
makes the last rows start past 2**31, and their maxima are read from the wrong memory. A GPU shows it; the CPU
cannot hold the case.
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = "int32-overflow"
GPU_ONLY = True


@triton.jit
def row_max_kernel(x_ptr, t_ptr, out_ptr, V, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * stride  # BUG: int32 * int32
    best = tl.full((BLOCK,), float("-inf"), tl.float32)
    for start in range(0, V, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        best = tl.maximum(best, tl.load(base + offs, mask=offs < V, other=float("-inf")).to(tl.float32))
    target = tl.load(t_ptr + row)
    picked = tl.load(base + target).to(tl.float32)
    tl.store(out_ptr + row, tl.max(best, axis=0) - picked)


def margin(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    M, V = logits.shape
    out = torch.empty(M, dtype=torch.float32, device=logits.device)
    if M and V:
        row_max_kernel[(M,)](logits, targets, out, V, logits.stride(0), BLOCK=1024)
    return out.to(logits.dtype)


def reference(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return logits.max(dim=1).values - logits.gather(1, targets[:, None])[:, 0]


spec = kcheck.Spec(
    name="int32_row_offset",
    kernel=margin,
    reference=reference,
    inputs=[kcheck.Tensor("M", "V"), kcheck.Index("M", high="V")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "V": kcheck.Dim(nominal=4096, min=1, real=(32000,))},
    dtypes=["fp32"],
    # a GPU's max drops NaN where torch's propagates it: NaN logits are outside this kernel's contract
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)
