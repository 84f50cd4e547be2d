"""Top-1 logit margin per row (a confidence score used in active learning and calibration): the largest logit
minus the second largest, 0 when the top value is tied. Rows of N >= 2 logits.

One power-of-2 block per row (N <= 8192), several rows per program: the max, its first position (tl.argmax), and
the max of the row with that one position masked out. fp32, any strides, int64 offsets.
"""

import torch
import triton
import triton.language as tl

import kcheck

TILE = 4096


@triton.jit
def logit_margin_kernel(x_ptr, out_ptr, M, N, sxm, sxn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    cols = tl.arange(0, BLOCK_N).to(tl.int64)
    row_mask = rows < M
    mask = row_mask[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn, mask=mask, other=-float("inf")).to(tl.float32)
    top1 = tl.max(x, axis=1)
    first = tl.argmax(x, axis=1)
    rest = tl.where(cols[None, :] == first[:, None], -float("inf"), x)
    top2 = tl.max(rest, axis=1)
    tl.store(out_ptr + rows, (top1 - top2).to(out_ptr.dtype.element_ty), mask=row_mask)


def logit_margin(logits: torch.Tensor) -> torch.Tensor:
    M, N = logits.shape
    out = torch.empty((M,), dtype=logits.dtype, device=logits.device)
    if M == 0:
        return out
    block_n = N
    block_m = max(1, min(TILE // block_n, triton.next_power_of_2(M)))
    logit_margin_kernel[(triton.cdiv(M, block_m),)](logits, out, M, N, logits.stride(0), logits.stride(1),
                                                    BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(logits: torch.Tensor) -> torch.Tensor:
    top = torch.topk(logits, 2, dim=-1).values
    return top[:, 0] - top[:, 1]


BUG_CLASS = "kernel-raises"

spec = kcheck.Spec(
    name="hx23_logit_margin_rows",
    kernel=logit_margin,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="logits")],
    dims={"M": kcheck.Dim(nominal=64, real=()), "N": kcheck.Dim(nominal=1000, min=2, max=8192, real=(37, 2880))},
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)
