"""Running maximum along rows (cumulative max, e.g. the high-water mark of a score sequence):
out[m, n] = max_{j<=n} x[m, j]. Long rows are split over column blocks, one program each; a program scans its
block with tl.associative_scan and folds in the running maximum its left neighbour block already wrote
(the last element of that block's output), so the work stays one launch."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def cummax_kernel(x_ptr, out_ptr, N, stride_xm, stride_om, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    pid = tl.program_id(1).to(tl.int64)
    cols = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = cols < N
    x = tl.load(x_ptr + row * stride_xm + cols, mask=mask, other=float("-inf")).to(tl.float32)
    run = tl.associative_scan(x, 0, _max_combine)
    if pid > 0:
        carry = tl.load(out_ptr + row * stride_om + pid * BLOCK - 1).to(tl.float32)
        run = tl.maximum(run, carry)
    tl.store(out_ptr + row * stride_om + cols, run.to(out_ptr.dtype.element_ty), mask=mask)


def cummax(x, BLOCK=128):
    M, N = x.shape
    x = x if x.stride(1) == 1 else x.contiguous()
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M and N:
        cummax_kernel[(M, triton.cdiv(N, BLOCK))](x, out, N, x.stride(0), out.stride(0), BLOCK=BLOCK)
    return out


spec = kcheck.Spec(
    name="hx2_chained_cummax",
    kernel=cummax,
    reference=lambda x: torch.cummax(x, -1).values,
    inputs=[kcheck.Tensor("M", "N")],
    dims={"M": kcheck.Dim(nominal=16, real=()), "N": kcheck.Dim(nominal=512)},
    configs=[{"BLOCK": 128}, {"BLOCK": 64}],
    patterns=["randn", "zeros", "ones", "eye", "arange", "large", "tiny", "constant", "large_mean"],
)

BUG_CLASS = "race"
