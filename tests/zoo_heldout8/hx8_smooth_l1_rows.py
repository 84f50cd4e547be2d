"""Smooth-L1 (Huber-style, PyTorch's beta convention) loss averaged over each row: out[m] = mean_n l(x[m,n] - y[m,n])
with l(d) = 0.5 d^2 / beta where |d| < beta and |d| - 0.5 beta elsewhere. One program per row, looping over the row in
BLOCK_N chunks with an fp32 per-lane accumulator; int64 row offsets; returns the input dtype."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def smooth_l1_rows_kernel(x_ptr, y_ptr, out_ptr, N, beta, stride_xm, stride_xn, stride_ym, stride_yn,
                          BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    y_row = y_ptr + row * stride_ym
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_row + cols * stride_yn).to(tl.float32)
        d = tl.abs(x - y)
        acc += tl.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    total = tl.sum(acc, axis=0) / N
    tl.store(out_ptr + row, total.to(out_ptr.dtype.element_ty))


def smooth_l1_rows(x: torch.Tensor, y: torch.Tensor, beta: float = 1.0, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, dtype=x.dtype, device=x.device)
    if M == 0:
        return out
    block_n = min(BLOCK_N, triton.next_power_of_2(N))
    smooth_l1_rows_kernel[(M,)](x, y, out, N, beta, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                BLOCK_N=block_n)
    return out


def reference(x: torch.Tensor, y: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    return torch.nn.functional.smooth_l1_loss(x, y, reduction="none", beta=beta).mean(-1)


spec = kcheck.Spec(
    name="hx8_smooth_l1_rows",
    kernel=smooth_l1_rows,
    reference=reference,
    inputs=[kcheck.Tensor("M", "N", name="x"), kcheck.Tensor("M", "N", name="y")],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024, min=1)},
    params={"beta": [1.0, 0.25]},
    reduce=["N"],
    configs=[{"BLOCK_N": 256}, {"BLOCK_N": 64}],
)

BUG_CLASS = "edge-guard"
