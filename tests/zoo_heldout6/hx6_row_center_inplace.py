"""In-place row centering, x -= x.mean(dim=-1, keepdim=True), returning x. Long rows are split over CHUNK-wide
column ranges so that a few very long rows still spread over many programs: each program reads its whole row
for the mean (fp32, BLOCK_N-wide steps, taken of x - x[row, 0] so that a large common offset costs no
precision), then subtracts it over its own column range. Strides honoured."""

import torch
import triton
import triton.language as tl

import kcheck


@triton.jit
def center_kernel(x_ptr, N, stride_xm, stride_xn, CHUNK: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    shift = tl.load(x_row).to(tl.float32)
    shift = tl.where(tl.abs(shift) < float("inf"), shift, 0.0)  # a NaN or Inf first element: no shift
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, x - shift, 0.0)
    mean = tl.sum(acc, axis=0) / N
    for start in range(0, CHUNK, BLOCK_N):
        cols = chunk * CHUNK + start + tl.arange(0, BLOCK_N).to(tl.int64)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
        tl.store(x_row + cols * stride_xn, ((x - shift) - mean).to(x_ptr.dtype.element_ty), mask=mask)


def center_rows_(x: torch.Tensor, CHUNK: int = 1024, BLOCK_N: int = 256) -> torch.Tensor:
    M, N = x.shape
    if M and N:
        center_kernel[(M, triton.cdiv(N, CHUNK))](x, N, x.stride(0), x.stride(1), CHUNK=CHUNK, BLOCK_N=BLOCK_N)
    return x


spec = kcheck.Spec(
    name="hx6_row_center_inplace",
    kernel=center_rows_,
    reference=lambda x: x - x.mean(dim=-1, keepdim=True),
    inputs=[kcheck.Tensor("M", "N", mutated=True)],
    dims={"M": kcheck.Dim(nominal=64), "N": kcheck.Dim(nominal=1024)},
    reduce=["N"],
    configs=[{"CHUNK": 1024, "BLOCK_N": 256}, {"CHUNK": 4096, "BLOCK_N": 1024}],
    properties=[kcheck.props.shift_invariant(0)],
)

BUG_CLASS = "race"
